"""A shape-free prior on the question accuracies: the Kiefer-Wolfowitz NPMLE of their distribution.

Per model, ``u_i ~ G`` with G unknown and ``c_i ~ Binomial(K_i, u_i)``. The nonparametric
maximum-likelihood estimate of G (Kiefer and Wolfowitz 1956) is a discrete distribution with a
few atoms. It is computed all models at once on the table of distinct (c, K) cells
(:func:`bayesnoise.conjugate.likelihood.model_cells`):

1. EM over the weights of a fixed grid of :data:`GRID_POINTS` accuracies, equally spaced in
   ``arcsin(sqrt(u))`` (the binomial's variance-stabilising scale, so the grid is as fine
   relative to the sampling noise at every u), started from the fitted Beta population
   (:func:`npmle_grid`). The log likelihood is concave in the mixing distribution, so at any
   mixture ``max loglik <= loglik + N (max_u d(u) - 1)`` with the KKT function
   ``d(u) = mean_i f(c_i | u) / m(c_i)`` (f the binomial likelihood, m the mixture's): the
   iterations stop as soon as a decision that rests on the maximum is certain.
2. Each bump of the grid weights becomes one atom and the atoms' locations are freed: EM for
   a finite binomial mixture (the M step of an atom's location is the pooled success rate of
   the questions it explains), which removes the grid's discretisation; an atom is added
   where ``d`` is largest until ``N (max d - 1) < 0.1`` (a vertex-direction step, as in
   Lindsay 1983 and Wang 2007's constrained Newton method) (:func:`refine_atoms`).

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> u = np.where(rng.random((1, 400)) < 0.9, 0.9, 0.05)
>>> c = rng.binomial(20, u)
>>> prior = fit_nonparametric_prior(c, np.full(c.shape, 20))
>>> easy = prior.atoms[0] > 0.5                 # one atom at 0.9 with the easy questions' share
>>> np.round(prior.atoms[0, easy], 2).tolist(), np.round(prior.weights[0, easy], 2).tolist()
([0.9], [0.87])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from bayesnoise.data import check_counts

from .likelihood import model_cells

__all__ = [
    "NonparametricPrior",
    "accuracy_grid",
    "beta_start",
    "directional_gradient",
    "fit_nonparametric_prior",
    "location_em",
    "npmle_grid",
    "prune_atoms",
    "refine_atoms",
]

#: Points of the accuracy grid. Spacing 0.0079 in arcsin(sqrt(u)), a quarter of the sampling
#: sd of that scale at K = 250 (1 / (2 sqrt(K))); the located atoms of :func:`refine_atoms`
#: remove what remains of the discretisation.
GRID_POINTS = 200
_BLOCK = 500_000  # (model, cell, point) entries per block of models (4 MB of float64: the grid EM
# of 256 models at K = 1,100 took a third of the CPU of 32 MB blocks, which miss the caches)

_TINY = 1e-300


def accuracy_grid(points: int = GRID_POINTS) -> np.ndarray:
    """Accuracies equally spaced in ``arcsin(sqrt(u))`` over (0, 1) (midpoints of the cells).

    Parameters
    ----------
    points : int, default 200

    Returns
    -------
    numpy.ndarray, shape (points,)

    Examples
    --------
    >>> g = accuracy_grid(4)
    >>> np.round(g, 3).tolist(), bool(np.allclose(g + g[::-1], 1))
    ([0.038, 0.309, 0.691, 0.962], True)
    """
    t = (np.arange(points) + 0.5) / points
    return np.sin(0.5 * np.pi * t) ** 2


def _log_binomial(cu, ku, u):
    """``c log u + (K - c) log(1 - u)`` for cells (..., U) and accuracies (..., S): (..., U, S).

    The binomial coefficient is left out, as in the Beta-Binomial likelihood of the fit.
    """
    lu = np.log(np.maximum(u, _TINY))[..., None, :]
    l1 = np.log(np.maximum(1.0 - u, _TINY))[..., None, :]
    return cu[..., None] * lu + (ku - cu)[..., None] * l1


def _scaled_likelihood(cu, ku, grid):
    """Binomial likelihood of each cell at each grid point, divided by its largest value."""
    ll = _log_binomial(cu.astype(float), ku.astype(float), grid)
    top = ll.max(axis=-1, keepdims=True)
    return np.exp(ll - top), top[..., 0]


def npmle_grid(cu, ku, w, *, start=None, points=GRID_POINTS, max_iter=2000, cut=None):
    """EM for the weights of the accuracy grid, per model (all models at once).

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (M, U)
        Per model its distinct cells and how many questions have each
        (:func:`~bayesnoise.conjugate.likelihood.model_cells`).
    start : numpy.ndarray, shape (M, points), optional
        Starting weights (positive, rows summing to 1); default uniform.
    points : int, default 200
    max_iter : int, default 2000
    cut : numpy.ndarray, shape (M,), optional
        Stop a model's iterations once its log likelihood exceeds ``cut`` or its bound on the
        maximum is at most ``cut`` (the decision ``max loglik > cut`` is then certain).
        Default: stop once the bound is within 0.01 of the log likelihood. Checked every 10
        iterations.

    Returns
    -------
    weights : numpy.ndarray, shape (M, points)
    loglik, bound : numpy.ndarray, shape (M,)
        Log likelihood reached (without binomial coefficients) and the upper bound
        ``loglik + N * gap`` on its maximum.

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku, w = np.array([[0, 5]]), np.array([[5, 5]]), np.array([[30.0, 70.0]])
    >>> wt, ll, bound = npmle_grid(cu, ku, w)   # the maximum: atoms near 0 and 1, weights 0.3, 0.7
    >>> best = 30 * np.log(0.3) + 70 * np.log(0.7)
    >>> bool(ll[0] <= best and bound[0] >= best - 0.01 and bound[0] - ll[0] < 0.05)
    True
    """
    grid = accuracy_grid(points)
    n_models = w.shape[0]
    n = w.sum(axis=1)
    pi = np.full((n_models, points), 1.0 / points) if start is None else np.array(start, float)
    lower, upper = np.full(n_models, -np.inf), np.full(n_models, np.inf)
    step = max(1, _BLOCK // max(cu.shape[1] * points, 1))

    def stop(rows):
        lo, hi = lower[rows], upper[rows]
        if cut is None:
            return hi - lo < 0.01
        return (lo > cut[rows]) | (hi <= cut[rows])

    for rows, width in _blocks_by_cells(w, step):
        f, top = _scaled_likelihood(cu[rows, :width], ku[rows, :width], grid)
        ft = np.ascontiguousarray(np.swapaxes(f, 1, 2))
        wr = w[rows, :width]
        wn = (wr / np.maximum(n[rows], 1.0)[:, None])[:, None, :]
        p = pi[rows][:, None, :]
        for it in range(max_iter):
            m = p @ ft
            grad = (wn / np.maximum(m, _TINY)) @ f
            p *= grad
            if it % 10 == 9 or it == max_iter - 1:
                ll = (wr * (np.log(np.maximum(m[:, 0], _TINY)) + top)).sum(axis=1)
                gap = np.maximum(grad[:, 0].max(axis=1) - 1.0, 0.0)
                lower[rows], upper[rows] = ll, ll + n[rows] * gap
                done = stop(rows)
                if done.any():  # keep the finished rows' weights, go on with the others
                    pi[rows[done]] = p[done, 0]
                    keep = ~done
                    rows, p, f, ft, wn, wr, top = (x[keep] for x in (rows, p, f, ft, wn, wr, top))
                    if rows.size == 0:
                        break
        pi[rows] = p[:, 0]
    pi /= pi.sum(axis=1, keepdims=True)
    return pi, lower, upper


def _blocks_by_cells(w, step, first=None):
    """Blocks of at most ``step`` rows of the cell table ``w`` (M, U), each with the cells it
    needs: one block of every row and cell when ``M <= step``; else the rows sorted by the
    cells they use (up to their last cell of positive weight), so a block of rows with few
    cells leaves out the padding that rows with many cells need. ``first`` (M,), optional:
    sort by it first (e.g. the atoms of each row, which the caller trims too)."""
    n_models = w.shape[0]
    if n_models <= step:
        return [(np.arange(n_models), w.shape[1])]
    used = w.shape[1] - np.argmax(w[:, ::-1] > 0, axis=1)
    order = np.lexsort((used,) if first is None else (used, first))
    return [
        (order[i : i + step], max(int(used[order[i : i + step]].max()), 1))
        for i in range(0, n_models, step)
    ]


def _basins(weights, grid, n):
    """Atoms from the bumps of grid weights: (M, S) locations and weights.

    The grid is cut at every local minimum of the weights; each piece whose mass is at least
    half a question (``0.5 / n``) becomes one atom at its weighted mean of ``arcsin(sqrt(u))``
    with its mass (an EM solution on a grid spreads each atom of the maximum over a few
    neighbouring points, and keeps some mass on every point until it has converged). S is the
    most atoms of any row (padding: weight 0 at 0.5).
    """
    n_models, points = weights.shape
    d = np.diff(weights, axis=1)  # d[:, j] = w[j + 1] - w[j]
    start = np.zeros(weights.shape, bool)
    start[:, 0] = True
    start[:, 2:] = (d[:, :-1] < 0) & (d[:, 1:] >= 0)  # a local minimum at j ends a piece
    piece = np.cumsum(start, axis=1) - 1
    width = int(piece.max(initial=0)) + 1
    rows = np.repeat(np.arange(n_models), points)
    key = rows * width + piece.ravel()
    theta = np.broadcast_to(np.arcsin(np.sqrt(grid)), weights.shape).ravel()
    mass = np.bincount(key, weights.ravel(), minlength=n_models * width).reshape(-1, width)
    tsum = np.bincount(key, weights.ravel() * theta, minlength=n_models * width)
    tsum = tsum.reshape(-1, width)
    keep = mass * np.asarray(n, float).reshape(-1, 1) >= 0.5
    keep |= mass >= mass.max(axis=1, keepdims=True)  # at least the largest piece
    loc = np.where(keep, np.sin(tsum / np.maximum(mass, _TINY)) ** 2, 0.5)
    wt = np.where(keep, mass, 0.0)
    order = np.argsort(~keep, axis=1, kind="stable")  # kept pieces first
    s_max = int(keep.sum(axis=1).max())
    loc = np.take_along_axis(loc, order, axis=1)[:, :s_max]
    wt = np.take_along_axis(wt, order, axis=1)[:, :s_max]
    return loc, wt / wt.sum(axis=1, keepdims=True)


def location_em(cu, ku, w, atoms, weights, iterations: int = 200):
    """EM for a finite binomial mixture with free atom locations, many rows at once.

    Parameters
    ----------
    cu, ku : numpy.ndarray, shape (R, U) or broadcastable
        Cells of each row.
    w : numpy.ndarray, shape (R, U)
        Cell weights (how many questions have each cell).
    atoms, weights : numpy.ndarray, shape (R, S)
        Starting atoms (in [0, 1]) and weights.
    iterations : int, default 200

    Returns
    -------
    atoms, weights : numpy.ndarray, shape (R, S)
    loglik : numpy.ndarray, shape (R,)
        Log likelihood at the returned mixture (without binomial coefficients).

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku, w = np.array([[1, 9]]), np.array([[10, 10]]), np.array([[50.0, 50.0]])
    >>> a, p, _ = location_em(cu, ku, w, np.array([[0.3, 0.6]]), np.array([[0.5, 0.5]]))
    >>> np.round(a, 3).tolist(), np.round(p, 3).tolist()
    ([[0.1, 0.9]], [[0.5, 0.5]])
    """
    w = np.asarray(w, float)
    cf, kf = (np.broadcast_to(np.asarray(x, float), w.shape) for x in (cu, ku))
    fc = kf - cf
    a, p = np.array(atoms, float), np.array(weights, float)
    n = w.sum(axis=-1)
    # atoms first, (S, R, U): a sum or maximum over the few atoms is then an operation on
    # whole (R, U) planes, not a reduction over a short last axis (20x slower in numpy)
    for it in range(int(iterations) + 1):
        lu, l1 = (np.log(np.maximum(x, _TINY)).T[..., None] for x in (a, 1.0 - a))
        ll = cf * lu + fc * l1 + np.log(np.maximum(p, _TINY)).T[..., None]  # _log_binomial
        top = ll.max(axis=0)
        r = np.exp(ll - top)
        tot = r.sum(axis=0)
        if it == iterations:
            break
        r *= w / tot  # expected questions of each cell at each atom
        mass = r.sum(axis=-1).T
        hits = np.einsum("sru,ru->rs", r, cf)
        trials = np.einsum("sru,ru->rs", r, kf)
        p = mass / n[..., None]
        a = np.where(trials > 0, hits / np.maximum(trials, _TINY), a)
    loglik = (w * (np.log(tot) + top)).sum(axis=-1)
    return a, p, loglik


def _log_mixture(cu, ku, atoms, weights):
    """log of the mixture's likelihood of each cell, (..., U)."""
    ll = _log_binomial(cu, ku, atoms) + np.log(np.maximum(weights, _TINY))[..., None, :]
    top = ll.max(axis=-1)
    return top + np.log(np.exp(ll - top[..., None]).sum(axis=-1))


