"""What the ensemble learned, read back from a study:
kernel weights over trials and parameter relevance.

With ``EGPTSSampler(share_model=True)`` (the default) every model-based trial records the ensemble's
kernel weights (trial system attribute :data:`~optuna_egp._records.WEIGHTS_KEY`) and, when the model
was refitted, its hyperparameters (:data:`~optuna_egp._records.MODEL_KEY`). :func:`model_history`
collects them (no Matplotlib needed); :func:`plot_model` draws them with Matplotlib, in the spirit
of :mod:`optuna.visualization.matplotlib`. In a study with several objectives the records are
those of the first objective's ensemble (the shared model).

Glossary (shapes in comments): n trials with recorded weights, M kernels in the dictionary,
d encoded columns (a categorical parameter takes one column per choice), P parameters.

Example:
    >>> import optuna
    >>> from optuna_egp import EGPTSSampler, plot_model
    >>> study = optuna.create_study(sampler=EGPTSSampler(seed=0))
    >>> study.optimize(objective, n_trials=40)  # doctest: +SKIP
    >>> plot_model(study).savefig("model.png")  # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, overload

import numpy as np
from optuna.study import Study

from optuna_egp._records import MODEL_KEY, WEIGHTS_KEY

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure

__all__ = ["ModelHistory", "Refit", "model_history", "plot_model"]

# A kernel whose final weight exceeds this is named in the weight panel's title.
_DOMINANT = 0.99
# The weight panel's log axis stops here: a weight of 1e-300 would spread it over 300 decades.
_FLOOR = 1e-30


class Refit(NamedTuple):
    """One recorded model (:data:`~optuna_egp._records.MODEL_KEY`):
    written when the ensemble was refitted."""

    trial_number: int
    columns: list[str]  # (d,) parameter name of each encoded column
    lengthscales: list[np.ndarray]  # M arrays, (d,) for an ARD kernel, (1,) for an isotropic one
    kernel_names: list[str]  # (M,)


@dataclass(frozen=True)
class ModelHistory:
    """The ensemble's kernel weights and recorded models of a study (see :func:`model_history`).

    Attributes:
        trial_numbers: ``(n,)`` numbers of the trials that recorded weights, ascending.
        kernel_names: ``(M,)`` kernel names of the newest recorded model, e.g. ``"rbf-ard"``.
        weights: ``(n, M)`` kernel weights after each of those trials' suggestions; rows sum to 1.
            Rows with another number of kernels than the newest model's are left out.
        refits: the recorded models in trial order, as :class:`Refit` ``(trial number, columns,
            per-kernel lengthscales, kernel names)``; the last one is the newest (a model recorded
            again unchanged, e.g. by a worker that adopted it, is listed once). Lengthscales are in
            units of the encoded unit cube (log-scaled for ``log=True`` parameters).
    """

    trial_numbers: np.ndarray  # (n,)
    kernel_names: list[str]  # (M,)
    weights: np.ndarray  # (n, M)
    refits: list[Refit] = field(default_factory=list)

    @property
    def params(self) -> list[str]:
        """``(P,)`` parameter names of the newest model, in encoding order."""
        return list(dict.fromkeys(self.refits[-1].columns))

    def relevance(self, refit: int = -1) -> dict[str, dict[str, float]]:
        """Relevance of each parameter to each ARD kernel of a recorded model (default the newest).

        A parameter's relevance is its inverse lengthscale (in unit-cube units), normalised
        to sum to 1 over the parameters of each kernel: a parameter the objective does not
        depend on gets a long lengthscale and a relevance near 0. A categorical parameter is
        one-hot encoded in one column per choice; its relevance combines those columns by
        the maximum of their inverse lengthscales. Isotropic kernels (one lengthscale shared
        by every column) say nothing about single parameters and are left out, so the result
        is empty for a dictionary without ARD kernels.

        Returns:
            ``{kernel name: {parameter name: relevance}}`` (P parameters in encoding order),
            one entry per ARD kernel; a name that occurs twice in the dictionary is made
            unique with ``" #m"``.
        """
        model = self.refits[refit]
        names = _unique(model.kernel_names)
        params = list(dict.fromkeys(model.columns))  # (P,)
        out: dict[str, dict[str, float]] = {}
        for name, ls in zip(names, model.lengthscales):
            if not _is_ard(name, ls, len(model.columns)):
                continue
            inverse = 1.0 / ls  # (d,)
            # (P,) a categorical's columns combined by max
            per_param = np.array(
                [max(inverse[j] for j, c in enumerate(model.columns) if c == p) for p in params]
            )
            per_param = per_param / per_param.sum()
            out[name] = {p: float(r) for p, r in zip(params, per_param)}
        return out


def model_history(study: Study) -> ModelHistory:
    """The kernel weights and fitted models that
    ``EGPTSSampler(share_model=True)`` recorded in ``study``.

    Args:
        study: a study optimised (or being optimised) with ``EGPTSSampler`` and ``share_model=True``
            (the default), e.g. loaded from its storage with :func:`optuna.load_study`.

    Returns:
        A :class:`ModelHistory`; ``history.relevance()``
        gives the newest model's parameter relevance.

    Raises:
        ValueError: no trial of ``study`` has a recorded model (another sampler,
            ``share_model=False``, or still in the start-up phase).
    """
    trials = sorted(study.get_trials(deepcopy=False), key=lambda t: t.number)
    refits: list[Refit] = []
    kernel_names: list[str] = []
    last_model: Any = None
    for t in trials:
        record: Any = t.system_attrs.get(MODEL_KEY)
        parsed = _parse_model(record)
        if parsed is None:
            continue
        refit = parsed._replace(trial_number=t.number)
        # the first objective's ensemble; a record also changes when another outcome's is refitted
        model = {k: v for k, v in record["model"].items() if k != "outcomes"}
        if model == last_model and refits and refits[-1].columns == refit.columns:
            continue  # the same model recorded again (e.g. another worker adopted it): not a refit
        last_model = model
        refits.append(refit)
        kernel_names = refit.kernel_names
    if not refits:
        raise ValueError(
            f"no trial of study {study.study_name!r} has a recorded model (trial system attribute "
            f"{MODEL_KEY!r}): use EGPTSSampler(share_model=True) (the default), which records "
            "the ensemble at every model-based trial, i.e. once n_startup_trials trials have "
            "completed"
        )
    numbers, rows = [], []
    for t in trials:
        w = t.system_attrs.get(WEIGHTS_KEY)
        if isinstance(w, list) and len(w) == len(kernel_names) and all(_is_number(v) for v in w):
            numbers.append(t.number)
            rows.append([float(v) for v in w])
    weights = np.array(rows, dtype=float).reshape(len(rows), len(kernel_names))  # (n, M)
    return ModelHistory(np.array(numbers, dtype=int), kernel_names, weights, refits)


@overload
def plot_model(study: Study, *, ax: None = None) -> Figure: ...


@overload
def plot_model(study: Study, *, ax: Sequence[Axes]) -> Figure | SubFigure: ...


def plot_model(study: Study, *, ax: Sequence[Axes] | None = None) -> Figure | SubFigure:
    """Plot what the ensemble of ``EGPTSSampler(share_model=True)`` learned, with Matplotlib.

    Left: the kernel weights (the ensemble's posterior over the kernel dictionary) after each
    model-based trial, one line per kernel on a log scale, with the refits as dotted lines; the
    legend gives each kernel's final weight, and the title names a kernel that holds more than 0.99
    of it. On the log scale the kernels that lost show how far behind they are (a weight of 1e-12 is
    a marginal likelihood 1e12 times smaller), and whether they keep falling or recover. The axis
    stops at 1e-30 (its label names the floor when a smaller weight runs off the bottom), and a
    weight that underflowed to 0 is not drawn. Right: the relevance of each parameter to the newest
    model, the normalised inverse lengthscales of each ARD kernel (see
    :meth:`ModelHistory.relevance`; a categorical parameter's columns are combined by their
    maximum). When the dictionary has no ARD kernel the right panel shows each isotropic kernel's
    shared lengthscale instead (in unit-cube units; a short one means a rapidly varying objective),
    and its title says that per-parameter relevance is unavailable; add ``"rbf-ard"`` to ``kernels``
    to get it.

    Args:
        study: a study optimised with ``EGPTSSampler(share_model=True)`` (the default).
        ax: two Matplotlib Axes ``(weights, relevance)`` to draw into; default a new figure.

    Returns:
        The :class:`matplotlib.figure.Figure` (not shown: call ``fig.savefig(...)`` or
        ``plt.show()``); with ``ax``, the figure (or subfigure) the Axes belong to.

    Raises:
        ImportError: Matplotlib is not installed.
        ValueError: the study has no recorded model (see :func:`model_history`), or ``ax`` is not
            two Axes.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError(
            "plot_model needs Matplotlib: python -m pip install matplotlib "
            '(or python -m pip install -e ".[plot]" from a checkout of egp-samplers)'
        ) from e
    history = model_history(study)
    fig: Figure | SubFigure
    if ax is None:
        fig, (ax_w, ax_r) = plt.subplots(1, 2, figsize=(11.0, 4.0), layout="constrained")
    else:
        try:
            ax_w, ax_r = ax
        except (TypeError, ValueError):
            raise ValueError(f"ax must be two Axes (weights, relevance), got {ax!r}") from None
        fig = ax_w.figure
    _plot_weights(ax_w, history)
    _plot_relevance(ax_r, history)
    return fig


# ----------------------------------------------------------------------------------- drawing
def _plot_weights(ax: Axes, history: ModelHistory) -> None:
    """One line per kernel on a log scale: when one kernel holds nearly all the weight, the others'
    weights (how many times less probable they are, e.g. 1e-12) still show and keep falling or
    recover, which a linear or stacked plot would flatten into 0 and 1."""
    from matplotlib.ticker import MaxNLocator

    labels = _unique(history.kernel_names)
    weights = history.weights  # (n, M)
    ylabel = "Kernel weight"
    if len(history.trial_numbers):
        final = weights[-1]  # (M,)
        for m, label in enumerate(labels):
            # a weight that underflowed to 0 has no logarithm: left out of the line
            shown = np.where(weights[:, m] > 0.0, weights[:, m], np.nan)  # (n,)
            ax.plot(
                history.trial_numbers,
                shown,
                color=_color(m),  # kernel m has the same colour in both panels
                marker="." if len(history.trial_numbers) < 60 else None,
                label=f"{label} ({final[m]:.2g})",
            )
        positive = weights[weights > 0.0]
        lowest = positive.min() / 3.0 if positive.size else 1e-3
        ax.set_yscale("log")
        ax.set_ylim(max(lowest, _FLOOR), 1.5)
        if lowest < _FLOOR:
            ylabel = f"Kernel weight (axis floor {_FLOOR:.0e})"  # smaller ones run off it
        top = int(np.argmax(final))
        rest = float(np.delete(final, top).sum())  # not 1 - final[top], which rounds to 0
        title = "Kernel weights (log scale)"
        if final[top] > _DOMINANT and rest > 0.0:
            title += f"\n{labels[top]} holds all but {rest:.2g} of the weight"
        elif final[top] > _DOMINANT:
            title += f"\n{labels[top]} holds all the weight (the others' underflowed to 0)"
        ax.set_title(title, fontsize="medium")
    for i, refit in enumerate(history.refits):
        ax.axvline(
            refit.trial_number,
            color="black",
            linestyle=":",
            linewidth=0.8,
            label="refit" if i == 0 else None,
        )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("Trial")
    ax.set_ylabel(ylabel)
    ax.legend(loc="best", fontsize="small", framealpha=0.8, title="kernel (final weight)")


def _plot_relevance(ax: Axes, history: ModelHistory) -> None:
    newest = history.refits[-1]
    relevance = history.relevance()  # {ARD kernel: {param: share}}
    labels = _unique(history.kernel_names)
    final = dict(zip(labels, history.weights[-1])) if len(history.weights) else {}
    if relevance:
        params = history.params  # (P,)
        height = 0.8 / len(relevance)
        for k, (name, shares) in enumerate(relevance.items()):
            y = np.arange(len(params)) - 0.4 + (k + 0.5) * height  # (P,)
            label = f"{name} (weight {final[name]:.2f})" if name in final else name
            ax.barh(
                y,
                [shares[p] for p in params],
                height=height,
                label=label,
                color=_color(labels.index(name)),
            )
        ax.set_yticks(np.arange(len(params)), params)
        ax.set_xlabel("Relevance (1 / lengthscale, normalised per kernel)")
        ax.set_title(f"Parameter relevance (model of trial {newest.trial_number})")
        ax.legend(loc="best", fontsize="small", framealpha=0.8)
    else:
        # (M,) one shared lengthscale each
        lengthscales = [float(ls[0]) for ls in newest.lengthscales]
        ax.barh(np.arange(len(labels)), lengthscales, color="tab:gray")
        ax.set_yticks(np.arange(len(labels)), labels)
        ax.set_xlabel("Shared lengthscale (unit cube)")
        ax.set_title(
            f"No ARD kernel: per-parameter relevance unavailable\n"
            f"(shared lengthscales, model of trial {newest.trial_number})",
            fontsize="medium",
        )
    ax.invert_yaxis()  # first parameter on top


# ----------------------------------------------------------------------------------- reading
def _parse_model(record: Any) -> Refit | None:
    """The :class:`Refit` (trial number -1) of a MODEL_KEY record, or None if it is unreadable."""
    try:
        columns = [str(c) for c in record["columns"]]
        model = record["model"]
        names = [str(n) for n in model["kernels"]]
        lengthscales = [
            np.asarray(h["lengthscales"], dtype=float) for h in model["hyperparameters"]
        ]
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    ok = (
        columns
        and len(names) == len(lengthscales) > 0
        and all(
            ls.ndim == 1
            and len(ls) in (1, len(columns))
            and np.all(ls > 0)
            and np.all(np.isfinite(ls))
            for ls in lengthscales
        )
    )
    return Refit(-1, columns, lengthscales, names) if ok else None


def _is_ard(name: str, ls: np.ndarray, d: int) -> bool:
    """A kernel with one lengthscale per column (by its
    name, e.g. ``"rbf-ard"``; shape checked too)."""
    return "-ard" in name and len(ls) == d


def _color(m: int) -> str:
    return f"C{m % 10}"  # the default colour cycle


def _is_number(v: Any) -> bool:
    try:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    except OverflowError:  # an int too large for a float
        return False


def _unique(names: Sequence[str]) -> list[str]:
    """``names`` with repeats numbered (``"rbf"``,
    ``"rbf #2"``), for legends and dictionary keys."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} #{seen[n]}")
    return out
