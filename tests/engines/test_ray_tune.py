"""Ray Tune: ``OptunaSearch(sampler=...)`` with every named sampler under
``ConcurrencyLimiter(max_concurrent=4)`` on a real local Ray (2 CPUs, 4 trials at a time), on a
space with a branch. The sampler must see the trials Ray is running as pending points."""

from __future__ import annotations

import optuna
import pytest
from optuna.trial import TrialState

from tests.engines.checks import SAMPLERS, check_engine_run
from tests.engines.problem import define_space, trainable

ray = pytest.importorskip("ray")  # the ray extra
tune = pytest.importorskip("ray.tune")
from ray.tune.search import ConcurrencyLimiter  # noqa: E402
from ray.tune.search.optuna import OptunaSearch  # noqa: E402

N_TRIALS, N_CONCURRENT = 14, 4

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


class PendingLog:
    """Per suggestion of the model: (the trials Ray was running besides this one, in the
    searcher's study; the pending points the algorithm was given). It wraps the sampler's
    ``sample_relative`` and its algorithm's ``suggest``, picklably: Ray pickles the searcher,
    the sampler in it, at its checkpoints."""

    def __init__(self, sampler) -> None:
        self.sampler, self.algorithm = sampler, sampler._algorithm
        self.running = 0
        self.seen: list[tuple[int, int]] = []
        sampler.sample_relative = self.sample_relative
        self.algorithm.suggest = self.suggest

    def sample_relative(self, study, trial, search_space):
        others = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        self.running = sum(t.number != trial.number for t in others)
        return type(self.sampler).sample_relative(self.sampler, study, trial, search_space)

    def suggest(self, space, obs, n, rng):
        self.seen.append((self.running, len(obs.X_pending)))
        return type(self.algorithm).suggest(self.algorithm, space, obs, n, rng)


@pytest.mark.parametrize("sampler_name", SAMPLERS)
def test_every_sampler_runs_in_ray_tune_with_running_trials_as_pending(
    local_ray, tmp_path, sampler_name
):
    sampler = SAMPLERS[sampler_name](0, 1)  # one process asks: one agent
    log = PendingLog(sampler)
    storage = optuna.storages.InMemoryStorage()
    search = OptunaSearch(
        space=define_space,
        metric="loss",
        mode="min",
        sampler=sampler,
        storage=storage,
        study_name=sampler_name,
    )
    tuner = tune.Tuner(
        tune.with_resources(trainable, {"cpu": 2 / N_CONCURRENT}),  # 4 at a time on 2 CPUs
        tune_config=tune.TuneConfig(
            search_alg=ConcurrencyLimiter(search, max_concurrent=N_CONCURRENT),
            num_samples=N_TRIALS,
            reuse_actors=True,
        ),
        run_config=tune.RunConfig(storage_path=str(tmp_path), verbose=0),
    )
    results = tuner.fit()
    assert not results.errors
    study = optuna.load_study(study_name=sampler_name, storage=storage)
    check_engine_run(study.get_trials(), N_TRIALS, N_CONCURRENT)
    # Ray asked for the next trial while the others ran: the algorithm got them as pending
    assert log.seen and all(pending >= running for running, pending in log.seen), log.seen
    assert max(running for running, _ in log.seen) == N_CONCURRENT - 1, log.seen