def directional_gradient(cu, ku, w, atoms, weights, points=GRID_POINTS):
    """``d(u) = sum_i (1/N) f(c_i | u) / m(c_i)`` at every grid point (the KKT function).

    At the NPMLE ``d <= 1`` everywhere (with equality at its atoms), and for any mixture
    ``max loglik <= loglik + N (max_u d(u) - 1)`` (concavity in the mixing distribution).

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (M, U)
    atoms, weights : numpy.ndarray, shape (M, S)
    points : int, default 200

    Returns
    -------
    numpy.ndarray, shape (M, points)

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku, w = np.array([[1, 9]]), np.array([[10, 10]]), np.array([[50.0, 50.0]])
    >>> d = directional_gradient(cu, ku, w, np.array([[0.1, 0.9]]), np.array([[0.5, 0.5]]))
    >>> round(float(d.max()), 2)   # the NPMLE: d <= 1 up to the grid
    1.0
    """
    cf, kf = np.asarray(cu, float), np.asarray(ku, float)
    grid = accuracy_grid(points)
    lm = _log_mixture(cf, kf, atoms, weights)
    wn = w / w.sum(axis=1, keepdims=True)
    out = np.empty((w.shape[0], points))
    step = max(1, _BLOCK // max(cu.shape[1] * points, 1))
    for s0 in range(0, w.shape[0], step):
        sl = slice(s0, s0 + step)
        e = np.minimum(_log_binomial(cf[sl], kf[sl], grid) - lm[sl, :, None], 700.0)
        out[sl] = (wn[sl, :, None] * np.exp(e)).sum(axis=1)
    return out


def _vertex_step(cu, ku, w, atoms, weights, grid_d, points):
    """Add one atom per row at the grid point where ``d`` is largest, at the best weight."""
    grid = accuracy_grid(points)
    new = grid[grid_d.argmax(axis=1)]
    cf, kf = np.asarray(cu, float), np.asarray(ku, float)
    lm = _log_mixture(cf, kf, atoms, weights)
    lf = _log_binomial(cf, kf, new[:, None])[..., 0]
    ratio = np.exp(np.minimum(lf - lm, 700.0))  # f / m per cell
    lo, hi = np.zeros(new.shape), np.ones(new.shape)
    for _ in range(40):  # the log likelihood is concave in the new atom's weight: bisect
        mid = 0.5 * (lo + hi)
        slope = (w * (ratio - 1.0) / (1.0 - mid[:, None] + mid[:, None] * ratio)).sum(axis=1)
        lo, hi = np.where(slope > 0, mid, lo), np.where(slope > 0, hi, mid)
    alpha = lo
    a = np.concatenate([atoms, new[:, None]], axis=1)
    p = np.concatenate([weights * (1.0 - alpha[:, None]), alpha[:, None]], axis=1)
    return a, p


def _merge_close(atoms, weights, tol=1e-3):
    """Merge atoms closer than ``tol`` in arcsin(sqrt(u)), drop weightless columns."""
    order = np.argsort(atoms, axis=1)
    a = np.take_along_axis(atoms, order, axis=1)
    p = np.take_along_axis(weights, order, axis=1)
    theta = np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))
    for j in range(1, a.shape[1]):
        close = (theta[:, j] - theta[:, j - 1] < tol) & (p[:, j - 1] > 0)
        tot = p[:, j] + p[:, j - 1]
        mixed = (p[:, j] * theta[:, j] + p[:, j - 1] * theta[:, j - 1]) / np.maximum(tot, _TINY)
        theta[:, j] = np.where(close, mixed, theta[:, j])
        p[:, j] = np.where(close, tot, p[:, j])
        p[:, j - 1] = np.where(close, 0.0, p[:, j - 1])
    a = np.sin(theta) ** 2
    keep = (p > 0).any(axis=0)
    return a[:, keep], p[:, keep]


