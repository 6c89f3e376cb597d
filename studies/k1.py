"""K = 1: coverage of the these-questions intervals (``ubar``, ``dbar``) whatever kappa.

Simulation machinery for issue 20 item 3, not library API: the numbers come from the public
tables (``conjugate.posterior_table`` ``ubar_low/high`` and ``conjugate.posterior_pairs_table``
``dbar_low/high``, ``prob_a_better``) called as a user calls them, with ``ubar_prior="beta"``
(the Beta population with kappa integrated over its prior: the K = 1 behaviour before the
binomial bound) or ``"auto"`` (the default: the binomial bound at K = 1).

Difficulty shapes (question accuracies u, mean ``mu``, spread indexed by ``kappa``):

``beta``, ``twopoint``, ``mixture``
    :class:`studies.grid.Difficulty` (variance ``mu (1 - mu) / (kappa + 1)``; two-point:
    u in {mu (1 - l), mu + l (1 - mu)}, P(high) = mu, l^2 = 1 / (kappa + 1); mixture: three
    Beta components with 60% of the variance between them).
``2pl``
    item response: ``u_i = expit(a_i (theta - b_i))``, ``b_i ~ N(0, 1)``,
    ``a_i = s exp(0.2 z_i)``, theta solved so that E[u] = mu; the discrimination ``s`` is
    chosen by the cell's kappa (:data:`TWO_PL_SCALE`: larger kappa, smaller s, more alike
    questions); :func:`implied_kappa` gives ``mu (1 - mu) / var(u) - 1`` of the cell.

Each replicate is one model (``ubar``; the truth is its ``mean_i u_i``) or one pair (``dbar``;
truth ``mean_i (u_Ai - u_Bi)``): model B has the same shape, mean and spread as A, coupled to
A's difficulties by a Gaussian copula with latent correlation :data:`RHO_Z` (2PL: the same
items, ``theta_B = theta_A - 0.2``). All at K = 1. Monte Carlo SE of a coverage p from R
independent replicates: ``sqrt(p (1 - p) / R)``.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
from scipy import optimize, special

from bayesnoise import conjugate
from bayesnoise.data import from_arrays

from .grid import Difficulty

__all__ = [
    "KAPPAS",
    "MUS",
    "NS",
    "SHAPES",
    "implied_kappa",
    "pair_cell",
    "sample_pair",
    "ubar_cell",
]

SHAPES = ("beta", "twopoint", "mixture", "2pl")
MUS = (0.05, 0.5, 0.9)
KAPPAS = (0.5, 1.0, 5.0, 100.0)
NS = (100, 500, 2000)
RHO_Z = 0.8  # latent correlation of a pair's difficulties
#: 2PL discrimination scale per kappa level (kappa only labels the spread there).
TWO_PL_SCALE = {0.5: 4.0, 1.0: 2.0, 5.0: 0.7, 100.0: 0.1}
_A_SD = 0.2  # log sd of the 2PL discriminations
_PAIR_BLOCK = 10  # pairs per posterior_pairs_table call (20 models, 10 pairs used)
_LEVEL = 0.95


@functools.cache
def _two_pl_theta(mu: float, s: float) -> float:
    """Ability giving E[u] = mu under the 2PL items (fixed quadrature sample)."""
    rng = np.random.default_rng(2024)
    a = s * np.exp(_A_SD * rng.standard_normal(200_000))
    b = rng.standard_normal(200_000)
    return float(optimize.brentq(lambda t: special.expit(a * (t - b)).mean() - mu, -500.0, 500.0))


def _two_pl(mu, kappa, rng, size, shift=0.0):
    s = TWO_PL_SCALE[float(kappa)]
    theta = _two_pl_theta(float(mu), s)
    a = s * np.exp(_A_SD * rng.standard_normal(size))
    b = rng.standard_normal(size)
    return special.expit(a * (theta - b)), special.expit(a * (theta - shift - b))


def sample_pair(shape, mu, kappa, rng, size):
    """Question accuracies (u_A, u_B) of a pair, each of ``size`` (R, N).

    Examples
    --------
    >>> import numpy as np
    >>> ua, ub = sample_pair("twopoint", 0.5, 1.0, np.random.default_rng(0), (2, 4))
    >>> ua.shape, sorted(np.unique(np.round(ua, 4)).tolist())
    ((2, 4), [0.1464, 0.8536])
    """
    if shape == "2pl":
        return _two_pl(mu, kappa, rng, size, shift=0.2)
    d = Difficulty(shape, float(mu), float(kappa))
    z, e = rng.standard_normal((2, *size))
    return d.from_normal(z), d.from_normal(RHO_Z * z + np.sqrt(1 - RHO_Z**2) * e)


def implied_kappa(shape, mu, kappa) -> float:
    """``mu (1 - mu) / var(u) - 1`` of the cell's difficulty distribution (the kappa a Beta of
    the same mean and variance would have; the cell's kappa except for 2PL).

    Examples
    --------
    >>> round(implied_kappa("beta", 0.5, 5.0), 1)
    5.0
    """
    if shape != "2pl":
        return float(kappa)
    u, _ = _two_pl(mu, kappa, np.random.default_rng(7), 200_000)
    return float(u.mean() * (1 - u.mean()) / u.var() - 1)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the K = 1 note and the mu-shift warning
        return fn(*args, **kwargs)


def _summary(low, high, truth):
    low, high, truth = (np.asarray(x, float) for x in (low, high, truth))
    cover = (low <= truth) & (truth <= high)
    return {
        "coverage": float(cover.mean()),
        "mcse": float(np.sqrt(cover.mean() * (1 - cover.mean()) / cover.size)),
        "width": float(np.median(high - low)),
        "below": float((truth < low).mean()),
        "above": float((truth > high).mean()),
    }


def ubar_cell(shape, mu, kappa, n, replicates, *, ubar_prior="auto", seed=0):
    """Coverage of ``ubar_low/high`` at K = 1 over ``replicates`` models of one cell.

    Returns
    -------
    dict
        ``coverage``, ``mcse``, median ``width``, and the shares of truths ``below`` / ``above``
        the interval.

    Examples
    --------
    >>> out = ubar_cell("beta", 0.5, 5.0, 100, 20)
    >>> sorted(out)
    ['above', 'below', 'coverage', 'mcse', 'width']
    """
    rng = np.random.default_rng([seed, SHAPES.index(shape), int(100 * mu), int(10 * kappa), n])
    ua, _ = sample_pair(shape, mu, kappa, rng, (replicates, n))
    c = rng.binomial(1, ua)
    ds = from_arrays(c, np.ones_like(c))
    df = _quiet(conjugate.posterior_table, ds, ubar_prior=ubar_prior, progress=False)
    return _summary(df["ubar_low"], df["ubar_high"], ua.mean(axis=1))


def pair_cell(shape, mu, kappa, n, replicates, *, ubar_prior="auto", seed=0):
    """Coverage of ``dbar_low/high`` at K = 1 over ``replicates`` pairs of one cell.

    Besides :func:`ubar_cell`'s keys: ``wrong_sign`` the share of pairs with
    ``prob_a_better > 0.975`` while the true dbar < 0 or ``prob_a_better < 0.025`` while it is > 0
    (at most about 0.025 for a calibrated posterior), and ``p_vs_interval`` the share where
    ``prob_a_better`` disagrees with the interval about the sign (0 for one posterior).
    """
    rng = np.random.default_rng([seed, 1 + SHAPES.index(shape), int(100 * mu), int(10 * kappa), n])
    ua, ub = sample_pair(shape, mu, kappa, rng, (replicates, n))
    ca, cb = rng.binomial(1, ua), rng.binomial(1, ub)
    low, high, prob = (np.empty(replicates) for _ in range(3))
    for s0 in range(0, replicates, _PAIR_BLOCK):
        rows = np.arange(s0, min(s0 + _PAIR_BLOCK, replicates))
        c = np.concatenate([ca[rows], cb[rows]])
        m = rows.size
        names = [f"a{i}" for i in range(m)] + [f"b{i}" for i in range(m)]
        ds = from_arrays(c, np.ones_like(c), models=names)
        df = _quiet(
            conjugate.posterior_pairs_table,
            ds,
            ubar_prior=ubar_prior,
            progress=False,
            rng=int(rng.integers(2**31)),
        )
        df = df.set_index(["model_a", "model_b"])
        keys = [(f"a{i}", f"b{i}") for i in range(m)]
        low[rows] = df.loc[keys, "dbar_low"].to_numpy()
        high[rows] = df.loc[keys, "dbar_high"].to_numpy()
        prob[rows] = df.loc[keys, "prob_a_better"].to_numpy()
    truth = (ua - ub).mean(axis=1)
    out = _summary(low, high, truth)
    tail = (1 - _LEVEL) / 2
    out["wrong_sign"] = float(
        np.mean(((prob > 1 - tail) & (truth < 0)) | ((prob < tail) & (truth > 0)))
    )
    out["p_vs_interval"] = float(np.mean((prob > 1 - tail) != (low > 0)))
    return out
