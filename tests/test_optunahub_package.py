"""The OptunaHub package ``hub/samplers/egp_ts``: laid out as in the registry (``hub/`` stands for
the registry's ``package/`` folder), loaded with ``optunahub.load_local_module`` as the registry
loads it, and a short study."""

import runpy
import shutil
import sys
from pathlib import Path

import optuna
import pytest
import yaml

from optuna_egp import WEIGHTS_KEY, EGPTSSampler

optunahub = pytest.importorskip("optunahub")

REPO = Path(__file__).resolve().parent.parent
REGISTRY_ROOT = REPO / "hub"  # as the registry's package/ folder
PACKAGE = "samplers/egp_ts"  # as in the registry: package/<category>/<name>
MODULE_NAME = "optunahub_registry.package.samplers.egp_ts"  # the name load_local_module gives it


@pytest.fixture
def unload():
    """Forget the loaded package afterwards, so that each test loads it afresh."""
    yield
    sys.modules.pop(MODULE_NAME, None)


def test_the_folder_has_the_registry_template_files_and_front_matter():
    folder = REGISTRY_ROOT / PACKAGE
    assert {"README.md", "LICENSE", "__init__.py", "example.py"} <= {
        p.name for p in folder.iterdir()
    }
    readme = (folder / "README.md").read_text()
    assert readme.startswith("---\n")
    front = yaml.safe_load(readme.split("---\n")[1])
    assert set(front) == {"author", "title", "description", "tags", "optuna_versions", "license"}
    # the registry's template: every value is a string (a bare 4.2 would be read as a float)
    assert all(isinstance(front[k], str) for k in ("author", "title", "description", "license"))
    assert all(isinstance(v, str) for v in front["tags"])
    assert "sampler" in front["tags"]  # the registry's rule for a package under samplers/
    assert all(isinstance(v, str) and v.count(".") == 2 for v in front["optuna_versions"])
    assert front["license"] == "MIT License"
    assert (folder / "LICENSE").read_text() == (REPO / "LICENSE").read_text()


def test_the_folder_does_not_shadow_the_installed_optunahub():
    assert not (REGISTRY_ROOT / "optunahub").exists()
    assert REPO not in Path(optunahub.__file__).resolve().parents


def test_loads_the_installed_sampler_and_runs_a_study(unload):
    module = optunahub.load_local_module(package=PACKAGE, registry_root=str(REGISTRY_ROOT))
    assert module.__name__ == MODULE_NAME
    assert module.EGPTSSampler is EGPTSSampler  # re-exported, not a copy
    study = optuna.create_study(sampler=module.EGPTSSampler(seed=0, n_startup_trials=3))
    study.optimize(lambda t: (t.suggest_float("x", -2, 2) - 0.5) ** 2, n_trials=6)
    assert len(study.trials) == 6
    # the last three trials were suggested by the ensemble, which recorded its weights
    assert all(WEIGHTS_KEY in t.system_attrs for t in study.trials[3:])


def test_without_egp_samplers_the_error_says_what_to_install(monkeypatch, unload):
    monkeypatch.setitem(sys.modules, "optuna_egp", None)  # import optuna_egp fails
    with pytest.raises(ImportError, match=r"not on PyPI.*checkout.*python -m pip install -e \. "):
        optunahub.load_local_module(package=PACKAGE, registry_root=str(REGISTRY_ROOT))


def test_no_install_instruction_names_a_distribution_that_is_not_on_pypi():
    for path in (REGISTRY_ROOT / PACKAGE).iterdir():
        assert "pip install egp-samplers" not in path.read_text(), path.name


def test_the_example_loads_from_the_registry_as_the_template_does():
    """The registry's template example loads the package with ``optunahub.load_module``; ours
    does so unless asked for the local folder (``--local``, tested below)."""
    source = (REGISTRY_ROOT / PACKAGE / "example.py").read_text()
    assert "optunahub.load_module(package=PACKAGE)" in source
    assert 'PACKAGE = "samplers/egp_ts"' in source


def test_example_runs_in_a_copy_of_the_registry_layout(tmp_path, capsys, monkeypatch, unload):
    """A copy of the folder into a registry's ``package/samplers/`` works as it is, loaded
    locally (``--local``: the package is not published, and tests do not fetch it)."""
    copy = tmp_path / "package" / PACKAGE
    shutil.copytree(REGISTRY_ROOT / PACKAGE, copy)
    monkeypatch.setattr(sys, "argv", [str(copy / "example.py"), "--local"])
    runpy.run_path(str(copy / "example.py"), run_name="__main__")
    assert capsys.readouterr().out.startswith("best value ")
    assert Path(sys.modules[MODULE_NAME].__file__).parent == copy  # loaded from the copy
