"""Behaviour fingerprints (``benchmarks.harness.fingerprint``): a row is current when HEAD's
fingerprint of its sampler configuration equals the row's. A refactoring that keeps every
suggestion keeps every fingerprint; a changed constant of one algorithm changes that algorithm's
fingerprint only; the note under a table names the commits of the rows that are not current."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from benchmarks import conditional as conditional_benchmark
from benchmarks import failures as failures_benchmark
from benchmarks.harness import fingerprint, fingerprint_scenarios
from benchmarks.harness.fingerprint import Config
from benchmarks.harness.fingerprint_scenarios import unit_positions
from benchmarks.harness.tables import current_line, earlier_code

ROOT = pathlib.Path(__file__).resolve().parents[1]
PRODUCT = ("shared_core", "optuna_egp", "ax_egp")
CONFIGS = ("bore++", "egp-auto")


def _fingerprints_of_copy(tmp_path: pathlib.Path, edit, configs=CONFIGS) -> dict[str, str]:
    """The fingerprints of ``configs`` (sampler names or configurations; keyed as given) computed
    in a new process on a copy of the product packages after ``edit(copy_root)``; the benchmarks
    come from the checkout."""
    keys = {str(c): (Config.of(c) if isinstance(c, str) else c).key for c in configs}
    copy = tmp_path / "tree"
    for package in PRODUCT:
        shutil.copytree(
            ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    edit(copy)
    code = (
        "import json, sys\n"
        "import benchmarks\n"
        "from benchmarks.harness.fingerprint import Config, fingerprint\n"
        "import shared_core\n"
        f"assert shared_core.__file__.startswith({str(copy)!r}), shared_core.__file__\n"
        f"keys = {keys!r}\n"
        "print(json.dumps({n: fingerprint(Config.of_key(k)) for n, k in keys.items()}))\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{copy}{os.pathsep}{ROOT}", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _replace(root: pathlib.Path, pattern: str, new: str) -> None:
    """Replace ``pattern`` (a regular expression) by ``new`` in every Python file under ``root``;
    at least one must contain it."""
    hits = 0
    for path in root.rglob("*.py"):
        text = path.read_text()
        changed = re.sub(pattern, new, text)
        if changed != text:
            path.write_text(changed)
            hits += 1
    assert hits, pattern


def _rename_module_and_function(root: pathlib.Path) -> None:
    """A pure refactoring: ``shared_core/pareto.py`` becomes ``shared_core/front.py`` and
    ``quantile_labels`` becomes ``good_class_labels``, with every use updated."""
    (root / "shared_core" / "pareto.py").rename(root / "shared_core" / "front.py")
    _replace(root, r"shared_core\.pareto\b", "shared_core.front")
    _replace(root, r"\bquantile_labels\b", "good_class_labels")


def _change_bore_gamma(root: pathlib.Path) -> None:
    """BORE's default fraction of good trials, 0.25, becomes 0.3 (the sampler's and the core's)."""
    _replace(root, r"gamma: float = 0\.25\b", "gamma: float = 0.3")


def _change_min_trials(root: pathlib.Path) -> None:
    """Conditional parameters modelled from their fifth completed trial instead of the second."""
    _replace(root, r"MIN_TRIALS = 2\b", "MIN_TRIALS = 5")


@pytest.mark.slow
def test_a_change_to_conditional_modelling_stales_only_the_rows_of_conditional_benchmarks(
    tmp_path,
):
    conditional = Config.of_row({"bench": "conditional", "sampler": "egp-auto"})
    suite = Config.of_row({"bench": "suite", "sampler": "egp-auto"})
    configs = [conditional, suite]
    before = _fingerprints_of_copy(tmp_path / "same", lambda root: None, configs)
    changed = _fingerprints_of_copy(tmp_path / "min-trials", _change_min_trials, configs)

    assert changed[str(conditional)] != before[str(conditional)]
    assert changed[str(suite)] == before[str(suite)]


@pytest.mark.slow
def test_a_pure_refactoring_keeps_fingerprints_and_a_bore_constant_changes_bore_only(tmp_path):
    before = _fingerprints_of_copy(tmp_path / "same", lambda root: None)
    refactored = _fingerprints_of_copy(tmp_path / "refactor", _rename_module_and_function)
    changed = _fingerprints_of_copy(tmp_path / "gamma", _change_bore_gamma)

    assert refactored == before
    assert changed["bore++"] != before["bore++"]
    assert changed["egp-auto"] == before["egp-auto"]


@pytest.mark.slow
def test_suggestions_are_rounded_positions_in_the_unit_cube_and_refusals_a_token():
    import optuna

    dists = {
        "x": optuna.distributions.FloatDistribution(-2.0, 2.0),
        "lr": optuna.distributions.FloatDistribution(1e-4, 1e-1, log=True),
        "n": optuna.distributions.IntDistribution(1, 8),
        "c": optuna.distributions.CategoricalDistribution(["a", "b"]),
    }
    params = {"x": 0.70000000001, "lr": 1e-2, "n": 3, "c": "b"}
    # 1e-11 from 0.7: last-bit differences between CPUs round away
    assert unit_positions(params, dists) == {"c": "b", "lr": 0.667, "n": 3, "x": 0.675}

    # DEC-HBO takes one objective: the two-objective scenario is refused, the others run
    out = fingerprint.suggestions(Config.of("dec-hbo-mf3-ucb"))
    assert out["objectives"] == "refused"
    assert len(out["sequential"]) == fingerprint_scenarios.N_TRIALS


