"""The registered benchmarks, ``BENCHMARKS``, that ``python -m benchmarks.run_all`` runs: each a
``Benchmark``, a module of ``benchmarks`` and its arguments for the full run and for ``--quick``
(``{results}`` stands for the results folder).
"""

from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass

from benchmarks import functions


@dataclass(frozen=True)
class Benchmark:
    """A registered benchmark.

    Args:
        name: its name in ``--only`` and in the state file.
        module: ``python -m benchmarks.<module>`` runs it.
        full: its arguments for the full run (``{results}``: the results folder).
        quick: its arguments for ``--quick``; ``None``: left out of it, ``why`` says why.
        why: why a benchmark has no quick mode.
    """

    name: str
    module: str
    full: str
    quick: str | None
    why: str = ""

    def arguments(self, results: pathlib.Path, *, quick: bool) -> list[str]:
        args = (self.quick if quick else self.full) or ""
        return args.format(results=results).split()


def _run(out: str, args: str, quick: str) -> tuple[str, str]:
    """(full, quick) arguments of ``benchmarks.run`` writing ``{results}/<out>``."""
    dest = f"--out {{results}}/{out} --cache {{results}}/peers.jsonl"
    # The first 10 trials are the samplers' random start-up: 12 sequential trials end with 2
    # model-based asks; the quick settings below reach the model in every mode.
    tiny = "--seeds 1 --trials 12 --functions branin --procs 1"
    return f"{args} {dest}", f"{args.split()[0]} {tiny} {quick} {dest}"


def _suite(name: str, args: str, quick: str) -> Benchmark:
    """A ``benchmarks.run`` benchmark writing ``{results}/<name>.jsonl``."""
    return Benchmark(name, "run", *_run(f"{name}.jsonl", args, quick))


PG_URL = os.environ.get("EGP_TEST_POSTGRES_URL", "postgresql+psycopg2://egp:egp@127.0.0.1:5432/egp")
OURS_SEQ = "egp-auto,egp-ts,bore++,gp,tpe,cmaes,random"
OURS_PAR = "egp-auto,egp-ts,egp-ts-nofant,bore++,gp,tpe"
BORE_VARIANTS = "bore++,bore++-beta0,bore++-sharp1,bore++-beta0-sharp1,bore"
# suite_seq and suite_async4 run the whole suite (``benchmarks.run``'s default: the classic and the
# ill-conditioned functions); the other suite settings the classic functions only.
CLASSIC = f"--functions {','.join(functions.SUITE)}"


def _problem_benchmarks(
    prefix: str, module: str, quick_function: str, settings: tuple[tuple[str, str, str], ...]
) -> list[Benchmark]:
    """The benchmarks ``<prefix>_<name>`` of a problem-list module (``benchmarks.problem_runs``),
    one per ``(name, full arguments, quick arguments)``, each writing
    ``{results}/<prefix>_<name>.jsonl``; the quick runs take one seed of ``quick_function``."""
    out = []
    for name, args, quick in settings:
        dest = f"--out {{results}}/{prefix}_{name}.jsonl --cache {{results}}/peers.jsonl"
        quick_args = f"{quick} --seeds 1 --functions {quick_function} {dest}"
        out.append(Benchmark(f"{prefix}_{name}", module, f"{args} {dest}", quick_args))
    return out


