"""Generative models with known noise components (paper Appendix C), vectorised over replicates.

Each returns ``(correct, count, truth)``: correct is (R, M, N) counts over K samples, truth a dict
of the quantities the estimators target for that design.
"""

import numpy as np


def _pair_u(rng, n, shift=0.3, spread=0.6):
    """Correlated expected accuracies of two models on n questions (shared question difficulty)."""
    u_a = rng.beta(0.6, 0.5, size=n)
    logit = np.log(u_a / (1 - u_a))
    u_b = 1 / (1 + np.exp(-(np.clip(logit, -8, 8) - shift + spread * rng.standard_normal(n))))
    return np.stack([u_a, u_b])  # (2, n)


def truth_of(u):
    """Components of each model and of the pair a - b for expected accuracies u (2, n), ddof=0."""
    return {
        "data": u.var(axis=-1),
        "prediction": (u * (1 - u)).mean(axis=-1),
        "pair_data": (u[0] - u[1]).var(),
        "pair_prediction": (u * (1 - u)).sum(axis=0).mean(),
    }


def bernoulli(rng, reps, n, k, population=20_000):
    """Questions drawn with replacement from a large population; truth = population components."""
    pop = _pair_u(rng, population)
    idx = rng.integers(0, population, size=(reps, n))
    u = pop[:, idx].transpose(1, 0, 2)  # (R, 2, N)
    return rng.binomial(k, u), np.full(u.shape, k), truth_of(pop)


def stratified(rng, reps, n, k):
    """Every question of a fixed set used exactly once; truth = components of that set."""
    u = _pair_u(rng, n)
    uu = np.broadcast_to(u, (reps, *u.shape))
    return rng.binomial(k, uu), np.full(uu.shape, k), truth_of(u)


def bootstrap(rng, reps, n, k, u_real):
    """Questions resampled from real per-question accuracies u_real (2, N_real)."""
    idx = rng.integers(0, u_real.shape[-1], size=(reps, n))
    u = u_real[:, idx].transpose(1, 0, 2)
    return rng.binomial(k, u), np.full(u.shape, k), truth_of(u_real)
