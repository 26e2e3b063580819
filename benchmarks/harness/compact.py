"""How a result row is stored: compact in git, whole when read (docs/benchmarks/index.md,
"Provenance"). :func:`compact` (``ResultsFile.append``) stores the environment fields once per
value in ``envs.jsonl`` (:data:`ENV_FIELDS`), leaves out traces no report reads (:data:`TRACES`,
:data:`DERIVED`), keeps :data:`RUNNING_MINIMUM` benchmarks' running minima only, rounds what only
plots draw (:data:`EXACT_ENTRIES`, :data:`PLOT_DIGITS`) and run-length encodes; :func:`expand`
(``read_rows``) undoes it. No number a table reads is rounded but the objective values, kept
to :data:`VALUE_DIGITS` significant digits.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
from typing import Any

import numpy as np

from benchmarks.harness.regret import STARTUP_TRIALS

ENVS = pathlib.Path("envs.jsonl")  # beside the results files
ENV_FIELDS = (
    "machine",
    "python",
    "versions",
    "threads",
    "code",
    "cache_cell",
    "peer_version",
    "protocol",
)
# trace -> the benchmarks (``bench``, else the file's name) whose reports read it
TRACES: dict[str, frozenset[str]] = {
    "params": frozenset(),
    "instant_regret": frozenset({"bore_rosenbrock"}),
    "ask_seconds": frozenset({"dec_hbo", "dims", "many"}),
    "ask_cpu_seconds": frozenset(),
    "complete_at_ask": frozenset(),
    "model_at_ask": frozenset(),  # the tables read its count, model_asks, and model_ask_seconds
    "agent": frozenset(),
    "values": frozenset({"conditional", "ax_budget", "multi_objective"}),  # see RUNNING_MINIMUM
    "feasible": frozenset(),  # the constrained tables read the best feasible value, "best"
    "log10_gap": frozenset(),  # the multi-objective tables compute the gaps from the values
}
# trace -> the benchmarks whose reports do not read it: the regret of the conditional and Ax
# budget runs is computed again from their values (with the problems' current optima), and the
# distributed-TS reproduction's tables read the averages over agents (R_A, R_B, R_W), not the
# regret of every agent in every round.
DERIVED: dict[str, frozenset[str]] = {
    "regret": frozenset({"conditional", "ax_budget", "dts_reproduce"}),
}
# The benchmarks whose reports read only the running minimum of the values (the best value so far
# against the problem's current optimum): stored as best_values.
RUNNING_MINIMUM = frozenset({"conditional", "ax_budget"})
# Traces that plots draw whole while tables read a few entries: the entries tables read are kept
# exact, the others rounded to PLOT_DIGITS significant digits (a change of 1e-4 of a value is
# below a pixel of any plot). Tables read the final regret and the regret after the 10 random
# start-up trials (the tie floors); the mean seconds of the last 10 asks (DEC-HBO's table,
# dec_hbo_report.LAST_ASKS, which a test holds to this); the
# final average and worst regret of a distributed-TS reproduction run (its sums are R_sum).
PLOT_DIGITS = 4
# Objective values (the multi-objective fronts and hypervolume gaps are computed from them): to 12
# significant digits, far below any difference a table shows (at 8, points of a front tied).
VALUE_DIGITS = 12
EXACT_ENTRIES: dict[str, tuple[int, ...]] = {
    "regret": (STARTUP_TRIALS - 1, -1),
    "ask_seconds": tuple(range(-10, 0)),
    "R_A": (-1,),
    "R_W": (-1,),
}
_MIN_RUN_SAVING = 2  # a list is run-length encoded when that at least halves its entries


def sources(row: dict, path: pathlib.Path) -> set[str]:
    """The names a row is known by in the rules: its ``bench`` and its file's name without
    suffix (``bore_rosenbrock`` rows are the suite runner's, ``bench: suite``)."""
    return {row.get("bench") or path.stem, path.stem}


def compact(row: dict, path: pathlib.Path) -> dict:
    """``row`` as stored in results file ``path`` (its environment written beside it)."""
    names = sources(row, path)
    out: dict[str, Any] = {}
    env = {k: row[k] for k in ENV_FIELDS if k in row}
    for key, value in row.items():
        if key in ENV_FIELDS or not _stored(key, names):
            continue
        if key == "values" and names & RUNNING_MINIMUM:
            key, value = "best_values", np.minimum.accumulate(np.asarray(value, float)).tolist()
        elif key in EXACT_ENTRIES:
            value = _plotted(value, EXACT_ENTRIES[key])
        elif key == "values":
            value = _rounded(value, VALUE_DIGITS)
        out[key] = _runs(value)
    if env:
        out["env"] = _write_env(env, path.parent / ENVS)
    return out


def expand(row: dict, path: pathlib.Path) -> dict:
    """A stored row of results file ``path`` as it was written (but for what :func:`compact`
    leaves out)."""
    out = {k: _unruns(v) for k, v in row.items() if k != "env"}
    if "env" in row:
        out.update(_env(path.parent / ENVS, row["env"]))
    return out


def _stored(key: str, names: set[str]) -> bool:
    if key in TRACES:
        return bool(names & TRACES[key])
    return not names & DERIVED.get(key, frozenset())


def _plotted(value: Any, exact: tuple[int, ...]) -> Any:
    """A flat list of numbers with its entries ``exact`` kept and the others rounded to
    ``PLOT_DIGITS``; anything else as it is."""
    if not isinstance(value, list) or any(not isinstance(v, (int, float)) for v in value):
        return value
    keep = {i % len(value) for i in exact if -len(value) <= i < len(value)}
    return [v if i in keep else _rounded(v, PLOT_DIGITS) for i, v in enumerate(value)]


def _rounded(value: Any, digits: int) -> Any:
    """``value`` (a number, or lists of them) to ``digits`` significant digits."""
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, float) and np.isfinite(value) and value != 0.0:
        return float(f"{value:.{digits}g}")
    return value


