"""Simulated baseline/candidate pairs for the CI decisions (gate, sequential test, planner).

A finite population of question pairs ``(u_baseline, u_candidate)`` (expected accuracies),
correlated as real evals are (a Gaussian copula of two Beta(mu kappa, (1 - mu) kappa)
margins with correlation ``rho``: the models agree on which questions are hard), holding
every pair in both orders so the population difference is exactly 0; :func:`shifted` moves
the candidate on the logit scale so that it is exactly ``delta``. Evals draw N questions with
replacement and K Bernoulli samples per question, vectorised over replicates. The truth of
each design is exact (finite population): the population difference and the per-question
variance of the K-averaged difference.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

__all__ = ["draw", "population", "shifted", "variance_of_difference"]


def population(rng, size=20_000, *, mu=0.6, kappa=1.0, rho=0.8) -> np.ndarray:
    """(2, 2 size) expected accuracies (row 0 baseline, row 1 candidate), exchangeable: the
    population difference is exactly 0.

    Examples
    --------
    >>> u = population(np.random.default_rng(0), 1000)
    >>> u.shape, float(abs(u[1].mean() - u[0].mean())) < 1e-12
    ((2, 2000), True)
    """
    z = rng.standard_normal((2, size))
    z[1] = rho * z[0] + np.sqrt(1.0 - rho * rho) * z[1]
    u = special.betaincinv(mu * kappa, (1.0 - mu) * kappa, special.ndtr(z))
    return np.concatenate([u, u[::-1]], axis=1)


def shifted(u, delta: float) -> np.ndarray:
    """``u`` with the candidate moved on the logit scale so that the population difference
    candidate - baseline is exactly ``delta``.

    Examples
    --------
    >>> u = shifted(population(np.random.default_rng(0), 1000), -0.03)
    >>> round(float(u[1].mean() - u[0].mean()), 10)
    -0.03
    """
    if delta == 0:
        return u.copy()
    logit = special.logit(np.clip(u[1], 1e-12, 1 - 1e-12))
    base = u[0].mean()

    def gap(c):
        return special.expit(logit + c).mean() - base - delta

    c = optimize.brentq(gap, -10.0, 10.0, xtol=1e-14)
    return np.stack([u[0], special.expit(logit + c)])


def variance_of_difference(u, k) -> float:
    """Per-question variance of the K-averaged difference candidate - baseline of a question
    drawn from the population: ``var(u_c - u_b) + mean(u_b (1 - u_b) + u_c (1 - u_c)) / K``.

    Examples
    --------
    >>> u = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> variance_of_difference(u, 1)
    1.0
    """
    d = u[1] - u[0]
    return float(d.var() + (u * (1.0 - u)).sum(axis=0).mean() / k)


def draw(rng, u, reps: int, n: int, k: int = 1) -> np.ndarray:
    """(2, reps, n) per-question scores averaged over ``k`` samples.

    Examples
    --------
    >>> p = draw(np.random.default_rng(0), population(np.random.default_rng(1), 100), 3, 50, 4)
    >>> p.shape, bool(((p * 4) % 1 == 0).all())
    ((2, 3, 50), True)
    """
    idx = rng.integers(0, u.shape[1], size=(reps, n))
    return rng.binomial(k, u[:, idx]) / k
