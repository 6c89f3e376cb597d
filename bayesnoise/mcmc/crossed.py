"""The crossed question x template model by full Bayes in PyMC (``bn.noises(method="mcmc")``).

Counts ``c`` correct out of ``K`` runs per (model, question, template) cell,

    c_mqt ~ Binomial(K_mqt, expit(alpha_m + u_q + v_t + w_qt + x_mt + z_mq)),
    u ~ N(0, s_question^2), v ~ N(0, s_template^2), w ~ N(0, s_question_template^2),
    x ~ N(0, s_model_template^2), z ~ N(0, s_model_question^2),

written as the same prior with no direction left to the prior alone (``question_sums``, the
default): per question, w's mean over the templates and z's mean over the models are moved
into u, and x's mean over the models into v (each mean is independent of the deviations, which
are zero-sum normal with the same scale), so that u ~ N(0, s_q^2 + s_qt^2 / T + s_mq^2 / M)
and v ~ N(0, s_t^2 + s_mt^2 / M); u, v, x (over models and templates), w (over templates) and
z (over models) sum to 0, the means absorbed into alpha drawn back afterwards (see
:func:`derived_accuracies`). u and v are centred (each well informed by the data: 200 and 20,000
runs per effect at 10 x 500 x 5 x 4), x centred when its scale rests on (M - 1)(T - 1) >= 16
free effects (:func:`default_centred`), w and z non-centred. Scales half-normal (1 for
question and template, 0.5 for the interactions),
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

import contextlib
import logging

import numpy as np
from scipy import special

__all__ = [
    "absorbed_means",
    "crossed_model",
    "default_centred",
    "derived_accuracies",
    "quiet_logs",
    "sample_crossed",
    "summarise_crossed",
]

#: Random effects of the model, in the order of their scales.
EFFECTS = ("question", "template", "question_template", "model_template", "model_question")
_PRIOR_SCALE = {"question": 1.0, "template": 1.0}
#: Effects drawn centred at 10 models x 5 templates (benchmarks/results/noises_mcmc.md).
CENTRED: tuple[str, ...] = ("question", "template", "model_template")
#: Fewest free model x template effects, (M - 1)(T - 1), for which x is drawn centred.
_CENTRE_X_FROM = 16


def default_centred(n_models: int, n_templates: int) -> tuple[str, ...]:
    """The effects drawn centred for M models and T templates.

    The model x template scale rests on (M - 1)(T - 1) free effects. With 10 models x 5
    templates (36) x centred mixes best (benchmarks/results/noises_mcmc.md); with 2 models x 5
    templates (4) the centred x is a funnel: 2 x 1000 draws at N = 100, K = 1 gave 0-21
    divergences per fit in 4 of 8 fits (K = 1 and 5), none with x non-centred.

    Examples
    --------
    >>> default_centred(2, 5), default_centred(10, 5)
    (('question', 'template'), ('question', 'template', 'model_template'))
    """
    if (n_models - 1) * (n_templates - 1) >= _CENTRE_X_FROM:
        return CENTRED
    return ("question", "template")


#: Whether u, w and z are written with their question-level means merged into u.
QUESTION_SUMS = True
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(60)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def crossed_model(correct, count, centred=None, question_sums=QUESTION_SUMS, data_container=False):
    """The PyMC model of ``(M, N, T)`` arrays of correct counts and runs (0 = no cell).

    ``centred`` names the effects drawn centred (``N(0, sigma^2)`` directly; default
    :func:`default_centred`); the others are non-centred (``sigma * N(0, 1)``). With ``data_container`` the observed counts of the
    present cells are a ``pm.Data`` named ``correct_cells`` (in ``np.nonzero(count)`` order),
    so that a compiled model can be refitted to new counts on the same cells (simulation
    studies).

    Examples
    --------
    >>> import numpy as np
    >>> m = crossed_model(np.ones((2, 3, 2)), np.full((2, 3, 2), 2))  # doctest: +SKIP
    """
    import pymc as pm
    import pytensor.tensor as pt

    c = np.asarray(correct, dtype=np.int64)
    k = np.asarray(count, dtype=np.int64)
    n_models, n_questions, n_templates = k.shape
    if centred is None:
        centred = default_centred(n_models, n_templates)
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

        def iid(name, raw, dims, zero_sum=False, sigma=None):
            sigma = scales[name] if sigma is None else sigma
            dist = pm.ZeroSumNormal if zero_sum else pm.Normal
            if name in centred:
                return dist(raw, sigma=sigma, dims=dims)
            return dist(raw, sigma=1.0, dims=dims) * sigma

        # Template effects sum to 0 over the templates (their mean is not identified apart
        # from alpha with few templates: a ridge that stalls NUTS); their mean is drawn back
        # from its prior in derived_accuracies.
        if not question_sums:
            v = iid("template", "v_raw", "template", zero_sum=True)
            x = iid("model_template", "x_raw", ("model", "template"), zero_sum=True)
        else:
            # Likewise x's mean over the models moves into v (v + x unchanged): v_t ~
            # N(0, s_t^2 + s_mt^2 / M) summing to 0, x sums to 0 over models and templates.
            v = iid(
                "template",
                "v_raw",
                "template",
                zero_sum=True,
                sigma=pt.sqrt(scales["template"] ** 2 + scales["model_template"] ** 2 / n_models),
            )
            x = pm.ZeroSumNormal(
                "x_raw",
                sigma=1.0 if "model_template" not in centred else scales["model_template"],
                dims=("model", "template"),
                n_zerosum_axes=2,
            )
            if "model_template" not in centred:
                x = x * scales["model_template"]
        if not question_sums:
            u = iid("question", "u_raw", "question")
            w = iid("question_template", "w_raw", ("question", "template"))
            z = iid("model_question", "z_raw", ("model", "question"))
        else:
            # The same prior, written so that no direction is left to the prior alone: per
            # question, w's mean over the templates and z's mean over the models are moved
            # into u (independent of the deviations, which are zero-sum normal with the same
            # scale), so u_q ~ N(0, s_q^2 + s_qt^2 / T + s_mq^2 / M); u sums to 0 over the
            # questions, its mean (absorbed into alpha) drawn back in derived_accuracies.
            tau = pt.sqrt(
                scales["question"] ** 2
                + scales["question_template"] ** 2 / n_templates
                + scales["model_question"] ** 2 / n_models
            )
            u = iid("question", "u_raw", "question", zero_sum=True, sigma=tau)
            w = iid("question_template", "w_raw", ("question", "template"), zero_sum=True)
            z = iid("model_question", "z_raw", ("question", "model"), zero_sum=True).T
        pm.Deterministic("v", v, dims="template")
        pm.Deterministic("x", x, dims=("model", "template"))
        eta = alpha[m] + u[q] + v[t] + w[q, t] + x[m, t] + z[m, q]
        observed = c[m, q, t]
        if data_container:
            observed = pm.Data("correct_cells", observed)
        pm.Binomial("y", n=k[m, q, t], logit_p=eta, observed=observed)
    return model


def _expit_normal(mean, variance):
    """E expit(mean + sqrt(variance) Z), elementwise (Gauss-Hermite, 60 nodes)."""
    sd = np.sqrt(np.asarray(variance, dtype=float))
    mean = np.asarray(mean, dtype=float)
    return special.expit(mean[..., None] + sd[..., None] * _NODES) @ _WEIGHTS


def absorbed_means(var: dict, n_models: int, n_templates: int, n_questions, gen):
    """Draws of the effects' means that the sum-to-zero form leaves to alpha.

    Per draw of the variances ``var[name]`` (S,): the template part (S, M), the mean over the
    T templates of v + x_m, N(0, s_template^2 / T) shared by the models plus
    N(0, s_model_template^2 / T) per model; and the question part (S,), u's mean over the N
    questions, N(0, (s_q^2 + s_qt^2 / T + s_mq^2 / M) / N) shared by the models (zeros
    unless ``n_questions``: the question-sums form). Added to the zero-sum effects they give
    the linear predictor the iid prior of :func:`crossed_model`'s docstring implies
    (``tests/test_noises_mcmc_prior.py`` checks its covariance).

    Examples
    --------
    >>> import numpy as np
    >>> var = {e: np.ones(3) for e in EFFECTS}
    >>> t, q = absorbed_means(var, 2, 5, 100, np.random.default_rng(0))
    >>> t.shape, q.shape
    ((3, 2), (3,))
    """
    size = np.shape(var["template"])[0]
    v_mean = gen.normal(size=size) * np.sqrt(var["template"] / n_templates)
    x_mean = (
        gen.normal(size=(size, n_models)) * np.sqrt(var["model_template"] / n_templates)[:, None]
    )
    template_part = v_mean[:, None] + x_mean
    question_part = np.zeros(size)
    if n_questions:
        tau2 = (
            var["question"]
            + var["question_template"] / n_templates
            + var["model_question"] / n_models
        )
        question_part = gen.normal(size=size) * np.sqrt(tau2 / n_questions)
    return template_part, question_part


def derived_accuracies(
    alpha, sigmas: dict, v, x, rng=None, n_questions=None
) -> tuple[np.ndarray, np.ndarray]:
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
        template_part, question_part = absorbed_means(
            var, level.shape[1], v.shape[-1], n_questions, np.random.default_rng(rng)
        )
        level = level - template_part - question_part[:, None]
        alpha = np.asarray(alpha, dtype=float) - question_part[:, None]
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
    centred=None,
    question_sums=QUESTION_SUMS,
    adaptation: str | None = None,
    advice: str | None = None,
):
    """NUTS draws of :func:`crossed_model` with the derived accuracies and diagnostics.

    ``progress=False`` also keeps PyMC's log lines (``NUTS[nutpie]: [...]``) off standard
    error; ``advice``: what the convergence warning tells to raise, in the caller's options.

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

    seed = int(np.random.default_rng(rng).integers(2**31))
    model = crossed_model(correct, count, centred, question_sums)
    start = time.perf_counter()
    try:
        import nutpie  # noqa: F401

        sampler = "nutpie"
    except ImportError:
        sampler = "pymc"
    extra = {"nuts": {"adaptation": adaptation}} if adaptation and sampler == "nutpie" else {}
    with model, quiet_logs(progress):
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
            **extra,
        )
    seconds = time.perf_counter() - start
    n_questions = np.shape(count)[1] if question_sums else None
    return summarise_crossed(tree, seed + 1, n_questions, seconds, sampler, advice)


@contextlib.contextmanager
def quiet_logs(progress: bool = False):
    """PyMC's information lines (``NUTS[nutpie]: [...]``, "Sampling 2 chains ...") off standard
    error within the block unless ``progress``; its warnings still show."""
    if progress:
        yield
        return
    logger = logging.getLogger("pymc")
    level = logger.level
    logger.setLevel(max(level, logging.WARNING))
    try:
        yield
    finally:
        logger.setLevel(level)


def summarise_crossed(
    tree, rng, n_questions, seconds: float, sampler: str, advice: str | None = None
) -> dict:
    """The derived accuracies, scales and convergence report of a crossed-model fit.

    ``tree``: the sampler's result (posterior and sample_stats groups); ``rng``: seed or
    generator of the means drawn back (:func:`absorbed_means`); ``n_questions``: the number of
    questions when the model was written with ``question_sums`` (else None).
    """
    import xarray as xr

    from .diagnostics import check_convergence

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
        rng=np.random.default_rng(rng),
        n_questions=n_questions,
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
    report = check_convergence(check_tree, **({"advice": advice} if advice else {}))
    return {
        "population": population,
        "these": these,
        "sigmas": sigmas,
        "diagnostics": report,
        "seconds": seconds,
        "sampler": sampler,
    }
