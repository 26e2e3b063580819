"""Which result rows are current: per results file, our samplers' rows, those that carry a
behaviour fingerprint, and those whose fingerprint is HEAD's for their configuration
(``harness.fingerprint``; HEAD's fingerprints are computed, or read from the cache, first).

Usage::

    python -m benchmarks.currency [--results DIR]
"""

from __future__ import annotations

import argparse
import pathlib

from benchmarks.harness.compact import ENVS
from benchmarks.harness.fingerprint import Config, head_fingerprints
from benchmarks.harness.results import RESULTS, read_rows
from benchmarks.harness.samplers import is_peer
from benchmarks.harness.tables import markdown_table


def counts(results: pathlib.Path) -> dict[str, tuple[int, int, int]]:
    """``{file name: (our rows, with a fingerprint, current)}`` of the results files."""
    ours = {
        path.name: [r for r in read_rows(path) if not is_peer(r.get("sampler") or "")]
        for path in sorted(results.glob("*.jsonl"))
        if path.name != ENVS.name
    }
    stamped = {name: [r for r in rows if r.get("fingerprint")] for name, rows in ours.items()}
    head = head_fingerprints(Config.of_row(r) for rows in stamped.values() for r in rows)
    return {
        name: (
            len(ours[name]),
            len(rows),
            sum(head[Config.of_row(r)] == r["fingerprint"] for r in rows),
        )
        for name, rows in stamped.items()
    }


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.currency", description=__doc__)
    p.add_argument("--results", default=str(RESULTS))
    table = counts(pathlib.Path(p.parse_args(argv).results))
    body = [[name, *map(str, c)] for name, c in table.items() if c[0]]
    total = [sum(c[i] for c in table.values()) for i in range(3)]
    body.append(["all", *map(str, total)])
    print("\n".join(markdown_table(["file", "our rows", "with a fingerprint", "current"], body)))


if __name__ == "__main__":
    main()