def refine_atoms(cu, ku, w, grid_weights, *, iterations: int = 100, rounds: int = 5):
    """The NPMLE with free atom locations, from the grid EM's weights.

    The bumps of the grid weights become atoms (:func:`_basins`), :func:`location_em` frees
    their locations, and each round adds an atom where the KKT function
    (:func:`directional_gradient`) is largest until ``N (max d - 1) < 0.1`` (the log
    likelihood is then within 0.1 of its maximum over all mixing distributions, up to the
    grid's resolution in placing the new atom), at most ``rounds`` times.

    Parameters
    ----------
    cu, ku, w : numpy.ndarray, shape (M, U)
    grid_weights : numpy.ndarray, shape (M, points)
        Weights from :func:`npmle_grid`.
    iterations : int, default 100
        Located-atom EM iterations after the start and after each added atom.
    rounds : int, default 5

    Returns
    -------
    atoms, weights : numpy.ndarray, shape (M, S)
    loglik, bound : numpy.ndarray, shape (M,)
        Log likelihood of the mixture and the bound on its maximum.

    Examples
    --------
    >>> import numpy as np
    >>> cu, ku, w = np.array([[1, 9]]), np.array([[10, 10]]), np.array([[50.0, 50.0]])
    >>> a, p, ll, bound = refine_atoms(cu, ku, w, npmle_grid(cu, ku, w)[0])
    >>> np.round(a[p > 0.01], 3).tolist(), bool(bound[0] - ll[0] < 0.1)
    ([0.1, 0.9], True)
    """
    points = grid_weights.shape[1]
    n = w.sum(axis=1)
    atoms, weights = _basins(grid_weights, accuracy_grid(points), n)
    atoms, weights, loglik = location_em(cu, ku, w, atoms, weights, iterations)
    for _ in range(rounds + 1):
        d = directional_gradient(cu, ku, w, atoms, weights, points)
        gap = np.maximum(d.max(axis=1) - 1.0, 0.0)
        todo = np.flatnonzero(n * gap >= 0.1)
        if todo.size == 0 or _ == rounds:
            break
        sub = (cu[todo], ku[todo], w[todo])
        a, p = _vertex_step(*sub, atoms[todo], weights[todo], d[todo], points)
        a, p, ll = location_em(*sub, a, p, iterations)
        atoms = np.concatenate([atoms, np.full((atoms.shape[0], 1), 0.5)], axis=1)
        weights = np.concatenate([weights, np.zeros((atoms.shape[0], 1))], axis=1)
        atoms[todo], weights[todo], loglik[todo] = a, p, ll
    atoms, weights = _merge_close(atoms, weights)
    return atoms, weights, loglik, loglik + n * gap


