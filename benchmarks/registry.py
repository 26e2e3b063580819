"""The registered benchmarks, ``BENCHMARKS``, that ``python -m benchmarks.run_all`` runs, declared
as data: per benchmark, a module of ``benchmarks``, its options for the full run (samplers,
functions, setting, seeds, trials) and for ``--quick``, and its file (``{results}``: the folder)."""

from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass

from benchmarks import functions


@dataclass(frozen=True)
class Benchmark:
    """``python -m benchmarks.<module> <full>``; ``quick``: its ``--quick`` arguments (``None``:
    no quick mode, ``why`` says why)."""

    name: str
    module: str
    full: str
    quick: str | None
    why: str = ""

    def arguments(self, results: pathlib.Path, *, quick: bool) -> list[str]:
        args = (self.quick if quick else self.full) or ""
        return args.format(results=results).split()


def _args(options: dict | str) -> list[str]:
    if isinstance(options, str):
        return options.split()
    return [f"--{k.replace('_', '-')} {v}" for k, v in options.items()]


def runs(name, module, full, quick, *, out="", cache=True, why="", command="") -> Benchmark:
    """``python -m benchmarks.<module> <command>`` with the ``full`` options (a dict or the
    arguments), ``quick`` with ``--quick`` (``None``: none), writing ``{results}/<out or
    name>.jsonl`` and, if ``cache``, the peers' runs to the peer cache."""
    dest = [f"--out {{results}}/{out or name}.jsonl"] + (
        ["--cache {results}/peers.jsonl"] if cache else []
    )
    head = [command] if command else []
    quick_args = None if quick is None else " ".join(head + _args(quick) + dest)
    return Benchmark(name, module, " ".join(head + _args(full) + dest), quick_args, why)


PG_URL = os.environ.get("EGP_TEST_POSTGRES_URL", "postgresql+psycopg2://egp:egp@127.0.0.1:5432/egp")
OURS_SEQ = "egp-auto,egp-ts,bore++,gp,tpe,cmaes,random"
OURS_PAR = "egp-auto,egp-ts,egp-ts-nofant,bore++,gp,tpe"
AX = "ax-default,ax-egp-auto"
# suite_seq and suite_async4 run the whole suite (``benchmarks.run``'s default: the classic and the
# ill-conditioned functions); the other suite settings the classic functions only.
CLASSIC = ",".join(functions.SUITE)
SEQ = {"mode": "seq", "seeds": 10}
ASYNC4 = {"mode": "async", "workers": 4, "seeds": 5}
ASYNC8 = {"mode": "async", "workers": 8, "seeds": 5}
THREADS = {"mode": "threads", "seeds": 5, "procs": 3, "functions": CLASSIC}
# The first 10 trials are the samplers' random start-up: 12 sequential trials end with 2
# model-based asks; the quick settings below reach the model in every mode.
TINY = {"seeds": 1, "trials": 12, "functions": "branin", "procs": 1}
# 2 workers, 13 trials: the last two asks come after 10 and 11 completed trials (the model's)
ASYNC2 = {"mode": "async", "workers": 2, "trials": 13}
BORE_FUNCTIONS = "hartmann6,ackley5,branin,zakharov2"
AX_QUICK = {"trials": 7, "samplers": "ax-egp-auto"}  # 5 Sobol trials, then 2 of the algorithm's

