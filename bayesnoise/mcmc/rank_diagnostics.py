"""r_hat, bulk / tail ESS and MCSE of many elements at once, as arviz-stats computes them.

arviz-stats evaluates its diagnostics one element at a time in Python; the joint model reports
~5,000 elements (``dbar`` and ``population_difference`` are ``M x M``), which took longer than
sampling. :func:`convergence_arrays` computes the same numbers (rank-normalised split r_hat,
Vehtari et al. 2021; bulk ESS; tail ESS at arviz's default quantiles; MCSE of the mean; all
with Geyer's initial monotone sequence) vectorised over elements, in blocks to bound memory.
The tests check it against arviz-stats element by element. Elements holding NaN are left to
arviz-stats.
"""

from __future__ import annotations

import numpy as np

__all__ = ["convergence_arrays"]

# Elements processed at once (bounds memory to ~ _BLOCK x draws x 40 bytes).
_BLOCK = 256


def _split(x: np.ndarray) -> np.ndarray:
    """(E, C, D) -> (E, 2C, D // 2): first and last halves of each chain (middle draw dropped)."""
    half = x.shape[2] // 2
    return np.concatenate([x[:, :, :half], x[:, :, x.shape[2] - half :]], axis=1)


def _average_ranks(flat: np.ndarray) -> np.ndarray:
    """Ranks 1..n along axis 1, ties given their average rank (``scipy.stats.rankdata``)."""
    n = flat.shape[1]
    order = np.argsort(flat, axis=1)
    v = np.take_along_axis(flat, order, axis=1)
    new = np.ones(v.shape, dtype=bool)
    new[:, 1:] = v[:, 1:] != v[:, :-1]
    new = new.ravel()
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], new.size)
    average = starts % n + (ends - starts + 1) / 2.0
    ranks = np.empty(flat.shape)
    np.put_along_axis(ranks, order, average[np.cumsum(new) - 1].reshape(v.shape), axis=1)
    return ranks


def _z_scale(x: np.ndarray) -> np.ndarray:
    """Rank-normalise each element over all its chains and draws (average ranks, Blom 3/8)."""
    from scipy.special import ndtri

    flat = x.reshape(x.shape[0], -1)
    n = flat.shape[1]
    return ndtri((_average_ranks(flat) - 0.375) / (n - 0.75 + 1)).reshape(x.shape)


