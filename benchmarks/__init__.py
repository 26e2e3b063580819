"""Benchmarks of the samplers: run from the repository root as ``python -m benchmarks.<module>``;
every one is declared in ``registry`` and run by ``run_all``; ``report`` renders the pages. How to
run them and what each measures: docs/benchmarks/index.md. Writing one: ``harness/__init__.py``.

Importing this package pins the BLAS, OpenMP and MKL thread pools of the process (and of every
process it starts) to ``EGP_BENCH_THREADS`` threads, default 1, before any benchmark module
imports numpy (:mod:`benchmarks.harness.threads`).

Modules, by family (``*_functions``, ``functions``, ``ill_conditioned``, ``mixed_hartmann``: the
problems):
    suite        ``run`` (the suite, the kernel ablation; tables: ``suite_report``, the quality
                 page and README headline: ``quality_report``), ``defaults`` (+``_report``),
                 ``ax_budget`` (+``_report``), ``external`` (HEBO and SMAC3 in their own
                 environment)
    problems     ``problem_runs`` (the runs) and ``problem_report`` (the tables) of
                 ``constrained``, ``multi_objective``, ``conditional``, ``dec_hbo``
                 (+``_report``), ``sto_bnts`` (+``_report``, ``_claims``)
    timing       ``speed`` (``speed_timing``: the shared timing loop, store and table;
                 ``speed_imports``, ``speed_encoding``, ``speed_report``), ``cold_start``,
                 ``scale``, ``dts_speed``, ``threads`` (+``_worker``, ``_report``)
    distributed  ``distributed`` (``distributed_reproduce``, ``distributed_async``;
                 ``distributed_report``, ``distributed_plots``)
    robustness   ``dead_trials``, ``stress``
    house        ``registry``, ``run_all``, ``report`` (+``pages``), ``currency``, ``harness``
"""

from benchmarks.harness.threads import pin_threads

pin_threads()