# benchmarks.run: name: (command, full options, quick options over TINY)
ROSENBROCK = {"functions": "rosenbrock2,rosenbrock4,rosenbrock6,rosenbrock8", "trials": 60}
BORES = "bore++,bore++-beta0,bore++-sharp1,bore++-beta0-sharp1,bore"
SUITES = {
    "suite_seq": ("suite", {"seeds": 10, "samplers": OURS_SEQ}, {"samplers": "egp-auto,tpe"}),
    "suite_async4": ("suite", {**ASYNC4, "samplers": OURS_PAR},
                     {**ASYNC2, "samplers": "egp-ts,tpe"}),
    "suite_async8": ("suite", {**ASYNC8, "functions": CLASSIC, "samplers": OURS_PAR},
                     {**ASYNC2, "samplers": "egp-ts-nofant"}),
    **{
        f"suite_threads{w}": ("suite", {**THREADS, "workers": w, "samplers": "egp-auto,gp,tpe"},
                              {"mode": "threads", "workers": 2, "samplers": quick})
        for w, quick in ((4, "egp-auto"), (8, "egp-ts"))
    },
    "ablation": ("ablation", {"seeds": 5, "functions": "ackley5,zakharov2,dropwave,eggholder"},
                 {"samplers": "gp-ts-rbf"}),
    # quick: batches of 2, the sixth starts at 10 completed trials
    "bore_rosenbrock": (
        "suite", {"mode": "batch", "workers": 5, "seeds": 5, **ROSENBROCK, "samplers": BORES},
        {"mode": "batch", "workers": 2, "functions": "rosenbrock2", "samplers": "bore++"}),
    "bore_sharpness_async8": (
        "suite", {**ASYNC8, "seeds": 3, "samplers": "bore++-sharp1", "functions": BORE_FUNCTIONS},
        {**ASYNC2, "samplers": "bore++-sharp1"}),
}  # fmt: skip
# The problem-list benchmarks (benchmarks.problem_runs): prefix: (module, quick function, the
# settings {name: (full options, quick options)}), writing <prefix>_<name>.jsonl
COND = "model-choice,nested,wide"
PROBLEMS = {
    "constrained": ("constrained", "gramacy", {
        "seq": (SEQ, {"mode": "seq", "trials": 12, "samplers": "egp-auto,tpe"}),
        "async4": (ASYNC4, {**ASYNC2, "samplers": "bore++,dts-complete"}),
        "ax": ({"samplers": AX, "functions": "gramacy,spring", "seeds": 5}, AX_QUICK)
    }),
    # Ax's default fits a BoTorch model per objective from its sixth trial on (about a minute
    # per 25-trial run): one problem, three seeds
    "mo": ("multi_objective", "zdt1", {
        "seq": (SEQ, {"mode": "seq", "trials": 12, "samplers": "egp-auto"}),
        "async4": (ASYNC4, {**ASYNC2, "samplers": "bore++"}),
        "ax": ({"samplers": AX, "functions": "branin-currin", "seeds": 3, "trials": 25}, AX_QUICK)
    }),
    "failures": ("failures", "hpo-crash", {
        "seq": (SEQ, {"mode": "seq", "trials": 12, "samplers": "egp-auto,tpe"}),
        "async4": (ASYNC4, {**ASYNC2, "samplers": "bore++"}),
        "ax": ({"samplers": AX, "functions": "hpo-crash,gramacy-step", "seeds": 3}, AX_QUICK)
    }),
    # Ax's default: 5 Sobol trials, then a BoTorch model per trial (5-7 CPU s per suggestion on
    # these spaces): three seeds, each run stopped at 300 s (recorded in the rows and the table)
    # (the two-branch problems: the basins entries below, on 20 seeds)
    "cond": ("conditional", "nested", {
        "seq": ({**SEQ, "functions": COND}, {"mode": "seq", "trials": 12,
                                             "samplers": "egp-auto,tpe-mg"}),
        "async4": ({**ASYNC4, "functions": COND}, {**ASYNC2, "samplers": "bore++"}),
        "ax": ({"samplers": AX, "seeds": 3, "wall_limit": 300, "functions": COND}, AX_QUICK)
    })
}  # fmt: skip
# The basins page (benchmarks.basins_report) reads the rows above and these: Hartmann-6 and
# Shekel-4 on 20 seeds into files of their own; the two-branch problems on 20 seeds into the
# conditional files; the peers the other benchmarks leave out on ZDT and Gardner (cache only).
# name: (module, command, results file, full options, quick options over TINY or None)
BASIN_SAMPLERS = "egp-auto,bore++,dts-complete,gp,tpe,tpe-mg,cmaes,random"
BASIN_SUITE = {"seeds": 20, "functions": "hartmann6,shekel4", "samplers": BASIN_SAMPLERS}
TWO_BRANCH = {"seeds": 20, "functions": "two-branch-a,two-branch-b"}
BASIN_PEERS = {"seeds": 10, "samplers": "tpe-mg,random"}
BASINS = {
    "basins_suite_seq": ("run", "suite", "basins_suite_seq", {"mode": "seq", **BASIN_SUITE},
                         {"functions": "shekel4", "samplers": "egp-auto,random"}),
    "basins_suite_async4": ("run", "suite", "basins_suite_async4", {**ASYNC4, **BASIN_SUITE},
                            {**ASYNC2, "functions": "shekel4", "samplers": "egp-auto"}),
    **{
        f"{prefix}_basins_{name}": (module, "", f"{prefix}_{name}",
                                    {**setting, **extra}, None)
        for prefix, module, extra in (
            ("cond", "conditional", TWO_BRANCH),
            ("mo", "multi_objective", {**BASIN_PEERS, "functions": "zdt1,zdt3"}),
            ("constrained", "constrained", {**BASIN_PEERS, "functions": "gardner"}),
        )
        for name, setting in (("seq", {"mode": "seq"}), ("async4", ASYNC4))
    },
}  # fmt: skip
# STO-BNTS's benchmark: three settings into one file; GPSampler's runs stopped at 900 s
# (recorded). Quick: branin, one seed; 10 random trials, then 2 of the model's, sequential and
# pending (2 and 3 workers: cells apart, as they share the file)
STO_BNTS = {
    "seq": (SEQ, {"mode": "seq", "trials": 12, "samplers": "sto-bnts,tpe"}),
    "async4": (ASYNC4, {**ASYNC2, "samplers": "sto-bnts"}),
    "async8": (ASYNC8, {"mode": "async", "workers": 3, "trials": 14,
                        "samplers": "sto-bnts-linear"}),
}  # fmt: skip
# The defaults ablation (benchmarks.defaults) into one file: the development set, then held-out
# seeds and functions, and 4 workers: name: (full options, quick options, why no quick mode)
HELD_OUT = {"variants": "previous,default", "functions": "all"}
DEFAULTS = {
    "defaults_dev": ({"seeds": 5}, {"variants": "previous,default", **TINY}, ""),
    "defaults_heldout": ({**HELD_OUT, "first_seed": 5, "seeds": 5}, None,
                         "the runs of defaults_dev on other seeds and functions"),
    "defaults_async4": ({**HELD_OUT, "mode": "async", "seeds": 5}, None,
                        "the runs of defaults_dev with 4 workers"),
}  # fmt: skip
SPEED = {
    "dims": "--dims 2 --n-complete 12 --asks 1 --samplers egp-auto",
    "many": "--n-complete 12 --rounds 1 --batch 2 --samplers egp-auto",
    "imports": "--runs 1 --warm-ups 0 --kinds first:egp-auto",
    "encoding": "--rows 8 --runs 1",
}

