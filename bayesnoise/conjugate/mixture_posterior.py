"""Posterior of a discrete prior's atoms and weights: data augmentation, started at the NPMLE.

The NPMLE (:mod:`bayesnoise.conjugate.npmle`) is a point estimate of the distribution G of the
question accuracies; plugging it in ignores its uncertainty, which is what the interval for
ubar mostly consists of when G has well-separated clusters (the location of the cluster at
0.95 is known only to about ``sqrt(0.95 * 0.05 / (475 * 20))`` from 500 questions at K = 20,
and the plug-in interval covered 0.26 there). Here G is a finite mixture with the NPMLE's S
atoms and unknown locations and weights::

    u_i = a_{z_i},  P(z_i = k) = p_k,  c_i ~ Binomial(K_i, u_i)
    a_k ~ Beta(1/2, 1/2) (Jeffreys),  p ~ Dirichlet(1/2, ..., 1/2)

and its posterior is sampled by data augmentation (Tanner and Wong 1987; Diebolt and Robert
1994), which is conjugate at every step: the allocations of the questions of each distinct
(c, K) cell given (a, p) are one multinomial draw, and (a, p) given the allocations are Beta
and Dirichlet draws. The chain starts at the NPMLE, the posterior mode's neighbourhood, so a
short burn-in suffices. The Jeffreys prior makes an atom's location behave like the Jeffreys
interval of a proportion near 0 or 1; a Bayesian bootstrap of the NPMLE instead (the
Wald-like resampling spread) covered 0.918 at N = 100, K = 5 with 95% of the questions at
u = 0.95, against 0.94-0.95 here (1,000 replicates each).

Each model's chain is seeded from its own counts (:func:`data_seed`): the posterior mean of
ubar it gives is then a reproducible number that does not depend on the other models in the
file or on how a large file is split into blocks.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = [
    "autocorrelation_ess",
    "data_seed",
    "mixture_gibbs",
    "mixture_gibbs_models",
    "mixture_posterior_draws",
]

#: Beta(a, a) prior on each atom's location (Jeffreys).
LOCATION_PRIOR = 0.5
#: Dirichlet(a, ..., a) prior on the atoms' weights.
WEIGHT_PRIOR = 0.5
#: Sweeps dropped before the kept ones (the chain starts at the NPMLE; 20 and 50 gave the same
#: coverage in simulation).
BURN = 20
_TINY = 1e-300
_SALT = 20_251_125  # keeps the data seeds apart from seeds users pick


def data_seed(cu, ku, w) -> np.random.SeedSequence:
    """A seed that is a function of one model's distinct cells (and nothing else).

    The sampler of a model is seeded from its own counts, so its draws, and the posterior mean
    of ubar they give, do not depend on the other models, on how a dataset is split into
    blocks, or on ``rng`` (which seeds the draws of ubar given the prior).

    Examples
    --------
    >>> import numpy as np
    >>> a = data_seed(np.array([0, 3]), np.array([5, 5]), np.array([2.0, 1.0]))
    >>> b = data_seed(np.array([3, 0]), np.array([5, 5]), np.array([1.0, 2.0]))
    >>> a.entropy == b.entropy                     # the same cells in another order
    True
    """
    live = np.asarray(w) > 0
    cells = np.stack([np.asarray(x)[live] for x in (cu, ku, np.rint(w))]).astype(np.int64)
    cells = cells[:, np.lexsort(cells[::-1])]
    return np.random.SeedSequence([_SALT, zlib.crc32(cells.tobytes())])


def mixture_gibbs(cu, ku, w, atoms, weights, sweeps: int, rng, *, burn: int = BURN):
    """Draws of the atoms and weights of one model's finite binomial mixture.

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (U,)
        The model's distinct (c, K) cells and how many questions have each.
    atoms, weights : numpy.ndarray, shape (S,)
        Starting point (the NPMLE); only atoms with positive weight are used.
    sweeps : int
        Draws kept, one per sweep after ``burn`` sweeps.
    rng : numpy.random.Generator
    burn : int, default 20

    Returns
    -------
    atoms, weights : numpy.ndarray, shape (sweeps, S)
        Atoms that started with weight 0 keep weight 0 (location 0.5).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> cu, ku, w = np.array([0, 10]), np.array([10, 10]), np.array([20.0, 80.0])
    >>> a, p = mixture_gibbs(cu, ku, w, np.array([0.0, 1.0]), np.array([0.2, 0.8]), 500, rng)
    >>> bool(a[:, 1].mean() > 0.99 and a[:, 0].mean() < 0.01), round(float(p[:, 1].mean()), 1)
    (True, 0.8)
    """
    live = np.asarray(w) > 0
    counts = np.rint(np.asarray(w)[live]).astype(np.int64)
    x = np.stack([np.asarray(cu, float)[live], (np.asarray(ku) - np.asarray(cu))[live]], axis=1)
    real = np.asarray(weights) > 0
    n_atoms = int(real.sum())
    a, p = np.array(atoms, float)[real], np.array(weights, float)[real]
    out_a = np.full((int(sweeps), real.size), 0.5)
    out_p = np.zeros((int(sweeps), real.size))
    for t in range(int(burn) + int(sweeps)):
        logs = np.log(np.maximum(np.stack([a, 1.0 - a]), _TINY))
        ll = x @ logs + np.log(np.maximum(p, _TINY))  # (U, S) log P(cell | atom) P(atom)
        r = np.exp(ll - ll.max(axis=1, keepdims=True))
        r /= r.sum(axis=1, keepdims=True)
        alloc = rng.multinomial(counts, r)  # questions of each cell at each atom
        hits_misses = (x.T @ alloc).ravel()  # successes, then failures, per atom
        # Beta(h + 1/2, m + 1/2) locations and Dirichlet weights from one set of Gammas
        g = rng.standard_gamma(
            np.concatenate([LOCATION_PRIOR + hits_misses, WEIGHT_PRIOR + alloc.sum(axis=0)])
        )
        a = g[:n_atoms] / (g[:n_atoms] + g[n_atoms : 2 * n_atoms])
        p = g[2 * n_atoms :] / g[2 * n_atoms :].sum()
        if t >= burn:
            out_a[t - burn, real], out_p[t - burn, real] = a, p
    return out_a, out_p


def mixture_posterior_draws(cu, ku, w, atoms, weights, sweeps: int, *, burn: int = BURN):
    """:func:`mixture_gibbs` of every model, each seeded by :func:`data_seed`.

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (M, U)
    atoms, weights : numpy.ndarray, shape (M, S)
    sweeps, burn : int

    Returns
    -------
    atoms, weights : numpy.ndarray, shape (M, sweeps, S)

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku, w = np.array([[0, 10]]), np.array([[10, 10]]), np.array([[20.0, 80.0]])
    >>> a, p = mixture_posterior_draws(cu, ku, w, np.array([[0.0, 1.0]]), np.array([[0.2, 0.8]]), 50)
    >>> a.shape, bool(np.array_equal(a, mixture_posterior_draws(cu, ku, w, [[0.0, 1.0]], [[0.2, 0.8]], 50)[0]))
    ((1, 50, 2), True)
    """
    atoms, weights = np.asarray(atoms, float), np.asarray(weights, float)
    rngs = [np.random.default_rng(data_seed(cu[m], ku[m], w[m])) for m in range(w.shape[0])]
    return mixture_gibbs_models(cu, ku, w, atoms, weights, sweeps, rngs, burn=burn)


def mixture_gibbs_models(cu, ku, w, atoms, weights, sweeps: int, rngs, *, burn: int = BURN):
    """:func:`mixture_gibbs` of many models at once: the same draws, array operations over models.

    Each model keeps its own generator and its own random draws, in the order
    :func:`mixture_gibbs` makes them (one multinomial over its cells, then one set of Gammas,
    per sweep), and the arithmetic between the draws is the same operation on the same numbers:
    the models are grouped by their number of atoms (a sum over the atoms then has the same
    length, so the same rounding, as one model's) and the cells are padded with zero-weight
    cells, which no draw sees. The result equals a loop of :func:`mixture_gibbs` exactly.

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (M, U)
    atoms, weights : numpy.ndarray, shape (M, S)
    sweeps : int
    rngs : sequence of numpy.random.Generator, length M
        Model m's draws come from ``rngs[m]`` (and advance it).
    burn : int, default 20

    Returns
    -------
    atoms, weights : numpy.ndarray, shape (M, sweeps, S)

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku = np.array([[0, 10], [3, 0]]), np.array([[10, 10], [5, 1]])
    >>> w, at = np.array([[20.0, 80.0], [40.0, 0.0]]), np.array([[0.0, 1.0], [0.5, 0.5]])
    >>> wt = np.array([[0.2, 0.8], [1.0, 0.0]])
    >>> a, p = mixture_gibbs_models(cu, ku, w, at, wt, 30, [np.random.default_rng(i) for i in (1, 2)])
    >>> one = mixture_gibbs(cu[1], ku[1], w[1], at[1], wt[1], 30, np.random.default_rng(2))
    >>> bool(np.array_equal(a[1], one[0]) and np.array_equal(p[1], one[1]))
    True
    """
    atoms, weights = np.asarray(atoms, float), np.asarray(weights, float)
    w = np.asarray(w)
    sweeps, burn = int(sweeps), int(burn)
    out_a = np.full((w.shape[0], sweeps, atoms.shape[1]), 0.5)
    out_p = np.zeros((w.shape[0], sweeps, atoms.shape[1]))
    real = weights > 0
    n_real = real.sum(axis=1)
    for s in np.unique(n_real):
        rows = np.flatnonzero(n_real == s)
        cols = np.nonzero(real[rows])[1].reshape(rows.size, s)  # each row's atoms, in order
        live = w[rows] > 0
        order = np.argsort(~live, axis=1, kind="stable")[:, : max(int(live.sum(axis=1).max()), 1)]
        live = np.take_along_axis(live, order, axis=1)  # each row's cells first, in order
        cells = (np.take_along_axis(np.asarray(x)[rows], order, axis=1) for x in (cu, ku, w))
        c, k, wt = (np.where(live, x, 0) for x in cells)
        start = (np.take_along_axis(x[rows], cols, axis=1) for x in (atoms, weights))
        got = _gibbs_group(c, k, wt, live, *start, sweeps, [rngs[m] for m in rows], burn)
        at_rows, at_sweeps = rows[:, None, None], np.arange(sweeps)[None, :, None]
        out_a[at_rows, at_sweeps, cols[:, None, :]] = got[0]
        out_p[at_rows, at_sweeps, cols[:, None, :]] = got[1]
    return out_a, out_p


def _gibbs_group(c, k, w, live, a, p, sweeps, rngs, burn):
    """:func:`mixture_gibbs_models` of models with the same number of atoms (S): cells (G, U)
    compacted to the front (``live``), atoms and weights (G, S); returns (G, sweeps, S) each."""
    g_models, n_atoms = a.shape
    n_cells = live.sum(axis=1)
    counts = np.rint(w).astype(np.int64)
    x = np.stack([np.asarray(c, float), np.asarray(k - c, float)], axis=2)  # (G, U, 2)
    xt = np.ascontiguousarray(np.swapaxes(x, 1, 2))
    a, p = np.array(a, float), np.array(p, float)
    out_a = np.empty((g_models, sweeps, n_atoms))
    out_p = np.empty((g_models, sweeps, n_atoms))
    alloc = np.zeros((g_models, x.shape[1], n_atoms), np.int64)
    g = np.empty((g_models, 3 * n_atoms))
    todo = [(i, rngs[i], counts[i, : n_cells[i]], n_cells[i]) for i in range(g_models)]
    for t in range(burn + sweeps):
        logs = np.log(np.maximum(np.stack([a, 1.0 - a], axis=1), _TINY))  # (G, 2, S)
        ll = x @ logs + np.log(np.maximum(p, _TINY))[:, None, :]  # as mixture_gibbs, per model
        r = np.exp(ll - ll.max(axis=2, keepdims=True))
        r /= r.sum(axis=2, keepdims=True)
        for i, rng, cnt, u in todo:  # each model's own generator: its multinomial
            alloc[i, :u] = rng.multinomial(cnt, r[i, :u])
        hits_misses = (xt @ alloc).reshape(g_models, 2 * n_atoms)  # whole numbers: exact
        shape = np.concatenate(
            [LOCATION_PRIOR + hits_misses, WEIGHT_PRIOR + alloc.sum(axis=1)], axis=1
        )
        for i, rng, _, _ in todo:  # then its Gammas
            g[i] = rng.standard_gamma(shape[i])
        a = g[:, :n_atoms] / (g[:, :n_atoms] + g[:, n_atoms : 2 * n_atoms])
        p = g[:, 2 * n_atoms :] / g[:, 2 * n_atoms :].sum(axis=1, keepdims=True)
        if t >= burn:
            out_a[:, t - burn], out_p[:, t - burn] = a, p
    return out_a, out_p


def autocorrelation_ess(x):
    """Effective sample size of each row of a chain (Geyer's initial positive sequence).

    Parameters
    ----------
    x : numpy.ndarray, shape (M, T)

    Returns
    -------
    numpy.ndarray, shape (M,)
        In [1, T]; T where the row is constant.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> e = rng.standard_normal(20000)
    >>> ar = np.empty_like(e); ar[0] = e[0]
    >>> for t in range(1, e.size): ar[t] = 0.5 * ar[t - 1] + e[t]
    >>> round(float(autocorrelation_ess(ar[None])[0]) / 20000, 1)   # (1 - 0.5) / (1 + 0.5)
    0.3
    """
    x = np.asarray(x, float)
    n = x.shape[1]
    d = x - x.mean(axis=1, keepdims=True)
    f = np.fft.rfft(d, 2 * n, axis=1)
    acov = np.fft.irfft(f * np.conj(f), axis=1)[:, :n] / n
    var = acov[:, :1]
    rho = np.where(var > 0, acov / np.where(var > 0, var, 1.0), 0.0)
    m = n // 2
    gamma = rho[:, 0 : 2 * m : 2] + rho[:, 1 : 2 * m : 2]  # Gamma_k = rho_2k + rho_2k+1
    keep = np.cumprod(gamma > 0, axis=1).astype(bool)
    tau = -1.0 + 2.0 * np.where(keep, gamma, 0.0).sum(axis=1)
    tau = np.where(var[:, 0] > 0, tau, 1.0)
    return np.clip(n / np.maximum(tau, 1.0), 1.0, n)
