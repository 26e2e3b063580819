"""DEC-HBO's synthetic benchmark (Hoang, Hoang, Ouyang & Low, AAAI 2018, Section 5.1 and Table
1): Hartmann-6, Shekel-4 and Michalewicz-10, 150 evaluations, sequential
(``docs/benchmarks/index.md``).

    python -m benchmarks.dec_hbo --samplers dec-hbo-mf3-ucb,egp-auto,gp,tpe,cmaes --seeds 10 \\
        --wall-limit 900 --procs 2 --out benchmarks/results/dec_hbo.jsonl
    python -m benchmarks.dec_hbo --samplers dec-hbo-mf1-ucb,dec-hbo-mf2-ucb --seeds 5 --procs 2 \\
        --out benchmarks/results/dec_hbo.jsonl
"""

from __future__ import annotations

import numpy as np

from benchmarks.functions import hartmann6, michalewicz, shekel4
from benchmarks.problem_runs import ProblemBenchmark, RegretProblem, regret_run

# The peer cache's protocol version: bump it when what a run measures changes.
PROTOCOL = 1
BENCH = "dec_hbo"
SAMPLERS = "dec-hbo-mf3-ucb,egp-auto,gp,tpe,cmaes"
N_TRIALS = 150
# The paper's Table 1: mean regret after 150 iterations over 5 runs
PAPER_MEANS = {
    "dec-hbo-mf2-ucb": {"hartmann6": 1.1436, "shekel4": 7.0538, "michalewicz10": 4.4944},
    "dec-hbo-mf3-ucb": {"hartmann6": 0.7904, "shekel4": 1.4295, "michalewicz10": 1.2367},
    "dec-hbo-mf1-ucb": {"hartmann6": 1.7898, "shekel4": 3.8338, "michalewicz10": 2.9870},
}


# Appendix F's domains and minima (Hartmann-6's as the suite's, benchmarks.functions)
PROBLEMS = {
    name: RegretProblem(objective, f_min, np.array([box] * d), n_trials=N_TRIALS)
    for name, objective, f_min, box, d in (
        ("hartmann6", hartmann6, -3.32237, [0.0, 1.0], 6),
        ("shekel4", shekel4, -10.536443, [0.0, 10.0], 4),
        ("michalewicz10", michalewicz, -9.66015, [0.0, np.pi], 10),
    )
}


def run_job(job: dict) -> dict:
    return regret_run(job, None, PROBLEMS[job["function"]])


def _describe(row: dict) -> str:
    return f"regret {row['regret'][-1]:.4g} after {len(row['regret'])} trials"


BENCHMARK = ProblemBenchmark(BENCH, __doc__, PROBLEMS, SAMPLERS, PROTOCOL, run_job, _describe)
main = BENCHMARK.main

if __name__ == "__main__":
    main()