BENCHMARKS: list[Benchmark] = [
    *(
        runs(name, "run", full, {**TINY, **quick}, command=command)
        for name, (command, full, quick) in SUITES.items()
    ),
    # Both strategies in the same runs. Quick: one cell, batches of 4, 4 + 1 initialisation
    # trials, then 2 of each strategy's model
    runs(
        "ax",
        "ax_budget",
        "--seeds 10 --trials 40 --modes seq,batch --workers 4",
        "--seeds 1 --trials 7 --functions branin --modes batch",
        out="ax_budget",
        cache=False,
    ),
    *(runs(f"speed_{c}", "speed", "", q, command=c) for c, q in SPEED.items()),
    runs("dec_hbo_phases", "dec_hbo_phases", "", "--cells 20x100", cache=False),
    runs(
        "dec_hbo_structure",
        "dec_hbo_structure",
        "",
        "--seeds 1 --problems branin-chain-24 --checkpoints 12",
        cache=False,
    ),
    # both samplers of a Ray Tune run are in its own file (the default sampler is Ray's choice)
    runs(
        "ray_tune",
        "ray_tune",
        "",
        None,
        cache=False,
        why="starts a Ray instance (seconds per study); tests/engines/test_ray_tune.py runs "
        "every sampler in Ray Tune, tests/test_benchmarks_ray_tune.py the benchmark's parts",
    ),
    runs(
        "failure_cost",
        "failure_cost",
        "--seeds 3",
        "--seeds 1 --functions branin-crash",
        cache=False,
    ),
    runs(
        "feasibility_models",
        "feasibility_models",
        "--seeds 10",
        "--seeds 1 --sizes 20 --problems halfplane2",
        cache=False,
    ),
    runs(
        "threads",
        "threads",
        "",
        "--processes 1 --max-threads 1 --n-egp 11 --asks 1 --repeats 1 --samplers egp-auto",
        cache=False,
    ),
    runs(
        "dead_trials",
        "dead_trials",
        "",
        "--trials 11 --seeds 1 --sleep 0 --samplers egp-auto",
        cache=False,
    ),
    runs(
        "cold_start",
        "cold_start",
        "",
        "--n-complete 15 --repeats 1 --asks 2 --share-model true",
        cache=False,
        command="run",
    ),
    # agent 0 of 16 on a ring sees agents 15, 0, 1: 12 of 64 trials, past its start-up
    runs("scale", "scale", "", "--samplers dts-ring --n 64 --dims 6 --asks 1", command="run"),
    runs(
        "stress",
        "stress",
        f"--url {PG_URL}",
        None,
        cache=False,
        command="run",
        why="needs a PostgreSQL server and waits out heartbeat grace periods; "
        "tests/optuna covers it with the same check()",
    ),
    runs(
        "dts_reproduce",
        "distributed",
        "",
        "--rounds 3 --seeds 1 --functions ackley2 --agents 1,3 --topologies complete "
        "--topology-agents 3",
        cache=False,
        command="reproduce",
    ),
    *(
        runs(
            f"dts_async{w}",
            "distributed",
            f"--workers {w}",
            f"--workers 2 --evaluations 13 --seeds 1 --functions branin --samplers {samplers}",
            command="async",
        )
        for w, samplers in ((8, "dts-complete,egp-ts,tpe"), (16, "dts-complete-egp"))
    ),
    *(
        runs(name, "defaults", full, quick, out="defaults", cache=False, why=why)
        for name, (full, quick, why) in DEFAULTS.items()
    ),
    *(
        runs(f"{prefix}_{name}", module, full, {**quick, "seeds": 1, "functions": function})
        for prefix, (module, function, settings) in PROBLEMS.items()
        for name, (full, quick) in settings.items()
    ),
    *(
        runs(
            name,
            module,
            full,
            quick and {**TINY, **quick},
            out=out,
            command=command,
            why="" if quick else "the quick runs of its problems' benchmark cover it",
        )
        for name, (module, command, out, full, quick) in BASINS.items()
    ),
    # DEC-HBO's synthetic table: GPSampler's runs stopped at 900 s (recorded). Quick: 10 random
    # trials, then 2 of MF2's
    runs(
        "dec_hbo",
        "dec_hbo",
        "--samplers dec-hbo-mf3-ucb,egp-auto,gp,tpe,cmaes --seeds 10 --wall-limit 900 --procs 2",
        "--functions hartmann6 --samplers dec-hbo-mf2-ucb,tpe --seeds 1 --trials 12",
    ),
    runs(
        "dec_hbo_variants",
        "dec_hbo",
        "--samplers dec-hbo-mf1-ucb,dec-hbo-mf2-ucb --seeds 5 --procs 2",
        None,
        out="dec_hbo",
        cache=False,
        why="the runs of dec_hbo with maximum factor sizes 1 and 2",
    ),
    # DEC-HBO at 20-102 parameters: 10 seeds at tier 20, 5 above; GPSampler 3 seeds under a
    # recorded wall-time limit; 4 pending at tier 50 only. Quick: 10 random trials, then 2 of MF6's
    runs(
        "high_dim_tier20",
        "high_dim",
        "--functions tier20 --samplers dec-hbo-mf6,egp-auto,tpe,cmaes --seeds 10 --procs 2",
        "--functions branin-chain-24 --samplers dec-hbo-mf6,tpe --seeds 1 --trials 12",
        out="high_dim_seq",
    ),
    runs(
        "high_dim_tiers50_100",
        "high_dim",
        "--functions tier50,tier100 --samplers dec-hbo-mf6,egp-auto,tpe,cmaes --seeds 5 --procs 2",
        None,
        out="high_dim_seq",
        why="high_dim_tier20's quick run covers the script",
    ),
    runs(
        "high_dim_gp",
        "high_dim",
        "--functions tier20,tier50,tier100 --samplers gp --seeds 3 --wall-limit 1800 --procs 2",
        None,
        out="high_dim_seq",
        why="GPSampler's runs of the same script, long",
    ),
    runs(
        "high_dim_async4",
        "high_dim",
        "--functions tier50 --mode async --workers 4 --seeds 5 --procs 2 "
        "--samplers dec-hbo-mf6,egp-auto,gp,tpe,cmaes --wall-limit 1800",
        None,
        out="high_dim_async4",
        why="high_dim_tier20's quick run covers the script",
    ),
    runs(
        "high_dim_speed",
        "high_dim_speed",
        "",
        "--samplers dec-hbo-mf6 --cells 12x20 --asks 1",
        command="run",
    ),
    # MF3 at four values of beta_scale on seeds apart from dec_hbo's (its page's second table)
    runs(
        "dec_hbo_beta",
        "dec_hbo",
        "--samplers dec-hbo-mf3-ucb-beta0.02,dec-hbo-mf3-ucb-beta0.1,dec-hbo-mf3-ucb-beta0.5,"
        "dec-hbo-mf3-ucb-beta1 --first-seed 10 --seeds 3 --trials 80 --procs 2",
        None,
        out="dec_hbo_beta_dev",
        cache=False,
        why="the development runs behind beta_scale's default",
    ),
    *(
        runs(
            f"sto_bnts_{name}",
            "sto_bnts",
            {**full, "wall_limit": 900, "procs": 2},
            {**quick, "functions": "branin", "seeds": 1},
            out="sto_bnts",
        )
        for name, (full, quick) in STO_BNTS.items()
    ),
    # STOBNTSSampler at three values of beta, sequential, on seeds apart from sto_bnts_seq's (its
    # page's last table)
    runs(
        "sto_bnts_beta",
        "sto_bnts",
        "--mode seq --samplers sto-bnts-beta1,sto-bnts-beta0.5,sto-bnts-beta0.25 --first-seed 10 "
        "--seeds 3 --procs 2",
        None,
        out="sto_bnts_beta_dev",
        cache=False,
        why="the development runs behind beta's default",
    ),
    runs(
        "dts_speed", "dts_speed", "", "--n-complete 15 --agents 4 --asks 2 --repeats 1", cache=False
    ),
]
