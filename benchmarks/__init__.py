"""Benchmarks of the samplers: run from the repository root as ``python -m benchmarks.<module>``.

Importing this package pins the BLAS, OpenMP and MKL thread pools of the process (and of every
process it starts) to ``EGP_BENCH_THREADS`` threads, default 1, before any benchmark module
imports numpy: see :mod:`benchmarks.harness.threads`.

Modules:
    harness/     what every benchmark shares (samplers, threads, results, peer cache, workers,
                 tables, plots); its docstring is the guide for writing a benchmark
    functions    test functions with their known minima
    constrained_functions
                 constrained problems with their best feasible values
    run          regret benchmarks: ``suite`` (sequential, async, threads, batch), ``ablation``,
                 ``ax``
    external     the external peers HEBO and SMAC3 of the suite, in an environment of their own
                 (``python -m benchmarks.external setup``) driven by its worker
    constrained  best feasible value on the constrained problems, sequential and async
    constrained_report
                 its tables
    mo_functions multi-objective problems with their reference points and front hypervolumes
    multi_objective
                 hypervolume gap on the multi-objective problems, sequential, async and Ax
    mo_report    its tables and plots
    report       the generated pages ``docs/benchmarks/*.md``, their plots and the README headline
    run_all      every benchmark, resumable; ``--quick`` for a smoke test in seconds
    speed        seconds per suggestion by dimension and study size, imports, encoding (its
                 tables: ``speed_report``)
    cold_start   a new worker's first suggestion in a large study
    scale        seconds per suggestion and peak memory with up to 10 000 trials
    dts_speed    a distributed-TS agent on a ring against EGP-TS, seconds per suggestion
    threads      seconds per suggestion with concurrent worker processes (thread oversubscription)
    dead_trials  a trial left RUNNING at the optimum by a killed worker
    stress       worker processes on PostgreSQL, killed and restarted
    distributed  distributed Thompson sampling: the paper's rounds, asynchronous agents
"""

from benchmarks.harness.threads import pin_threads

pin_threads()
