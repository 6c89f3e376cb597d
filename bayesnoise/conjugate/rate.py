"""Single pass rate with a Beta prior.

Prior Beta(a, b) on a rate p; after s successes in n trials the posterior is
Beta(a + s, b + n - s). Priors can be given as (a, b), by (mean, sd), by (mean, concentration)
or by name (``"uniform"`` = Beta(1, 1), ``"jeffreys"`` = Beta(1/2, 1/2)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import integrate, stats

from bayesnoise._common import ConfidenceInterval, check_confidence_level, tail_probabilities
from bayesnoise.data import check_counts

from .beta import beta_central_moments, conjugate_update

__all__ = [
    "BetaPrior",
    "BetaRatePosterior",
    "beta_prior",
    "prior_predictive_p_value",
    "prob_rate_greater",
    "rate_posterior",
]

_NAMED = {"uniform": (1.0, 1.0), "jeffreys": (0.5, 0.5)}


@dataclass(frozen=True)
class BetaPrior:
    """A Beta(a, b) prior on a rate.

    Examples
    --------
    >>> prior = BetaPrior.from_mean_sd(0.6, 0.2)
    >>> round(prior.a, 10), round(prior.b, 10)
    (3.0, 2.0)
    >>> BetaPrior.from_mean_concentration(0.5, 24).a
    12.0
    """

    a: float
    b: float

    def __post_init__(self):
        if not (np.isfinite(self.a) and np.isfinite(self.b) and self.a > 0 and self.b > 0):
            raise ValueError(f"Beta prior needs finite a > 0 and b > 0, got a={self.a}, b={self.b}")

    @classmethod
    def from_mean_concentration(cls, mean: float, concentration: float) -> BetaPrior:
        """Beta(mean * concentration, (1 - mean) * concentration).

        Parameters
        ----------
        mean : float
            Prior mean, in (0, 1).
        concentration : float
            ``a + b`` (> 0): the prior's weight in pseudo-trials.

        Returns
        -------
        BetaPrior

        Examples
        --------
        >>> BetaPrior.from_mean_concentration(0.25, 8)
        BetaPrior(a=2.0, b=6.0)
        """
        if not 0 < mean < 1:
            raise ValueError(f"prior mean must be in (0, 1), got {mean}")
        if not concentration > 0:
            raise ValueError(f"concentration must be > 0, got {concentration}")
        return cls(float(mean * concentration), float((1 - mean) * concentration))

    @classmethod
    def from_mean_sd(cls, mean: float, sd: float) -> BetaPrior:
        """Beta prior with the given mean and standard deviation.

        A Beta distribution has ``sd**2 = mean (1 - mean) / (a + b + 1)``, so it exists only
        when ``0 < sd < sqrt(mean (1 - mean))``.

        Parameters
        ----------
        mean : float
            Prior mean, in (0, 1).
        sd : float
            Prior standard deviation.

        Returns
        -------
        BetaPrior

        Examples
        --------
        >>> prior = BetaPrior.from_mean_sd(0.5, 0.1)
        >>> round(prior.a, 6), round(prior.sd, 6)
        (12.0, 0.1)
        """
        if not 0 < mean < 1:
            raise ValueError(f"prior mean must be in (0, 1), got {mean}")
        limit = np.sqrt(mean * (1 - mean))
        if not 0 < sd < limit:
            raise ValueError(
                f"no Beta distribution has mean {mean} and sd {sd}: the sd must be in "
                f"(0, sqrt(mean (1 - mean))) = (0, {limit:.6g})"
            )
        return cls.from_mean_concentration(mean, mean * (1 - mean) / sd**2 - 1.0)

    @property
    def mean(self) -> float:
        """Prior mean ``a / (a + b)``."""
        return self.a / (self.a + self.b)

    @property
    def sd(self) -> float:
        """Prior standard deviation."""
        return float(np.sqrt(beta_central_moments(self.a, self.b)[1]))


def beta_prior(prior) -> BetaPrior:
    """Normalise a prior specification to :class:`BetaPrior`.

    Parameters
    ----------
    prior : str, BetaPrior, (a, b) tuple, or dict
        ``"uniform"``, ``"jeffreys"``, ``(a, b)``, ``{"a":, "b":}``, ``{"mean":, "sd":}`` or
        ``{"mean":, "concentration":}``.

    Returns
    -------
    BetaPrior

    Examples
    --------
    >>> beta_prior("jeffreys")
    BetaPrior(a=0.5, b=0.5)
    >>> beta_prior({"mean": 0.035, "sd": 0.01}).a  # a weakly informative prior
    11.78625
    """
    if isinstance(prior, BetaPrior):
        return prior
    if isinstance(prior, str):
        key = prior.lower()
        if key not in _NAMED:
            raise ValueError(f"unknown named prior {prior!r}; use one of {sorted(_NAMED)}")
        return BetaPrior(*_NAMED[key])
    if isinstance(prior, dict):
        keys = set(prior)
        if keys == {"a", "b"}:
            return BetaPrior(float(prior["a"]), float(prior["b"]))
        if keys == {"mean", "sd"}:
            return BetaPrior.from_mean_sd(float(prior["mean"]), float(prior["sd"]))
        if keys == {"mean", "concentration"}:
            return BetaPrior.from_mean_concentration(
                float(prior["mean"]), float(prior["concentration"])
            )
        raise ValueError(
            "prior dict needs keys {a, b}, {mean, sd} or {mean, concentration}, "
            f"got {sorted(keys)}"
        )
    try:
        a, b = prior
    except (TypeError, ValueError) as err:
        raise TypeError(f"cannot interpret {prior!r} as a Beta prior") from err
    return BetaPrior(float(a), float(b))


def _hdi(a, b, confidence_level):
    """Highest-density interval of Beta(a, b), vectorised (golden-section on the lower tail)."""
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    low = np.empty(a.shape)
    high = np.empty(a.shape)
    dec = (a <= 1) & (b > 1)  # density decreasing: HDI starts at 0
    inc = (b <= 1) & (a > 1)  # increasing: HDI ends at 1
    flat = (a == 1) & (b == 1)
    ushape = (a < 1) & (b < 1)
    if np.any(ushape):
        raise ValueError(
            "Beta posterior with a < 1 and b < 1 is U-shaped: its highest-density region is "
            "not an interval; use method='equal_tailed'"
        )
    uni = ~(dec | inc | flat)
    low[dec], high[dec] = 0.0, stats.beta.ppf(confidence_level, a[dec], b[dec])
    low[inc], high[inc] = stats.beta.ppf(1 - confidence_level, a[inc], b[inc]), 1.0
    low[flat], high[flat] = (1 - confidence_level) / 2, (1 + confidence_level) / 2
    if np.any(uni):
        au, bu = a[uni], b[uni]
        lo_t = np.zeros(au.shape)
        hi_t = np.full(au.shape, 1.0 - confidence_level)
        gr = (np.sqrt(5) - 1) / 2

        def width(t):
            return stats.beta.ppf(t + confidence_level, au, bu) - stats.beta.ppf(t, au, bu)

        for _ in range(60):  # interval shrinks by 0.618 per step: 60 steps ~ 3e-13
            x1 = hi_t - gr * (hi_t - lo_t)
            x2 = lo_t + gr * (hi_t - lo_t)
            left = width(x1) < width(x2)
            hi_t = np.where(left, x2, hi_t)
            lo_t = np.where(left, lo_t, x1)
        t = (lo_t + hi_t) / 2
        low[uni] = stats.beta.ppf(t, au, bu)
        high[uni] = stats.beta.ppf(t + confidence_level, au, bu)
    return low[()], high[()]


@dataclass(frozen=True)
class BetaRatePosterior:
    """Posterior Beta(a, b) of a pass rate (scipy-style result of :func:`rate_posterior`).

    Attributes
    ----------
    a, b : posterior parameters;  successes, n : the data;  prior : BetaPrior.
    statistic : posterior mean (alias ``mean``).
    """

    a: np.ndarray | float
    b: np.ndarray | float
    successes: np.ndarray | float
    n: np.ndarray | float
    prior: BetaPrior

    @property
    def mean(self):
        """Posterior mean ``a / (a + b)``."""
        return self.a / (self.a + self.b)

    statistic = mean

    @property
    def var(self):
        """Posterior variance."""
        return beta_central_moments(self.a, self.b)[1][()]

    @property
    def sd(self):
        """Posterior standard deviation."""
        return np.sqrt(self.var)

    def confidence_interval(self, confidence_level: float = 0.95, method: str = "equal_tailed"):
        """Credible interval at ``confidence_level``.

        Parameters
        ----------
        confidence_level : float, default 0.95
        method : {"equal_tailed", "hdi"}
            Equal-tailed (posterior quantiles (1 -/+ level) / 2) or highest posterior
            density.

        Returns
        -------
        ConfidenceInterval
            The credible interval (``low``, ``high``; unpacks like a tuple).

        Examples
        --------
        >>> low, high = rate_posterior(4, 60).confidence_interval(0.95)
        >>> round(float(low), 4), round(float(high), 4)
        (0.0272, 0.1595)
        """
        level = check_confidence_level(confidence_level)
        if method == "equal_tailed":
            q_low, q_high = tail_probabilities(level)
            low = stats.beta.ppf(q_low, self.a, self.b)
            high = stats.beta.ppf(q_high, self.a, self.b)
            return ConfidenceInterval(low[()], high[()])
        if method == "hdi":
            return ConfidenceInterval(*_hdi(self.a, self.b, level))
        raise ValueError(f"method must be 'equal_tailed' or 'hdi', got {method!r}")

    def prob_greater(self, p0):
        """Posterior probability P(rate > p0).

        Parameters
        ----------
        p0 : float or array_like
            Threshold(s) in [0, 1].

        Returns
        -------
        float or numpy.ndarray

        Examples
        --------
        >>> round(float(rate_posterior(7, 10).prob_greater(0.5)), 4)
        0.8867
        """
        p0 = np.asarray(p0, dtype=float)
        if np.any((p0 < 0) | (p0 > 1)):
            raise ValueError("p0 must be in [0, 1]")
        return stats.beta.sf(p0, self.a, self.b)[()]


def rate_posterior(successes, n, prior="uniform") -> BetaRatePosterior:
    """Posterior of a pass rate after ``successes`` out of ``n`` (Beta-Binomial conjugacy).

    Parameters
    ----------
    successes, n : array_like
        Successes and trials (vectorised; pooled samples allowed); ``n`` whole numbers,
        ``0 <= successes <= n``.
    prior : str, tuple, dict or BetaPrior, default "uniform"
        See :func:`beta_prior`.

    Returns
    -------
    BetaRatePosterior

    Examples
    --------
    >>> post = rate_posterior(7, 20, prior={"mean": 0.6, "sd": 0.2})
    >>> round(float(post.mean), 4), round(float(post.prob_greater(0.5)), 4)
    (0.4, 0.1537)
    >>> ci = post.confidence_interval(0.95)
    >>> round(float(ci.low), 4), round(float(ci.high), 4)
    (0.2211, 0.5941)
    """
    pr = beta_prior(prior)
    shape = np.broadcast_shapes(np.shape(successes), np.shape(n))
    s, n = check_counts(np.atleast_1d(successes), np.atleast_1d(n), source="rate_posterior")
    s, n = s.reshape(shape), n.reshape(shape).astype(float)
    a, b = conjugate_update(pr.a, pr.b, s, n)
    return BetaRatePosterior(a=a[()], b=b[()], successes=s[()], n=n[()], prior=pr)


def prob_rate_greater(post_1: BetaRatePosterior, post_2: BetaRatePosterior) -> float:
    """P(rate_1 > rate_2) for independent Beta posteriors, by numerical integration.

    ``P = integral f_1(x) F_2(x) dx`` over the support of posterior 1 (adaptive quadrature,
    absolute error < 1e-10), not a normal approximation.

    Parameters
    ----------
    post_1, post_2 : BetaRatePosterior
        Scalar posteriors (from :func:`rate_posterior`).

    Returns
    -------
    float

    Examples
    --------
    >>> p1, p2 = rate_posterior(45, 50), rate_posterior(40, 50)
    >>> round(prob_rate_greater(p1, p2), 4)
    0.9139
    """
    a1, b1, a2, b2 = (float(x) for x in (post_1.a, post_1.b, post_2.a, post_2.b))
    d1 = stats.beta(a1, b1)
    d2 = stats.beta(a2, b2)
    lo, hi = d1.ppf(1e-15), d1.isf(1e-15)
    pts = sorted(float(x) for x in {d1.mean(), d2.mean(), d1.median()} if lo < x < hi)
    val, _ = integrate.quad(
        lambda x: d1.pdf(x) * d2.cdf(x), lo, hi, points=pts or None, epsabs=1e-12, limit=200
    )
    return float(min(max(val, 0.0), 1.0))


def prior_predictive_p_value(successes, n, prior="uniform"):
    """Two-sided prior-predictive tail probability of ``successes`` out of ``n`` (Box 1980).

    Under a Beta(a, b) prior on the rate the count X of successes in n independent trials is
    Beta-Binomial(n, a, b) before any data are seen; the tail probability of the observed
    count is ``min(1, 2 min(P(X <= s), P(X >= s)))``. A small value says the prior and the data
    disagree (the prior put little mass on counts as far out as the one observed): the
    posterior is then a compromise between two incompatible sources. As for any doubled
    discrete tail, data drawn from the prior predictive give a value <= alpha with
    probability at most about alpha.

    Parameters
    ----------
    successes, n : array_like of int
        Observed successes and trials (vectorised).
    prior : str, tuple, dict or BetaPrior, default "uniform"
        See :func:`beta_prior`.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> p = prior_predictive_p_value(48, 60, {"mean": 0.035, "sd": 0.01})
    >>> bool(p < 1e-20)
    True
    >>> round(float(prior_predictive_p_value(30, 60, "uniform")), 4)  # flat: X uniform
    1.0
    """
    pr = beta_prior(prior)
    s, n = np.broadcast_arrays(np.asarray(successes, dtype=float), np.asarray(n, dtype=float))
    if np.any((s < 0) | (s > n) | (s != np.round(s)) | (n != np.round(n))):
        raise ValueError("successes and n must be whole numbers with 0 <= successes <= n")
    out = np.empty(s.shape)
    for size in np.unique(n):
        # both tails summed from the pmf (1 - cdf would cancel in the far tail)
        pmf = stats.betabinom.pmf(np.arange(size + 1), size, pr.a, pr.b)
        low = np.cumsum(pmf)  # P(X <= x)
        high = np.cumsum(pmf[::-1])[::-1]  # P(X >= x)
        at = n == size
        x = s[at].astype(int)
        out[at] = np.minimum(1.0, 2.0 * np.minimum(low[x], high[x]))
    return out[()]