def _rhat(x: np.ndarray) -> np.ndarray:
    """Basic r_hat of (E, C, n) chains."""
    n = x.shape[2]
    between = n * np.var(x.mean(axis=2), axis=1, ddof=1)
    within = np.var(x, axis=2, ddof=1).mean(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt((between / within + n - 1) / n)


def _ess(x: np.ndarray) -> np.ndarray:
    """ESS of (E, C, n) chains: FFT autocovariance, Geyer's initial monotone sequence."""
    from scipy.fft import next_fast_len

    n_el, n_chain, n = x.shape
    x = np.asarray(x, dtype=float)
    size = n_chain * n
    const = (x.max(axis=(1, 2)) - x.min(axis=(1, 2))) < np.finfo(float).resolution
    centred = x - x.mean(axis=2, keepdims=True)
    m = next_fast_len(2 * n)
    f = np.fft.rfft(centred, n=m, axis=2)
    f *= np.conjugate(f)
    acov = np.fft.irfft(f, n=m, axis=2)[:, :, :n] / n
    mean_acov = acov.mean(axis=1)  # (E, n)
    mean_var = mean_acov[:, 0] * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if n_chain > 1:
        var_plus = var_plus + np.var(x.mean(axis=2), axis=1, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = 1.0 - (mean_var[:, None] - mean_acov) / var_plus[:, None]
    rho[:, 0] = 1.0
    # pairs P_k = rho[2k] + rho[2k+1]; arviz computes pair k (k >= 1) while 2k - 1 < n - 3 and
    # the previous pair is > 0, keeps it when >= 0, and stops after the first pair <= 0.
    k_max = max((n - 3) // 2, 0)  # the largest k with 2k - 1 < n - 3
    pairs = rho[:, 0 : 2 * k_max + 2 : 2] + rho[:, 1 : 2 * k_max + 2 : 2]  # (E, k_max + 1)
    stop = ~(pairs > 0)
    stop[:, -1] = True
    big_k = np.argmax(stop, axis=1)  # first pair <= 0 (pair 0 <= 0: the loop never runs)
    idx = np.arange(pairs.shape[1])[None, :]
    kept = np.where(idx < big_k[:, None], pairs, np.inf)
    monotone = np.minimum.accumulate(kept, axis=1)
    pair_sum = np.where(idx < big_k[:, None], monotone, 0.0).sum(axis=1)
    last = pairs[np.arange(n_el), big_k]
    even = rho[np.arange(n_el), 2 * big_k]
    last_even = np.where(last >= 0, even, np.maximum(even, 0.0))
    last_even = np.where(big_k == 0, 1.0, last_even)
    tau = -1.0 + 2.0 * pair_sum + last_even
    tau = np.maximum(tau, 1.0 / np.log10(size))
    ess = size / tau
    return np.where(const, float(size), ess)


def convergence_arrays(ary: np.ndarray, tail_prob: float | None = None) -> dict[str, np.ndarray]:
    """Rank r_hat, bulk ESS, tail ESS and MCSE of the mean per element, as arviz-stats gives them.

    Parameters
    ----------
    ary : numpy.ndarray, shape (chain, draw, ...)
        Draws; any trailing shape.
    tail_prob : float, optional
        Tail ESS is the smaller ESS of the indicators ``x <= q`` at the quantiles
        ``(1 - tail_prob) / 2``-style pair ``sorted(tail_prob, 1 - tail_prob)``; default
        arviz-stats' ``rcParams["stats.ci_prob"]`` (what ``azs.ess(method="tail")`` uses).

    Returns
    -------
    dict of str to numpy.ndarray
        ``r_hat``, ``ess_bulk``, ``ess_tail``, ``mcse_mean``, each of the trailing shape.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.mcmc.rank_diagnostics import convergence_arrays
    >>> draws = np.random.default_rng(0).normal(size=(2, 500, 3))
    >>> out = convergence_arrays(draws)
    >>> bool(np.all(np.abs(out["r_hat"] - 1) < 0.01)), out["ess_bulk"].shape
    (True, (3,))
    """
    if tail_prob is None:
        from arviz_base import rcParams

        tail_prob = float(rcParams["stats.ci_prob"])
    probs = sorted((tail_prob, 1.0 - tail_prob))
    ary = np.asarray(ary, dtype=float)
    shape = ary.shape[2:]
    x = np.moveaxis(ary.reshape(*ary.shape[:2], -1), 2, 0)  # (E, C, D)
    out = {k: np.empty(x.shape[0]) for k in ("r_hat", "ess_bulk", "ess_tail", "mcse_mean")}
    if x.shape[2] < 4:  # as arviz-stats: too few draws for any diagnostic
        return {k: np.full(shape, np.nan) for k in out}
    for lo in range(0, x.shape[0], _BLOCK):
        blk = x[lo : lo + _BLOCK]
        sl = slice(lo, lo + blk.shape[0])
        split = _split(blk)
        z = _z_scale(split)
        med = np.median(split.reshape(split.shape[0], -1), axis=1)
        folded = _z_scale(np.abs(split - med[:, None, None]))
        out["r_hat"][sl] = np.maximum(_rhat(z), _rhat(folded))
        out["ess_bulk"][sl] = _ess(z)
        flat = blk.reshape(blk.shape[0], -1)
        tails = []
        for p in probs:
            q = np.quantile(flat, p, axis=1, method="linear")
            tails.append(_ess(_split((blk <= q[:, None, None]).astype(float))))
        out["ess_tail"][sl] = np.minimum(*tails)
        ess_mean = _ess(split)
        out["mcse_mean"][sl] = np.std(flat, axis=1, ddof=1) / np.sqrt(ess_mean)
    if x.shape[1] < 2:  # as arviz-stats: no r_hat from a single chain
        out["r_hat"][:] = np.nan
    return {k: v.reshape(shape) for k, v in out.items()}