def _runs(value: Any) -> Any:
    """A flat list of scalars with long runs as ``{"rle": ...}``; anything else as it is."""
    if not isinstance(value, list) or len(value) < 4:
        return value
    if any(isinstance(v, (list, dict)) for v in value):
        return value
    runs: list[list] = []
    for v in value:
        if runs and runs[-1][0] == v and type(runs[-1][0]) is type(v):
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    if len(runs) * _MIN_RUN_SAVING > len(value):
        return value
    return {"rle": [[v, n] if n > 1 else [v] for v, n in runs]}


def _unruns(value: Any) -> Any:
    if isinstance(value, dict) and list(value) == ["rle"]:
        return [v for run in value["rle"] for v in [run[0]] * (run[1] if len(run) > 1 else 1)]
    return value


def _env_id(env: dict) -> str:
    return hashlib.sha256(json.dumps(env, sort_keys=True).encode()).hexdigest()[:10]


def _write_env(env: dict, path: pathlib.Path) -> str:
    """The id of ``env``, appended to ``path`` (``envs.jsonl``) if new."""
    key = _env_id(env)
    if key not in _envs(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as fh:  # one short line: appends of concurrent writers do not mix
            fh.write(json.dumps({"id": key, **env}, sort_keys=True) + "\n")
        _envs(path)[key] = env
    return key


_ENV_CACHE: dict[pathlib.Path, tuple[tuple[int, int], dict]] = {}


def _env(path: pathlib.Path, key: str) -> dict:
    """Environment ``key`` of ``path`` (read again if another writer added it since)."""
    envs = _envs(path)
    if key not in envs:
        _ENV_CACHE.pop(path, None)
        envs = _envs(path)
    if key not in envs:
        raise KeyError(f"environment {key} is not in {path} (copy it with the results file)")
    return envs[key]


def _envs(path: pathlib.Path) -> dict[str, dict]:
    """``{id: environment}`` of ``path``, read again when the file changed."""
    stat = path.stat() if path.exists() else None
    stamp = (stat.st_mtime_ns, stat.st_size) if stat else (0, 0)
    if path not in _ENV_CACHE or _ENV_CACHE[path][0] != stamp:
        envs = {}
        for line in path.read_text().splitlines() if stat else ():
            entry = json.loads(line)
            envs[entry.pop("id")] = entry
        _ENV_CACHE[path] = (stamp, envs)
    return _ENV_CACHE[path][1]