def test_a_row_names_its_configuration():
    assert Config.of_row({"sampler": "bore++"}) == Config.of("bore++")
    row = {"sampler": "egp-auto", "config": {"sampler": "egp-auto", "options": {"n_raw": 2048}}}
    assert Config.of_row(row) == Config("egp-auto", (("n_raw", 2048),))
    assert Config.of_row({"bench": "speed_encoding"}) is None
    assert Config.of("egp-auto", {}, None).key == Config.of("egp-auto").key
    # written with a tuple, read back from JSON with a list: the same hashable configuration
    kernels = {"sampler": "egp-auto", "options": {"kernels": ["rbf", "matern52"]}}
    assert Config.of_row({"config": kernels}) == Config.of(
        "egp-auto", {"kernels": ("rbf", "matern52")}
    )
    assert Config.of_key(Config.of_row({"config": kernels}).key) == Config.of_row(
        {"config": kernels}
    )


def _row(sampler: str, commit: str, fp: str | None) -> dict:
    row = {"sampler": sampler, "function": "branin", "seed": 0, "commit": commit}
    return row if fp is None else {**row, "fingerprint": fp}


def test_the_note_names_the_commits_of_rows_whose_fingerprint_is_not_heads():
    head = {Config.of("egp-auto"): "aaa", Config.of("bore++"): "bbb"}
    asked: list = []

    def heads(configs):
        asked.extend(configs)
        return {c: head[c] for c in configs}

    current = [_row("egp-auto", "c0ffee1", "aaa"), _row("bore++", "c0ffee2", "bbb")]
    peer = _row("tpe", "0ld0001", None)  # peers are keyed by version, never flagged
    assert current_line([*current, peer], heads) == ""

    stale = [_row("bore++", "0ld0002", "old"), _row("egp-ts", "0ld0003", None)]
    assert earlier_code([*current, *stale, peer], heads) == ["0ld0002", "0ld0003"]
    note = current_line([*current, *stale], heads)
    assert note.startswith("**Not current:**") and "(commits `0ld0002`, `0ld0003`)" in note
    # HEAD's fingerprints are computed for the rows that carry one only
    assert Config.of("egp-ts") not in asked

    # rows without any fingerprint: nothing to compute
    assert earlier_code([stale[1]], lambda configs: pytest.fail("computed")) == ["0ld0003"]


def test_head_fingerprints_are_cached_by_code(tmp_path, monkeypatch):
    calls: list = []
    monkeypatch.setattr(fingerprint, "CACHE", tmp_path / "fp.json")
    monkeypatch.setattr(fingerprint, "_computed", lambda c: calls.append(c) or "f-" + c.sampler)

    assert fingerprint.head_fingerprints([Config.of("a"), Config.of("b")]) == {
        Config.of("a"): "f-a",
        Config.of("b"): "f-b",
    }
    assert fingerprint.head_fingerprints([Config.of("a")]) == {Config.of("a"): "f-a"}
    assert calls == [Config.of("a"), Config.of("b")]  # the second call read the cache

    monkeypatch.setattr(fingerprint, "code_key", lambda root=None: "other code")
    fingerprint.head_fingerprints([Config.of("a")])
    assert calls[-1] == Config.of("a") and len(calls) == 3  # other code: computed again


def test_rows_of_benchmarks_without_conditional_spaces_leave_the_conditional_scenario_out(
    monkeypatch,
):
    suite = Config.of_row({"bench": "suite", "sampler": "bore++"})
    conditional = Config.of_row({"bench": "conditional", "sampler": "bore++"})
    assert conditional == Config.of("bore++") and conditional.conditional
    assert not suite.conditional and suite.key != conditional.key
    assert Config.of_key(suite.key) == suite
    kernels = {"sampler": "egp-auto", "options": {"kernels": ["rbf"]}}
    assert not Config.of_row({"bench": "suite", "config": kernels}).conditional
    # Ax methods have no conditional scenario: one configuration whatever the benchmark
    assert Config.of_row({"bench": "suite", "sampler": "ax-egp-auto"}) == Config.of("ax-egp-auto")
    # every benchmark with conditional spaces keeps the scenario, and the failures benchmark its own
    assert conditional_benchmark.BENCH in fingerprint.CONDITIONAL_BENCHES
    assert failures_benchmark.BENCH in fingerprint.FAILING_BENCHES

    # the failures benchmark's rows add the scenario whose trials fail
    failing = Config.of_row({"bench": "failures", "sampler": "bore++"})
    assert failing.failing and not failing.conditional and not suite.failing
    assert Config.of_key(failing.key) == failing and failing.key != suite.key

    scenarios = {
        "sequential": lambda c: [1],
        "conditional": lambda c: [2],
        "failing": lambda c: [3],
        "many-parameters": lambda c: [4],
    }
    monkeypatch.setitem(fingerprint.SCENARIOS, "optuna", scenarios)
    assert fingerprint.suggestions(suite) == {"sequential": [1]}
    assert fingerprint.suggestions(conditional) == {"sequential": [1], "conditional": [2]}
    assert fingerprint.suggestions(failing) == {"sequential": [1], "failing": [3]}
    # DEC-HBO's rows add a space of more parameters than its largest factor
    dec_hbo = Config.of_row({"bench": "high_dim", "sampler": "dec-hbo-mf6"})
    assert fingerprint.suggestions(dec_hbo) == {"sequential": [1], "many-parameters": [4]}


def test_dec_hbo_scenario_has_more_parameters_than_its_default_largest_factor():
    """Else DEC-HBO's fingerprint would see one factor of all parameters only, not the structure
    chain and max-sum that its high-dimensional rows depend on."""
    import optuna

    from shared_core import DECHBOAlgorithm

    trial = optuna.trial.FixedTrial({f"x{i:02d}": 0.5 for i in range(12)})
    fingerprint_scenarios._many(trial)
    assert len(trial.params) > DECHBOAlgorithm().max_factor_size
