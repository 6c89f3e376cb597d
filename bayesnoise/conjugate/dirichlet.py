"""Model-free posteriors of a population mean: a Dirichlet process over the questions.

The mean of a per-question score over the question population (the population accuracy of
one model, or the population paired difference of two) does not depend on the shape of the
question difficulties. Its posterior here is that of the mean of an unknown distribution F of
the observed per-question scores: a Dirichlet-process prior whose base measure puts half of
``prior_mass`` on each end of the range the score can take, so the posterior is a Dirichlet
over the N observed values and the two end atoms. The same construction serves the population
accuracy (ends 0 and 1; exactly the Jeffreys Beta(s + 1/2, N - s + 1/2) posterior at K = 1)
and the population paired difference (ends -1 and +1,
:func:`bayesnoise.conjugate.population_difference`).
"""

from __future__ import annotations

import numpy as np

from bayesnoise._common import check_confidence_level, new_spellings, reject_old, tail_probabilities
from bayesnoise.data import check_counts

from .expansion import summarise

__all__ = [
    "population_accuracy",
]

#: Total prior mass of the two end atoms of the Dirichlet-process posteriors.
PRIOR_MASS = 1.0


def dirichlet_cumulants(raw, total):
    """Mean and cumulants 2-4 of the Dirichlet mean ``sum_j w_j x_j`` from raw power sums.

    ``raw = (sum_j a_j x_j^r for r = 1..4)`` over every atom j with Dirichlet parameter a_j
    (1 for an observed value, ``prior_mass / 2`` for an end atom) and ``total = sum_j a_j``.
    With ``w = G / sum(G)``, ``G_j ~ Gamma(a_j)`` and ``e_j = x_j - mean``,
    ``E[(sum_j w_j e_j)^r] = E[(sum_j G_j e_j)^r] / (T (T + 1) ... (T + r - 1))``, and
    ``sum_j G_j e_j`` has cumulants ``(r - 1)! sum_j a_j e_j^r``.
    """
    r1, r2, r3, r4 = raw
    t = total
    m = r1 / t
    c2 = np.maximum(r2 - t * m * m, 0.0)
    c3 = r3 - 3.0 * m * r2 + 2.0 * t * m**3
    c4 = r4 - 4.0 * m * r3 + 6.0 * m * m * r2 - 3.0 * t * m**4
    t2 = t * (t + 1.0)
    mu2 = c2 / t2
    mu3 = 2.0 * c3 / (t2 * (t + 2.0))
    mu4 = (6.0 * c4 + 3.0 * c2 * c2) / (t2 * (t + 2.0) * (t + 3.0))
    return m, mu2, mu3, mu4 - 3.0 * mu2 * mu2


def dirichlet_weights(rng, n_resamples, n, prior_mass):
    """Unnormalised Dirichlet weights: (*draws, n) for the values and (*draws, 2) for the
    ends (``n_resamples``: an int or a shape, e.g. (batch, draws))."""
    shape = tuple(int(x) for x in np.atleast_1d(n_resamples))
    wts = rng.standard_exponential((*shape, n))
    ends = rng.standard_gamma(prior_mass / 2.0, size=(*shape, 2))
    return wts, ends


