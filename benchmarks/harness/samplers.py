"""The one registry of sampler names used by every benchmark (the names and their options:
docs/benchmarks/index.md, "Samplers"). ``options`` of :func:`make_sampler` go to the constructor
and override what the name sets. Peers' rows do not change with our code: the peer cache keys them
by :func:`peer_version` (an external peer's: the versions installed in its environment).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from benchmarks.harness.peer_env import installed_versions
from benchmarks.harness.provenance import versions
from benchmarks.harness.threads import pin_torch

# Display names of the samplers in tables, in the order tables list them (ours, then peers).
LABELS = {
    "egp-auto": "EGPTSSampler",
    "egp-ts": "EGPTSSampler (TS)",
    "egp-ei": "EGPTSSampler (EI)",
    "bore++": "BORESampler",
    "bore": "BORESampler (BORE)",
    "dts-complete": "DistributedTSSampler",
    "dec-hbo-mf6": "DECHBOSampler",
    "dec-hbo-mf6-ucb": "DECHBOSampler (UCB)",
    "dec-hbo-mf3": "DECHBOSampler (MF3)",
    "dec-hbo-mf3-ucb": "DECHBOSampler (MF3, UCB)",
    "dec-hbo-mf2-ucb": "DECHBOSampler (MF2, UCB)",
    "dec-hbo-mf1-ucb": "DECHBOSampler (MF1, Add-GP-UCB)",
    "gp": "GPSampler",
    "tpe": "TPE",
    "tpe-mg": "TPE (multivariate, group)",
    "cmaes": "CMA-ES",
    "nsga2": "NSGA-II",
    "random": "RandomSampler",
    "hebo": "HEBO",
    "smac": "SMAC3",
}

# Peer name -> the distributions its results depend on (its version key in the peer cache).
PEERS: dict[str, tuple[str, ...]] = {
    "gp": ("optuna", "torch", "scipy", "numpy"),
    "tpe": ("optuna", "scipy", "numpy"),
    "tpe-cl": ("optuna", "scipy", "numpy"),
    "tpe-mg": ("optuna", "scipy", "numpy"),
    "cmaes": ("optuna", "cmaes", "numpy"),
    "random": ("optuna", "numpy"),
    "nsga2": ("optuna", "numpy"),
    "ax-default": ("ax-platform", "botorch", "gpytorch", "torch"),
    "hebo": ("hebo", "pymoo", "torch", "scikit-learn", "scipy", "numpy"),
    "smac": ("smac", "configspace", "scikit-learn", "scipy", "numpy"),
}
# The peers that are not Optuna samplers: ``benchmarks.external`` runs them, in an environment of
# their own (their versions are read there).
EXTERNAL = ("hebo", "smac")
# NSGA-II's population for budgets of 60-100 trials: its first generation (random) is then as
# long as the other samplers' random start-up (10 trials), and 60 trials make 6 generations
# (Optuna's default, 50, would leave 60 trials one generation past the random one).
NSGA2_POPULATION = 10
_EGP = re.compile(r"egp-(ts|ei|auto)((?:-nowarp|-nofant)*)")
# one name per configuration: no suffix is the default acquisition, EI; -ucb the paper's
_DEC_HBO = re.compile(r"dec-hbo-mf(\d+)(?:-(ucb))?(?:-beta(\d+(?:\.\d+)?))?")
_BORE_OPTION = re.compile(r"(beta|sharp)(\d+(?:\.\d+)?)")


def names() -> list[str]:
    """Examples of every family (the patterns take more)."""
    return [
        "egp-ts",
        "egp-ei",
        "egp-auto",
        "egp-ts-nowarp",
        "egp-ts-nofant",
        "gp-ts-matern52",
        "bore",
        "bore++",
        "bore++-beta0-sharp1",
        "dts-ring",
        "dts-complete-egp",
        "dec-hbo-mf3-ucb",
        *PEERS,
    ]


def ordered(names: Iterable[str], first: Iterable[str] = LABELS) -> list[str]:
    """The distinct ``names``: those in ``first`` in its order, then the others sorted."""
    names, first = set(names), list(first)
    return [s for s in first if s in names] + sorted(names - set(first))


def is_peer(name: str) -> bool:
    return name in PEERS


def is_external(name: str) -> bool:
    return name in EXTERNAL


def peer_version(name: str) -> dict[str, str]:
    """Installed versions of the distributions peer ``name`` depends on (an external peer's: in
    its environment)."""
    if name not in PEERS:
        raise ValueError(f"{name!r} is not a peer; peers: {', '.join(PEERS)}")
    if is_external(name):
        return installed_versions(PEERS[name])
    return versions(PEERS[name])


def make_sampler(name: str, *, seed: int, agent: int = 0, n_agents: int = 1, **options: Any):
    """The Optuna sampler called ``name``; ``agent`` and ``n_agents``: a ``dts-*`` sampler's
    ``agent_id`` and ``n_agents``; ``options``: constructor options, applied last."""
    if is_external(name):
        raise ValueError(
            f"{name!r} is not an Optuna sampler: it is an external peer, run in an environment of "
            f"its own by benchmarks.external (python -m benchmarks.run suite --samplers {name})"
        )
    import optuna

    from optuna_egp import BORESampler, DECHBOSampler, DistributedTSSampler, EGPTSSampler

    if is_sto_bnts(name):
        return make_sto_bnts_sampler(name, seed=seed, **options)
    m = _EGP.fullmatch(name)
    if m:
        flags = m.group(2)
        kw: dict[str, Any] = {"acquisition": m.group(1)}
        if "-nowarp" in flags:
            kw["warp_outputs"] = False
        if "-nofant" in flags:
            kw["fantasize_pending"] = False
        return EGPTSSampler(seed=seed, **{**kw, **options})
    if name.startswith("gp-ts-"):
        return EGPTSSampler(
            seed=seed, **{"acquisition": "ts", "kernels": (_kernel(name),), **options}
        )
    if name.split("-")[0] in ("bore", "bore++"):
        kw = {**_bore_options(name), **options}
        if kw["variant"] == "bore":  # the network classifier runs on torch (bore++ does not)
            pin_torch()
        return BORESampler(seed=seed, **kw)
    if name.startswith("dts-"):
        graph, _, surrogate = name[len("dts-") :].partition("-")
        if surrogate not in ("", "egp"):
            raise ValueError(f"unknown sampler {name!r}: dts names are dts-<graph>[-egp]")
        kw = {
            "graph": graph,
            "agent_id": agent,
            "n_agents": n_agents,
            "surrogate": surrogate or "gp",
        }
        return DistributedTSSampler(seed=seed, **{**kw, **options})
    kw = dec_hbo_options(name)
    if kw is not None:
        return DECHBOSampler(seed=seed, **{**kw, **options})
    if name == "gp":
        pin_torch()
        return optuna.samplers.GPSampler(seed=seed, **options)
    if name in ("tpe", "tpe-cl", "tpe-mg"):
        kw = {
            "tpe": {},
            "tpe-cl": {"constant_liar": True},
            "tpe-mg": {"multivariate": True, "group": True},
        }[name]
        return optuna.samplers.TPESampler(seed=seed, **{**kw, **options})
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed, **options)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed, **options)
    if name == "nsga2":
        kw = {"population_size": NSGA2_POPULATION}
        return optuna.samplers.NSGAIISampler(seed=seed, **{**kw, **options})
    raise ValueError(f"unknown sampler {name!r}; known (with their patterns): {', '.join(names())}")


def dec_hbo_options(name: str) -> dict[str, Any] | None:
    """The DEC-HBO options of ``dec-hbo-mf<k>[-ucb][-beta<b>]`` (``max_factor_size``,
    ``acquisition``, ``beta_scale``), or None for another name."""
    m = _DEC_HBO.fullmatch(name)
    if m is None:
        return None
    return (
        {"max_factor_size": int(m.group(1))}
        | ({"acquisition": m.group(2)} if m.group(2) else {})
        | ({"beta_scale": float(m.group(3))} if m.group(3) else {})
    )


def make_agents(name: str, *, seed: int, n_agents: int, **options: Any) -> list:
    """The sampler of each of ``n_agents`` worker slots: distinct agents (seed ``1000 * seed +
    slot``) for ``dts-*``, else one sampler shared by every slot."""
    if name.startswith("dts-"):
        return [
            make_sampler(name, seed=1000 * seed + slot, agent=slot, n_agents=n_agents, **options)
            for slot in range(n_agents)
        ]
    return [make_sampler(name, seed=seed, **options)] * n_agents


def _kernel(name: str):
    from shared_core import default_dictionary

    kernel = name[len("gp-ts-") :]
    return {k.name: k for k in default_dictionary()}.get(kernel, kernel)


def _bore_options(name: str) -> dict:
    """``"bore++-beta0-sharp1"`` -> ``{"variant": "bore++", "beta": 0.0, "sharpness": 1.0}``."""
    variant, *options = name.split("-")
    out: dict[str, Any] = {"variant": variant}
    for option in options:
        m = _BORE_OPTION.fullmatch(option)
        key = {"beta": "beta", "sharp": "sharpness"}[m.group(1)] if m else None
        if key is None or key in out:
            raise ValueError(
                f"bad or repeated BORE option {option!r} in {name!r}; known: beta<x>, sharp<x>"
            )
        out[key] = float(m.group(2))
    return out


def is_sto_bnts(name: str) -> bool:
    """Whether :func:`make_sto_bnts_sampler` builds ``name``: ``sto-bnts`` or ``sto-bnts-linear``,
    optionally with ``-beta<x>``."""
    return re.fullmatch(r"sto-bnts(-linear)?(-beta\d+(\.\d+)?)?", name) is not None


def make_sto_bnts_sampler(name: str, *, seed: int, **options: Any):
    """``STOBNTSSampler`` by name: ``sto-bnts`` (its default, the network variant) or
    ``sto-bnts-linear`` (``variant="linear"``), with ``-beta<x>`` its ``beta=x``; ``options`` go to
    the constructor, applied last."""
    if not is_sto_bnts(name):
        raise ValueError(f"unknown STO-BNTS sampler {name!r}; known: sto-bnts[-linear][-beta<x>]")
    from optuna_egp import STOBNTSSampler

    pin_torch()  # the networks are torch's
    kw: dict[str, Any] = {"variant": "linear"} if name.startswith("sto-bnts-linear") else {}
    if "-beta" in name:
        kw["beta"] = float(name.rsplit("-beta", 1)[1])
    return STOBNTSSampler(seed=seed, **{**kw, **options})
