"""What the builders take and give: validated counts (:class:`ModelData`) and :class:`BuiltModel`.

A builder is a plain function of the data that returns a :class:`BuiltModel`, the
:class:`pymc.Model` with its kind, the validated counts and the priors; nothing is attached to
the PyMC object. Counts are validated by :func:`bayesnoise.data.check_counts`, the package's one
validator, and refused (never clipped) when out of range or fractional.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayesnoise.data import DataError, beta_binomial_counts, check_counts

from .priors import DEFAULT_PRIORS, Priors

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = ["BuiltModel", "ModelData", "model_data"]

KINDS = ("marginal", "latent", "fixed", "joint")


@dataclass(frozen=True)
class ModelData:
    """Validated question-level counts, shape ``(M, N)``, as the builders use them.

    Attributes
    ----------
    correct, count : numpy.ndarray of int64
        Number correct and samples per cell; ``count == 0`` is an unanswered cell.
    models, questions : list of str
        Coordinate labels.
    """

    correct: np.ndarray
    count: np.ndarray
    models: list[str]
    questions: list[str]

    @property
    def mask(self) -> np.ndarray:
        """Boolean ``(M, N)``: True where the model answered the question."""
        return self.count > 0

    @property
    def coords(self) -> dict[str, list[str]]:
        """Coordinates for :class:`pymc.Model`."""
        return {"model": self.models, "question": self.questions}


@dataclass(frozen=True)
class BuiltModel:
    """A PyMC model with what :func:`bayesnoise.mcmc.fit` needs to know about it.

    Attributes
    ----------
    model : pymc.Model
        The model itself (use it with any PyMC function, e.g. ``pm.sample_prior_predictive``).
    kind : {"marginal", "latent", "fixed", "joint"}
        Which builder made it: decides the derived quantities and the convergence checks.
    data : ModelData
        The validated counts the model was built on.
    priors : Priors
        The priors used.

    Examples
    --------
    >>> from bayesnoise.mcmc import marginal_model
    >>> built = marginal_model([[3, 5, 0], [10, 9, 8]], 10, models=["a", "b"])
    >>> built.kind, built.data.models, sorted(v.name for v in built.model.free_RVs)
    ('marginal', ['a', 'b'], ['kappa', 'mu'])
    """

    model: pm.Model
    kind: str
    data: ModelData
    priors: Priors = DEFAULT_PRIORS

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")


def model_data(
    correct: Any,
    count: Any = None,
    *,
    models: Any = None,
    questions: Any = None,
) -> ModelData:
    """Validate counts for the PyMC models.

    Parameters
    ----------
    correct : xarray.Dataset or array_like
        Either a dataset from :func:`bayesnoise.load` (variables ``correct`` and ``samples``
        on dims ``model``, ``question``), or an ``(M, N)`` (or ``(N,)`` for one model) array of
        correct counts.
    count : array_like, optional
        Samples per cell, broadcastable to ``correct`` (a scalar K is fine). Required unless
        ``correct`` is a dataset.
    models, questions : sequence of str, optional
        Labels; default the dataset's coordinates or ``"0", "1", ...``.

    Returns
    -------
    ModelData

    Raises
    ------
    bayesnoise.DataError
        Counts that :func:`bayesnoise.data.check_counts` refuses (nothing is clipped), a model
        with no answered question, or fractional scores: the Beta-Binomial model needs whole
        numbers correct out of K.

    Examples
    --------
    >>> from bayesnoise.mcmc import model_data
    >>> d = model_data([[1, 2], [0, 3]], 3)
    >>> d.count.tolist(), d.models
    ([[3, 3], [3, 3]], ['0', '1'])
    """
    if hasattr(correct, "data_vars"):  # xarray.Dataset
        ds = correct
        if count is not None:
            raise TypeError("pass either a dataset or (correct, count) arrays, not both")
        source = str(ds.attrs.get("source", "data"))
        c, k = beta_binomial_counts(ds)
        models = list(map(str, ds["model"].values)) if models is None else models
        questions = list(map(str, ds["question"].values)) if questions is None else questions
    else:
        if count is None:
            raise TypeError("count is required when correct is an array")
        source = "counts"
        c = np.asarray(correct, dtype=float)
        if c.ndim == 1:
            c = c[None, :]
        if c.ndim != 2:
            raise DataError(f"correct must be 1-D or 2-D (model, question), got shape {c.shape}")
        k = np.broadcast_to(np.asarray(count), c.shape)
    c, k = check_counts(c, k, source=source, require_answered=True)
    if np.any(c != np.round(c)):
        raise DataError(
            f"{source}: correct holds fractional values (partial-credit scores); the "
            "Beta-Binomial model needs whole numbers correct out of K samples. Turn graded "
            "scores into success / failure with --threshold T (threshold=T), or use the "
            "frequentist commands (noise, pairs), which handle partial credit."
        )
    m, n = c.shape
    models = [str(x) for x in (range(m) if models is None else models)]
    questions = [str(x) for x in (range(n) if questions is None else questions)]
    if len(models) != m or len(questions) != n:
        raise ValueError("models / questions labels do not match the data shape")
    return ModelData(correct=c.astype(np.int64), count=k, models=models, questions=questions)


def prepare(correct, count, models, questions, priors) -> tuple[ModelData, Priors]:
    """The one data + priors preparation shared by every builder."""
    if isinstance(correct, ModelData):
        data = correct
    else:
        data = model_data(correct, count, models=models, questions=questions)
    priors = DEFAULT_PRIORS if priors is None else priors
    if not isinstance(priors, Priors):
        raise TypeError("priors must be a bayesnoise.mcmc.Priors")
    return data, priors
