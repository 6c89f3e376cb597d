"""Paired differences between models on the same questions.

Two quantities, kept apart by name:

``dbar``
    ``mean_i (u_Ai - u_Bi)``, the difference in expected accuracy on *these* questions
    (prediction noise only). Given the per-model Beta posteriors, u_A and u_B are independent
    a posteriori, so ``dbar = ubar_A - ubar_B`` with exact moments.
population paired difference
    ``delta = E_x[u_A(x) - u_B(x)]`` over the question population (adds the *paired* data
    noise). See :func:`population_difference` for the method and why;
    :func:`paired_population_posterior` is the same posterior for one difference vector.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from bayesnoise._common import (
    check_confidence_level,
    new_spellings,
    reject_old,
    tail_probabilities,
    z_from_level,
)

from .beta import beta_central_moments, checked_beta_parameters
from .dirichlet import PRIOR_MASS, dirichlet_cumulants, dirichlet_weights
from .expansion import summarise

__all__ = [
    "all_pairs_difference",
    "end_atom",
    "paired_difference_moments",
    "paired_population_posterior",
    "population_difference",
]


def paired_difference_moments(alpha_a, beta_a, alpha_b, beta_b, mask=None):
    """Exact posterior mean and variance of ``dbar = mean_i (u_Ai - u_Bi)``.

    The u's are independent Betas (each model's per-question posterior).

    Parameters
    ----------
    alpha_a, beta_a, alpha_b, beta_b : array_like, shape (..., N)
        Per-question Beta parameters of models A and B (broadcast together; last axis =
        questions, the same questions for both models).
    mask : array_like of bool, optional
        Questions to include (e.g. answered by both).

    Returns
    -------
    mean, var : numpy.ndarray, shape (...)
        Exact posterior mean and variance of ``dbar``.

    Examples
    --------
    >>> mean, var = paired_difference_moments([3.0, 4.0], [2.0, 1.0], [1.0, 2.0], [1.0, 2.0])
    >>> round(float(mean), 4), round(float(var), 5)
    (0.2, 0.05)
    """
    arrs, w = checked_beta_parameters((alpha_a, beta_a, alpha_b, beta_b), mask)
    live = w > 0
    arrs = [np.where(live, x, 1.0) for x in arrs]
    n = w.sum(axis=-1)
    ma, va, _, _ = beta_central_moments(arrs[0], arrs[1])
    mb, vb, _, _ = beta_central_moments(arrs[2], arrs[3])
    mean = (w * (ma - mb)).sum(axis=-1) / n
    var = (w * (va + vb)).sum(axis=-1) / n**2
    return mean, var


def _mc_pairs(x, ia, ib, shift, probs, chunk=4_000_000):
    """Monte Carlo quantiles and ``P(> 0)`` of ``x[:, a] - x[:, b] + shift`` for listed pairs."""
    out = np.empty((3, ia.size))
    step = max(1, chunk // max(x.shape[0], 1))
    for s0 in range(0, ia.size, step):
        sl = slice(s0, s0 + step)
        diff = x[:, ia[sl]] - x[:, ib[sl]]
        if shift is not None:
            diff += shift[:, sl] if shift.ndim == 2 else shift[:, None]
        out[:2, sl] = np.quantile(diff, probs, axis=0)
        out[2, sl] = (diff > 0).mean(axis=0) + 0.5 * (diff == 0).mean(axis=0)
    return out


def _fill_pairs(mean, k2, k3, k4, confidence_level, draws_of):
    """M x M ``low, high, prob_a_better`` from pair cumulants (upper triangle, mirrored).

    Cornish-Fisher / Edgeworth where the shape allows; elsewhere ``draws_of(models, a, b)``
    (the models used and the pairs' A and B) gives (draws, shift) for Monte Carlo on those
    pairs, shift (D,) or (D, pairs) added to every difference (or None to keep the expansion).
    """
    n_models = mean.shape[0]
    ia, ib = np.triu_indices(n_models, k=1)
    probs = tail_probabilities(confidence_level)
    with np.errstate(invalid="ignore", over="ignore"):
        (lo, hi), p, ok = summarise(mean[ia, ib], k2[ia, ib], k3[ia, ib], k4[ia, ib], probs)
    bad = np.flatnonzero(~ok)
    if bad.size and draws_of is not None:
        used = np.unique(np.concatenate([ia[bad], ib[bad]]))
        got = draws_of(used, ia[bad], ib[bad])
        if got is not None:
            x, shift = got
            pos = np.searchsorted(used, ia[bad]), np.searchsorted(used, ib[bad])
            lo[bad], hi[bad], p[bad] = _mc_pairs(x, *pos, shift, probs)
    low = np.zeros((n_models, n_models))
    high = np.zeros((n_models, n_models))
    pb = np.full((n_models, n_models), 0.5)
    low[ia, ib], high[ia, ib], pb[ia, ib] = lo, hi, p
    low[ib, ia], high[ib, ia], pb[ib, ia] = -hi, -lo, 1.0 - p
    return low, high, pb


def all_pairs_difference(
    ubar_mean,
    ubar_var,
    ubar_draws=None,
    *,
    cumulants=None,
    confidence_level: float = 0.95,
) -> dict[str, np.ndarray]:
    """All M x M pair differences of ``ubar`` on common questions (``dbar = ubar_A - ubar_B``).

    Parameters
    ----------
    ubar_mean, ubar_var : array_like, shape (M,)
        Posterior mean and variance of each model's ubar on the *same* questions (models are
        independent a posteriori).
    ubar_draws : array_like, shape (M, D), optional
        Independent posterior draws of each ubar.
    cumulants : array_like, shape (2, M), optional
        Third and fourth posterior cumulants of each ubar
        (:func:`bayesnoise.conjugate.ubar.ubar_cumulants`). The cumulants of a difference of
        independent variables are sums, so intervals and ``prob_a_better`` come from the
        four-cumulant Cornish-Fisher and Edgeworth expansions for all pairs at once; pairs
        whose difference is too skewed or heavy-tailed for them
        (:data:`~bayesnoise.conjugate.expansion.SHAPE_LIMITS`) use ``ubar_draws`` when given.
        Without ``cumulants`` the draws give every pair by Monte Carlo (exact up to MC error
        ``sqrt(p(1-p)/D)``); without either, a normal approximation from the exact moments.
    confidence_level : float, default 0.95

    Returns
    -------
    dict of str to numpy.ndarray
        (M, M) arrays ``mean``, ``sd``, ``low``, ``high``, ``prob_a_better`` (row = A).

    Examples
    --------
    >>> out = all_pairs_difference([0.6, 0.5], [1e-4, 1e-4])
    >>> round(float(out["mean"][0, 1]), 3), round(float(out["prob_a_better"][0, 1]), 4)
    (0.1, 1.0)
    """
    level = check_confidence_level(confidence_level)
    m = np.asarray(ubar_mean, dtype=float)
    v = np.asarray(ubar_var, dtype=float)
    mean = m[:, None] - m[None, :]
    var = v[:, None] + v[None, :]
    d = None if ubar_draws is None else np.asarray(ubar_draws, dtype=float)

    def draws_of(used, _a, _b):
        return None if d is None else (d[used].T, None)

    if cumulants is None and d is None:
        k3 = k4 = np.zeros_like(var)
    elif cumulants is None:
        k3 = k4 = np.full_like(var, np.inf)  # every pair by Monte Carlo
    else:
        c3, c4 = np.asarray(cumulants, dtype=float)
        k3, k4 = c3[:, None] - c3[None, :], c4[:, None] + c4[None, :]
    low, high, p = _fill_pairs(mean, var, k3, k4, level, draws_of)
    if cumulants is None and d is None:  # the normal approximation also on the diagonal
        z = z_from_level(level)
        sd = np.sqrt(var)
        low, high = mean - z * sd, mean + z * sd
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(
                sd > 0, special.ndtr(mean / np.where(sd > 0, sd, 1.0)), 0.5 + 0.5 * np.sign(mean)
            )
    return {"mean": mean, "sd": np.sqrt(var), "low": low, "high": high, "prob_a_better": p}


def end_atom(sum_sq, sum_4):
    """Where the two end atoms of the population-difference posterior sit: ``-e`` and ``+e``.

    From the power sums ``S2 = sum_i d_i^2`` and ``S4 = sum_i d_i^4`` of the per-question
    differences: ``e = m = sqrt(S4 / S2)``, the typical size of a nonzero difference (the common
    ``|d|`` when all nonzero ones are equal, weighted towards the largest otherwise), and
    ``e = 1`` when no question differs (the honest wide answer). At K = 1 a nonzero difference
    is +-1, so e = 1 and the posterior is the Jeffreys-like posterior of the discordant cells.
    At K > 1 the atoms (total mass a) add ``a m^2`` to ``S2 = n m^2``, n = S2^2 / S4 the
    effective number of differing questions: a prior share ``a / n`` of the variance, exactly
    as at K = 1 with n discordant questions.

    History (calibration study ``studies/popdiff.py``, 400 replicates per cell): the atoms used to sit
    at ``m + (1 - m) / sqrt(n + 1)``, which at lopsided accuracies and N = 30 is several times
    the observed differences; the posterior was then up to 2.0 x the paired t interval's width,
    covered up to 1.00 under a null and had down to 0.13 x the t test's power. Atoms at m meet
    the acceptance bands (coverage 0.93-0.97, width <= 1.3 x and power >= 0.9 x the paired t) in 169 of 176 cells (147 before); atoms of mass 1/4 at the old place
    did as well at K > 1 but covered 0.87-0.90 at K = 1, N = 100.

    Examples
    --------
    >>> d = np.array([0.2, -0.2, 0.2, 0.0])     # three differing questions of size 0.2
    >>> round(float(end_atom((d**2).sum(), (d**4).sum())), 3)
    0.2
    >>> float(end_atom(0.0, 0.0)), float(end_atom(7.0, 7.0))   # none differ; K = 1
    (1.0, 1.0)
    """
    s2, s4 = np.asarray(sum_sq, dtype=float), np.asarray(sum_4, dtype=float)
    live = s4 > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(live, np.sqrt(np.minimum(s4 / s2, 1.0)), 1.0)


def _power_grams(p):
    """Raw power sums of all pair differences ``d = p_A - p_B``: (4, M, M) for r = 1..4."""
    p1 = np.ascontiguousarray(p, dtype=float)
    s = [(p1**r).sum(axis=1) for r in (1, 2, 3, 4)]
    g11 = p1 @ p1.T
    if np.all((p1 == 0) | (p1 == 1)):  # 0/1 scores: every power is p itself
        g21 = g31 = g22 = g11
    else:
        p2 = p1 * p1
        g21, g31, g22 = p2 @ p1.T, (p2 * p1) @ p1.T, p2 @ p2.T
    r1 = s[0][:, None] - s[0][None, :]
    r2 = s[1][:, None] + s[1][None, :] - 2.0 * g11
    r3 = s[2][:, None] - s[2][None, :] - 3.0 * g21 + 3.0 * g21.T
    r4 = s[3][:, None] + s[3][None, :] - 4.0 * (g31 + g31.T) + 6.0 * g22
    return r1, r2, r3, r4


def _dirichlet_cumulants(raw, n, prior_mass, atom=1.0):
    """Mean and cumulants 2-4 of the Dirichlet mean over the differences (raw power sums
    ``raw``) and the two atoms ``-atom``, ``+atom`` of mass ``prior_mass / 2`` each."""
    r1, r2, r3, r4 = raw
    a2 = np.asarray(atom, dtype=float) ** 2
    with_atoms = (r1, r2 + prior_mass * a2, r3, r4 + prior_mass * a2 * a2)
    return dirichlet_cumulants(with_atoms, n + prior_mass)


@new_spellings
def population_difference(
    scores,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 4000,
    prior_mass: float = PRIOR_MASS,
    rng=0,
    **old,
) -> dict[str, np.ndarray]:
    """Population-level paired difference of all pairs: a Dirichlet-process posterior.

    Model: the per-question differences ``d_i = p_Ai - p_Bi`` (``p = c / K``) are draws from
    an unknown distribution F on [-1, 1]; ``E[d_i | question] = u_Ai - u_Bi``, so the mean of
    F is the population paired difference E_x[u_A - u_B] (paired data noise and the prediction
    noise at the observed K included). Prior: a Dirichlet process whose base measure puts mass
    ``prior_mass / 2`` on each of two symmetric atoms d = -e and d = +e (``e`` from
    :func:`end_atom`: +-1 when no question differs and always at K = 1, the typical size of a
    nonzero difference sqrt(S4 / S2) otherwise). The posterior of F is then
    a Dirichlet over the N observed values and the two atoms, with weights
    ``w ~ Dirichlet(1, ..., 1, prior_mass / 2, prior_mass / 2)``, and
    ``delta = sum_j w_j d_j``; the same weights serve every pair, which keeps the pairing.

    Why this prior: with vanishing prior mass (the plain Bayesian bootstrap) the posterior
    cannot leave the range of the observed differences, so it collapses to a point when the
    two models agree on almost every question ([0, 0] for two all-wrong models). Two
    symmetric atoms keep the interval open without moving the posterior mean's sign. At
    K = 1 the d_i take the values -1, 0, 1, the atoms sit at +-1, and this is exactly the
    Dirichlet-multinomial posterior of the discordant-cell probabilities with a
    Dirichlet(1/2, 1/2) (Jeffreys-like) prior on the two discordant cells. At K > 1 the atoms
    sit at the typical size of a difference, so that they carry the same share of the
    variance (1 / n for n effective differing questions) as at K = 1. Atoms further out
    dominated the width when the differences are small (accuracy near 0 or 1).

    Calibration (``studies/popdiff.py``: beta, two-point, three-component mixture
    and 2PL difficulties, N = 30-2000, K = 1, 5, 20, accuracy 0.05-0.95, null and shift, 400
    replicates per cell, Monte Carlo SE 0.011): coverage within 2 MCSE of [0.93, 0.97], median
    width <= 1.3 x and power >= 0.9 x the paired t interval's in 169 of the 176 cells where
    the issue's acceptance applies (the end atoms of earlier versions: 147, at up to 2.0 x the
    t width and down to 0.13 x its power at N = 30); median width 0.95-1.20 x the t
    interval's, power >= 0.92 x the t test's. Not calibrated, with no widening applied: a
    shift carried by rare questions that one model solves and the other does not (two-point
    difficulties, accuracy 0.05 or 0.95: 0.69-0.90 at N = 30, 0.87 at N = 100, K = 20; the t
    interval 0.69-0.89) -- a sample of 30 usually holds none of them,
    and an interval wide enough to reach them costs 3.7-4.3 x the t width (see
    :func:`bayesnoise.frequentist.difference_interval`).

    Closed-form moments: mean ``= sum_i d_i / (N + a)``, variance
    ``= ((sum_i d_i^2 + a e^2) / (N + a) - mean^2) / (N + a + 1)`` with ``a = prior_mass``. The
    third and fourth cumulants are exact too (power sums of the differences: four M x M
    products over the questions, one for 0/1 scores); the interval ends and ``P(delta > 0)``
    come from the Cornish-Fisher and Edgeworth expansions on them, and by Monte Carlo with
    ``n_resamples`` shared Dirichlet weights for the pairs too skewed for the expansions (few
    discordant questions).

    Parameters
    ----------
    scores : array_like, shape (M, N)
        Per-question mean scores ``c / K`` of M models on the same N questions.
    confidence_level : float, default 0.95
    n_resamples : int, default 4000
        Dirichlet draws for the pairs that need Monte Carlo.
    prior_mass : float, default 1.0
        Total mass of the two prior atoms (> 0).
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    dict of str to numpy.ndarray
        (M, M) arrays (row = A) ``mean``, ``sd`` (closed form), ``low``, ``high`` and
        ``prob_a_better = P(delta > 0)``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 200))          # two all-wrong models: the interval stays open
    >>> out = population_difference(p)
    >>> bool(out["low"][0, 1] < 0 < out["high"][0, 1]), round(float(out["prob_a_better"][0, 1]), 1)
    (True, 0.5)
    """
    reject_old("population_difference", old)
    level = check_confidence_level(confidence_level)
    p = np.asarray(scores, dtype=float)
    if p.ndim != 2:
        raise ValueError("scores must be (models, questions)")
    if not np.all(np.isfinite(p)):
        raise ValueError("scores must be finite (restrict to questions every model answered)")
    if not prior_mass > 0:
        raise ValueError("prior_mass must be > 0")
    n = p.shape[1]
    raw = _power_grams(p)
    atom = end_atom(raw[1], raw[3])
    mean, k2, k3, k4 = _dirichlet_cumulants(raw, n, prior_mass, atom)

    def draws_of(used, a, b):
        gen = np.random.default_rng(rng)
        wts, ends = dirichlet_weights(gen, n_resamples, n, prior_mass)
        total = wts.sum(axis=1) + ends.sum(axis=1)
        u = (wts @ p[used].T) / total[:, None]  # (D, models) weighted sums, shared weights
        return u, ((ends[:, 1] - ends[:, 0]) / total)[:, None] * atom[a, b]

    low, high, pb = _fill_pairs(mean, k2, k3, k4, level, draws_of)
    sd = np.sqrt(k2)
    np.fill_diagonal(mean, 0.0)
    np.fill_diagonal(sd, 0.0)
    return {"mean": mean, "sd": sd, "low": low, "high": high, "prob_a_better": pb}


def paired_population_posterior(
    differences,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    prior_mass: float = PRIOR_MASS,
    rng=0,
) -> dict[str, np.ndarray]:
    """The posterior of :func:`population_difference` for batches of difference vectors.

    Parameters
    ----------
    differences : array_like, shape (..., N)
        Per-question differences ``d_i = c_Ai / K_Ai - c_Bi / K_Bi`` in [-1, 1].
    confidence_level : float, default 0.95
    n_resamples : int, default 2000
    prior_mass : float, default 1.0
    rng : int or numpy.random.Generator, default 0

    Returns
    -------
    dict of str to numpy.ndarray
        Arrays of shape ``(...)``: ``mean``, ``sd``, ``low``, ``high``, ``prob_a_better``.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.zeros(200)
    >>> d[:2] = 1.0                     # twins that differ on 2 of 200 questions
    >>> out = paired_population_posterior(d)
    >>> bool(out["low"] < 0 < out["high"])
    True
    """
    level = check_confidence_level(confidence_level)
    d = np.asarray(differences, dtype=float)
    if d.ndim == 0 or not np.all(np.isfinite(d)) or np.any(np.abs(d) > 1):
        raise ValueError("differences must be finite, in [-1, 1], with a question axis")
    if not prior_mass > 0:
        raise ValueError("prior_mass must be > 0")
    gen = np.random.default_rng(rng)
    shape, n = d.shape[:-1], d.shape[-1]
    flat = d.reshape(-1, n)
    raw = [(flat**r).sum(axis=-1) for r in (1, 2, 3, 4)]
    atom = end_atom(raw[1], raw[3])
    mean, k2, _, _ = _dirichlet_cumulants(raw, n, prior_mass, atom)
    sd = np.sqrt(k2)
    q = tail_probabilities(level)
    out = np.empty((3, flat.shape[0]))
    step = max(1, 2_000_000 // (int(n_resamples) * (n + 2)))
    for s0 in range(0, flat.shape[0], step):
        rows, e = flat[s0 : s0 + step], atom[s0 : s0 + step, None]
        wts, atoms = dirichlet_weights(gen, (rows.shape[0], n_resamples), n, prior_mass)
        num = np.einsum("rdn,rn->rd", wts, rows) + (atoms[..., 1] - atoms[..., 0]) * e
        delta = num / (wts.sum(-1) + atoms.sum(-1))
        out[0, s0 : s0 + step], out[1, s0 : s0 + step] = np.quantile(delta, q, axis=-1)
        out[2, s0 : s0 + step] = (delta > 0).mean(-1) + 0.5 * (delta == 0).mean(-1)
    res = {"mean": mean, "sd": sd, "low": out[0], "high": out[1], "prob_a_better": out[2]}
    return {key: val.reshape(shape) for key, val in res.items()}
