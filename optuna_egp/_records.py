"""Model records: an algorithm's fitted model and multi-agent view, written to trials and read back.

With ``share_model=True``, after each model-based suggestion the algorithm's fitted state
(for EGP: kernel weights, and hyperparameters plus output transform of every ensemble, the
constraints' and further objectives' too, when they changed) is
written to the new trial's system attributes; a worker that starts without a fitted model
builds it from the newest stored state instead of fitting hyperparameters from scratch.
Writing is optional: a failed write never fails a trial.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from optuna.study import Study
from optuna.trial import FrozenTrial

from optuna_egp import _storage
from optuna_egp._space import RelativeSpace
from shared_core.interface import Algorithm, MultiAgent, SharesModelState

__all__ = ["MODEL_KEY", "VIEW_KEY", "WEIGHTS_KEY", "ModelRecords", "record_view"]

MODEL_KEY = "egp_samplers:model"
"""Trial system attribute: the fitted model, ``{"space": hash, "columns": [...], "model": state
without weights}``, written when it changed."""
WEIGHTS_KEY = "egp_samplers:weights"
"""Trial system attribute: the ensemble's kernel weights after the suggestion, written by every
model-based trial."""
VIEW_KEY = "egp_samplers:view"
"""Trial system attribute: what a multi-agent algorithm conditioned on, ``{"agent", "sources",
"n_observed", ...}``."""
# larger model records are written without the other outcomes, or not at all (MySQL's TEXT
# holds 64 KB)
MAX_RECORD_CHARS = 60_000

Warn = Callable[[str], None]  # warns once that a record could not be written


class ModelRecords:
    """Reads and writes one sampler's model records. ``last_written``: study name -> the last
    model state this sampler wrote or adopted (a state is written again only when it changed)."""

    def __init__(self, last_written: dict[str, Any] | None = None) -> None:
        self.last_written: dict[str, Any] = {} if last_written is None else last_written

    def offer_recorded(self, algorithm: Algorithm, study: Study, space: RelativeSpace) -> None:
        """Offer ``algorithm`` the newest model recorded in ``study`` for ``space``, if it
        wants one (it has no fitted model yet); a multi-agent algorithm only its own agent's
        (``model_source``)."""
        if not (isinstance(algorithm, SharesModelState) and algorithm.wants_model_state()):
            return
        source = algorithm.model_source if isinstance(algorithm, MultiAgent) else None
        for t in reversed(study.get_trials(deepcopy=False)):
            recorded = t.system_attrs.get(MODEL_KEY)
            if source is not None and (
                not isinstance(recorded, dict) or recorded.get("source") != source
            ):
                continue  # recorded by another source (agent), or before records named theirs
            if not (
                isinstance(recorded, dict)
                and recorded.get("space") == space.key
                and isinstance(recorded.get("model"), dict)
            ):
                continue
            if algorithm.offer_model_state(recorded["model"]):  # False: other kernels, invalid, ...
                # not written again if adopted
                self.last_written[study.study_name] = recorded["model"]
                return

    def write(
        self,
        algorithm: Algorithm,
        study: Study,
        trial: FrozenTrial,
        space: RelativeSpace,
        warn: Warn,
    ) -> None:
        """Write ``algorithm``'s model state to ``trial``:
        the weights always, the rest when it changed."""
        state = algorithm.model_state() if isinstance(algorithm, SharesModelState) else None
        if not state:
            return
        model = {k: v for k, v in state.items() if k != "weights"}
        writes = [(WEIGHTS_KEY, state["weights"])] if "weights" in state else []
        if self.last_written.get(study.study_name) != model:
            columns = [
                name
                for name, cols in space.core.columns.items()
                for _ in range(cols.stop - cols.start)
            ]
            source = algorithm.model_source if isinstance(algorithm, MultiAgent) else None
            # e.g. the agent that fitted it
            record = {"space": space.key, "columns": columns, "model": model, "source": source}
            writes.append((MODEL_KEY, _within_limit(record)))
        for key, value in writes:
            try:
                if key == MODEL_KEY and len(json.dumps(value)) > MAX_RECORD_CHARS:
                    warn(
                        f"the model record of trial {trial.number} is larger than "
                        f"{MAX_RECORD_CHARS} characters and is not written"
                    )
                    continue
                _storage.write_system_attr(study, trial, key, value)
            except Exception as err:  # recording is optional: never fail the trial for it
                warn(f"writing {key} to trial {trial.number} failed: {err!r}")
                return
        self.last_written[study.study_name] = model


def _within_limit(record: dict[str, Any]) -> dict[str, Any]:
    """``record``, or without the other outcomes' models if it is larger than
    :data:`MAX_RECORD_CHARS` (many constraints in many dimensions): a new worker then still
    starts from the first objective's ensemble."""
    model = record["model"]
    if "outcomes" not in model or len(json.dumps(record)) <= MAX_RECORD_CHARS:
        return record
    return {**record, "model": {k: v for k, v in model.items() if k != "outcomes"}}


def record_view(algorithm: Algorithm, study: Study, trial: FrozenTrial, warn: Warn) -> None:
    """Write what a multi-agent algorithm conditioned on (``last_view``, e.g. an agent's
    neighbourhood) to ``trial``."""
    view = algorithm.last_view if isinstance(algorithm, MultiAgent) else None
    if view is None:
        return
    try:
        _storage.write_system_attr(study, trial, VIEW_KEY, view)
    except Exception as err:  # a record, never a reason to fail the trial
        warn(f"writing {VIEW_KEY} to trial {trial.number} failed: {err!r}")
