"""What every benchmark shares. Import the modules directly (this package imports nothing).

==================  ===================================================================
module              role
==================  ===================================================================
``threads``         ``pin_threads(n)``: BLAS/OpenMP/MKL/torch thread counts, set on import of
                    ``benchmarks`` (before numpy); ``thread_settings()`` for the rows
``samplers``        ``make_sampler(name, *, seed, **options)``: the one registry of sampler
                    names; ``make_agents`` for one sampler per worker slot; ``is_peer``,
                    ``peer_version``, ``names``; ``LABELS`` and ``ordered`` for tables
``provenance``      ``provenance()``: commit (``+dirty``), UTC date, machine, Python and
                    package versions, thread settings and code folder of a row;
                    ``recorded(path)``: the commit that added each line
``fingerprint``     ``Config`` of a row and its behaviour fingerprint (seeded suggestions in
                    fixed scenarios); ``head_fingerprints`` for the current code, cached;
                    a row is current when its fingerprint is the current code's
``results``         ``read_rows(path)``, ``ResultsFile(path)`` (``append`` adds provenance,
                    ``done`` for resuming), ``latest(rows, fields)``
``cache``           ``PeerCache(path, protocol=)``: runs of peers keyed by cell, peer version
                    and protocol; ``machine_key()`` for the cells of timing benchmarks
``workers``         ``pool_map(fn, jobs, procs=)`` (spawn pool, module-level ``fn``) and
                    ``run_worker(module, *args)`` (``python -m benchmarks.<module> ...``)
``runner``          ``run_jobs``: the run loop of the benchmarks of runs (skips what is done,
                    runs the rest in parallel, stores each row: ours or the peer cache)
``tables``          Markdown tables and the provenance line under each table;
                    ``median_ranks`` and ``value_table`` for an option's development runs
``regret``          the rules of the regret comparisons: ``paired`` (the (function, seed)
                    pairs every sampler ran), ``STARTUP_TRIALS``, ``TIE_FRACTION``,
                    ``tie_floors``, ``versus``, ``wins``
``plots``           regret-vs-trials plots
``probes``          ``ModelProbe``: which asks the model answered, and their seconds
``studies``         studies that start with random completed trials
``asktell``         ``ask_tell``: the loop with trials pending, completing in a random order;
                    ``timed_ask_tell``: a study run by it with every ask timed
``suite_row``       ``regret_fields``: a suite row's regret trace, seconds and pending spread
                    (``pending_spread``); numpy only, for the external peers' worker too
==================  ===================================================================

Writing a benchmark ``benchmarks/<name>.py``:

1. Keep only what it measures: samplers from ``samplers.make_sampler``, problems from a problem
   module; never set thread variables (a worker process that needs other counts gets them from
   ``workers.worker_env(threads=...)``). A benchmark on a list of problems is a
   ``problem_runs.ProblemBenchmark`` (its runs) and, if its page is the problem pages' form, a
   ``problem_report.ProblemPage``; a timing benchmark stores its rows through
   ``speed_timing.Store``.
2. Give it ``main(argv=None)`` with ``--out`` and declare it in ``benchmarks/registry.py``: its
   options for the full run and for ``run_all --quick`` (small enough to finish in seconds, yet
   past the samplers' random start-up: record ``model_asks`` from ``probes.ModelProbe``).
3. Run its jobs (dicts of a cell and a ``sampler``) with ``runner.run_jobs``: it skips what is
   done, runs the rest in parallel and stores each row as it arrives, ours in ``ResultsFile(out)``
   (provenance and the configuration's fingerprint added), peers' in ``PeerCache(path,
   protocol=PROTOCOL)``; ``PROTOCOL`` goes up when what the benchmark measures changes, and a
   timing benchmark puts ``cache.machine_key()`` in its peers' cells.
4. Worker processes run module-level functions: ``pool_map``, or a ``worker`` sub-command
   started with ``run_worker`` (never Python code kept in strings).
5. Give ``benchmarks.report`` a section ``rows -> list[str]`` built with ``tables`` (ties by
   ``regret``) and put it on its page (``report.PAGES`` or ``benchmarks.pages``). Imports go one
   way: the harness, the benchmarks and their report modules, the pages, ``benchmarks.report``.
"""
