"""Benchmarks of the samplers: run from the repository root as ``python -m benchmarks.<module>``.

Importing this package pins the BLAS, OpenMP and MKL thread pools of the process (and of every
process it starts) to ``EGP_BENCH_THREADS`` threads, default 1, before any benchmark module
imports numpy: see :mod:`benchmarks.harness.threads`.

Modules:
    harness/     what every benchmark shares (samplers, threads, results, peer cache, workers,
                 tables, the regret comparisons' tie rule, plots); its docstring is the guide
                 for writing a benchmark
    functions    test functions with their known minima (``ill_conditioned``: the suite's
                 ill-conditioned ones)
    run          regret benchmarks: ``suite`` (sequential, async, threads, batch), ``ablation``,
                 ``ax``; their tables: ``suite_report``, the quality page and README headline:
                 ``quality_report``
    defaults     the ablation behind ``EGPTSSampler()``'s defaults (page: ``defaults_report``)
    ax_budget    Ax's ``Client`` at low budgets, our generation strategy against Ax's default
                 (``mixed_hartmann``: its constrained mixed problem; tables: ``ax_budget_report``)
    external     the external peers HEBO and SMAC3 of the suite, in an environment of their own
                 (``python -m benchmarks.external setup``) driven by its worker
    problem_runs the command line and run loop of the benchmarks on lists of problems
    constrained  best feasible value on the constrained problems (``constrained_functions``),
                 sequential, async and Ax; tables: ``constrained_report``
    multi_objective
                 hypervolume gap on the multi-objective problems (``mo_functions``), sequential,
                 async and Ax; tables and plots: ``mo_report``
    conditional  best value on tree-structured search spaces (``conditional_functions``),
                 sequential, async and Ax; tables: ``conditional_report``
    dec_hbo      DEC-HBO's synthetic benchmark (page: ``dec_hbo_report``)
    sto_bnts     STO-BNTS's benchmark (page: ``sto_bnts_report``; its rows: ``sto_bnts_rows``,
                 the paper's claims checked: ``sto_bnts_claims``)
    speed        seconds per suggestion by dimension and study size (``speed_timing``: the timed
                 studies), imports (``speed_imports``), encoding (``speed_encoding``); tables:
                 ``speed_report``
    cold_start   a new worker's first suggestion in a large study
    scale        seconds per suggestion and peak memory with up to 10 000 trials
    dts_speed    a distributed-TS agent on a ring against EGP-TS, seconds per suggestion
    threads      seconds per suggestion with concurrent worker processes (thread oversubscription;
                 the worker process: ``threads_worker``, the table: ``threads_report``)
    dead_trials  a trial left RUNNING at the optimum by a killed worker
    stress       worker processes on PostgreSQL, killed and restarted
    distributed  distributed Thompson sampling: the paper's rounds (``distributed_reproduce``),
                 asynchronous agents (``distributed_async``); tables: ``distributed_report``,
                 plots: ``distributed_plots``
    report       the generated pages ``docs/benchmarks/*.md``, their plots and the README headline
                 (the pages other than quality's: ``pages``)
    registry     every benchmark with its full and quick arguments (``BENCHMARKS``)
    currency     per results file, our samplers' rows that carry a fingerprint and are current
    run_all      every benchmark, resumable; ``--quick`` for a smoke test in seconds
"""

from benchmarks.harness.threads import pin_threads

pin_threads()
