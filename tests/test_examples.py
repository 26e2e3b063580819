"""The examples: the fast ones run (in a fresh working folder, with a temporary folder of their own
that must be empty afterwards), every one keeps its temporary files in a ``TemporaryDirectory``
block, the quickstart runs on the base install (no optional package) and its conclusion is
computed from its results."""

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
# The import names of what the extras and Optuna's optional dependencies install, none of which
# ``python -m pip install -e .`` (the base install) brings.
NOT_IN_THE_BASE_INSTALL = (
    "torch",
    "matplotlib",
    "ax",
    "botorch",
    "gpytorch",
    "pandas",
    "grpc",
    "optunahub",
    "networkx",
    "cmaes",
)
# Python imports ``sitecustomize`` from the path at start-up, after the installed packages' own
# finders are in place: wrapped, no finder finds the blocked packages, so that importing one raises
# ModuleNotFoundError and importlib.util.find_spec returns None, as for a package not installed.
BLOCKER = """import sys

BLOCKED = {names!r}


class Without:
    def __init__(self, finder):
        self.finder = finder

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            return None
        return self.finder.find_spec(name, path, target)

    def __getattr__(self, attr):
        return getattr(self.finder, attr)


sys.meta_path[:] = [Without(finder) for finder in sys.meta_path]
"""


TORCH_CACHE = "torchinductor_"


def _run(tmp_path: Path, script: str, *args: str, blocked: tuple[str, ...] = ()) -> str:
    """Run an example as a user would; its standard output."""
    return _completed(tmp_path, script, *args, blocked=blocked).stdout


def _completed(
    tmp_path: Path, script: str, *args: str, blocked: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    """Run an example as a user would; the working and temporary folders must stay empty. The
    ``blocked`` packages cannot be imported in the example's processes."""
    cwd, tmp, site = tmp_path / "cwd", tmp_path / "tmp", tmp_path / "site"
    for folder in (cwd, tmp, site):
        folder.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER.format(names=blocked))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), *sys.path]),  # this checkout's packages
        "TMPDIR": str(tmp),  # where tempfile puts its files and folders
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    if blocked:  # the block works: none of them imports
        probe = f"import importlib.util as u; print([n for n in {blocked!r} if u.find_spec(n)])"
        done = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True
        )
        assert done.stdout.strip() == "[]", done.stdout + done.stderr
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == [], "left in the working folder"
    # PyTorch's own compiler cache folder, made the first time torch.func (STO-BNTS's network
    # features) runs in a process: PyTorch's, not a file of the example's
    left = [p for p in tmp.iterdir() if not p.name.startswith(TORCH_CACHE)]
    assert left == [], "left in the temporary folder"
    return done


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_temporary_files_live_in_a_temporary_directory_block(script):
    """``tempfile.mkdtemp()`` and friends leave their files behind; ``with
    tempfile.TemporaryDirectory() as folder:`` removes them, even when the script fails."""
    tree = ast.parse(script.read_text())
    in_with = {
        id(item.context_expr)
        for node in ast.walk(tree)
        if isinstance(node, ast.With)
        for item in node.items
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "tempfile"
        ):
            assert node.func.attr == "TemporaryDirectory" and id(node) in in_with, (
                f"{script.name}, line {node.lineno}: tempfile.{node.func.attr} outside a "
                "'with tempfile.TemporaryDirectory() as folder:' block"
            )


