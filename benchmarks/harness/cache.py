"""The peer cache: runs of peers (``samplers.PEERS``), kept across changes of our code
(docs/benchmarks/index.md, "The peer cache"). A run is keyed by its cell, the versions of the
peer's packages (``samplers.peer_version``; rows without them are shown, never reused) and the
benchmark's ``protocol`` (bumped when what it measures changes; rows without one: protocol 1).
Timing benchmarks put :func:`machine_key` in their peers' cells.
"""

from __future__ import annotations

import functools
import os
import pathlib
import platform

from benchmarks.harness.results import ResultsFile, latest, read_rows
from benchmarks.harness.samplers import peer_version

FIRST_PROTOCOL = 1  # the protocol of rows written before protocols were recorded


@functools.lru_cache(maxsize=1)
def machine_key() -> str:
    """The kind of machine: CPU model, CPU count, operating system and architecture, e.g.
    ``"Intel(R) Xeon(R) CPU @ 2.20GHz x2 Linux x86_64"``."""
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as fh:
            model = next(
                (ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), model
            )
    except OSError:
        pass
    return f"{model or 'unknown CPU'} x{os.cpu_count()} {platform.system()} {platform.machine()}"


class PeerCache:
    """Peer runs in a JSONL file.

    Args:
        path: the cache file.
        protocol: the protocol version of the benchmark that looks runs up and stores them.
    """

    def __init__(self, path: str | pathlib.Path, *, protocol: int = FIRST_PROTOCOL) -> None:
        self.file = ResultsFile(path)
        self.protocol = protocol
        self._versions: dict[str, dict] = {}

    def _version(self, sampler: str) -> dict:
        if sampler not in self._versions:
            self._versions[sampler] = peer_version(sampler)
        return self._versions[sampler]

    @staticmethod
    def _key(sampler: str, cell: dict, version: dict | None, protocol: int) -> tuple:
        return (
            sampler,
            tuple(sorted(cell.items())),
            tuple(sorted((version or {}).items())),
            protocol,
        )

    def done(self) -> set[tuple]:
        """Keys of the cached runs (compare with :meth:`key`)."""
        return {
            self._key(
                r["sampler"],
                {f: r.get(f) for f in r["cache_cell"]},
                r.get("peer_version"),
                r.get("protocol", FIRST_PROTOCOL),
            )
            for r in self.file.rows()
        }

    def key(self, sampler: str, **cell) -> tuple:
        """The key of a run of ``sampler`` on ``cell`` (the fields that define the run, e.g.
        ``bench="suite", function="branin", seed=0, mode="seq", workers=1, n_trials=100``) at
        the current versions of its packages, under this benchmark's protocol."""
        return self._key(sampler, cell, self._version(sampler), self.protocol)

    def put(self, row: dict, cell: tuple[str, ...]) -> dict:
        """Store a peer's row (with provenance and its ``peer_version``); ``cell``: the names
        of its fields that define the run, as given to :meth:`key`."""
        extra = {
            "cache_cell": list(cell),
            "peer_version": self._version(row["sampler"]),
            "protocol": self.protocol,
        }
        return self.file.append(row, extra=extra)

    def rows(self, *, samplers=None, **cell) -> list[dict]:
        """The latest cached row of each peer cell matching ``cell`` (e.g. ``mode="async",
        workers=4, n_trials=100``), any version; ``samplers``: only these peers."""
        rows = [
            r
            for r in read_rows(self.file.path)
            if (samplers is None or r["sampler"] in samplers)
            and all(r.get(f) == v for f, v in cell.items())
        ]
        return latest(rows, ("sampler", *cell_fields(rows)))


def cell_fields(rows: list[dict]) -> list[str]:
    """The cell field names used by any of ``rows``."""
    return sorted({f for r in rows for f in r.get("cache_cell", ())})
