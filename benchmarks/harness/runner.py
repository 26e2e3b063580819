"""The run loop the benchmarks share: the runs not done yet, in parallel processes, each row stored
as it arrives, so that an interrupted benchmark resumes where it stopped.

Our samplers' rows go to the benchmark's results file, keyed by sampler, commit and ``cell`` (a
new commit runs them again); the peers' to the peer cache, keyed by ``peer_cell``, the versions
of the peer's packages and the benchmark's protocol (``cache.PeerCache``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from benchmarks.harness.cache import PeerCache
from benchmarks.harness.provenance import commit
from benchmarks.harness.results import ResultsFile, key
from benchmarks.harness.samplers import is_peer
from benchmarks.harness.workers import pool_map

__all__ = ["not_done", "run_jobs"]


def not_done(
    jobs: Iterable[dict],
    *,
    out: ResultsFile,
    cell: Sequence[str],
    cache: PeerCache | None = None,
    peer_cell: Sequence[str] | None = None,
) -> list[dict]:
    """The ``jobs`` (dicts with ``sampler`` and the ``cell`` fields) whose row is not stored yet:
    ours at the current commit, the peers' at the current versions (``cache``; without one,
    every job counts as ours)."""
    ours_key = ("sampler", "commit", *cell)
    done_ours, code = out.done(ours_key), commit()
    done_peers = cache.done() if cache is not None else set()
    peer_cell = cell if peer_cell is None else peer_cell

    def done(job: dict) -> bool:
        if cache is not None and is_peer(job["sampler"]):
            return cache.key(job["sampler"], **{f: job.get(f) for f in peer_cell}) in done_peers
        return key({**job, "commit": code}, ours_key) in done_ours

    return [job for job in jobs if not done(job)]


def run_jobs(
    jobs: Iterable[dict],
    run_job: Callable[[dict], dict],
    *,
    out: ResultsFile,
    cell: Sequence[str],
    cache: PeerCache | None = None,
    peer_cell: Sequence[str] | None = None,
    procs: int = 1,
    describe: Callable[[dict], str] = str,
) -> None:
    """Run the ``jobs`` not done yet (:func:`not_done`), ``procs`` at a time (``run_job``: a
    module-level function, for spawned processes), storing each row as it arrives and printing
    ``describe(row)``."""
    peer_cell = cell if peer_cell is None else peer_cell
    todo = not_done(jobs, out=out, cell=cell, cache=cache, peer_cell=peer_cell)
    peers = f", peers to {cache.file.path}" if cache is not None else ""
    print(f"{len(todo)} runs to do: ours to {out.path}{peers}", flush=True)
    for row in pool_map(run_job, todo, procs=procs):
        if cache is not None and is_peer(row["sampler"]):
            cache.put(row, tuple(peer_cell))
        else:
            out.append(row)
        print(describe(row), flush=True)