def _quickstart():
    spec = importlib.util.spec_from_file_location("quickstart", EXAMPLES / "quickstart.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("egp", "tpe", "leader", "wins"),
    [
        ([-3.0, -3.2, -2.0], [-2.5, -2.9, -3.1], "EGPTSSampler", "2 of them (TPESampler: 1)"),
        ([-2.0, -2.9, -3.3], [-3.1, -3.0, -2.8], "TPESampler", "2 of them (EGPTSSampler: 1)"),
    ],
)
def test_quickstart_conclusion_follows_the_results(capsys, egp, tpe, leader, wins):
    _quickstart().report([0, 1, 2], {"EGPTSSampler": egp, "TPESampler": tpe})
    out = capsys.readouterr().out
    assert f"Over 3 seeds {leader} reached the lower median best value" in out
    assert out.rstrip().endswith(f"the lower best value on {wins}.")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["0", "0"], "seeds must be at least 1, got 0"),
        (["-1"], "first seed must be at least 0, got -1"),
        (["x"], "first seed must be an integer, got 'x'"),
        (["0", "2.5"], "seeds must be an integer, got '2.5'"),
        (["0", "1", "2"], "at most 2 arguments"),
    ],
)
def test_quickstart_rejects_bad_arguments_naming_the_value(args, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        _quickstart().parse_args(args)


def test_quickstart_defaults():
    quickstart = _quickstart()
    assert quickstart.parse_args([]) == (0, quickstart.N_SEEDS)
    assert quickstart.parse_args(["5"]) == (5, quickstart.N_SEEDS)
    assert quickstart.parse_args(["5", "2"]) == (5, 2)


@pytest.mark.slow
def test_quickstart_runs_on_the_base_install_and_reports_what_it_measured(tmp_path):
    # seed 3 only: one study per sampler
    out = _run(tmp_path, "quickstart.py", "3", "1", blocked=NOT_IN_THE_BASE_INSTALL)
    assert "Hartmann-6" in out and "40 trials per study, seeds 3-3: 2 studies" in out
    assert "best value = the lowest objective value a study found in its 40 trials" in out
    row = re.search(r"^\s+3\s+(-\d+\.\d+)\s+(-\d+\.\d+)\s+(\w+)$", out, re.MULTILINE)
    assert row, out
    egp, tpe = float(row[1]), float(row[2])
    # no value below the minimum of Hartmann-6 (the table rounds to 4 decimals)
    assert round(_quickstart().H6_MIN, 4) <= min(egp, tpe)
    lower = "EGPTSSampler" if egp < tpe else "TPESampler"
    assert row[3] == lower
    assert f"Over 1 seed {lower} reached the lower median best value" in out


@pytest.mark.slow
def test_model_plot_writes_the_picture_where_asked(tmp_path):
    out_png = tmp_path / "model.png"
    out = _run(tmp_path, "model_plot.py", str(out_png))
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "final kernel weights: rbf " in out


@pytest.mark.slow
def test_constrained_example_finds_the_boundary_optimum_with_feasible_trials(tmp_path):
    """EGPTSSampler's best feasible value, read from the example's output, is near the optimum
    2.0 on the constraint's boundary (seed 0 gives 2.003; random search over 30 trials gets
    below 2.05 in about 2 % of runs), and both studies report their feasible trials."""
    out = _run(tmp_path, "constrained.py", "0")
    found = dict(re.findall(r"(\w+Sampler): best feasible value ([\d.]+)", out))
    assert set(found) == {"EGPTSSampler", "TPESampler"}, out
    assert 2.0 <= float(found["EGPTSSampler"]) <= 2.05, out
    assert len(re.findall(r"\d+ of 30 trials feasible", out)) == 2, out


@pytest.mark.slow
def test_multi_objective_example_prints_a_pareto_front_above_the_true_one(tmp_path):
    """Both studies report a hypervolume gap (never negative: ZDT1's true front dominates every
    point; 1e-3 allows for the grid of its computed hypervolume), and EGPTSSampler's printed front
    has as many trials as it reports, none dominating another beyond the printed rounding, none
    below the true front (its two worker threads make the trials differ from run to run)."""
    out = _run(tmp_path, "multi_objective.py", "0")
    gaps = dict(
        re.findall(r"(\w+Sampler): \d+ Pareto-optimal trials of \d+; hypervolume gap (\S+)", out)
    )
    assert set(gaps) == {"EGPTSSampler", "TPESampler"}, out
    assert all(float(gap) >= -1e-3 for gap in gaps.values()), out
    n_front = int(re.search(r"EGPTSSampler: (\d+) Pareto-optimal", out)[1])
    front = [
        (float(a), float(b)) for a, b in re.findall(r"trial +\d+: f1 = (\S+), f2 = (\S+)", out)
    ]
    assert len(front) == n_front >= 1, out
    # printed to 4 decimals: each true value is within 5e-5 of the printed one, and near f1 = 0
    # the front's slope magnifies f1's rounding, so the bound takes the largest f1 it may be
    assert all(f2 + 5e-5 >= 1.0 - (f1 + 5e-5) ** 0.5 for f1, f2 in front), out
    # no printed point certainly dominates another: q does only if it is lower by more than the
    # rounding (1e-4 between two printed values) in both objectives (two points printed with
    # f1 = 0.0000 may differ below it)
    for p in front:
        assert not any(q[0] + 1e-4 <= p[0] and q[1] + 1e-4 <= p[1] for q in front), (p, out)


@pytest.mark.slow
def test_conditional_example_trials_hold_only_the_parameters_of_their_classifier(tmp_path):
    """14 trials (the first 10 are the start-up): every classifier's trials hold the classifier and
    its own parameters only, the counts add up to the trials run, the best accuracy printed is the
    best of the classifiers', and independent sampling is warned about once at most."""
    pytest.importorskip("sklearn")
    done = _completed(tmp_path, "conditional_space.py", "0", "14")
    out = done.stdout
    own = {
        "svc": "classifier, svc_c, svc_gamma",
        "logreg": "classifier, logreg_c",
        "knn": "classifier, knn_neighbors, knn_weights",
    }
    rows = re.findall(r"^(svc|logreg|knn) +(\d+) +([\d.]+)  (.+)$", out, re.MULTILINE)
    assert rows, out
    assert all(held == own[name] for name, _, _, held in rows), out
    assert sum(int(count) for _, count, _, _ in rows) == 14, out
    best = re.search(r"14 trials: best 3-fold CV accuracy ([\d.]+)", out)
    assert best and best[1] == max(accuracy for _, _, accuracy, _ in rows), out
    assert done.stderr.count("is sampled independently") <= 1, done.stderr


@pytest.mark.slow
def test_sto_bnts_example_runs_four_threads_and_a_batch_of_distinct_points(tmp_path):
    out = _run(tmp_path, "sto_bnts_batch.py")
    assert re.search(r"Branin, 40 trials, 4 threads: best value [\d.]+ \(regret [\d.]+\)", out), out
    gap = float(re.search(r"smallest distance between two points of the batch: ([\d.]+)", out)[1])
    assert gap > 0, out


@pytest.mark.slow
def test_dask_example_runs_a_study_on_two_dask_workers(tmp_path):
    out = _run(tmp_path, "dask_study.py", "EGPTSSampler", "8")
    assert "EGPTSSampler on 2 Dask workers: 16 trials" in out
    # 10 start-up trials; every trial from number 11 on had 10 completed trials before it
    assert int(re.search(r"^(\d+) suggested by the model", out, re.M)[1]) >= 4
    assert re.search(r"best value \d+\.\d+ at \{", out)


@pytest.mark.slow  # imports Ray
def test_ray_tune_example_refuses_bad_arguments_naming_the_value():
    # the study itself is docs/engines.md's Ray Tune block, run by tests/test_docs_code.py
    spec = importlib.util.spec_from_file_location("ray_tune_example", EXAMPLES / "ray_tune.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.parse_args([]) == ("EGPTSSampler", 30)
    with pytest.raises(ValueError, match="sampler must be one of .* got 'TPE'"):
        module.parse_args(["TPE"])
    with pytest.raises(ValueError, match="trials must be at least 1, got 0"):
        module.parse_args(["BORESampler", "0"])
