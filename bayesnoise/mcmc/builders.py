"""PyMC builders of the hierarchical Beta-Binomial models.

Every builder is a plain function of the data that returns a :class:`BuiltModel`: the
:class:`pymc.Model` (named dims ``model`` and ``question``) together with its kind, the
validated counts and the priors, which is what :func:`bayesnoise.mcmc.fit` needs. Nothing is
sampled here and nothing is attached to the PyMC object.

Data conventions (those of :func:`bayesnoise.load`): ``correct[m, i]`` is the number of correct
samples of model ``m`` on question ``i`` and ``count[m, i]`` the number of samples drawn
(``K_mi``); ``count == 0`` marks a question the model did not answer. Such cells are *masked*: a
Binomial or Beta-Binomial with ``n = 0`` and ``correct = 0`` has log-likelihood exactly 0, so the
cell carries no information, and every finite-sample quantity (``ubar``, ``V_x``, ``V_pred``,
paired differences) averages over answered questions only. Nothing is imputed.

Every builder takes the data the same way -- ``(correct, count)`` arrays, a dataset, or a
:class:`ModelData` -- with keyword-only ``priors``, ``models`` and ``questions`` (see
:func:`model_data`). PyMC is imported inside the builders only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .diagnostics import IdentifiabilityWarning, warn_user
from .inputs import BuiltModel, ModelData, prepare
from .loglik import betabinom_loglik, joint_betabinom_loglik
from .priors import Priors

__all__ = ["fixed_hyper_model", "joint_model", "latent_model", "marginal_model"]

#: Gauss-Hermite nodes integrating the question-difficulty distribution out of the joint
#: model's population accuracy ``E_b[logistic(theta - b)]``, ``b ~ Normal(0, sigma)``:
#: 32 nodes integrate the logistic against a normal of sd <= 5 to better than 1e-7.
GAUSS_HERMITE_NODES = 32


def _warn_unidentified_kappa(data: ModelData, priors: Priors) -> None:
    """kappa is identified only through questions answered more than once."""
    multi = ((data.count > 1) & data.mask).sum(axis=1)
    bad = [name for name, n in zip(data.models, multi, strict=True) if n < 2]
    if bad:
        shown = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        warn_user(
            f"kappa (how alike the questions are) is not identified for {len(bad)} model(s) "
            f"with fewer than 2 questions sampled more than once: {shown}. For them the "
            f"kappa posterior is its prior LogNormal(log {priors.kappa_median:g}, "
            f"{priors.kappa_log_sd:g}), and ubar's interval and the data / prediction split "
            "follow that assumption (mu does not). To identify it, sample each question at "
            "least twice (K >= 2); or state the assumption through Priors(kappa_median=..., "
            "kappa_log_sd=...).",
            IdentifiabilityWarning,
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


def marginal_model(
    correct: Any,
    count: Any = None,
    *,
    priors: Priors | None = None,
    models: Any = None,
    questions: Any = None,
    aggregate: bool = True,
) -> BuiltModel:
    """Marginal Beta-Binomial model of all models of a benchmark.

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
    BuiltModel
        Kind ``"marginal"``. Free variables ``mu``, ``kappa`` (dim ``model``); deterministics
        ``data_var`` = ``mu(1-mu)/(kappa+1)`` and ``prediction_var`` =
        ``mu(1-mu)kappa/(kappa+1)``.

    Warns
    -----
    IdentifiabilityWarning
        Naming the models whose ``kappa`` the data cannot identify (K = 1).

    Examples
    --------
    >>> from bayesnoise.mcmc import marginal_model
    >>> built = marginal_model([[3, 5, 0], [10, 9, 8]], 10, models=["a", "b"])
    >>> sorted(v.name for v in built.model.free_RVs)
    ['kappa', 'mu']
    """
    import pymc as pm

    data, priors = prepare(correct, count, models, questions, priors)
    _warn_unidentified_kappa(data, priors)
    with pm.Model(coords=data.coords) as model:
        mu, kappa = _hyperpriors(priors)
        a = mu * kappa
        b = (1 - mu) * kappa
        if aggregate:
            # The likelihood of model m depends on its cells only through how many cells have
            # each (correct, count) pair: evaluate each distinct pair once, weighted.
            idx, c_u, k_u, weight = _unique_cells(data)
            loglik = betabinom_loglik(c_u, k_u, a[idx], b[idx])
            pm.Potential("correct_loglik", (weight * loglik).sum())
        else:
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
    return BuiltModel(model, "marginal", data, priors)


def latent_model(
    correct: Any,
    count: Any = None,
    *,
    priors: Priors | None = None,
    models: Any = None,
    questions: Any = None,
    mu: Any = None,
    kappa: Any = None,
) -> BuiltModel:
    """Latent Beta-Binomial model with the per-question accuracies ``u`` sampled.

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
        ``Beta(mu kappa + c_i, (1 - mu) kappa + K_i - c_i)`` -- the closed form of
        :mod:`bayesnoise.conjugate`, which is what this variant exists to check.

    Returns
    -------
    BuiltModel
        Kind ``"latent"`` (``"fixed"`` with ``mu`` and ``kappa`` given). Free ``u`` (dims
        ``model``, ``question``; plus ``mu``, ``kappa`` unless fixed); deterministics ``ubar``,
        ``V_x``, ``V_pred`` (finite-sample: mean, variance and mean of ``u(1-u)`` over the
        answered questions) and ``data_var``, ``prediction_var`` (population); the Binomial
        log-likelihood as the potential ``correct_loglik``.

    Examples
    --------
    >>> from bayesnoise.mcmc import latent_model
    >>> built = latent_model([[3, 5, 0], [10, 9, 8]], 10)
    >>> sorted(built.model.deterministics, key=str)
    [V_pred, V_x, data_var, prediction_var, ubar]
    """
    import pymc as pm
    import pytensor.tensor as pt

    data, priors = prepare(correct, count, models, questions, priors)
    if (mu is None) != (kappa is None):
        raise ValueError("give both mu and kappa to fix the hyperparameters, or neither")
    fixed = mu is not None
    if fixed:
        n_models = len(data.models)
        mu_v = np.broadcast_to(np.asarray(mu, dtype=float), (n_models,)).copy()
        kappa_v = np.broadcast_to(np.asarray(kappa, dtype=float), (n_models,)).copy()
        if np.any((mu_v <= 0) | (mu_v >= 1)) or np.any(~(kappa_v > 0)):
            raise ValueError("fixed mu must be in (0, 1) and kappa > 0")
    else:
        _warn_unidentified_kappa(data, priors)
    with pm.Model(coords=data.coords) as model:
        if fixed:
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
        c, k = data.correct, data.count
        pm.Potential("correct_loglik", (w * (c * pt.log(u) + (k - c) * pt.log1p(-u))).sum())
        _finite_sample_deterministics(u, data.mask)
        _population_variances(mu_t, kappa_t)
    return BuiltModel(model, "fixed" if fixed else "latent", data, priors)


def fixed_hyper_model(
    correct: Any,
    count: Any = None,
    *,
    mu: Any,
    kappa: Any,
    models: Any = None,
    questions: Any = None,
) -> BuiltModel:
    """Latent model with ``(mu, kappa)`` fixed as constants, to check the closed forms.

    Same as ``latent_model(correct, count, mu=mu, kappa=kappa)``.

    Examples
    --------
    >>> from bayesnoise.mcmc import fixed_hyper_model
    >>> built = fixed_hyper_model([[3, 5, 0]], 10, mu=0.4, kappa=2.0)
    >>> built.kind, [v.name for v in built.model.free_RVs]
    ('fixed', ['u'])
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
) -> BuiltModel:
    """Joint model: the models' accuracies on a question are correlated.

    Construction (a logistic item-response model with Beta-Binomial residuals)::

        theta_m ~ Normal(0, theta_sd)                 model ability (logit scale)
        sigma_b ~ HalfNormal(difficulty_scale)
        b_i     ~ Normal(0, sigma_b)                  question difficulty, shared by all models
        phi_m   ~ LogNormal(log(phi_median), phi_log_sd)
        p_mi    = logistic(theta_m - b_i)
        u_mi    ~ Beta(p_mi phi_m, (1 - p_mi) phi_m)  (integrated out)
        c_mi    ~ BetaBinomial(K_mi, p_mi phi_m, (1 - p_mi) phi_m)

    Why this form: the shared ``b_i`` makes all models find the same questions hard (which is
    what makes paired differences less noisy than unpaired ones), while the per-model Beta
    residual (rather than a plain Binomial on ``p_mi``) keeps the model-by-question
    disagreement and the per-model overdispersion that real evals show; without it the
    intervals are too narrow when ``K > 1``. With ``phi -> inf`` it reduces to the Rasch model,
    and with one model it is the Beta-Binomial model of :func:`marginal_model` with a
    logit-normal question distribution. ``b_i ~ Normal(0, sigma_b)`` (not a sum-to-zero effect)
    keeps the uncertainty of the question population in the population accuracy
    ``mu_m = E_b[logistic(theta_m - b)]``, computed by Gauss-Hermite quadrature, so
    ``mu_a - mu_b`` is the population-level paired difference *including* paired data noise.
    The finite-sample ``u`` and the paired differences ``dbar`` on these questions are drawn
    exactly by :func:`fit`. The likelihood is evaluated by
    :func:`bayesnoise.mcmc.loglik.joint_betabinom_loglik` (exact; products instead of
    ``lgamma`` for small counts, several times cheaper per gradient).

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
    BuiltModel
        Kind ``"joint"``. Free ``theta_rel``, ``phi`` (dim ``model``), ``sigma_b``,
        ``difficulty_mean`` and the zero-sum deviations ``difficulty_dev`` (or
        ``difficulty_z``, dim ``question``); deterministics ``theta``, ``difficulty`` (``b``)
        and ``mu`` (population accuracy, dim ``model``); the Beta-Binomial log-likelihood over
        answered cells as the potential ``correct_loglik``.

    Examples
    --------
    >>> from bayesnoise.mcmc import joint_model
    >>> built = joint_model([[3, 5, 0], [10, 9, 8]], 10)
    >>> sorted(v.name for v in built.model.free_RVs)
    ['difficulty_dev', 'difficulty_mean', 'phi', 'sigma_b', 'theta_rel']
    """
    import pymc as pm
    import pytensor.tensor as pt

    data, priors = prepare(correct, count, models, questions, priors)
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
            d = sigma_b * pm.ZeroSumNormal("difficulty_z", 1.0, dims="question")
        else:
            d = pm.ZeroSumNormal("difficulty_dev", sigma_b, dims="question")
        theta = pm.Deterministic("theta", theta_rel + b_mean, dims="model")
        pm.Deterministic("difficulty", b_mean + d, dims="question")
        phi = pm.LogNormal("phi", np.log(priors.phi_median), priors.phi_log_sd, dims="model")
        p = pm.math.sigmoid(theta_rel[:, None] - d[None, :])
        loglik = joint_betabinom_loglik(p, phi, data.correct, data.count)
        pm.Potential("correct_loglik", loglik)
        grid = pm.math.sigmoid(theta[:, None] - sigma_b * pt.as_tensor(x_gh)[None, :])
        pm.Deterministic("mu", pt.dot(grid, w_gh), dims="model")
    return BuiltModel(model, "joint", data, priors)
