"""K = 1: the posterior of ubar that does not depend on the unidentified kappa.

With one sample per question, ``c_i ~ Bernoulli(u_i)`` and the u_i drawn from any population
of mean mu, every c_i is marginally Bernoulli(mu): the data say nothing about how the question
accuracies spread (the Beta population's concentration kappa, or any other shape). Yet the
error of the accuracy as an estimate of ``ubar = mean_i u_i`` on *these* questions depends on
that spread: given the u_i,

    Var(acc | u) = sum_i u_i (1 - u_i) / N^2 = ubar (1 - ubar) / N - var_i(u_i) / N,

largest when every u_i is the same (``var_i(u_i) = 0``) and 0 when every u_i is 0 or 1. So
``ubar (1 - ubar) / N`` bounds it for every difficulty distribution, and the binomial
posterior of ubar, as if the N questions were N draws of one Bernoulli(ubar), is the interval
that holds whatever kappa: under the Jeffreys prior it is ``Beta(c + 1/2, N - c + 1/2)`` with
``c`` the number right (the Jeffreys interval of
``statsmodels.stats.proportion.proportion_confint(method="jeffreys")``).

The price of not knowing kappa is over-coverage where the questions are far from alike
(u_i near 0 or 1: small kappa, two-point difficulties): there the true variance is well
below the bound and the interval covers more often than its level (up to 1.00), while an
interval that assumed the spread would under-cover by as much when the assumption is wrong
(the Beta population with kappa's prior covered 0.83-0.85 at a true kappa of 100). No
interval computed from K = 1 data can avoid both: the data have the same distribution
(N independent Bernoulli(mu)) whatever the spread, so an interval's coverage at a small
kappa (where every u_i is near 0 or 1 and ubar is nearly the accuracy itself, covered by any
interval around it) and at a large one (where the accuracy misses ubar by the full binomial
error) come from the same intervals; nominal at the large kappa forces near 1 at the small.
Measured for ubar and dbar (400 replicates per cell, MCSE 0.011 at 0.95; beta, two-point,
three-component mixture and 2PL difficulties; mu 0.05, 0.5, 0.9; N 100-2,000): 0.91-0.98
where the questions are nearly alike (kappa 100; the four cells below 0.93 re-measured with
4,000 replicates: 0.936-0.948, the Jeffreys interval's own lattice effect at N = 100 and
mu = 0.05), 0.94-0.99 at kappa 5, 0.96-1.00 at kappa <= 1, at 1.18-1.40 times the width of
the kappa-dependent interval (which covered 0.81-0.91 at kappa 100). Only questions answered more than
once can tell the cases apart (run K >= 2 samples, or assume a kappa).

Paired differences on these questions, ``dbar = ubar_A - ubar_B``: given the questions the two
models' samples are independent, so ``Var(dbar_hat | u) <= [ubar_A (1 - ubar_A) +
ubar_B (1 - ubar_B)] / N`` whatever the correlation of u_A and u_B; the difference of the two
independent Jeffreys posteriors (exact cumulants: sums) bounds it in the same way
(:func:`bayesnoise.conjugate.all_pairs_difference` takes the cumulants and draws of
:func:`binomial_ubar`).

Where some questions have K >= 2, kappa is estimated from them (the K = 1 questions are
assumed to come from the same population) and the Beta or nonparametric posterior applies:
the bound is used only where no question has two samples.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from bayesnoise._common import tail_probabilities

from .beta import beta_central_moments

__all__ = [
    "binomial_ubar",
    "bound_models",
    "k1_models",
]

#: Value of the ``ubar_prior`` column where the K = 1 bound is used.
BINOMIAL = "binomial bound (K = 1)"


def k1_models(k, mask=None) -> np.ndarray:
    """Models whose every answered question has exactly one sample (and at least one question).

    Parameters
    ----------
    k : array_like, shape (..., N)
        Samples per question (0 = not answered).
    mask : array_like of bool, shape (..., N), optional
        Answered questions (default ``k > 0``).

    Returns
    -------
    numpy.ndarray of bool, shape (...)

    Examples
    --------
    >>> k1_models([[1, 1, 0], [1, 2, 1]]).tolist()
    [True, False]
    """
    k = np.asarray(k)
    mask = k > 0 if mask is None else np.asarray(mask, bool)
    return mask.any(axis=-1) & ~(mask & (k > 1)).any(axis=-1)


def bound_models(k, fit, mask=None) -> np.ndarray:
    """Models that take the binomial bound: K = 1 on every answered question
    (:func:`k1_models`) and kappa not assumed (``fit.kappa_status``), shape (...).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> fit = SimpleNamespace(kappa_status=np.array(["k1", "assumed", "estimated"]))
    >>> bound_models([[1, 1], [1, 1], [1, 2]], fit).tolist()
    [True, False, False]
    """
    return k1_models(k, mask) & (np.asarray(fit.kappa_status) != "assumed")


def binomial_ubar(
    correct, questions, confidence_level: float, n_resamples: int, rng
) -> dict[str, np.ndarray]:
    """The kappa-free posterior of ubar at K = 1: ``Beta(c + 1/2, N - c + 1/2)`` per model.

    Conservative for every distribution of the question accuracies (see the module
    docstring): its variance ``ubar (1 - ubar) / N`` bounds that of the accuracy given the
    questions, with equality only when all questions are equally hard.

    Parameters
    ----------
    correct, questions : array_like, shape (M,)
        Number right ``c`` and questions answered ``N`` (one sample each) per model.
    confidence_level : float
        Credible level of the equal-tailed interval.
    n_resamples : int
        Posterior draws per model (for paired differences that need Monte Carlo).
    rng : numpy.random.Generator

    Returns
    -------
    dict of str to numpy.ndarray
        ``cumulants`` (4, M) exact cumulants 1-4 of the Beta; ``draws`` (M, draws); ``low``,
        ``high`` (M,) its exact quantiles (the Jeffreys interval); ``mcse`` (M,) zeros (the
        ends are exact).

    Examples
    --------
    >>> import numpy as np
    >>> out = binomial_ubar([30], [100], 0.95, 1000, np.random.default_rng(0))
    >>> round(float(out["cumulants"][0, 0]), 4), round(float(out["low"][0]), 4)
    (0.302, 0.2168)
    """
    c = np.asarray(correct, dtype=float)
    n = np.asarray(questions, dtype=float)
    a, b = c + 0.5, n - c + 0.5
    mean, mu2, mu3, mu4 = beta_central_moments(a, b)
    lo_p, hi_p = tail_probabilities(confidence_level)
    return {
        "cumulants": np.stack([mean, mu2, mu3, mu4 - 3.0 * mu2 * mu2]),
        "draws": rng.beta(a[:, None], b[:, None], (c.size, int(n_resamples))),
        "low": stats.beta.ppf(lo_p, a, b),
        "high": stats.beta.ppf(hi_p, a, b),
        "mcse": np.zeros(c.shape),
    }
