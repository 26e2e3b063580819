"""Behaviour fingerprints: a hash of a sampler configuration's seeded suggestions in fixed scenarios
(``fingerprint_scenarios.SCENARIOS``), rounded to 3 decimals in the unit cube so that CPUs' last-bit
differences almost never change it. A row is current when HEAD's fingerprint of its configuration
equals the row's (docs/benchmarks/index.md, "Provenance"). HEAD's are computed in a process of their
own (``python -m benchmarks.harness.fingerprint CONFIG_KEY``) and cached under :func:`code_key`.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import pathlib
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from benchmarks.harness.fingerprint_scenarios import SCENARIOS
from benchmarks.harness.provenance import ROOT, versions

CACHE = ROOT / ".cache" / "fingerprints.json"
# What a fingerprint depends on besides the libraries: the product, the scenarios (this module)
# and how a name becomes a sampler.
_SOURCES = ("shared_core", "optuna_egp", "ax_egp")
_HARNESS = (
    "benchmarks/harness/fingerprint.py",
    "benchmarks/harness/fingerprint_scenarios.py",
    "benchmarks/harness/samplers.py",
    "benchmarks/harness/ax.py",
    "benchmarks/harness/threads.py",
)
_LIBRARIES = (
    "numpy",
    "scipy",
    "optuna",
    "torch",
    "ax-platform",
    "botorch",
    "gpytorch",
    "linear_operator",
)
# The benchmarks whose problems have conditional (define-by-run) spaces. The other benchmarks'
# rows leave the conditional scenario out of their fingerprint, so that a change to how
# conditional spaces are modelled leaves them current.
CONDITIONAL_BENCHES = frozenset({"conditional"})
_UNCONDITIONAL = "unconditional"
# The benchmarks whose trials fail (and those of the failure model alone): only their rows'
# fingerprints cover the failing scenario (a change to how failed trials are used stales them
# alone).
FAILING_BENCHES = frozenset({"failures", "failure_cost", "feasibility_models"})
_FAILING = "failing"


@dataclasses.dataclass(frozen=True)
class Config:
    """A sampler configuration as the benchmarks build it.

    Args:
        sampler: a name of ``samplers.make_sampler`` (``ax-<method>``: an Ax method of
            ``ax_egp.generation_strategy``).
        options: constructor options beyond the name's, as sorted ``(key, value)`` pairs.
        penalty: ``shared_core.models.gp.LENGTHSCALE_PENALTY`` for the run (``None``: the
            shipped one).
        conditional: whether the fingerprint covers the conditional-space scenario (only the
            rows of benchmarks with conditional spaces, :data:`CONDITIONAL_BENCHES`, need it).
        failing: whether it covers the scenario whose trials fail (the rows of
            :data:`FAILING_BENCHES`).
    """

    sampler: str
    options: tuple[tuple[str, Any], ...] = ()
    penalty: float | None = None
    conditional: bool = True
    failing: bool = False

    @classmethod
    def of(cls, sampler: str, options: Mapping[str, Any] | None = None, penalty=None) -> Config:
        return cls(sampler, _frozen(dict(options or {})), penalty)

    @classmethod
    def of_key(cls, key: str) -> Config:
        """The configuration whose :attr:`key` is ``key``."""
        sampler, options, penalty, *scope = json.loads(key)
        return dataclasses.replace(
            cls.of(sampler, dict(options), penalty),
            conditional=_UNCONDITIONAL not in scope,
            failing=_FAILING in scope,
        )

    @classmethod
    def of_row(cls, row: Mapping[str, Any]) -> Config | None:
        """The configuration of a result row: its ``config`` (``{"sampler", "options",
        "penalty"}``), else its ``sampler`` name alone, covering the conditional scenario unless
        the row names a benchmark without conditional spaces (Ax methods have no conditional
        scenario: always covering it); ``None`` for a row of no sampler."""
        if row.get("config"):
            config = cls.of(**row["config"])
        elif row.get("sampler"):
            config = cls.of(row["sampler"])
        else:
            return None
        bench = row.get("bench")
        # Ax methods have no conditional scenario: one configuration, one cache entry
        conditional = config.is_ax or bench is None or bench in CONDITIONAL_BENCHES
        failing = not config.is_ax and bench in FAILING_BENCHES
        return dataclasses.replace(config, conditional=conditional, failing=failing)

    @property
    def key(self) -> str:
        key = [self.sampler, [list(o) for o in self.options], self.penalty]
        scope = ([] if self.conditional else [_UNCONDITIONAL]) + (
            [_FAILING] if self.failing else []
        )
        return json.dumps([*key, *scope])

    @property
    def is_ax(self) -> bool:
        return self.sampler.startswith("ax-")


def _frozen(value: Any) -> Any:
    """``value`` hashable: lists as tuples, mappings as sorted ``(key, value)`` tuples (a
    configuration read back from JSON has lists where it was written with tuples)."""
    if isinstance(value, Mapping):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def suggestions(config: Config) -> dict[str, Any]:
    """The rounded suggestions of ``config`` in each of its framework's scenarios (``refused``
    where it raised)."""
    import optuna

    from benchmarks.harness.threads import pin_torch

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    pin_torch()
    out: dict[str, Any] = {}
    with lengthscale_penalty(config.penalty):
        for name, run in SCENARIOS["ax" if config.is_ax else "optuna"].items():
            if (
                (name == "conditional" and not config.conditional)
                or (name == "failing" and not config.failing)
                or (name == "many-parameters" and not config.sampler.startswith("dec-hbo"))
            ):
                continue
            try:
                out[name] = run(config)
            except Exception:
                out[name] = "refused"
    return out


def fingerprint(config: Config) -> str:
    """12 hexadecimal digits of the hash of ``suggestions(config)``."""
    text = json.dumps(suggestions(config), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@contextlib.contextmanager
def lengthscale_penalty(value: float | None) -> Iterator[None]:
    """``shared_core.models.gp.LENGTHSCALE_PENALTY`` set to ``value`` for the block (``None``:
    left as shipped), restored after it."""
    from shared_core.models import gp

    shipped = gp.LENGTHSCALE_PENALTY
    if value is not None:
        gp.LENGTHSCALE_PENALTY = value
    try:
        yield
    finally:
        gp.LENGTHSCALE_PENALTY = shipped


# --- HEAD's fingerprints, cached ---------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def code_key(root: pathlib.Path = ROOT) -> str:
    """A hash of the Python sources a fingerprint depends on and of the library versions, as they
    were at this process's first call (a checkout edited during a long run keeps the key of the
    code the run imported)."""
    digest = hashlib.sha256(json.dumps(versions(_LIBRARIES), sort_keys=True).encode())
    files = sorted(p for d in _SOURCES for p in (root / d).rglob("*.py"))
    for path in [*files, *(root / h for h in _HARNESS)]:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def head_fingerprint(config: Config) -> str:
    """``fingerprint(config)`` of HEAD's code, from the cache when known."""
    return head_fingerprints([config])[config]


