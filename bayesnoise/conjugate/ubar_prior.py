"""Which prior the ubar posterior uses per model: the Beta population where it fits, else the NPMLE.

The posterior of ``ubar = mean_i u_i`` shrinks every question's accuracy towards the fitted
population. Under a Beta population that cannot represent the question accuracies (two
clusters: easy items and broken items) the shrinkage is biased by an amount that does not
shrink with N, so the interval's coverage falls as N grows (0.055 at N = 2,000, K = 20 with
95% of the questions at u = 0.95 and 5% at 0.01). Per model:

1. **Test** the Beta population against the NPMLE of the question-accuracy distribution
   (:mod:`bayesnoise.conjugate.npmle`): ``LR = 2 (max loglik NPMLE - max loglik
   Beta-Binomial)``. Binomial mixtures with K samples are determined by the first K moments
   of the accuracy distribution, so under the Beta population the statistic is asymptotically
   at most chi-square with ``K_max - 2`` degrees of freedom (fewer where the moment
   constraints bind, which is most of the time); the Beta is rejected where LR exceeds the
   99% point of that chi-square (:data:`LEVEL`). The statistic is the one reached by at most
   300 grid EM iterations from the fitted Beta (fewer once the EM's bound on the maximum
   settles the decision): a lower bound on the NPMLE's, so the test is conservative. With
   ``K_max <= 2`` every accuracy distribution with the same first two moments gives the same
   counts: nothing to test, the Beta stays (also where kappa is assumed).
2. Where it is rejected, the **prior is nonparametric**: a discrete distribution with the
   NPMLE's atoms, whose locations and weights get a posterior (Jeffreys Beta(1/2, 1/2) on each
   location, Dirichlet(1/2) on the weights), sampled by data augmentation from the NPMLE
   (:mod:`bayesnoise.conjugate.mixture_posterior`). Given the atoms and weights each
   question's posterior is a discrete distribution over the atoms and ubar a mean of N
   independent discrete variables, with exact cumulants; the posterior of ubar is the mixture
   over the sweeps. A plug-in NPMLE ignores the prior's uncertainty and covered 0.26 under the
   two-point difficulties at N = 500, K = 20; a Bayesian bootstrap of the NPMLE 0.92-0.94.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import stats

from bayesnoise._common import tail_probabilities

from .expansion import SHAPE_LIMITS, shape
from .k1 import BINOMIAL, binomial_ubar, bound_models
from .likelihood import model_cells
from .mixture_posterior import autocorrelation_ess, mixture_posterior_draws
from .npmle import _blocks_by_cells, beta_start, npmle_grid, prune_atoms, refine_atoms
from .posterior import _quantile_with_mcse
from .rising import count_terms, terms_loglik
from .ubar import k_group_sums, ubar_cumulants, ubar_draws

__all__ = [
    "beta_fit_test",
    "categorical_cumulants",
    "mixture_cumulants",
    "nonparametric_ubar",
    "ubar_posterior",
]

#: Values of the ``ubar_prior`` column.
PRIOR = {"beta": "beta", "nonparametric": "nonparametric", "binomial": BINOMIAL}
#: Accepted values of the ``ubar_prior`` option.
CHOICES = ("auto", "beta", "nonparametric", "binomial")
#: Level of the likelihood-ratio test of the Beta population (its chi-square bound).
LEVEL = 0.99
#: Sweeps of the sampler of the nonparametric prior's atoms and weights kept per model.
SWEEPS = 125
_GRID_ITER = 300  # grid EM iterations before the atoms are located (rejected models)
#: Most grid EM iterations of the test: the statistic is the log-likelihood ratio reached, a
#: lower bound on the NPMLE's, so stopping early only makes the test more conservative.
_TEST_ITER = 300
_TINY = 1e-300
_BLOCK = 500_000  # entries of the largest temporary (sweeps x cells x atoms per block): 4 MB
# (1,846 nonparametric models at K = 1,100: 23 s of CPU, 31 s with 32 MB blocks)
#: Nonparametric models per chunk (grid EM, located atoms, sampler) when there are more: each
#: chunk drops the cells only other chunks need (:func:`_chunks`).
_CHUNK_MODELS = 256


def _beta_max_loglik(cu, ku, w, eta, lam):
    """Largest Beta-Binomial log likelihood over the nodes (eta, lam) (M, G) of the fit's grid.

    Each node holds the conditional mode of logit mu under its Beta(1, 1) prior, O(1 / N) from
    the maximum-likelihood point, which costs O(1 / N) in log likelihood (measured against
    scipy's optimiser in the tests: below 1e-3)."""
    n_models, n_nodes = lam.shape
    rows = np.repeat(np.arange(n_models), n_nodes)
    ll = terms_loglik(eta.ravel(), lam.ravel(), count_terms(cu, ku, w), rows, derivatives=False)
    return ll.reshape(n_models, n_nodes).max(axis=1)


def beta_fit_test(cu, ku, w, fit, *, confidence_level: float = LEVEL):
    """Likelihood-ratio test of the Beta population against the NPMLE, per model.

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (M, U)
        Distinct cells per model (:func:`~bayesnoise.conjugate.likelihood.model_cells`).
    fit : EmpiricalBayesFit
        Of the same M models (flat model axis).
    confidence_level : float, default 0.99

    Returns
    -------
    dict of str to numpy.ndarray
        ``lr`` (the statistic reached; NaN where not tested), ``threshold`` (chi-square point
        with ``K_max - 2`` degrees of freedom; NaN where ``K_max <= 2``), ``reject`` (bool) and
        ``grid_weights`` (M, grid points) of the NPMLE EM (the Beta start where not tested).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes
    >>> from bayesnoise.conjugate.likelihood import model_cells
    >>> rng = np.random.default_rng(0)
    >>> u = np.stack([rng.beta(2, 2, 500), np.where(rng.random(500) < 0.95, 0.95, 0.01)])
    >>> c, k = rng.binomial(20, u), np.full(u.shape, 20)
    >>> out = beta_fit_test(*model_cells(c, k, k > 0), fit_empirical_bayes(c, k))
    >>> out["reject"].tolist(), round(float(out["threshold"][0]), 1)
    ([False, True], 34.8)
    """
    k_max = np.where(w > 0, ku, 0).max(axis=1)
    df = k_max - 2.0
    testable = (df >= 1) & (fit.kappa_status != "assumed")
    threshold = np.full(k_max.shape, np.nan)
    threshold[testable] = stats.chi2.ppf(confidence_level, df[testable])
    start = beta_start(fit.mu, fit.kappa)
    lr = np.full(k_max.shape, np.nan)
    reject = np.zeros(k_max.shape, bool)
    weights = start
    idx = np.flatnonzero(testable)
    if idx.size:
        sub = (cu[idx], ku[idx], w[idx])
        base = _beta_max_loglik(*sub, fit.grid_eta[idx], fit.grid_lam[idx])
        cut = base + 0.5 * threshold[idx]
        grid_w, lower, _ = npmle_grid(*sub, start=start[idx], cut=cut, max_iter=_TEST_ITER)
        weights = start.copy()
        weights[idx] = grid_w
        lr[idx] = 2.0 * (lower - base)
        reject[idx] = lower > cut
    return {"lr": lr, "threshold": threshold, "reject": reject, "grid_weights": weights}


def categorical_cumulants(cu, ku, w, atoms, weights):
    """Cumulants 1-4 of ubar given a discrete prior, and each cell's posterior over the atoms.

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (..., U)
        Cells and how many questions have each.
    atoms, weights : numpy.ndarray, shape (..., S)
        The prior (broadcast against the cells' leading axes).

    Returns
    -------
    cumulants : numpy.ndarray, shape (4, ...)
    posterior : numpy.ndarray, shape (..., U, S)

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku, w = np.array([2]), np.array([2]), np.array([3.0])
    >>> cum, post = categorical_cumulants(cu, ku, w, np.array([0.5, 1.0]), np.array([0.5, 0.5]))
    >>> np.round(post, 3).tolist(), round(float(cum[0]), 3)   # posterior odds 1/4 : 1
    ([[0.2, 0.8]], 0.9)
    """
    cf, kf = np.asarray(cu, float), np.asarray(ku, float)
    # atoms first, (S, ..., U, 1 -> U): sums and maxima over the few atoms are operations on
    # whole planes, not reductions over a short last axis (several times slower in numpy)
    a = np.moveaxis(np.asarray(atoms, float), -1, 0)[..., None]
    lw = np.moveaxis(np.log(np.maximum(weights, _TINY)), -1, 0)[..., None]
    ll = cf * np.log(np.maximum(a, _TINY)) + (kf - cf) * np.log(np.maximum(1.0 - a, _TINY)) + lw
    post = np.exp(ll - ll.max(axis=0))
    post /= post.sum(axis=0)
    mean = (post * a).sum(axis=0)
    d = a - mean
    d2 = d * d
    pd2 = post * d2
    k2 = pd2.sum(axis=0)
    k3 = (pd2 * d).sum(axis=0)
    k4 = (pd2 * d2).sum(axis=0) - 3.0 * k2 * k2
    n = np.asarray(w, float).sum(axis=-1)
    out = np.stack([(w * x).sum(axis=-1) / n ** (r + 1) for r, x in enumerate((mean, k2, k3, k4))])
    return out, np.moveaxis(post, 0, -1)


def mixture_cumulants(cum):
    """Cumulants 1-4 of an equal-weight mixture over the last axis of ``cum`` (4, ..., B).

    Examples
    --------
    >>> import numpy as np
    >>> cum = np.array([[0.0, 2.0], [1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])   # N(0, 1), N(2, 1)
    >>> mixture_cumulants(cum)[:2].tolist()
    [1.0, 2.0]
    """
    k1, k2, k3, k4 = cum
    mean = k1.mean(axis=-1)
    d = k1 - mean[..., None]
    c2 = (k2 + d * d).mean(axis=-1)
    c3 = (k3 + 3.0 * k2 * d + d**3).mean(axis=-1)
    m4 = (k4 + 3.0 * k2 * k2 + 4.0 * k3 * d + 6.0 * k2 * d * d + d**4).mean(axis=-1)
    return np.stack([mean, c2, c3, m4 - 3.0 * c2 * c2])


def nonparametric_ubar(cu, ku, w, grid_weights, n_resamples: int, rng, *, sweeps: int = SWEEPS):
    """Posterior of ubar under the nonparametric prior, with the prior's own uncertainty.

    The NPMLE with located atoms (:func:`~bayesnoise.conjugate.npmle.refine_atoms`, atoms
    with less than 0.05 of a question dropped) starts a data-augmentation sampler of the
    atoms and weights (:func:`~bayesnoise.conjugate.mixture_posterior.mixture_gibbs`, seeded
    by each model's counts, so the posterior mean is reproducible and does not depend on the
    other models); given
    each sweep's (atoms, weights) the questions are independent and ubar is a mean of
    discrete variables with exact cumulants (:func:`categorical_cumulants`). The posterior of
    ubar is the mixture over the sweeps: its cumulants exactly (law of total cumulance), its
    draws ``draws / sweeps`` per sweep.

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (M, U)
        Distinct cells per model.
    grid_weights : numpy.ndarray, shape (M, GRID_POINTS)
        Grid EM weights (:func:`~bayesnoise.conjugate.npmle.npmle_grid`).
    n_resamples : int
        Posterior draws of ubar per model.
    rng : numpy.random.Generator
        For the draws of ubar given each sweep.
    sweeps : int, default 125
        Sampler sweeps kept (after 20 of burn-in).

    Returns
    -------
    dict of str to numpy.ndarray
        ``cumulants`` (4, M), ``draws`` (M, draws) (given a sweep's atoms and weights: the
        Cornish-Fisher transform of a normal draw with the exact conditional cumulants, or
        exact, one multinomial per distinct cell, for the models whose conditional shape is
        outside :data:`~bayesnoise.conjugate.expansion.SHAPE_LIMITS`, as
        :func:`~bayesnoise.conjugate.ubar.ubar_draws` does), ``ess`` (M,) the effective number of
        independent sweeps of the conditional mean of ubar, and the NPMLE ``atoms`` and
        ``weights`` (M, S).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate.likelihood import model_cells
    >>> from bayesnoise.conjugate.npmle import npmle_grid
    >>> rng = np.random.default_rng(0)
    >>> u = np.where(rng.random((1, 300)) < 0.9, 0.9, 0.05)
    >>> c, k = rng.binomial(10, u), np.full(u.shape, 10)
    >>> cu, ku, w = model_cells(c, k, k > 0)
    >>> out = nonparametric_ubar(cu, ku, w, npmle_grid(cu, ku, w)[0], 1000, rng)
    >>> out["draws"].shape, bool(abs(out["cumulants"][0, 0] - u.mean()) < 0.02)
    ((1, 1000), True)
    """
    n = w.sum(axis=1)
    atoms, weights, _, _ = refine_atoms(cu, ku, w, grid_weights)
    atoms, weights = prune_atoms(atoms, weights, n)
    a_s, p_s = mixture_posterior_draws(cu, ku, w, atoms, weights, sweeps)
    n_models = w.shape[0]
    cum_s = np.empty((4, n_models, int(sweeps)))
    out = np.empty((n_models, int(n_resamples)))
    step = max(1, _BLOCK // (int(sweeps) * w.shape[1] * atoms.shape[1]))
    # blocks of models: (models, sweeps, cells, atoms); with several blocks, models with as
    # many atoms (prune_atoms puts them first) and cells go together and drop the padding
    n_atoms = (weights > 0).sum(axis=1)
    for rows, width in _blocks_by_cells(w, step, n_atoms):
        s = max(int(n_atoms[rows].max()), 1)
        cells = (cu[rows, None, :width], ku[rows, None, :width], w[rows, None, :width])
        a, p = a_s[rows, :, :s], p_s[rows, :, :s]
        cum_s[:, rows], post = categorical_cumulants(*cells, a, p)
        out[rows] = _sweep_draws(cum_s[:, rows], post, a, w[rows, :width], int(n_resamples), rng)
    return {
        "cumulants": mixture_cumulants(cum_s),
        "draws": out,
        "ess": autocorrelation_ess(cum_s[0]),
        "atoms": atoms,
        "weights": weights,
    }


def _sweep_draws(cum_s, post, atoms, w, n_resamples, rng):
    """ubar draws per model, ``draws / sweeps`` per sweep (see :func:`nonparametric_ubar`)."""
    which = np.arange(n_resamples) % cum_s.shape[-1]
    k1, k2, k3, k4 = (x[:, which] for x in cum_s)
    sd, g1, g2 = shape(k2, k3, k4)
    lim1, lim2 = SHAPE_LIMITS
    c1, c2 = np.clip(g1, -lim1, lim1), np.clip(g2, -lim2, lim2)
    # as in ubar_draws: clipping the shape moves a 2.5% / 97.5% point by about
    # sd (0.47 |skew excess| + 0.07 |kurtosis excess|); draw exactly where that exceeds
    # 0.02 posterior sd
    total_sd = np.sqrt(k1.var(axis=1) + k2.mean(axis=1))[:, None]
    bad = (sd * (0.47 * np.abs(g1 - c1) + 0.07 * np.abs(g2 - c2)) > 0.02 * total_sd).any(axis=1)
    z = rng.standard_normal(k1.shape)
    x = z + (z * z - 1.0) * c1 / 6.0 + (z**3 - 3.0 * z) * c2 / 24.0
    out = k1 + sd * (x - (2.0 * z**3 - 5.0 * z) * c1 * c1 / 36.0)
    counts = np.rint(w).astype(np.int64)
    n = counts.sum(axis=1)
    step = max(1, _BLOCK // (post.shape[-2] * post.shape[-1]))
    for m in np.flatnonzero(bad):
        for d0 in range(0, n_resamples, step):
            sel = which[d0 : d0 + step]
            hits = rng.multinomial(counts[m], post[m, sel]).sum(axis=1)  # (D, S) per atom
            out[m, d0 : d0 + step] = np.einsum("ds,ds->d", hits, atoms[m, sel]) / n[m]
    return out


def _chunks(w, rows, size: int = _CHUNK_MODELS):
    """``rows`` of the cell table ``w`` (M, U) in chunks of at most ``size``, each with the
    cells it needs (:func:`~bayesnoise.conjugate.npmle._blocks_by_cells`: one chunk, as
    given, up to ``size`` rows; else sorted by cells used, which drops the padding that only
    rows with more cells need: 1.5 times the mean number of cells in the coverage check's
    blocks of replicates at K = 1,100)."""
    if rows.size == 0:
        return []
    return [(rows[r], width) for r, width in _blocks_by_cells(w[rows], size)]


def _fit_rows(fit, rows):
    """The empirical-Bayes fit of the models ``rows`` (every array field has the model axis)."""
    skip = ("mu_prior", "kappa_prior", "notes")
    names = [f.name for f in dataclasses.fields(fit) if f.name not in skip]
    return dataclasses.replace(fit, **{name: getattr(fit, name)[rows] for name in names})


def _choose(cu, ku, w, fit, ubar_prior):
    """Per model: nonparametric or not, the test's numbers, and the grid EM start."""
    n_models = fit.mu.shape[0]
    nan = np.full(n_models, np.nan)
    if ubar_prior == "beta":
        return np.zeros(n_models, bool), nan, nan.copy(), None
    if ubar_prior == "nonparametric":
        use = np.where(w > 0, ku, 0).max(axis=1) >= 2
        return use, nan, nan.copy(), beta_start(fit.mu, fit.kappa)
    test = beta_fit_test(cu, ku, w, fit)
    return test["reject"], test["lr"], test["threshold"], test["grid_weights"]


def ubar_posterior(
    c, k, fit, confidence_level, rng, *, n_resamples: int = 1000, ubar_prior: str = "auto"
):
    """The posterior of ubar per model, under the Beta population or the nonparametric prior.

    Parameters
    ----------
    c, k : numpy.ndarray, shape (M, N)
        Validated counts (``k == 0``: not answered).
    fit : EmpiricalBayesFit
        Of the M models (flat model axis).
    confidence_level : float
        Credible level of the interval.
    rng : numpy.random.Generator
    n_resamples : int, default 1000
        Posterior draws per model (interval ends are their quantiles).
    ubar_prior : {"auto", "beta", "nonparametric", "binomial"}, default "auto"
        ``"auto"``: the nonparametric prior where the likelihood-ratio test rejects the Beta
        population (:func:`beta_fit_test`), the Beta elsewhere, and the binomial bound
        (:func:`bayesnoise.conjugate.k1.binomial_ubar`, which does not depend on the
        unidentified kappa) for the models with one sample per question (every answered
        question K = 1, kappa not assumed); ``"nonparametric"`` for every model (the K = 1
        models get the binomial bound: only the mean accuracy is identified there);
        ``"beta"`` the Beta population for every model (at K = 1 with kappa integrated over
        its prior: calibrated only where the true kappa sits near that prior);
        ``"binomial"`` the bound, for data where every question has K = 1 (a model with a
        question answered more than once raises ``ValueError``).

    Returns
    -------
    dict of str to numpy.ndarray
        ``cumulants`` (4, M) exact posterior cumulants 1-4 of ubar; ``draws`` (M, draws);
        ``low``, ``high`` the equal-tailed interval and ``mcse`` the larger Monte Carlo error
        of its ends (M,; 0 for the binomial bound, whose ends are exact); ``prior`` (M,)
        values of :data:`PRIOR`; ``lr`` and ``threshold``
        (M,) of the test (NaN where not tested; the LR reached, at least 0).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes
    >>> rng = np.random.default_rng(0)
    >>> u = np.stack([rng.beta(2, 2, 500), np.where(rng.random(500) < 0.95, 0.95, 0.01)])
    >>> c, k = rng.binomial(20, u), np.full(u.shape, 20)
    >>> post = ubar_posterior(c, k, fit_empirical_bayes(c, k), 0.95, rng)
    >>> post["prior"].tolist(), bool(np.all((post["low"] < u.mean(1)) & (u.mean(1) < post["high"])))
    (['beta', 'nonparametric'], True)
    """
    if ubar_prior not in CHOICES:
        raise ValueError(f"ubar_prior must be one of {CHOICES}, got {ubar_prior!r}")
    n_models = c.shape[0]
    mask = k > 0
    bound = bound_models(k, fit, mask)
    if ubar_prior == "beta":
        bound[:] = False
    elif ubar_prior == "binomial" and not bound.all():
        bad = np.flatnonzero(~bound)
        raise ValueError(
            f"ubar_prior='binomial' is the K = 1 bound, but model(s) at row(s) "
            f"{bad[:5].tolist()} have a question with K >= 2 samples (or an assumed kappa): "
            "use ubar_prior='auto'"
        )
    choice = "beta" if ubar_prior == "binomial" else ubar_prior
    cu, ku, w = model_cells(c, k, mask) if choice != "beta" else (None, None, None)
    use, lr, threshold, start = _choose(cu, ku, w, fit, choice)
    use = use & ~bound
    cum = np.empty((4, n_models))
    out = np.empty((n_models, int(n_resamples)))
    se = np.empty((2, n_models))
    probs = tail_probabilities(confidence_level)
    beta = np.flatnonzero(~use & ~bound)
    if beta.size:
        # all rows when no model leaves the Beta: the draws are then those of the Beta alone
        rows = slice(None) if beta.size == n_models else beta
        sub = (c[rows], k[rows], mask[rows])
        fit_b = fit if beta.size == n_models else _fit_rows(fit, beta)
        sums = k_group_sums(*sub)
        out[beta] = ubar_draws(*sub, fit_b, int(n_resamples), rng, sums=sums)
        cum[:, beta] = ubar_cumulants(sums, fit_b)
        _, se[:, beta] = _quantile_with_mcse(out[beta], probs)
    for idx, width in _chunks(w, np.flatnonzero(use)):
        sub = (cu[idx, :width], ku[idx, :width], w[idx, :width])
        # a few hundred more grid iterations find the bumps; refine_atoms does the rest
        grid_w, _, _ = npmle_grid(*sub, start=start[idx], max_iter=_GRID_ITER)
        got = nonparametric_ubar(*sub, grid_w, int(n_resamples), rng)
        cum[:, idx], out[idx] = got["cumulants"], got["draws"]
        _, se_np = _quantile_with_mcse(got["draws"], probs)
        # the draws share a sweep's atoms and weights ``draws / sweeps`` at a time and
        # successive sweeps are correlated: scale the independent-draws error by
        # sqrt(sweeps / ESS)
        se[:, idx] = np.asarray(se_np) * np.sqrt(np.maximum(SWEEPS / got["ess"], 1.0))
    idx = np.flatnonzero(bound)
    if idx.size:  # K = 1: the kappa-free bound, exact ends
        right = np.where(mask[idx], c[idx], 0).sum(axis=1)
        got = binomial_ubar(right, mask[idx].sum(axis=1), confidence_level, int(n_resamples), rng)
        cum[:, idx], out[idx], se[:, idx] = got["cumulants"], got["draws"], got["mcse"]
        lr[idx] = threshold[idx] = np.nan
    low, high = (np.quantile(out, p, axis=1) for p in probs)
    if idx.size:
        low[idx], high[idx] = got["low"], got["high"]
    prior = np.where(use, PRIOR["nonparametric"], PRIOR["beta"]).astype(object)
    prior[bound] = PRIOR["binomial"]
    return {
        "cumulants": cum,
        "draws": out,
        "low": low,
        "high": high,
        "mcse": se.max(axis=0),
        "prior": prior,
        "lr": np.maximum(lr, 0.0),
        "threshold": threshold,
    }
