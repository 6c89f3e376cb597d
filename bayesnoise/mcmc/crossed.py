"""The crossed question x template model by full Bayes in PyMC (``bn.noises(method="mcmc")``).

Counts ``c`` correct out of ``K`` runs per (model, question, template) cell,

    c_mqt ~ Binomial(K_mqt, expit(alpha_m + u_q + v_t + w_qt + x_mt + z_mq)),
    u ~ N(0, s_question^2), v ~ N(0, s_template^2), w ~ N(0, s_question_template^2),
    x ~ N(0, s_model_template^2), z ~ N(0, s_model_question^2),

all non-centred (template and model x template effects sum to 0 over the templates, their
means drawn back afterwards: see :func:`derived_accuracies`), scales half-normal (1 for question and template, 0.5 for the interactions),
alpha_m ~ N(0, 1.5^2). The model x question effect keeps two models' paired differences from
passing for identical question difficulties on the logit scale.

Derived per draw (1-D Gauss-Hermite over the sum of the normal effects):

* accuracy over the template population: E expit(alpha_m + S), S ~ N(0, sum of all five
  variances) (new questions and new templates);
* over these templates: mean over the templates of E expit(alpha_m + v_t + x_mt + S'),
  S' ~ N(0, s_question^2 + s_question_template^2 + s_model_question^2);
* differences A - B of both (linear, so the difference of the per-model expectations).

PyMC is imported inside the functions only.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = [
    "crossed_model",
    "derived_accuracies",
    "sample_crossed",
]

#: Random effects of the model, in the order of their scales.
EFFECTS = ("question", "template", "question_template", "model_template", "model_question")
_PRIOR_SCALE = {"question": 1.0, "template": 1.0}
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(60)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def crossed_model(correct, count):
    """The PyMC model of ``(M, N, T)`` arrays of correct counts and runs (0 = no cell).

    Examples
    --------
    >>> import numpy as np
    >>> m = crossed_model(np.ones((2, 3, 2)), np.full((2, 3, 2), 2))  # doctest: +SKIP
    """
    import pymc as pm

    c = np.asarray(correct, dtype=np.int64)
    k = np.asarray(count, dtype=np.int64)
    n_models, n_questions, n_templates = k.shape
    m, q, t = np.nonzero(k > 0)
    coords = {
        "model": np.arange(n_models),
        "question": np.arange(n_questions),
        "template": np.arange(n_templates),
        "effect": list(EFFECTS),
    }
    with pm.Model(coords=coords) as model:
        alpha = pm.Normal("alpha", 0.0, 1.5, dims="model")
        scales = {
            name: pm.HalfNormal(f"sigma_{name}", _PRIOR_SCALE.get(name, 0.5)) for name in EFFECTS
        }
        u = pm.Normal("u_raw", 0, 1, dims="question") * scales["question"]
        # Template effects sum to 0 over the templates (their mean is not identified apart
        # from alpha with few templates: a ridge that stalls NUTS); their mean is drawn back
        # from its prior in derived_accuracies.
        v = pm.ZeroSumNormal("v_raw", 1.0, dims="template") * scales["template"]
        w = pm.Normal("w_raw", 0, 1, dims=("question", "template")) * scales["question_template"]
        x = pm.ZeroSumNormal("x_raw", 1.0, dims=("model", "template")) * scales["model_template"]
        z = pm.Normal("z_raw", 0, 1, dims=("model", "question")) * scales["model_question"]
        pm.Deterministic("v", v, dims="template")
        pm.Deterministic("x", x, dims=("model", "template"))
        eta = alpha[m] + u[q] + v[t] + w[q, t] + x[m, t] + z[m, q]
        pm.Binomial("y", n=k[m, q, t], logit_p=eta, observed=c[m, q, t])
    return model


def _expit_normal(mean, variance):
    """E expit(mean + sqrt(variance) Z), elementwise (Gauss-Hermite, 60 nodes)."""
    sd = np.sqrt(np.asarray(variance, dtype=float))
    mean = np.asarray(mean, dtype=float)
    return special.expit(mean[..., None] + sd[..., None] * _NODES) @ _WEIGHTS


def derived_accuracies(alpha, sigmas: dict, v, x, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Per draw and model: accuracy over the template population and over these templates.

    ``alpha`` (S, M), each ``sigmas[name]`` (S,), ``v`` (S, T), ``x`` (S, M, T). With
    ``rng`` the template effects are the sampled sum-to-zero ones: their means over the T
    templates (absorbed into alpha) are drawn back from their prior, N(0, s_template^2 / T)
    shared by the models and N(0, s_model_template^2 / T) per model, so that the level on a
    new template carries the uncertainty of where these T templates sit.

    Examples
    --------
    >>> import numpy as np
    >>> s = {e: np.zeros(1) for e in EFFECTS}
    >>> pop, these = derived_accuracies(np.zeros((1, 1)), s, np.zeros((1, 2)), np.zeros((1, 1, 2)))
    >>> round(float(pop[0, 0]), 12), round(float(these[0, 0]), 12)
    (0.5, 0.5)
    """
    var = {name: np.asarray(sigmas[name], dtype=float) ** 2 for name in EFFECTS}
    total = sum(var.values())
    level = np.asarray(alpha, dtype=float)
    if rng is not None:
        n_templates = v.shape[-1]
        gen = np.random.default_rng(rng)
        v_mean = gen.normal(size=level.shape[0]) * np.sqrt(var["template"] / n_templates)
        x_mean = (
            gen.normal(size=level.shape) * np.sqrt(var["model_template"] / n_templates)[:, None]
        )
        level = level - v_mean[:, None] - x_mean
    population = _expit_normal(level, total[:, None] + 0 * level)
    within = var["question"] + var["question_template"] + var["model_question"]
    mean_t = alpha[:, :, None] + v[:, None, :] + x
    these = _expit_normal(mean_t, within[:, None, None] + 0 * mean_t).mean(axis=-1)
    return population, these