def _accuracy_draws(p, mask, used, n_resamples, prior_mass, rng, chunk=4_000_000):
    """Draws (D, len(used)) of the Dirichlet mean of the rows ``used`` (shared weights)."""
    n = p.shape[1]
    out = np.empty((int(n_resamples), used.size))
    step = max(1, chunk // max(n, 1))
    pu, mu = p[used].T, mask[used].T.astype(float)
    for s0 in range(0, int(n_resamples), step):
        s1 = min(int(n_resamples), s0 + step)
        wts, ends = dirichlet_weights(rng, s1 - s0, n, prior_mass)
        out[s0:s1] = (wts @ pu + ends[:, 1:2]) / (wts @ mu + ends.sum(axis=1, keepdims=True))
    return out


@new_spellings
def population_accuracy(
    correct,
    count,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 4000,
    prior_mass: float = PRIOR_MASS,
    rng=0,
    **old,
) -> dict[str, np.ndarray]:
    """Posterior of the population accuracy that does not depend on the difficulty shape.

    Model: the per-question scores ``p_i = c_i / K_i`` are draws from an unknown distribution
    F on [0, 1]; ``E[p_i | question] = u_i``, so the mean of F is the population accuracy
    E_x[u] whatever the distribution of the question accuracies u (Beta or not), and its
    spread carries the data and the prediction noise at the observed K. Prior: a Dirichlet
    process with mass ``prior_mass / 2`` at each end, p = 0 and p = 1; the posterior of the
    mean is ``sum_j w_j p_j`` with ``w ~ Dirichlet(1, ..., 1, prior_mass / 2, prior_mass / 2)``
    over the answered questions and the two ends. At K = 1 this is exactly the Jeffreys
    posterior Beta(s + 1/2, N - s + 1/2) of a proportion; the end atoms keep the interval
    open when every question has the same score.

    The Beta-Binomial mu of :func:`fit_empirical_bayes` estimates the same quantity only when
    the difficulties are Beta-shaped (its 95% interval covered 0.77-0.86 under a two-point
    difficulty distribution at K = 20; this one 0.94-0.98 in the same cells).

    Parameters
    ----------
    correct, count : array_like, shape (..., N)
        Correct samples and samples per question (``count == 0``: not answered, left out).
    confidence_level : float, default 0.95
    n_resamples : int, default 4000
        Dirichlet draws for the models whose posterior is too skewed for the four-cumulant
        expansions (shared weights over models).
    prior_mass : float, default 1.0
        Total mass of the two end atoms (> 0).
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    dict of str to numpy.ndarray
        Arrays of shape ``(...)``: ``mean``, ``sd`` (exact), ``median``, ``low``, ``high``
        (equal-tailed credible interval: Cornish-Fisher on the exact cumulants, Monte Carlo
        where the shape is too skewed for it).

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([0, 1, 0, 0, 1, 0, 0, 0, 0, 0]), np.ones(10, int)
    >>> out = population_accuracy(c, k)          # K = 1: the Jeffreys interval
    >>> from scipy import stats
    >>> jeffreys = stats.beta(2.5, 8.5).ppf([0.025, 0.975])
    >>> bool(np.allclose([out["low"], out["high"]], jeffreys, atol=0.01))
    True
    """
    reject_old("population_accuracy", old)
    level = check_confidence_level(confidence_level)
    if not prior_mass > 0:
        raise ValueError("prior_mass must be > 0")
    c, k = check_counts(correct, count, require_answered=True)
    shape, n = c.shape[:-1], c.shape[-1]
    mask = (k > 0).reshape(-1, n)
    p = np.where(mask, c.reshape(-1, n) / np.where(mask, k.reshape(-1, n), 1), 0.0)
    half = prior_mass / 2.0
    raw = [(p**r).sum(axis=-1) + half for r in (1, 2, 3, 4)]  # the end at 1 adds half
    total = mask.sum(axis=-1) + prior_mass
    mean, k2, k3, k4 = dirichlet_cumulants(raw, total)
    probs = (*tail_probabilities(level), 0.5)
    with np.errstate(invalid="ignore", over="ignore"):
        (lo, hi, med), _, ok = summarise(mean, k2, k3, k4, probs)
    inside = (lo >= 0.0) & (hi <= 1.0)  # NaN compares False: those go to draws too
    bad = np.flatnonzero(~ok | ~inside)
    if bad.size:
        gen = np.random.default_rng(rng)
        x = _accuracy_draws(p, mask, bad, n_resamples, prior_mass, gen)
        lo[bad], hi[bad], med[bad] = np.quantile(x, probs, axis=0)
    out = {"mean": mean, "sd": np.sqrt(k2), "median": med, "low": lo, "high": hi}
    return {key: val.reshape(shape) for key, val in out.items()}