def prune_atoms(atoms, weights, n, least: float = 0.05):
    """Drop atoms that carry less than ``least`` of a question, and the columns no row needs.

    Parameters
    ----------
    atoms, weights : numpy.ndarray, shape (M, S)
    n : numpy.ndarray, shape (M,)
        Questions per model.
    least : float, default 0.05

    Returns
    -------
    atoms, weights : numpy.ndarray, shape (M, S')
        Weights renormalised; padding (weight 0) after the kept atoms.

    Examples
    --------
    >>> import numpy as np
    >>> a, p = prune_atoms(np.array([[0.1, 0.5, 0.9]]), np.array([[0.5, 1e-4, 0.4999]]), [100])
    >>> a.tolist(), np.round(p, 3).tolist()
    ([[0.1, 0.9]], [[0.5, 0.5]])
    """
    n = np.asarray(n, float).reshape(-1, 1)
    p = np.where(weights * n >= least, weights, 0.0)
    p /= p.sum(axis=1, keepdims=True)
    order = np.argsort(p <= 0, axis=1, kind="stable")
    width = int((p > 0).sum(axis=1).max())
    a = np.take_along_axis(atoms, order, axis=1)[:, :width]
    return a, np.take_along_axis(p, order, axis=1)[:, :width]


@dataclass(frozen=True)
class NonparametricPrior:
    """The NPMLE of the question-accuracy distribution per model (a discrete distribution).

    Attributes
    ----------
    atoms, weights : numpy.ndarray, shape (M, S)
        Locations in [0, 1] and probabilities (rows sum to 1; padding atoms have weight 0).
    loglik : numpy.ndarray, shape (M,)
        Log likelihood of the counts under it (without binomial coefficients).
    """

    atoms: np.ndarray
    weights: np.ndarray
    loglik: np.ndarray


