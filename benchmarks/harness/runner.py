"""The run loop the benchmarks share: the runs not done yet, in parallel processes, each row stored
as it arrives (ours to the results file, keyed by commit; the peers' to the peer cache), so that an
interrupted benchmark resumes where it stopped."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from benchmarks.harness.cache import PeerCache
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import ResultsFile, key
from benchmarks.harness.samplers import is_peer
from benchmarks.harness.workers import pool_map


def not_done(
    jobs: Iterable[dict],
    *,
    out: ResultsFile,
    cell: Sequence[str],
    cache: PeerCache | None = None,
    peer_cell: Sequence[str] | None = None,
) -> list[dict]:
    """The ``jobs`` (``sampler`` and the ``cell`` fields) whose row is not stored yet: ours at the
    current commit, the peers' at the current versions (without a ``cache``, all are ours); a job
    of several ``samplers`` run together, until all their rows are."""
    ours_key = ("sampler", "commit", *cell)
    done_ours, code = out.done(ours_key), commit()
    done_peers = cache.done() if cache is not None else set()
    peer_cell = cell if peer_cell is None else peer_cell

    def stored(job: dict, sampler: str) -> bool:
        if cache is not None and is_peer(sampler):
            return cache.key(sampler, **{f: job.get(f) for f in peer_cell}) in done_peers
        return key({**job, "sampler": sampler, "commit": code}, ours_key) in done_ours

    return [j for j in jobs if not all(stored(j, s) for s in j.get("samplers", [j.get("sampler")]))]


def run_jobs(
    jobs: Iterable[dict],
    run_job: Callable[[dict], dict | list[dict]],
    *,
    out: ResultsFile,
    cell: Sequence[str],
    cache: PeerCache | None = None,
    peer_cell: Sequence[str] | None = None,
    procs: int = 1,
    describe: Callable[[dict], str] = str,
) -> None:
    """Run the jobs :func:`not_done`, ``procs`` at a time (``run_job``: module-level, for spawned
    processes; a row or a list of rows), storing each row as it arrives and printing
    ``describe(row)``."""
    peer_cell = cell if peer_cell is None else peer_cell
    todo = not_done(jobs, out=out, cell=cell, cache=cache, peer_cell=peer_cell)
    peers = f", peers to {cache.file.path}" if cache is not None else ""
    print(f"{len(todo)} runs to do: ours to {out.path}{peers}", flush=True)
    for rows in pool_map(run_job, todo, procs=procs):
        for row in rows if isinstance(rows, list) else [rows]:
            if cache is not None and is_peer(row["sampler"]):
                cache.put(row, tuple(peer_cell))
            else:
                out.append(row)
            print(describe(row), flush=True)


def run_and_summarise(
    jobs: Iterable[dict],
    run_job: Callable[[dict], dict | list[dict]],
    *,
    out: str,
    cell: Sequence[str],
    describe: Callable[[dict], str],
    summarise: Callable[[list[dict]], list[str]],
) -> None:
    """A script's runs (:func:`run_jobs`, one process) into the results file ``out``, then its
    ``summarise`` of every row there printed."""
    results = ResultsFile(out)
    run_jobs(jobs, run_job, out=results, cell=cell, describe=describe)
    print("\n".join(summarise(results.rows())))