def sample_crossed(
    correct,
    count,
    *,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 2,
    rng=0,
    progress: bool = True,
    target_accept: float = 0.9,
):
    """NUTS draws of :func:`crossed_model` with the derived accuracies and diagnostics.

    Returns
    -------
    dict
        ``population``, ``these`` (chains * draws, M) accuracies; ``sigmas`` (name ->
        draws); ``diagnostics``: the :class:`~bayesnoise.mcmc.diagnostics.ConvergenceReport`
        of the scales, alpha and the derived accuracies (a ConvergenceWarning when out of
        bounds); ``seconds``.
    """
    import time

    import pymc as pm
    import xarray as xr

    from .diagnostics import check_convergence

    seed = int(np.random.default_rng(rng).integers(2**31))
    model = crossed_model(correct, count)
    start = time.perf_counter()
    try:
        import nutpie  # noqa: F401

        sampler = "nutpie"
    except ImportError:
        sampler = "pymc"
    with model:
        tree = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=min(chains, 2),
            random_seed=seed,
            progressbar=progress,
            nuts_sampler=sampler,
            target_accept=target_accept,
            compute_convergence_checks=False,
        )
    seconds = time.perf_counter() - start
    post = tree["posterior"]
    post = post.to_dataset() if hasattr(post, "to_dataset") else post
    stacked = post.stack(sample=("chain", "draw"))

    def arr(name, *dims):
        return stacked[name].transpose("sample", *dims).values

    sigmas = {name: arr(f"sigma_{name}") for name in EFFECTS}
    population, these = derived_accuracies(
        arr("alpha", "model"),
        sigmas,
        arr("v", "template"),
        arr("x", "model", "template"),
        rng=np.random.default_rng(seed + 1),
    )
    shape = (post.sizes["chain"], post.sizes["draw"])
    derived = xr.Dataset(
        {
            "accuracy_templates": (("chain", "draw", "model"), population.reshape(*shape, -1)),
            "accuracy_these_templates": (("chain", "draw", "model"), these.reshape(*shape, -1)),
        },
        coords={"chain": post["chain"], "draw": post["draw"]},
    )
    checked = xr.merge([post[["alpha", *(f"sigma_{e}" for e in EFFECTS)]], derived])
    stats = tree["sample_stats"]
    check_tree = xr.DataTree.from_dict(
        {
            "posterior": checked,
            "sample_stats": stats.to_dataset() if hasattr(stats, "to_dataset") else stats,
        }
    )
    report = check_convergence(check_tree)
    return {
        "population": population,
        "these": these,
        "sigmas": sigmas,
        "diagnostics": report,
        "seconds": seconds,
        "sampler": sampler,
    }