def head_fingerprints(configs: Iterable[Config], *, procs: int = 2) -> dict[Config, str]:
    """HEAD's fingerprints of ``configs``, the missing ones computed ``procs`` at a time."""
    configs = list(dict.fromkeys(configs))
    key = code_key()
    known = _read(CACHE).get(key, {})
    missing = [c for c in configs if c.key not in known]
    with concurrent.futures.ThreadPoolExecutor(max(1, procs)) as pool:
        for config, value in zip(missing, pool.map(_computed, missing)):
            known[config.key] = value
            _write(CACHE, key, {config.key: value})
    return {c: known[c.key] for c in configs}


def _computed(config: Config) -> str:
    """``fingerprint(config)`` in a new process (one thread per pool)."""
    from benchmarks.harness.workers import run_worker, worker_env

    return run_worker("harness.fingerprint", config.key, env=worker_env(threads=1))


def _read(cache: pathlib.Path) -> dict:
    try:
        return json.loads(cache.read_text())
    except (OSError, ValueError):
        return {}


def _write(cache: pathlib.Path, key: str, values: dict[str, str]) -> None:
    """Merge ``values`` into the cache's entry ``key`` (other code keys are dropped: the cache
    holds the working tree's fingerprints only), atomically."""
    data = _read(cache)
    data = {key: {**data.get(key, {}), **values}}
    cache.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
    os.replace(tmp, cache)


if __name__ == "__main__":
    import sys

    print(json.dumps(fingerprint(Config.of_key(sys.argv[1]))))
