"""The posterior of ``ubar = mean_i u_i`` from a few sums per model, without per-question draws.

Given (mu, kappa) the u_i are independent Betas whose parameters are linear in ``c_i``
(``alpha_i = mu kappa + c_i``, ``beta_i = (1 - mu) kappa + K_i - c_i``), so the cumulants of
``ubar`` given (mu, kappa) -- sums of per-question Beta cumulants -- are polynomials in ``c_i``
within each group of questions with the same K. Four centred power sums of ``c`` per (model,
K) give them exactly, at a cost that does not grow with N:

- mixed over the quadrature of (mu, kappa) they give the exact first four posterior cumulants
  of ubar (used for all pairs at once, :mod:`bayesnoise.conjugate.expansion`);
- draws take (mu, kappa) from its posterior (exact) and ubar given them from its exact
  conditional mean, variance, skewness and kurtosis by a Cornish-Fisher transform of a normal
  draw. Given (mu, kappa) ubar is a mean of N independent bounded variables: its skewness is
  of order ``1 / sqrt(N)``, and models whose conditional shape is outside
  :data:`~bayesnoise.conjugate.expansion.SHAPE_LIMITS` (few questions, very skewed Betas) are
  drawn exactly, one Beta per question, unless the conditional sd is so small a part of the
  posterior sd that clipping the shape to the limits moves the interval ends by under 0.02
  posterior sd.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .beta import posterior_parameters
from .expansion import SHAPE_LIMITS, shape
from .hyper import hyper_draws, hyper_quadrature

__all__ = ["KGroupSums", "conditional_cumulants", "k_group_sums", "ubar_cumulants", "ubar_draws"]

# (model, draw) entries per block of the expansion draws: 0.5 MB temporaries (1,968 models x
# 1,000 draws at once, 16 MB each, took twice the CPU of blocks of 64 models)
_DRAW_BLOCK = 65_536
_SUM_FIELDS = ("n", "cbar", "s2", "s3", "s4")


@dataclass(frozen=True)
class KGroupSums:
    """Per model and distinct K: questions ``n``, mean ``cbar`` and centred power sums of c.

    Arrays are (M, G) over the G distinct K values ``k_values``; ``s2, s3, s4`` are
    ``sum_i (c_i - cbar)^r`` over the questions of that model with that K.
    """

    k_values: np.ndarray
    n: np.ndarray
    cbar: np.ndarray
    s2: np.ndarray
    s3: np.ndarray
    s4: np.ndarray

    @property
    def n_questions(self) -> np.ndarray:
        """Answered questions per model."""
        return self.n.sum(axis=1)


def k_group_sums(c, k, mask) -> KGroupSums:
    """Sufficient sums of :func:`conditional_cumulants`, one pass over the (M, N) counts.

    Parameters
    ----------
    c, k : numpy.ndarray, shape (M, N)
        Validated counts.
    mask : numpy.ndarray of bool, shape (M, N)
        Answered cells.

    Returns
    -------
    KGroupSums

    Examples
    --------
    >>> import numpy as np
    >>> s = k_group_sums(np.array([[1, 3, 2]]), np.array([[4, 4, 2]]), np.ones((1, 3), bool))
    >>> s.k_values.tolist(), s.n.tolist(), s.cbar.tolist(), s.s2.tolist()
    ([2, 4], [[1.0, 2.0]], [[2.0, 2.0]], [[0.0, 2.0]])
    """
    rows, cols = np.nonzero(mask)
    kv = np.unique(k[rows, cols])
    n_g = kv.size
    key = rows * n_g + np.searchsorted(kv, k[rows, cols])
    size = c.shape[0] * n_g
    cf = c[rows, cols].astype(float)
    n = np.bincount(key, minlength=size).astype(float)
    cbar = np.bincount(key, cf, minlength=size) / np.maximum(n, 1.0)
    e = cf - cbar[key]
    e2 = e * e
    sums = [np.bincount(key, x, minlength=size) for x in (e2, e2 * e, e2 * e2)]
    out = [x.reshape(c.shape[0], n_g) for x in (n, cbar, *sums)]
    return KGroupSums(kv, *out)


def conditional_cumulants(sums: KGroupSums, mu, kappa):
    """Exact cumulants 1-4 of ubar given (mu, kappa), for many (mu, kappa) per model.

    Parameters
    ----------
    sums : KGroupSums
        Of M models.
    mu, kappa : numpy.ndarray, shape (M, D)
        Hyperparameter values per model.

    Returns
    -------
    numpy.ndarray, shape (4, M, D)

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import finite_sample_moments, question_posteriors
    >>> c, k = np.array([[1, 3, 2]]), np.array([[4, 4, 2]])
    >>> cum = conditional_cumulants(k_group_sums(c, k, k > 0), np.full((1, 1), 0.4), np.ones((1, 1)))
    >>> mom = finite_sample_moments(*question_posteriors(c, k, 0.4, 1.0))
    >>> bool(np.allclose(cum[:2, 0, 0], [mom.ubar_mean[0], mom.ubar_var[0]]))
    True
    """
    mu, kappa = np.asarray(mu, float), np.asarray(kappa, float)
    out = np.zeros((4, *mu.shape))
    a = mu * kappa
    for g, kval in enumerate(sums.k_values):
        n = sums.n[:, g, None]
        s2, s3, s4 = (x[:, g, None] for x in (sums.s2, sums.s3, sums.s4))
        s = kappa + float(kval)
        big_a = a + sums.cbar[:, g, None]  # mean alpha of the group
        big_p = big_a * (s - big_a)
        q = s - 2.0 * big_a
        sab = n * big_p - s2  # sum_i alpha_i beta_i
        sab2 = n * big_p * big_p + (q * q - 2.0 * big_p) * s2 - 2.0 * q * s3 + s4
        # reciprocals multiplied, not powers divided (``s**3`` is a libm pow per element)
        r0, r1 = 1.0 / s, 1.0 / (s + 1.0)
        r01 = r0 * r0 * r1  # 1 / (s^2 (s + 1))
        r012 = r01 * r0 / (s + 2.0)  # 1 / (s^3 (s + 1) (s + 2))
        out[0] += n * big_a * r0
        out[1] += sab * r01
        out[2] += 2.0 * (n * big_p * q - 3.0 * q * s2 + 2.0 * s3) * r012
        mu4 = 3.0 * ((s - 6.0) * sab2 + 2.0 * s * s * sab) * r012 * r0 / (s + 3.0)
        out[3] += mu4 - 3.0 * sab2 * r01 * r01
    n_q = sums.n_questions[:, None]
    for r in range(4):
        out[r] /= n_q ** (r + 1)
    return out


def ubar_cumulants(sums: KGroupSums, fit, *, integrate_hyper: bool = True, order: int = 5):
    """Posterior cumulants 1-4 of ubar per model, (mu, kappa) integrated by quadrature.

    Parameters
    ----------
    sums : KGroupSums
    fit : EmpiricalBayesFit
        Of the same M models (flat model axis).
    integrate_hyper : bool, default True
        False plugs in the posterior medians of (mu, kappa).
    order : int, default 5
        Gauss-Hermite nodes in logit mu per kappa node.

    Returns
    -------
    numpy.ndarray, shape (4, M)

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes, integrated_moments
    >>> c, k = np.array([[3, 5, 0, 4, 2, 1]]), np.full((1, 6), 5)
    >>> fit = fit_empirical_bayes(c, k)
    >>> cum = ubar_cumulants(k_group_sums(c, k, k > 0), fit)
    >>> mom = integrated_moments(c, k, fit)
    >>> bool(np.allclose(cum[:2, 0], [mom.ubar_mean[0], mom.ubar_var[0]], rtol=1e-10))
    True
    """
    if integrate_hyper:
        mu_q, kap_q, wt = hyper_quadrature(fit, order)
    else:
        mu_q, kap_q = fit.mu[..., None], fit.kappa[..., None]
        wt = np.ones_like(mu_q)
    m = sums.n.shape[0]
    mu_q, kap_q, wt = (np.reshape(x, (m, -1)) for x in (mu_q, kap_q, wt))
    k1, k2, k3, k4 = conditional_cumulants(sums, mu_q, kap_q)
    mean = (wt * k1).sum(axis=1)
    d = k1 - mean[:, None]
    c2 = (wt * (k2 + d * d)).sum(axis=1)
    c3 = (wt * (k3 + 3.0 * k2 * d + d**3)).sum(axis=1)
    c4 = (wt * (k4 + 3.0 * k2 * k2 + 4.0 * k3 * d + 6.0 * k2 * d * d + d**4)).sum(axis=1)
    return np.stack([mean, c2, c3, c4 - 3.0 * c2 * c2])


def _exact_draws(c, k, mask, mu_d, kap_d, rng, chunk=2_000_000):
    """ubar draws of one model, one Beta per question (for shapes outside the expansion)."""
    cm, km = c[mask], k[mask]
    out = np.empty(mu_d.shape)
    step = max(1, chunk // max(cm.size, 1))
    for s0 in range(0, mu_d.size, step):
        a, b = posterior_parameters(mu_d[s0 : s0 + step, None], kap_d[s0 : s0 + step, None], cm, km)
        out[s0 : s0 + step] = rng.beta(a, b).mean(axis=-1)
    return out


_PROPOSALS = 2  # proposal draws per resampled draw of exact_hyper_draws


def exact_hyper_draws(c, k, mask, fit, size: int, rng):
    """Draws of (mu, kappa) from their exact grid posterior: :func:`hyper_draws` (a kappa node,
    then the Laplace normal of logit mu given it) as the proposal, resampled with importance
    weights (sampling-importance-resampling, ``2 * size`` proposals per model, systematic
    resampling).

    Given a node ``lam_g`` the Laplace step puts a normal at the mode of logit mu; with few
    successes (or failures) the exact conditional is skewed (a short tail towards the rare
    outcome), and the normal moves mu's quantiles by up to 20% of its interval's width. The
    weight of a proposal ``(eta, lam_g)`` is the exact conditional over its normal,
    ``L(eta, lam_g) p(eta) / (L(eta_g, lam_g) p(eta_g) exp(-z^2 / 2))`` with ``z`` its
    standard score, which also corrects the Laplace evidence of each node.

    Parameters
    ----------
    c, k, mask : numpy.ndarray, shape (M, N)
        Validated counts and answered cells of the models of ``fit`` (flat model axis).
    fit : EmpiricalBayesFit
    size : int
    rng : numpy.random.Generator

    Returns
    -------
    mu, kappa : numpy.ndarray, shape (M, size)

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes
    >>> c = np.array([[0, 1, 0, 0, 2, 0] * 20]); k = np.full(c.shape, 4)
    >>> mu, kappa = exact_hyper_draws(c, k, k > 0, fit_empirical_bayes(c, k), 500,
    ...                               np.random.default_rng(0))
    >>> mu.shape, bool(np.all((mu > 0) & (mu < 0.2)))
    ((1, 500), True)
    """
    from scipy import special

    from .likelihood import model_cells
    from .rising import count_terms, terms_loglik

    n_models = int(np.prod(fit.mu.shape)) if fit.mu.shape else 1
    n_nodes = fit.grid_lam.shape[-1]
    lam_g = fit.grid_lam.reshape(n_models, n_nodes)
    eta_g = fit.grid_eta.reshape(n_models, n_nodes)
    sd_g = fit.grid_eta_sd.reshape(n_models, n_nodes)
    mu_p, kap_p = hyper_draws(fit, _PROPOSALS * size, rng)
    mu_p = mu_p.reshape(n_models, -1)
    lam_p = np.log(kap_p.reshape(n_models, -1))
    eta_p = special.logit(mu_p)
    # the node of each proposal: its lam is one of the model's nodes
    node = np.stack([np.searchsorted(lam_g[m], lam_p[m]) for m in range(n_models)])
    node = np.minimum(node, n_nodes - 1)
    rows = np.arange(n_models)[:, None]
    prior = (0.0, 0.0) if fit.mu_prior is None else tuple(map(float, fit.mu_prior))
    terms = count_terms(*model_cells(c, k, mask))
    model_of = np.broadcast_to(rows, eta_p.shape).ravel()
    ll = terms_loglik(
        eta_p.ravel(), lam_p.ravel(), terms, model_of, prior, derivatives=False
    ).reshape(eta_p.shape)
    ll_mode = terms_loglik(
        eta_g.ravel(),
        lam_g.ravel(),
        terms,
        np.repeat(np.arange(n_models), n_nodes),
        prior,
        derivatives=False,
    ).reshape(eta_g.shape)
    z = (eta_p - eta_g[rows, node]) / sd_g[rows, node]
    logw = ll - ll_mode[rows, node] + 0.5 * z * z
    logw = np.where(np.isfinite(logw), logw, -np.inf)
    w = np.exp(logw - logw.max(axis=1, keepdims=True))
    cum = np.cumsum(w, axis=1)
    # systematic resampling: one uniform per model, less resampling noise than multinomial
    # (the proposals are independent, so the picks in proposal order are in random order)
    u = (np.arange(size) + rng.random((n_models, 1))) / size * cum[:, -1:]
    pick = np.stack([np.searchsorted(cum[m], u[m]) for m in range(n_models)])
    pick = np.minimum(pick, cum.shape[1] - 1)
    out = (*fit.mu.shape, size)
    return mu_p[rows, pick].reshape(out), np.exp(lam_p[rows, pick]).reshape(out)


def ubar_draws(c, k, mask, fit, n_resamples: int, rng, *, sums=None, integrate_hyper: bool = True):
    """Posterior draws of ubar, shape (M, draws); (mu, kappa) drawn from their posterior.

    Parameters
    ----------
    c, k, mask : numpy.ndarray, shape (M, N)
        Validated counts and answered cells.
    fit : EmpiricalBayesFit
        Of the M models (flat model axis).
    n_resamples : int
    rng : numpy.random.Generator
    sums : KGroupSums, optional
        :func:`k_group_sums` of the counts, when already computed.
    integrate_hyper : bool, default True

    Returns
    -------
    numpy.ndarray, shape (M, draws)

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import fit_empirical_bayes
    >>> rng = np.random.default_rng(0)
    >>> c = rng.binomial(5, rng.beta(3, 2, (2, 200)))
    >>> k = np.full(c.shape, 5)
    >>> d = ubar_draws(c, k, k > 0, fit_empirical_bayes(c, k), 400, rng)
    >>> d.shape, bool(np.all((d > 0) & (d < 1)))
    ((2, 400), True)
    """
    sums = k_group_sums(c, k, mask) if sums is None else sums
    if integrate_hyper:
        mu_d, kap_d = exact_hyper_draws(c, k, mask, fit, int(n_resamples), rng)
    else:
        mu_d = np.repeat(fit.mu.reshape(-1, 1), int(n_resamples), axis=1)
        kap_d = np.repeat(fit.kappa.reshape(-1, 1), int(n_resamples), axis=1)
    mu_d, kap_d = mu_d.reshape(-1, int(n_resamples)), kap_d.reshape(-1, int(n_resamples))
    z = rng.standard_normal(mu_d.shape)
    out = np.empty(mu_d.shape)
    bad = np.zeros(mu_d.shape[0], bool)
    step = max(1, _DRAW_BLOCK // max(mu_d.shape[1], 1))
    for s0 in range(0, mu_d.shape[0], step):  # row blocks that stay in the caches
        rows = slice(s0, s0 + step)
        out[rows], bad[rows] = _expansion_draws(sums, rows, mu_d[rows], kap_d[rows], z[rows])
    for m in np.flatnonzero(bad):
        out[m] = _exact_draws(c[m], k[m], mask[m], mu_d[m], kap_d[m], rng)
    return out


def _expansion_draws(sums, rows, mu_d, kap_d, z):
    """Cornish-Fisher draws of ubar for the models ``rows`` of ``sums`` from their (mu, kappa)
    draws and standard normals ``z`` (R, draws), and which models must be drawn exactly."""
    sub = KGroupSums(sums.k_values, *(getattr(sums, f)[rows] for f in _SUM_FIELDS))
    k1, k2, k3, k4 = conditional_cumulants(sub, mu_d, kap_d)
    sd, g1, g2 = shape(k2, k3, k4)
    # Shapes beyond the limits are clipped to them. That moves a 2.5% / 97.5% point by about
    # sd (0.47 |skew excess| + 0.07 |kurtosis excess|) (the Cornish-Fisher terms at z = 1.96);
    # a model is drawn exactly if that exceeds 0.02 posterior sd for some draw (a quarter of
    # the Monte Carlo error of a 1,000-draw quantile). Clipping matters only where the
    # conditional sd is a small part of the posterior sd (kappa near 0: every u_i is pinned
    # by its own data).
    lim1, lim2 = SHAPE_LIMITS
    c1, c2 = np.clip(g1, -lim1, lim1), np.clip(g2, -lim2, lim2)
    total_sd = np.sqrt(k1.var(axis=1) + k2.mean(axis=1))[:, None]
    shift = sd * (0.47 * np.abs(g1 - c1) + 0.07 * np.abs(g2 - c2))
    bad = shift > 0.02 * total_sd
    g1, g2 = c1, c2
    w = z + (z * z - 1.0) * g1 / 6.0 + (z**3 - 3.0 * z) * g2 / 24.0
    return k1 + sd * (w - (2.0 * z**3 - 5.0 * z) * g1 * g1 / 36.0), bad.any(axis=1)
