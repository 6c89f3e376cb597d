"""The posterior of each model's success rate under a Beta prior you choose (``bayesnoise rate``).

K = 1 (each question answered once): the answers are independent Bernoulli(p) trials and the
posterior is the conjugate Beta(a + s, b + n - s) (:func:`~bayesnoise.conjugate.rate_posterior`).
K > 1: the samples of one question share its difficulty, so they are not independent trials;
the prior Beta(a, b) goes on the population mean ``mu`` of the Beta-Binomial hierarchy
(``u_i ~ Beta(mu kappa, (1 - mu) kappa)``, ``c_i ~ Binomial(K_i, u_i)``) and kappa is integrated
over the package's LogNormal prior (:func:`~bayesnoise.conjugate.fit_empirical_bayes`): the
posterior of ``mu`` is a mixture over kappa nodes of normals in logit mu. The same model at
K = 1 is the conjugate update (a question answered once is a Bernoulli(mu) draw).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import integrate, special, stats

from bayesnoise._common import ConfidenceInterval, check_confidence_level, tail_probabilities

from .empirical_bayes import fit_empirical_bayes
from .hyper import normal_mixture_quantile
from .rate import BetaPrior, prob_rate_greater, rate_posterior

__all__ = [
    "MixtureRatePosterior",
    "beta_rejected",
    "density",
    "model_rate_posterior",
    "paired_prob_a_better",
    "prob_a_above_b",
]

CONJUGATE = "conjugate Beta (K = 1)"
HIERARCHICAL = "hierarchical: prior on mu (K > 1)"

_HERMITE = np.polynomial.hermite_e.hermegauss(64)  # nodes, weights for N(0, 1) expectations
_GOLDEN = (np.sqrt(5) - 1) / 2


def _golden_t(quantile, confidence_level: float) -> float:
    """The t of the shortest interval ``[Q(t), Q(t + level)]`` of a unimodal law, by golden
    section on t."""
    lo, hi = 0.0, 1.0 - confidence_level
    for _ in range(60):  # the bracket shrinks by 0.618 a step: 60 steps ~ 3e-13
        x1 = hi - _GOLDEN * (hi - lo)
        x2 = lo + _GOLDEN * (hi - lo)
        if quantile(x1 + confidence_level) - quantile(x1) < quantile(
            x2 + confidence_level
        ) - quantile(x2):
            hi = x2
        else:
            lo = x1
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class MixtureRatePosterior:
    """Posterior of a population mean rate ``mu``: ``logit mu`` a normal mixture.

    Attributes
    ----------
    eta, eta_sd, weight : numpy.ndarray, shape (G,)
        Component means and sds of logit mu, and weights (sum 1), one per kappa node.
    prior : BetaPrior
    fit : EmpiricalBayesFit
        The fit the mixture comes from (one model).
    """

    eta: np.ndarray
    eta_sd: np.ndarray
    weight: np.ndarray
    prior: BetaPrior
    fit: object = field(default=None, repr=False, compare=False)  # the EmpiricalBayesFit

    def _moment(self, power: int) -> float:
        x, w = _HERMITE
        mu = special.expit(self.eta[:, None] + self.eta_sd[:, None] * x[None, :])
        per = (mu**power * w).sum(axis=1) / np.sqrt(2 * np.pi)
        return float((self.weight * per).sum())

    @property
    def mean(self) -> float:
        """Posterior mean of mu (Gauss-Hermite, 64 nodes per component)."""
        return self._moment(1)

    @property
    def var(self) -> float:
        """Posterior variance of mu."""
        return max(self._moment(2) - self.mean**2, 0.0)

    @property
    def sd(self) -> float:
        """Posterior standard deviation of mu."""
        return float(np.sqrt(self.var))

    def cdf(self, x):
        """P(mu <= x)."""
        x = np.clip(np.asarray(x, dtype=float), 1e-300, 1 - 1e-16)
        z = (special.logit(x)[..., None] - self.eta) / self.eta_sd
        return (self.weight * special.ndtr(z)).sum(axis=-1)

    def pdf(self, x):
        """Density of mu at ``x`` in (0, 1)."""
        x = np.asarray(x, dtype=float)
        inside = (x > 0) & (x < 1)
        xs = np.where(inside, x, 0.5)
        z = (special.logit(xs)[..., None] - self.eta) / self.eta_sd
        phi = np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)  # stats.norm.pdf: 20x slower here
        dens = (self.weight * phi / self.eta_sd).sum(axis=-1) / (xs * (1 - xs))
        return np.where(inside, dens, 0.0)

    def ppf(self, q: float) -> float:
        """Quantile of mu."""
        return float(special.expit(normal_mixture_quantile(self.eta, self.eta_sd, self.weight, q)))

    def prob_greater(self, p0: float) -> float:
        """P(mu > p0)."""
        return float(1.0 - self.cdf(p0))

    def confidence_interval(self, confidence_level=0.95, method="equal_tailed"):
        """Equal-tailed or highest-density (``"hdi"``) credible interval of mu."""
        level = check_confidence_level(confidence_level)
        if method == "equal_tailed":
            q_low, q_high = tail_probabilities(level)
            return ConfidenceInterval(self.ppf(q_low), self.ppf(q_high))
        if method == "hdi":
            # golden section on a tabulated inverse CDF (a 20,001-node grid in logit mu: the
            # width it minimises is off by ~1e-7), then the exact quantiles at the t found
            eta = np.linspace(
                (self.eta - 12 * self.eta_sd).min(), (self.eta + 12 * self.eta_sd).max(), 20_001
            )
            cdf = (self.weight * special.ndtr((eta[:, None] - self.eta) / self.eta_sd)).sum(1)
            mu = special.expit(eta)

            def table_ppf(q):
                return float(np.interp(q, cdf, mu))

            t = _golden_t(table_ppf, level)
            return ConfidenceInterval(self.ppf(t), self.ppf(t + level))
        raise ValueError(f"method must be 'equal_tailed' or 'hdi', got {method!r}")


def model_rate_posterior(correct, count, prior: BetaPrior):
    """The posterior of one model's success rate, and which model it comes from.

    Parameters
    ----------
    correct, count : array_like, shape (N,)
        Successes and samples per question (``count == 0``: not answered; 0/1 scores).
    prior : BetaPrior
        Prior of the rate (K = 1) or of the population mean mu (K > 1).

    Returns
    -------
    posterior : BetaRatePosterior or MixtureRatePosterior
        Both have ``mean``, ``var``, ``sd``, ``confidence_interval(level, method)``,
        ``prob_greater(p0)``; ``kind`` (:data:`CONJUGATE` or :data:`HIERARCHICAL`) says which.
    kind : str

    Examples
    --------
    >>> post, kind = model_rate_posterior([1, 0, 1, 1], [1, 1, 1, 1], BetaPrior(1, 1))
    >>> round(float(post.mean), 4), kind
    (0.6667, 'conjugate Beta (K = 1)')
    """
    c = np.asarray(correct, dtype=float)
    k = np.asarray(count, dtype=float)
    used = k > 0
    c, k = c[used], k[used]
    if np.all(k == 1):
        return rate_posterior(int(c.sum()), int(k.sum()), prior), CONJUGATE
    fit = fit_empirical_bayes(c[None, :], k[None, :], mu_prior=(prior.a, prior.b), warn=False)
    post = MixtureRatePosterior(
        eta=np.asarray(fit.grid_eta[0], dtype=float),
        eta_sd=np.asarray(fit.grid_eta_sd[0], dtype=float),
        weight=np.asarray(fit.grid_weight[0], dtype=float),
        prior=prior,
        fit=fit,
    )
    return post, HIERARCHICAL


def beta_rejected(correct, count, post) -> bool:
    """Whether the likelihood-ratio test of :func:`~bayesnoise.conjugate.ubar_prior.beta_fit_test`
    (level 0.99, needs some K >= 3) rejects the Beta population behind a K > 1 posterior."""
    from .likelihood import model_cells
    from .ubar_prior import beta_fit_test

    if not isinstance(post, MixtureRatePosterior) or post.fit is None:
        return False
    c = np.asarray(correct, dtype=float)[None, :]
    k = np.asarray(count, dtype=float)[None, :]
    return bool(beta_fit_test(*model_cells(c, k, k > 0), post.fit)["reject"][0])


def paired_prob_a_better(a_only: int, b_only: int, concentration: float = 0.5) -> float:
    """P(rate_A > rate_B | paired K = 1 outcomes) under a Dirichlet prior on the four outcome
    pairs of a question (both right, only A, only B, neither), each with ``concentration``.

    ``rate_A - rate_B = theta_10 - theta_01``, and ``theta_10 / (theta_10 + theta_01)`` is
    Beta(concentration + a_only, concentration + b_only) a posteriori (Dirichlet aggregation),
    so the probability is that Beta's mass above 1/2; only the discordant questions matter.

    Examples
    --------
    >>> round(paired_prob_a_better(12, 4), 4)
    0.979
    """
    return float(stats.beta.sf(0.5, concentration + a_only, concentration + b_only))


def _pdf(post, x):
    if isinstance(post, MixtureRatePosterior):
        return post.pdf(x)
    return stats.beta.pdf(x, float(post.a), float(post.b))


def _cdf(post, x):
    if isinstance(post, MixtureRatePosterior):
        return post.cdf(x)
    return stats.beta.cdf(x, float(post.a), float(post.b))


def prob_a_above_b(post_a, post_b) -> float:
    """P(rate_A > rate_B) for two independent posteriors: ``integral f_A(x) F_B(x) dx``.

    Two Beta posteriors: :func:`~bayesnoise.conjugate.prob_rate_greater`; otherwise adaptive
    quadrature (absolute error < 1e-10) with break points at both posteriors' means.

    Examples
    --------
    >>> a, _ = model_rate_posterior([1] * 45 + [0] * 5, [1] * 50, BetaPrior(1, 1))
    >>> b, _ = model_rate_posterior([1] * 40 + [0] * 10, [1] * 50, BetaPrior(1, 1))
    >>> round(prob_a_above_b(a, b), 4)
    0.9139
    """
    if not isinstance(post_a, MixtureRatePosterior) and not isinstance(
        post_b, MixtureRatePosterior
    ):
        return prob_rate_greater(post_a, post_b)
    pts = sorted({float(post_a.mean), float(post_b.mean)})
    val, _ = integrate.quad(
        lambda x: float(_pdf(post_a, x) * _cdf(post_b, x)),
        0.0,
        1.0,
        points=pts,
        epsabs=1e-12,
        limit=400,
    )
    return float(min(max(val, 0.0), 1.0))


def density(post, x):
    """Posterior density at ``x`` (for figures)."""
    return _pdf(post, x)