# 2 workers, 13 trials: the last two asks come after 10 and 11 completed trials (the model's)
ASYNC_QUICK = "--mode async --workers 2 --trials 13"
BENCHMARKS: list[Benchmark] = [
    _suite("suite_seq", f"suite --seeds 10 --samplers {OURS_SEQ}", "--samplers egp-auto,tpe"),
    _suite(
        "suite_async4",
        f"suite --seeds 5 --mode async --workers 4 --samplers {OURS_PAR}",
        f"{ASYNC_QUICK} --samplers egp-ts,tpe",
    ),
    _suite(
        "suite_async8",
        f"suite --seeds 5 --mode async --workers 8 {CLASSIC} --samplers {OURS_PAR}",
        f"{ASYNC_QUICK} --samplers egp-ts-nofant",
    ),
    _suite(
        "suite_threads4",
        f"suite --seeds 5 --mode threads --workers 4 --procs 3 {CLASSIC} "
        "--samplers egp-auto,gp,tpe",
        "--mode threads --workers 2 --samplers egp-auto",
    ),
    _suite(
        "suite_threads8",
        f"suite --seeds 5 --mode threads --workers 8 --procs 3 {CLASSIC} "
        "--samplers egp-auto,gp,tpe",
        "--mode threads --workers 2 --samplers egp-ts",
    ),
    _suite(
        "ablation",
        "ablation --seeds 5 --functions ackley5,zakharov2,dropwave,eggholder",
        "--samplers gp-ts-rbf",
    ),
    _suite(
        "bore_rosenbrock",
        "suite --mode batch --workers 5 --seeds 5 --trials 60 --functions "
        f"rosenbrock2,rosenbrock4,rosenbrock6,rosenbrock8 --samplers {BORE_VARIANTS}",
        # batches of 2: the sixth starts at 10 completed trials
        "--mode batch --workers 2 --functions rosenbrock2 --samplers bore++",
    ),
    _suite(
        "bore_sharpness_async8",
        "suite --seeds 3 --mode async --workers 8 --samplers bore++-sharp1 "
        "--functions hartmann6,ackley5,branin,zakharov2",
        f"{ASYNC_QUICK} --samplers bore++-sharp1",
    ),
    # Both strategies in the same runs. Quick: one cell, batches of 4, 4 + 1 initialisation
    # trials, then 2 of each strategy's model
    Benchmark(
        "ax",
        "ax_budget",
        "--seeds 10 --trials 40 --modes seq,batch --workers 4 --out {results}/ax_budget.jsonl",
        "--seeds 1 --trials 7 --functions branin --modes batch --out {results}/ax_budget.jsonl",
    ),
    *(
        Benchmark(
            f"speed_{cmd}",
            "speed",
            f"{cmd} --out {{results}}/speed_{cmd}.jsonl --cache {{results}}/peers.jsonl",
            f"{cmd} {quick} --out {{results}}/speed_{cmd}.jsonl --cache {{results}}/peers.jsonl",
        )
        for cmd, quick in (
            ("dims", "--dims 2 --n-complete 12 --asks 1 --samplers egp-auto"),
            ("many", "--n-complete 12 --rounds 1 --batch 2 --samplers egp-auto"),
            ("imports", "--runs 1 --warm-ups 0 --kinds first:egp-auto"),
            ("encoding", "--rows 8 --runs 1"),
        )
    ),
    Benchmark(
        "threads",
        "threads",
        "--out {results}/threads.jsonl",
        "--processes 1 --max-threads 1 --n-egp 11 --asks 1 --repeats 1 --samplers egp-auto "
        "--out {results}/threads.jsonl",
    ),
    Benchmark(
        "dead_trials",
        "dead_trials",
        "--out {results}/dead_trials.jsonl",
        "--trials 11 --seeds 1 --sleep 0 --samplers egp-auto --out {results}/dead_trials.jsonl",
    ),
    Benchmark(
        "cold_start",
        "cold_start",
        "run --out {results}/cold_start.jsonl",
        "run --n-complete 15 --repeats 1 --asks 2 --share-model true "
        "--out {results}/cold_start.jsonl",
    ),
    Benchmark(
        "scale",
        "scale",
        "run --out {results}/scale.jsonl --cache {results}/peers.jsonl",
        # agent 0 of 16 on a ring sees agents 15, 0, 1: 12 of 64 trials, past its start-up
        "run --samplers dts-ring --n 64 --dims 6 --asks 1 --out {results}/scale.jsonl "
        "--cache {results}/peers.jsonl",
    ),
    Benchmark(
        "stress",
        "stress",
        f"run --url {PG_URL} --out {{results}}/stress.jsonl",
        None,
        why="needs a PostgreSQL server and waits out heartbeat grace periods; "
        "tests/optuna covers it with the same check()",
    ),
    Benchmark(
        "dts_reproduce",
        "distributed",
        "reproduce --out {results}/dts_reproduce.jsonl",
        "reproduce --rounds 3 --seeds 1 --functions ackley2 --agents 1,3 --topologies complete "
        "--topology-agents 3 --out {results}/dts_reproduce.jsonl",
    ),
    *(
        Benchmark(
            f"dts_async{w}",
            "distributed",
            f"async --workers {w} --out {{results}}/dts_async{w}.jsonl "
            "--cache {results}/peers.jsonl",
            f"async --workers 2 --evaluations 13 --seeds 1 --functions branin --samplers "
            f"{samplers} --out {{results}}/dts_async{w}.jsonl --cache {{results}}/peers.jsonl",
        )
        for w, samplers in ((8, "dts-complete,egp-ts,tpe"), (16, "dts-complete-egp"))
    ),
    Benchmark(
        "defaults_dev",
        "defaults",
        "--seeds 5 --out {results}/defaults.jsonl",
        "--variants previous,default --seeds 1 --trials 12 --functions branin --procs 1 "
        "--out {results}/defaults.jsonl",
    ),
    Benchmark(
        "defaults_heldout",
        "defaults",
        "--variants previous,default --functions all --first-seed 5 --seeds 5 "
        "--out {results}/defaults.jsonl",
        None,
        why="the runs of defaults_dev on other seeds and functions",
    ),
    Benchmark(
        "defaults_async4",
        "defaults",
        "--variants previous,default --functions all --mode async --seeds 5 "
        "--out {results}/defaults.jsonl",
        None,
        why="the runs of defaults_dev with 4 workers",
    ),
    *_problem_benchmarks(
        "constrained",
        "constrained",
        "gramacy",
        (
            ("seq", "--mode seq --seeds 10", "--mode seq --trials 12 --samplers egp-auto,tpe"),
            (
                "async4",
                "--mode async --workers 4 --seeds 5",
                f"{ASYNC_QUICK} --samplers bore++,dts-complete",
            ),
            # 5 Sobol trials, then 2 of the algorithm's
            (
                "ax",
                "--samplers ax-default,ax-egp-auto --functions gramacy,spring --seeds 5",
                "--trials 7 --samplers ax-egp-auto",
            ),
        ),
    ),
    *_problem_benchmarks(
        "mo",
        "multi_objective",
        "zdt1",
        (
            ("seq", "--mode seq --seeds 10", "--mode seq --trials 12 --samplers egp-auto"),
            ("async4", "--mode async --workers 4 --seeds 5", f"{ASYNC_QUICK} --samplers bore++"),
            # Ax's default fits a BoTorch model per objective from its sixth trial on (about a
            # minute per 25-trial run): one problem, three seeds. Quick: 5 Sobol trials, then 2
            (
                "ax",
                "--samplers ax-default,ax-egp-auto --functions branin-currin --seeds 3 --trials 25",
                "--trials 7 --samplers ax-egp-auto",
            ),
        ),
    ),
    *_problem_benchmarks(
        "cond",
        "conditional",
        "nested",
        (
            ("seq", "--mode seq --seeds 10", "--mode seq --trials 12 --samplers egp-auto,tpe-mg"),
            ("async4", "--mode async --workers 4 --seeds 5", f"{ASYNC_QUICK} --samplers bore++"),
            # Ax's default: 5 Sobol trials, then a BoTorch model per trial (5-7 CPU s per
            # suggestion on these spaces): three seeds, each run stopped at 300 s (recorded in
            # the rows and the table). Quick: 5 Sobol trials, then 2 of ours
            (
                "ax",
                "--samplers ax-default,ax-egp-auto --seeds 3 --wall-limit 300",
                "--trials 7 --samplers ax-egp-auto",
            ),
        ),
    ),
    # DEC-HBO's synthetic table: GPSampler's runs stopped at 900 s (recorded). Quick: 10 random
    # trials, then 2 of MF2's
    Benchmark(
        "dec_hbo",
        "dec_hbo",
        "--samplers dec-hbo-mf3,egp-auto,gp,tpe,cmaes --seeds 10 --wall-limit 900 --procs 2 "
        "--out {results}/dec_hbo.jsonl --cache {results}/peers.jsonl",
        "--functions hartmann6 --samplers dec-hbo-mf2,tpe --seeds 1 --trials 12 "
        "--out {results}/dec_hbo.jsonl --cache {results}/peers.jsonl",
    ),
    Benchmark(
        "dec_hbo_variants",
        "dec_hbo",
        "--samplers dec-hbo-mf1,dec-hbo-mf2 --seeds 5 --procs 2 --out {results}/dec_hbo.jsonl",
        None,
        why="the runs of dec_hbo with maximum factor sizes 1 and 2",
    ),
    # MF3 at four values of beta_scale on seeds apart from dec_hbo's (its page's second table)
    Benchmark(
        "dec_hbo_beta",
        "dec_hbo",
        "--samplers dec-hbo-mf3-beta0.02,dec-hbo-mf3-beta0.1,dec-hbo-mf3-beta0.5,"
        "dec-hbo-mf3-beta1 --first-seed 10 --seeds 3 --trials 80 --procs 2 "
        "--out {results}/dec_hbo_beta_dev.jsonl",
        None,
        why="the development runs behind beta_scale's default",
    ),
    # STO-BNTS's benchmark: three settings into one file; GPSampler's runs stopped at 900 s
    # (recorded). Quick: branin, one seed; 10 random trials, then 2 of the model's, sequential
    # and pending (2 and 3 workers: cells apart, as they share the file)
    *(
        Benchmark(
            f"sto_bnts_{name}",
            "sto_bnts",
            f"{args} --wall-limit 900 --procs 2 --out {{results}}/sto_bnts.jsonl "
            "--cache {results}/peers.jsonl",
            f"{quick} --functions branin --seeds 1 --out {{results}}/sto_bnts.jsonl "
            "--cache {results}/peers.jsonl",
        )
        for name, args, quick in (
            ("seq", "--mode seq --seeds 10", "--mode seq --trials 12 --samplers sto-bnts,tpe"),
            ("async4", "--mode async --workers 4 --seeds 5", f"{ASYNC_QUICK} --samplers sto-bnts"),
            (
                "async8",
                "--mode async --workers 8 --seeds 5",
                "--mode async --workers 3 --trials 14 --samplers sto-bnts-linear",
            ),
        )
    ),
    # STOBNTSSampler at three values of beta, sequential, on seeds apart from sto_bnts_seq's (its
    # page's last table)
    Benchmark(
        "sto_bnts_beta",
        "sto_bnts",
        "--mode seq --samplers sto-bnts-beta1,sto-bnts-beta0.5,sto-bnts-beta0.25 --first-seed 10 "
        "--seeds 3 --procs 2 --out {results}/sto_bnts_beta_dev.jsonl",
        None,
        why="the development runs behind beta's default",
    ),
    Benchmark(
        "dts_speed",
        "dts_speed",
        "--out {results}/dts_speed.jsonl",
        "--n-complete 15 --agents 4 --asks 2 --repeats 1 --out {results}/dts_speed.jsonl",
    ),
]
