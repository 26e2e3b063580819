"""Result rows: one JSON object per line, appended as each run finishes (so runs resume), stored
compact (``compact``) and read back whole. :meth:`ResultsFile.append` adds provenance and, for our
samplers, the behaviour fingerprint of the row's configuration; rows without a ``commit`` get
``recorded`` on reading (``provenance.recorded``).
"""

from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Iterable, Sequence

from benchmarks.harness.compact import compact, expand
from benchmarks.harness.provenance import ROOT, provenance, recorded

RESULTS = ROOT / "benchmarks" / "results"  # the results of record (the scripts' default)


def read_rows(path: str | pathlib.Path) -> list[dict]:
    """The rows of a JSONL file in the order written; ``[]`` if it does not exist. Rows without
    a ``commit`` get ``recorded``: the commit that added them to the file, if committed."""
    path = pathlib.Path(path)
    if not path.exists():
        return []
    rows, added = [], None
    for number, line in enumerate(path.read_text().split("\n")):
        if not line.strip():
            continue
        row = expand(json.loads(line), path)
        if not row.get("commit") and "recorded" not in row:
            added = recorded(path) if added is None else added
            if number < len(added) and added[number] is not None:
                row["recorded"] = added[number]
        rows.append(row)
    return rows


def key(row: dict, fields: Sequence[str]) -> tuple:
    return tuple(row.get(f) for f in fields)


def latest(rows: Iterable[dict], fields: Sequence[str]) -> list[dict]:
    """The last row (rows are appended in time order) of each cell ``fields``."""
    out: dict[tuple, dict] = {}
    for row in rows:
        out[key(row, fields)] = row
    return list(out.values())


def same_setting(rows: Sequence[dict], fields: Sequence[str]) -> list[dict]:
    """The rows whose settings ``fields`` equal those of the last row (the latest run), so that
    a file holding runs of two settings does not mix them in one table."""
    if not rows:
        return []
    last = rows[-1]
    return [r for r in rows if all(r.get(f) == last.get(f) for f in fields)]


def _fingerprint(row: dict) -> dict:
    """``{"fingerprint": ...}`` of the row's configuration at the working tree's code; ``{}`` for
    a peer's row, a row of no sampler, and with ``EGP_BENCH_FINGERPRINTS=0`` (smoke runs)."""
    from benchmarks.harness.fingerprint import Config, head_fingerprint
    from benchmarks.harness.samplers import is_peer

    config = Config.of_row(row)
    if config is None or is_peer(config.sampler) or os.environ.get("EGP_BENCH_FINGERPRINTS") == "0":
        return {}
    return {"fingerprint": head_fingerprint(config)}


class ResultsFile:
    """A JSONL results file.

    Args:
        path: the file (its folder is created on the first append).
    """

    def __init__(self, path: str | pathlib.Path) -> None:
        self.path = pathlib.Path(path)

    def rows(self) -> list[dict]:
        return read_rows(self.path)

    def done(self, fields: Sequence[str]) -> set[tuple]:
        """The cells ``fields`` already in the file (include ``"commit"`` in ``fields`` to run our
        samplers again at each new commit). Rows of a tree with uncommitted changes (commit
        ``...+dirty``) never count: the changes may differ from run to run."""
        return {key(r, fields) for r in self.rows() if not str(r.get("commit")).endswith("+dirty")}

    def append(self, row: dict, *, extra: dict | None = None) -> dict:
        """Append ``row`` with provenance and, for our samplers, its configuration's fingerprint
        (``extra``: fields to record beside it); return it."""
        row = {**row, **provenance(), **_fingerprint(row), **(extra or {})}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        stored = compact(row, self.path)
        with self.path.open("a") as fh:
            fh.write(json.dumps(stored, separators=(",", ":")) + "\n")
        return row
