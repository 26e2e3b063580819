"""``python -m benchmarks.speed encoding``: encode + decode of the rows of a 100-parameter
``shared_core.SearchSpace``, and whether the round trip returns the input values."""

from __future__ import annotations

import math
import statistics
import time

KINDS = dict(float=70, float_log=10, float_step=20, int=20, int_log=5, int_step=5, categorical=10)


def encoding_space():
    """100 parameters: 70 float (10 log, 20 stepped), 20 int (5 log, 5 stepped), 10 categorical."""
    import numpy as np

    from shared_core import CategoricalParam, FloatParam, IntParam, SearchSpace

    params = {}
    for i in range(70):
        if i % 7 == 0:
            params[f"f{i:02d}"] = FloatParam(1e-5, 1.0, log=True)
        elif i % 7 in (1, 2):
            params[f"f{i:02d}"] = (
                FloatParam(0.0, 10.0, step=0.5) if i % 7 == 1 else FloatParam(-3.0, 3.0, step=0.25)
            )
        else:
            params[f"f{i:02d}"] = FloatParam(-5.0, 5.0)
    for i in range(20):
        params[f"i{i:02d}"] = (
            IntParam(1, 1024, log=True)
            if i % 4 == 0
            else IntParam(0, 100, step=5)
            if i % 4 == 1
            else IntParam(-10, 10)
        )
    choices = [
        ("relu", "tanh", "gelu"),
        (1, 2, 4, 8),
        (0.1, "auto", None),
        (True, False, "both"),
        ("sgd", 0, 0.5, None, True),
        ("a", "b", "c", "d"),
        (16, 32, 64),
        (None, 1.5, "x", 3, False),
        ("adam", "adamw", "sgd", "rmsprop"),
        (0, 1, "two"),
    ]
    for i, c in enumerate(choices):
        params[f"c{i}"] = CategoricalParam(c)
    order = np.random.default_rng(0).permutation(list(params))  # mix the kinds in column order
    return SearchSpace({name: params[name] for name in order})


def _same(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return type(a) is type(b) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return type(a) is type(b) and a == b


def _plain(v):
    """numpy scalars from a columnar decode -> Python values, for the round-trip comparison."""
    return v.item() if type(v).__module__ == "numpy" else v


def _round_trip(space, api: str, rows: list[dict], columns: dict):
    """One encode + decode with ``api``: the encoded matrix, the decoded rows and the seconds."""
    t0 = time.perf_counter()
    if api == "columns":
        X = space.encode_columns(columns)
        t1 = time.perf_counter()
        back = space.decode_columns(X)
    else:
        X = space.encode_many(rows)
        t1 = time.perf_counter()
        back = [space.decode(x) for x in X]
    t2 = time.perf_counter()
    if api == "columns":
        back = [{name: _plain(back[name][i]) for name in space.names} for i in range(len(rows))]
    return X, back, t1 - t0, t2 - t1


def cmd_encoding(a, store) -> None:
    import numpy as np

    space = encoding_space()
    has_columns = hasattr(space, "encode_columns") and hasattr(space, "decode_columns")
    if a.api == "both":
        apis = ["columns", "rows"] if has_columns else ["rows"]
    else:
        apis = [{"auto": "columns" if has_columns else "rows"}.get(a.api, a.api)]
    if "columns" in apis and not has_columns:
        raise SystemExit("SearchSpace has no encode_columns/decode_columns in this tree")
    rows = [space.decode(x) for x in space.sample(np.random.default_rng(a.seed), a.rows)]
    columns = {name: [r[name] for r in rows] for name in space.names}
    X_rows = space.encode_many(rows)
    for api in apis:
        base = {"bench": "encoding", "api": api, "rows": a.rows, "runs": a.runs, "seed": a.seed}
        if store.is_done(base):
            continue
        runs = [_round_trip(space, api, rows, columns) for _ in range(a.runs + 1)][1:]  # warm-up
        enc, dec = [r[2] for r in runs], [r[3] for r in runs]
        total = [e + d for e, d in zip(enc, dec)]
        X, decoded = np.asarray(runs[-1][0], dtype=float), runs[-1][1]
        mismatches = sum(
            not _same(r[name], s[name]) for r, s in zip(rows, decoded) for name in space.names
        )
        row = {
            **base,
            "n_params": len(space.params),
            "encoded_dim": space.dim,
            "kinds": KINDS,
            "seconds": total,
            "encode_seconds": enc,
            "decode_seconds": dec,
            "median": statistics.median(total),
            "encode_median": statistics.median(enc),
            "decode_median": statistics.median(dec),
            "roundtrip_mismatches": int(mismatches),
            "roundtrip_ok": mismatches == 0,
            "max_abs_diff_vs_encode_many": float(np.max(np.abs(X - X_rows)))
            if X.shape == X_rows.shape
            else None,
        }
        store.put(row)
        print(f"encoding {api}: median {row['median'] * 1e3:.2f} ms, {mismatches} mismatches")
