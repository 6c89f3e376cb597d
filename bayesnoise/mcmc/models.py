"""PyMC model builders for the hierarchical Beta-Bernoulli model (DESIGN.md section 3).

Every builder is a plain function of the data that returns a :class:`pymc.Model` with named
dims ``model`` and ``question``. Nothing is sampled here; see :func:`bayesnoise.mcmc.fit`.

Data conventions (those of :func:`bayesnoise.data.load`): ``correct[m, i]`` is the number of
correct samples of model ``m`` on question ``i`` and ``count[m, i]`` the number of samples drawn
(``K_mi``); ``count == 0`` marks a question the model did not answer. Such cells are *masked*: a
Binomial or Beta-Binomial with ``n = 0`` and ``correct = 0`` has log-likelihood exactly 0, so the
cell carries no information, and every finite-sample quantity (``ubar``, ``V_x``, ``V_pred``,
paired differences) averages over answered questions only. Nothing is imputed.

PyMC is imported inside the builders only, so ``import bayesnoise.mcmc`` stays cheap.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = [
    "DEFAULT_PRIORS",
    "ModelData",
    "Priors",
    "fixed_hyper_model",
    "joint_model",
    "latent_model",
    "marginal_model",
    "model_data",
    "prior_predictive_summary",
]

#: Number of Gauss-Hermite nodes used to integrate the question-difficulty distribution out of
#: the joint model's population accuracy ``E_b[logistic(theta - b)]``, ``b ~ Normal(0, sigma)``.
#: 32 nodes integrate the logistic against a normal of sd <= 5 to better than 1e-7.
GAUSS_HERMITE_NODES = 32


@dataclass(frozen=True)
class Priors:
    """Prior settings of the hierarchical models, in mean / concentration terms.

    Parameters
    ----------
    mu_mean, mu_concentration : float
        ``mu ~ Beta(mu_mean * mu_concentration, (1 - mu_mean) * mu_concentration)``: the
        population accuracy of each model. Default ``0.5, 2.0`` is the uniform ``Beta(1, 1)``.
    kappa_median, kappa_log_sd : float
        ``log(kappa) ~ Normal(log(kappa_median), kappa_log_sd)``: the concentration of the
        question accuracies ``u_i``. Default ``1.0, 1.5``: centred on the paper's
        ``Beta(p, 1 - p)`` theory (``kappa = 1``) with 95% prior mass on ``kappa`` in
        ``[0.05, 19]``, i.e. on a data-noise share ``1 / (kappa + 1)`` of the total between 0.05
        and 0.95. :func:`prior_predictive_summary` shows what this implies for the data.
    theta_sd : float
        Joint model only: ``theta_m ~ Normal(0, theta_sd)`` is model ``m``'s logit-scale
        ability. Default 2.0 (a model's accuracy on a typical question anywhere in
        ``[0.02, 0.98]`` a priori).
    difficulty_scale : float
        Joint model only: the spread of question difficulties ``b_i ~ Normal(0, sigma_b)`` has
        ``sigma_b ~ HalfNormal(difficulty_scale)``. Default 2.0.
    phi_median, phi_log_sd : float
        Joint model only: ``log(phi_m) ~ Normal(log(phi_median), phi_log_sd)`` is the residual
        concentration of model ``m``'s accuracies around the shared question effect (large phi:
        models agree on which questions are hard). Default ``3.0, 1.5``.

    Examples
    --------
    >>> from bayesnoise.mcmc import Priors
    >>> p = Priors(mu_mean=0.75, mu_concentration=4.0)
    >>> p.mu_alpha, p.mu_beta
    (3.0, 1.0)
    """

    mu_mean: float = 0.5
    mu_concentration: float = 2.0
    kappa_median: float = 1.0
    kappa_log_sd: float = 1.5
    theta_sd: float = 2.0
    difficulty_scale: float = 2.0
    phi_median: float = 3.0
    phi_log_sd: float = 1.5

    def __post_init__(self) -> None:
        if not 0.0 < self.mu_mean < 1.0:
            raise ValueError(f"mu_mean must be in (0, 1), got {self.mu_mean}")
        for name in (
            "mu_concentration",
            "kappa_median",
            "kappa_log_sd",
            "theta_sd",
            "difficulty_scale",
            "phi_median",
            "phi_log_sd",
        ):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive finite number, got {value}")

    @property
    def mu_alpha(self) -> float:
        """First Beta parameter of the prior on ``mu``."""
        return self.mu_mean * self.mu_concentration

    @property
    def mu_beta(self) -> float:
        """Second Beta parameter of the prior on ``mu``."""
        return (1.0 - self.mu_mean) * self.mu_concentration


DEFAULT_PRIORS = Priors()


@dataclass(frozen=True)
class ModelData:
    """Validated question-level counts, shape ``(M, N)``, as the builders use them.

    Attributes
    ----------
    correct : numpy.ndarray
        Number correct per cell (int64, or float64 for fractional scores).
    count : numpy.ndarray of int64
        Samples per cell; ``count == 0`` is an unanswered cell.
    models, questions : list of str
        Coordinate labels.
    """

    correct: np.ndarray
    count: np.ndarray
    models: list[str]
    questions: list[str]

    @property
    def integer(self) -> bool:
        """True when every ``correct`` is a whole number."""
        return self.correct.dtype.kind in "iu"

    @property
    def mask(self) -> np.ndarray:
        """Boolean ``(M, N)``: True where the model answered the question."""
        return self.count > 0

    @property
    def coords(self) -> dict[str, list[str]]:
        """Coordinates for :class:`pymc.Model`."""
        return {"model": self.models, "question": self.questions}


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
        Either a dataset from :func:`bayesnoise.data.load` (variables ``correct`` and
        ``count`` on dims ``model``, ``question``), or an ``(M, N)`` (or ``(N,)`` for one model)
        array of correct counts.
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
    ValueError
        On non-integer or out-of-range counts, or a model with no answered question.

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
        if "correct" not in ds or "count" not in ds:
            raise ValueError("dataset needs variables 'correct' and 'count'")
        if ds.attrs.get("counts_known") is False:
            from bayesnoise.data import DataError

            raise DataError(
                f"{ds.attrs.get('source', 'data')}: the scores are fractional pass1 values "
                "without the number of samples behind them; the Beta-Binomial models need "
                "counts (correct out of K). Load a count table or per-sample rows."
            )
        c = ds["correct"].transpose("model", "question").values
        k = ds["count"].transpose("model", "question").values
        models = list(map(str, ds["model"].values)) if models is None else models
        questions = list(map(str, ds["question"].values)) if questions is None else questions
    else:
        if count is None:
            raise TypeError("count is required when correct is an array")
        c = np.asarray(correct, dtype=float)
        if c.ndim == 1:
            c = c[None, :]
        k = np.broadcast_to(np.asarray(count), c.shape)
    c = np.asarray(c, dtype=float)
    k_float = np.asarray(k, dtype=float)
    if c.ndim != 2:
        raise ValueError(f"correct must be 1-D or 2-D (model, question), got shape {c.shape}")
    if np.any(~np.isfinite(k_float)) or np.any(k_float < 0) or np.any(k_float != np.round(k_float)):
        raise ValueError("count must hold non-negative integers (0 = question not answered)")
    k = k_float.astype(np.int64)
    answered = k > 0
    c = np.where(answered, c, 0.0)
    if np.any(~np.isfinite(c)):
        raise ValueError("correct has NaN or inf on answered cells (count > 0)")
    if np.any(c < -1e-9) or np.any(c > k + 1e-9):
        raise ValueError("correct must lie in [0, count] on every cell")
    integer = bool(np.all(np.abs(c - np.round(c)) <= 1e-6))
    if integer:
        c = np.round(c).astype(np.int64)
    else:
        warnings.warn(
            "correct holds fractional counts (scores are not binary counts); the Beta-Binomial "
            "likelihood betaln(c + a, K - c + b) - betaln(a, b) is used on them as a "
            "quasi-likelihood, as in bayesnoise.conjugate",
            UserWarning,
            stacklevel=3,
        )
        c = np.clip(c, 0.0, k)
    m, n = c.shape
    empty = ~answered.any(axis=1)
    models = [str(x) for x in (range(m) if models is None else models)]
    questions = [str(x) for x in (range(n) if questions is None else questions)]
    if len(models) != m or len(questions) != n:
        raise ValueError("models / questions labels do not match the data shape")
    if empty.any():
        bad = [models[j] for j in np.flatnonzero(empty)]
        raise ValueError(f"models with no answered question: {bad}")
    return ModelData(correct=c, count=k, models=models, questions=questions)


def _data_and_priors(correct, count, models, questions, priors):
    data = (
        correct
        if isinstance(correct, ModelData)
        else model_data(correct, count, models=models, questions=questions)
    )
    priors = DEFAULT_PRIORS if priors is None else priors
    if not isinstance(priors, Priors):
        raise TypeError("priors must be a bayesnoise.mcmc.Priors")
    return data, priors


def _warn_unidentified_kappa(data: ModelData, priors: Priors) -> None:
    """kappa is identified only through questions answered more than once."""
    multi = ((data.count > 1) & data.mask).sum(axis=1)
    bad = [name for name, n in zip(data.models, multi, strict=True) if n < 2]
    if bad:
        warnings.warn(
            f"kappa is not identified for {len(bad)} model(s) with fewer than 2 questions "
            f"answered more than once (K = 1): {bad[:5]}{' ...' if len(bad) > 5 else ''}. "
            f"Their kappa posterior is the prior LogNormal(log {priors.kappa_median:g}, "
            f"{priors.kappa_log_sd:g}), and ubar's interval and the data / prediction split "
            "depend on that assumption (mu does not).",
            UserWarning,
            stacklevel=3,
        )


def _hyperpriors(priors: Priors):
    import pymc as pm

    mu = pm.Beta("mu", alpha=priors.mu_alpha, beta=priors.mu_beta, dims="model")
    kappa = pm.LogNormal(
        "kappa", mu=np.log(priors.kappa_median), sigma=priors.kappa_log_sd, dims="model"
    )
    return mu, kappa


def _population_variances(mu, kappa) -> None:
    import pymc as pm

    pm.Deterministic("data_var", mu * (1 - mu) / (kappa + 1), dims="model")
    pm.Deterministic("prediction_var", mu * (1 - mu) * kappa / (kappa + 1), dims="model")


def _set_kind(model, kind: str, data: ModelData, priors: Priors) -> None:
    # Plain attributes on the model object: fit() and the tables read them back.
    model._bayesnoise_kind = kind
    model._bayesnoise_data = data
    model._bayesnoise_priors = priors


def marginal_model(
    correct: Any,
    count: Any = None,
    *,
    priors: Priors | None = None,
    models: Any = None,
    questions: Any = None,
    aggregate: bool = True,
) -> pm.Model:
    """Marginal Beta-Binomial model of all models of a benchmark (model 1).

    Per model ``m``: ``mu_m ~ Beta`` prior, ``kappa_m ~ LogNormal`` prior (see :class:`Priors`),
    and ``correct[m, i] ~ BetaBinomial(count[m, i], mu_m kappa_m, (1 - mu_m) kappa_m)``: the
    per-question accuracies ``u_i`` are integrated out, which samples much faster than
    :func:`latent_model`. ``u`` can be drawn exactly afterwards (``fit`` does so to report
    ``ubar``, ``V_x`` and ``V_pred``), because ``u_i | c_i, mu, kappa`` is
    ``Beta(mu kappa + c_i, (1 - mu) kappa + K_i - c_i)``.

    Parameters
    ----------
    correct, count, models, questions
        See :func:`model_data`.
    priors : Priors, optional
        Default :data:`DEFAULT_PRIORS`.
    aggregate : bool, default True
        Evaluate the likelihood once per distinct ``(model, correct, count)`` triple, weighted by
        its multiplicity (a ``pm.Potential`` named ``correct_loglik``), instead of once per cell.
        The log posterior is identical; sampling is ~10-50x faster. Use ``aggregate=False`` for
        an observed variable ``correct`` (dims ``model``, ``question``) and data ``count``, e.g.
        for ``pm.sample_prior_predictive``. Unanswered cells (``count == 0``) are dropped.

    Returns
    -------
    pymc.Model
        Free variables ``mu``, ``kappa`` (dim ``model``); deterministics ``data_var`` =
        ``mu(1-mu)/(kappa+1)`` and ``prediction_var`` = ``mu(1-mu)kappa/(kappa+1)``.

    Examples
    --------
    >>> from bayesnoise.mcmc import marginal_model
    >>> m = marginal_model([[3, 5, 0], [10, 9, 8]], 10, models=["a", "b"])
    >>> sorted(v.name for v in m.free_RVs)
    ['kappa', 'mu']
    """
    import pymc as pm

    data, priors = _data_and_priors(correct, count, models, questions, priors)
    _warn_unidentified_kappa(data, priors)
    with pm.Model(coords=data.coords) as model:
        mu, kappa = _hyperpriors(priors)
        a = mu * kappa
        b = (1 - mu) * kappa
        if aggregate:
            # Sufficient statistics: the likelihood of model m depends on its cells only
            # through how many cells have each (correct, count) pair, so each distinct pair is
            # evaluated once and weighted by its multiplicity (~50x fewer terms at K = 10).
            idx, c_u, k_u, weight = _unique_cells(data)
            loglik = _betabinom_loglik(c_u, k_u, a[idx], b[idx])
            pm.Potential("correct_loglik", (weight * loglik).sum())
        else:
            if not data.integer:
                raise ValueError("aggregate=False needs whole-number correct counts")
            k = pm.Data("count", data.count, dims=("model", "question"))
            pm.BetaBinomial(
                "correct",
                n=k,
                alpha=a[:, None],
                beta=b[:, None],
                observed=data.correct,
                dims=("model", "question"),
            )
        _population_variances(mu, kappa)
    _set_kind(model, "marginal", data, priors)
    return model


def _betabinom_loglik(c, k, a, b):
    """Beta-Binomial log-likelihood without the binomial coefficient (a constant).

    ``betaln(c + a, k - c + b) - betaln(a, b)``; also the quasi-likelihood for fractional c.
    """
    from pytensor.tensor import gammaln

    return (
        gammaln(c + a)
        + gammaln(k - c + b)
        - gammaln(k + a + b)
        - gammaln(a)
        - gammaln(b)
        + gammaln(a + b)
    )


def _unique_cells(data: ModelData):
    """Distinct answered ``(model, correct, count)`` triples and their multiplicities."""
    m_idx, _ = np.nonzero(data.mask)
    keys = np.stack([m_idx, data.correct[data.mask], data.count[data.mask]], axis=1)
    uniq, weight = np.unique(keys, axis=0, return_counts=True)
    return uniq[:, 0], uniq[:, 1], uniq[:, 2], weight.astype(float)


def _finite_sample_deterministics(u, mask: np.ndarray) -> None:
    import pymc as pm

    w = mask.astype(float)
    n = w.sum(axis=1)
    ubar = pm.Deterministic("ubar", (u * w).sum(axis=1) / n, dims="model")
    pm.Deterministic("V_x", (w * (u - ubar[:, None]) ** 2).sum(axis=1) / n, dims="model")
    pm.Deterministic("V_pred", (w * u * (1 - u)).sum(axis=1) / n, dims="model")


def latent_model(
    correct: Any,
    count: Any = None,
    *,
    priors: Priors | None = None,
    mu: Any = None,
    kappa: Any = None,
    models: Any = None,
    questions: Any = None,
) -> pm.Model:
    """Latent Beta-Binomial model with per-question accuracies ``u`` (model 2; model 4 if fixed).

    ``u[m, i] ~ Beta(mu_m kappa_m, (1 - mu_m) kappa_m)`` and
    ``correct[m, i] ~ Binomial(count[m, i], u[m, i])`` (unanswered cells contribute nothing).

    Parameters
    ----------
    correct, count, models, questions
        See :func:`model_data`.
    priors : Priors, optional
        Priors on ``mu`` and ``kappa`` when they are not fixed.
    mu, kappa : array_like, optional
        Give both (scalars or one value per model) to fix the hyperparameters as constants;
        the posterior of ``u`` is then the product of independent
        ``Beta(mu kappa + c_i, (1 - mu) kappa + K_i - c_i)`` — the conjugate layer's answer,
        which is what this variant exists to check (see :func:`fixed_hyper_model`).

    Returns
    -------
    pymc.Model
        Free ``u`` (dims ``model``, ``question``; plus ``mu``, ``kappa`` unless fixed);
        deterministics ``ubar``, ``V_x``, ``V_pred`` (finite-sample: mean, variance and mean of
        ``u(1-u)`` over the answered questions) and ``data_var``, ``prediction_var``
        (population); the Binomial log-likelihood as the potential ``correct_loglik``
        (the counts are in the fit's ``observed_data`` group).

    Examples
    --------
    >>> from bayesnoise.mcmc import latent_model
    >>> m = latent_model([[3, 5, 0], [10, 9, 8]], 10)
    >>> sorted(m.deterministics, key=str)
    [V_pred, V_x, data_var, prediction_var, ubar]
    """
    import pymc as pm
    import pytensor.tensor as pt

    data, priors = _data_and_priors(correct, count, models, questions, priors)
    if (mu is None) != (kappa is None):
        raise ValueError("give both mu and kappa to fix the hyperparameters, or neither")
    fixed = mu is not None
    if not fixed:
        _warn_unidentified_kappa(data, priors)
    n_models = len(data.models)
    with pm.Model(coords=data.coords) as model:
        if fixed:
            mu_v = np.broadcast_to(np.asarray(mu, dtype=float), (n_models,)).copy()
            kappa_v = np.broadcast_to(np.asarray(kappa, dtype=float), (n_models,)).copy()
            if np.any((mu_v <= 0) | (mu_v >= 1)) or np.any(~(kappa_v > 0)):
                raise ValueError("fixed mu must be in (0, 1) and kappa > 0")
            mu_t = pm.Data("mu", mu_v, dims="model")
            kappa_t = pm.Data("kappa", kappa_v, dims="model")
        else:
            mu_t, kappa_t = _hyperpriors(priors)
        u = pm.Beta(
            "u",
            alpha=(mu_t * kappa_t)[:, None],
            beta=((1 - mu_t) * kappa_t)[:, None],
            dims=("model", "question"),
        )
        # Binomial log-likelihood (binomial coefficient dropped); 0 on unanswered cells.
        w = data.mask.astype(float)
        pm.Potential(
            "correct_loglik",
            (w * (data.correct * pt.log(u) + (data.count - data.correct) * pt.log1p(-u))).sum(),
        )
        _finite_sample_deterministics(u, data.mask)
        _population_variances(mu_t, kappa_t)
    _set_kind(model, "fixed" if fixed else "latent", data, priors)
    return model


def fixed_hyper_model(
    correct: Any,
    count: Any = None,
    *,
    mu: Any,
    kappa: Any,
    models: Any = None,
    questions: Any = None,
) -> pm.Model:
    """Latent model with ``(mu, kappa)`` fixed as constants (model 4), to check the closed forms.

    Same as ``latent_model(correct, count, mu=mu, kappa=kappa)``.

    Examples
    --------
    >>> from bayesnoise.mcmc import fixed_hyper_model
    >>> m = fixed_hyper_model([[3, 5, 0]], 10, mu=0.4, kappa=2.0)
    >>> [v.name for v in m.free_RVs]
    ['u']
    """
    return latent_model(correct, count, mu=mu, kappa=kappa, models=models, questions=questions)


def joint_model(
    correct: Any,
    count: Any = None,
    *,
    priors: Priors | None = None,
    models: Any = None,
    questions: Any = None,
    noncentered: bool | None = None,
) -> pm.Model:
    """Joint model: the models' accuracies on a question are correlated (model 3).

    Construction (a logistic item-response model with Beta-Binomial residuals)::

        theta_m ~ Normal(0, theta_sd)                 model ability (logit scale)
        sigma_b ~ HalfNormal(difficulty_scale)
        b_i     ~ Normal(0, sigma_b)                  question difficulty, shared by all models
        phi_m   ~ LogNormal(log(phi_median), phi_log_sd)
        p_mi    = logistic(theta_m - b_i)
        u_mi    ~ Beta(p_mi phi_m, (1 - p_mi) phi_m)  (integrated out)
        c_mi    ~ BetaBinomial(K_mi, p_mi phi_m, (1 - p_mi) phi_m)

    Why this form: the shared ``b_i`` makes all models find the same questions hard (the
    paired-noise reduction of DESIGN.md section 1), while the per-model Beta residual (rather
    than a plain Binomial on ``p_mi``) keeps the model-by-question disagreement and the
    per-model overdispersion that real evals show; without it the intervals are too narrow when
    ``K > 1``. With ``phi -> inf`` it reduces to the Rasch model, and with one model it is the
    Beta-Binomial model of :func:`marginal_model` with a logit-normal question distribution.
    ``b_i ~ Normal(0, sigma_b)`` (not a sum-to-zero effect) keeps the uncertainty of the
    question population in the population accuracy ``mu_m = E_b[logistic(theta_m - b)]``,
    computed by Gauss-Hermite quadrature, so ``mu_a - mu_b`` is the population-level paired
    difference *including* paired data noise. The finite-sample ``u`` and the paired
    differences ``dbar`` on these questions are drawn exactly by :func:`fit`.

    Parameters
    ----------
    correct, count, models, questions
        See :func:`model_data`.
    priors : Priors, optional
        Uses ``theta_sd``, ``difficulty_scale``, ``phi_median``, ``phi_log_sd``.
    noncentered : bool, optional
        Parametrise the difficulty deviations as ``sigma_b * z``. Default: non-centred when a
        question gets fewer than 20 samples over all models (median), where each ``b_i`` is
        weakly informed; centred otherwise (measured: 4 models x K = 10 gives 4x the ESS of
        ``sigma_b`` with the centred form).

    Returns
    -------
    pymc.Model
        Free ``theta_rel``, ``phi`` (dim ``model``), ``sigma_b``, ``difficulty_mean`` and the
        zero-sum deviations ``difficulty_dev`` (or ``difficulty_z``, dim ``question``);
        deterministics ``theta``, ``difficulty`` (``b``) and ``mu`` (population accuracy, dim ``model``); the
        Beta-Binomial log-likelihood over answered cells as the potential ``correct_loglik``.

    Examples
    --------
    >>> from bayesnoise.mcmc import joint_model
    >>> m = joint_model([[3, 5, 0], [10, 9, 8]], 10)
    >>> sorted(v.name for v in m.free_RVs)
    ['difficulty_dev', 'difficulty_mean', 'phi', 'sigma_b', 'theta_rel']
    """
    import pymc as pm
    import pytensor.tensor as pt

    data, priors = _data_and_priors(correct, count, models, questions, priors)
    if noncentered is None:
        noncentered = bool(np.median(data.count.sum(axis=0)) < 20)
    x_gh, w_gh = np.polynomial.hermite_e.hermegauss(GAUSS_HERMITE_NODES)
    w_gh = w_gh / w_gh.sum()
    with pm.Model(coords=data.coords) as model:
        # b_i ~ iid Normal(0, sigma_b), written exactly as its mean plus zero-sum deviations:
        # b = b_mean + d, b_mean ~ Normal(0, sigma_b / sqrt(N)), d ~ ZeroSumNormal(sigma_b).
        # The data inform theta_rel = theta - b_mean and d; b_mean (is this question set
        # harder than the population?) is left to its prior, and theta's Normal(0, theta_sd)
        # prior is kept through theta_rel | b_mean ~ Normal(-b_mean, theta_sd). Same model as
        # theta ~ Normal(0, theta_sd), b ~ Normal(0, sigma_b), without the ridge along
        # (theta + c, b + c) that slows NUTS with a diagonal mass matrix.
        n_q = len(data.questions)
        sigma_b = pm.HalfNormal("sigma_b", priors.difficulty_scale)
        b_mean = pm.Normal("difficulty_mean", 0.0, sigma_b / np.sqrt(n_q))
        theta_rel = pm.Normal("theta_rel", -b_mean, priors.theta_sd, dims="model")
        if noncentered:
            z = pm.ZeroSumNormal("difficulty_z", 1.0, dims="question")
            d = sigma_b * z
        else:
            d = pm.ZeroSumNormal("difficulty_dev", sigma_b, dims="question")
        theta = pm.Deterministic("theta", theta_rel + b_mean, dims="model")
        pm.Deterministic("difficulty", b_mean + d, dims="question")
        phi = pm.LogNormal("phi", np.log(priors.phi_median), priors.phi_log_sd, dims="model")
        p = pm.math.sigmoid(theta_rel[:, None] - d[None, :])
        loglik = _betabinom_loglik(
            data.correct, data.count, p * phi[:, None], (1 - p) * phi[:, None]
        )
        pm.Potential("correct_loglik", (data.mask * loglik).sum())
        grid = pm.math.sigmoid(theta[:, None] - sigma_b * pt.as_tensor(x_gh)[None, :])
        pm.Deterministic("mu", pt.dot(grid, w_gh), dims="model")
    _set_kind(model, "joint", data, priors)
    return model


def prior_predictive_summary(
    priors: Priors | None = None,
    *,
    count: int = 10,
    questions: int = 500,
    draws: int = 2000,
    random_seed: int = 0,
) -> dict[str, np.ndarray]:
    """Prior predictive check of the ``(mu, kappa)`` priors, in numpy (no PyMC needed).

    Simulates ``draws`` benchmarks of ``questions`` questions with ``count`` samples each from
    the prior and returns the 2.5, 25, 50, 75 and 97.5% quantiles of what an analyst would
    look at: the observed accuracy, the share of total variance that is data noise
    (``1 / (kappa + 1)``), the fraction of questions never solved and always solved, and the
    frequentist data-variance estimate of DESIGN.md section 2.

    With the defaults (``K = 10``, ``N = 500``) the accuracy is spread over ``[0.03, 0.97]``,
    the data-noise share over about ``[0.05, 0.95]`` and the fraction of never-solved
    questions over roughly ``[0, 0.9]``: every benchmark shape seen in ../shared/data (from
    nearly binary questions, kappa ~ 0.1, to near-homogeneous ones, kappa ~ 10) is plausible a
    priori, while kappa > 100 (questions all alike) and kappa < 0.01 (every question solved
    always or never even at K = 10) are not.

    Returns
    -------
    dict of str to numpy.ndarray
        Quantiles (length 5) per quantity, plus ``"quantiles"``.

    Examples
    --------
    >>> from bayesnoise.mcmc import prior_predictive_summary
    >>> s = prior_predictive_summary(draws=200)
    >>> sorted(s)[:3]
    ['accuracy', 'always_solved', 'data_share']
    """
    priors = DEFAULT_PRIORS if priors is None else priors
    rng = np.random.default_rng(random_seed)
    mu = rng.beta(priors.mu_alpha, priors.mu_beta, size=draws)
    kappa = np.exp(rng.normal(np.log(priors.kappa_median), priors.kappa_log_sd, size=draws))
    a = np.maximum(mu * kappa, 1e-300)
    b = np.maximum((1 - mu) * kappa, 1e-300)
    u = rng.beta(a[:, None], b[:, None], size=(draws, questions))
    c = rng.binomial(count, u)
    p = c / count
    w = p * (1 - p)
    q = np.array([0.025, 0.25, 0.5, 0.75, 0.975])
    out = {
        "accuracy": p.mean(axis=1),
        "data_share": 1.0 / (kappa + 1.0),
        "never_solved": (c == 0).mean(axis=1),
        "always_solved": (c == count).mean(axis=1),
        "data_var_estimate": p.var(axis=1) - (w / (count - 1)).mean(axis=1)
        if count > 1
        else np.full(draws, np.nan),
        "kappa": kappa,
    }
    res = {k: np.quantile(v, q) for k, v in out.items()}
    res["quantiles"] = q
    return res
