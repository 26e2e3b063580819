import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_shared_core_never_imports_optuna_or_ax():
    code = (
        "import sys, shared_core, shared_core.algorithms.egp, "
        "shared_core.optim.acquisition_optimizer, shared_core.algorithms.bore, "
        "shared_core.optim.svgd, shared_core.registry;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('optuna', 'ax', 'botorch', 'torch')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    for path in (ROOT / "shared_core").rglob("*.py"):
        text = path.read_text()
        assert (
            "import optuna" not in text and "from optuna" not in text and "from ax" not in text
        ), path
