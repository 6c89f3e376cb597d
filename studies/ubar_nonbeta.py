"""Coverage of the Bayesian these-questions intervals (``ubar``, ``dbar``) when difficulties are not Beta.

Simulation machinery for issue 20 item 1, not library API: the numbers come from the package's
public tables (``conjugate.posterior_table``, ``conjugate.posterior_pairs_table``) called as a
user calls them, with ``ubar_prior="beta"`` (the Beta population for every model: the
behaviour before the nonparametric prior) or ``"auto"`` (the default).

Difficulty shapes (question accuracies u):

``twopoint``
    u = 0.95 for 95% of the questions and 0.01 for 5% (easy items and broken items; the
    audit's cell: the Beta interval covered 0.555 at N = 500 and 0.035 at N = 2,000, K = 20).
``mixture``
    the calibration grid's three Beta components (hard / medium / easy, 60% of the variance
    between components) with mean ``mu`` and variance ``mu (1 - mu) / (kappa + 1)``
    (:class:`studies.grid.Difficulty`).
``beta``
    Beta(mu kappa, (1 - mu) kappa): the model is right.
``grid_twopoint``
    the calibration grid's two-point shape (u in {mu (1 - l), mu + l (1 - mu)}).

Each replicate is one model (``ubar``) or one pair (``dbar``: model A has the cell's shape,
model B Beta-shaped difficulties with the same mean and kappa = 5, coupled to A's by a
Gaussian copula with latent correlation 0.8, so the pair shares question difficulty and A's
shrinkage error does not cancel against B's); the replicates are the model axis of one
dataset, so each table call is vectorised over them.
Monte Carlo SE of a coverage p from R independent replicates: ``sqrt(p (1 - p) / R)``.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy import special

import bayesnoise as bn
from bayesnoise import conjugate

from .grid import Difficulty

__all__ = ["SHAPES", "coverage_cell", "pair_coverage_cell", "simulate"]

SHAPES = ("twopoint", "mixture", "beta", "grid_twopoint")
MU, KAPPA = 0.9, 5.0  # mixture / beta / grid_twopoint cells (accuracies near 0.9)
RHO_Z = 0.8  # latent correlation of a pair's difficulties
# pairs per posterior_pairs_table call (10 models, 45 pairs, 5 used): the all-pairs power sums
# grow with the square of the models, so 5 costs 0.62 s CPU per 40 pairs against 0.91-1.2 s at
# 10 and 0.69-0.77 s at 3-4 (N = 2000, K = 20); the intervals do not depend on the block
_PAIR_BLOCK = 5


def _from_normal(shape, z, mu=MU, kappa=KAPPA):
    """Question accuracies from standard normal scores (quantile transform)."""
    mu, kappa = float(mu), float(kappa)
    if shape == "twopoint":
        return np.where(z > special.ndtri(0.05), 0.95, 0.01)
    name = "twopoint" if shape == "grid_twopoint" else shape
    return Difficulty(name, mu, kappa).from_normal(z)


def simulate(shape, n_questions, samples, replicates, rng, *, pairs=False, mu=MU, kappa=KAPPA):
    """Accuracies and counts: u, c of shape (R, N), or (2, R, N) for pairs (A, B).

    Examples
    --------
    >>> import numpy as np
    >>> u, c = simulate("twopoint", 50, 5, 3, np.random.default_rng(0))
    >>> u.shape, sorted(np.unique(u).tolist())
    ((3, 50), [0.01, 0.95])
    """
    z = rng.standard_normal((replicates, n_questions))
    if pairs:
        zb = RHO_Z * z + np.sqrt(1.0 - RHO_Z**2) * rng.standard_normal(z.shape)
        mean_a = 0.95 * 0.95 + 0.05 * 0.01 if shape == "twopoint" else mu
        u = np.stack([_from_normal(shape, z, mu, kappa), _from_normal("beta", zb, mean_a, 5.0)])
    else:
        u = _from_normal(shape, z, mu, kappa)
    return u, rng.binomial(samples, u)


def _band(hit, width, r):
    p = float(np.mean(hit))
    return {"coverage": p, "mcse": float(np.sqrt(p * (1 - p) / r)), "width": float(width)}


def coverage_cell(shape, n_questions, samples, replicates=400, seed=0, *, ubar_prior="auto"):
    """Coverage of ``ubar_low/high`` for mean_i u_i in one cell.

    Returns
    -------
    dict
        ``coverage``, ``mcse``, ``width`` (median), ``nonparametric`` (share of replicates
        whose ubar used the nonparametric prior), ``seconds`` (the table call).

    Examples
    --------
    >>> out = coverage_cell("twopoint", 200, 20, replicates=20)
    >>> sorted(out)
    ['coverage', 'mcse', 'nonparametric', 'seconds', 'width']
    """
    rng = np.random.default_rng([seed, n_questions, samples, SHAPES.index(shape)])
    u, c = simulate(shape, n_questions, samples, replicates, rng)
    ds = bn.from_arrays(c, np.full(c.shape, samples))
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = conjugate.posterior_table(ds, progress=False, ubar_prior=ubar_prior)
    seconds = time.perf_counter() - t0
    truth = u.mean(axis=1)
    lo, hi = df["ubar_low"].to_numpy(), df["ubar_high"].to_numpy()
    out = _band((lo <= truth) & (truth <= hi), np.median(hi - lo), replicates)
    out["nonparametric"] = float((df["ubar_prior"] == "nonparametric").mean())
    out["seconds"] = seconds
    return out


def pair_coverage_cell(shape, n_questions, samples, replicates=400, seed=0, *, ubar_prior="auto"):
    """Coverage of ``dbar_low/high`` for mean_i (u_Ai - u_Bi) in one cell (R pairs).

    Examples
    --------
    >>> out = pair_coverage_cell("twopoint", 200, 20, replicates=10)
    >>> sorted(out)
    ['coverage', 'mcse', 'seconds', 'width']
    """
    rng = np.random.default_rng([seed, n_questions, samples, SHAPES.index(shape), 2])
    u, c = simulate(shape, n_questions, samples, replicates, rng, pairs=True)
    truth = (u[0] - u[1]).mean(axis=1)
    hits, widths, seconds = [], [], 0.0
    for s0 in range(0, replicates, _PAIR_BLOCK):
        block = np.arange(s0, min(s0 + _PAIR_BLOCK, replicates))
        cc = np.concatenate([c[0, block], c[1, block]])  # A models, then their B models
        names = [f"a{i}" for i in block] + [f"b{i}" for i in block]
        ds = bn.from_arrays(cc, np.full(cc.shape, samples), models=names)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = conjugate.posterior_pairs_table(ds, progress=False, ubar_prior=ubar_prior)
        seconds += time.perf_counter() - t0
        df = df.set_index(["model_a", "model_b"])
        for i in block:
            row = df.loc[(f"a{i}", f"b{i}")]
            hits.append(row["dbar_low"] <= truth[i] <= row["dbar_high"])
            widths.append(row["dbar_high"] - row["dbar_low"])
    out = _band(np.array(hits), np.median(widths), replicates)
    out["seconds"] = seconds
    return out