def beta_start(mu, kappa, points: int = GRID_POINTS) -> np.ndarray:
    """Grid weights of Beta(mu kappa, (1 - mu) kappa), mixed 1% with uniform (EM start).

    Parameters
    ----------
    mu, kappa : array_like, shape (M,)
    points : int, default 200

    Returns
    -------
    numpy.ndarray, shape (M, points)
        Rows sum to 1.

    Examples
    --------
    >>> import numpy as np
    >>> wt = beta_start(np.array([0.3]), np.array([4.0]))
    >>> round(float(wt.sum()), 6), round(float((wt @ accuracy_grid())[0]), 2)   # mean near 0.3
    (1.0, 0.3)
    """
    grid = accuracy_grid(points)
    theta = 0.5 * np.pi * (np.arange(points) + 0.5) / points
    a = (np.asarray(mu, float) * np.asarray(kappa, float))[..., None]
    b = ((1.0 - np.asarray(mu, float)) * np.asarray(kappa, float))[..., None]
    logpdf = (a - 1) * np.log(grid) + (b - 1) * np.log1p(-grid) - special.betaln(a, b)
    lw = logpdf + np.log(np.sin(2.0 * theta))  # du = sin(2 theta) d theta
    wt = np.exp(lw - lw.max(axis=-1, keepdims=True))
    wt /= wt.sum(axis=-1, keepdims=True)
    return 0.99 * wt + 0.01 / points


def fit_nonparametric_prior(correct, count, *, iterations: int = 300) -> NonparametricPrior:
    """NPMLE of the distribution of the question accuracies u, per model.

    Parameters
    ----------
    correct, count : array_like, shape (M, N) or (N,)
        Correct samples and samples per question (``count == 0``: not answered, left out).
    iterations : int, default 300
        Iterations of the located-atom EM after the grid EM (:func:`refine_atoms`).

    Returns
    -------
    NonparametricPrior

    Examples
    --------
    >>> import numpy as np
    >>> c, k = np.array([[0, 0, 5, 5, 5, 4]]), np.full((1, 6), 5)
    >>> prior = fit_nonparametric_prior(c, k)
    >>> round(float((prior.atoms * prior.weights).sum()), 3)   # the mean of c / K
    0.633
    """
    c, k = check_counts(correct, count, require_answered=True)
    c, k = np.atleast_2d(c), np.atleast_2d(k)
    cu, ku, w = model_cells(c, k, k > 0)
    grid_w, _, _ = npmle_grid(cu, ku, w, max_iter=300)
    atoms, weights, loglik, _ = refine_atoms(cu, ku, w, grid_w, iterations=iterations)
    return NonparametricPrior(atoms, weights, loglik)
