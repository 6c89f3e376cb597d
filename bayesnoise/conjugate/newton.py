"""A batched, damped Newton maximiser of smooth functions of two coordinates.

Used by the empirical-Bayes fit on (logit mu, log kappa), one independent problem per model,
all models advanced together with numpy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["maximize_newton_2d"]


def _newton_step(g1, g2, h11, h12, h22, free2):
    """Newton direction on the free coordinates, with a Levenberg shift where H is not < 0."""
    h12 = np.where(free2, h12, 0.0)
    h22 = np.where(free2, h22, -1.0)
    g2 = np.where(free2, g2, 0.0)
    det = h11 * h22 - h12**2
    neg_def = (h11 < 0) & (det > 0)
    # smallest shift making H - shift * I negative definite (largest eigenvalue + margin)
    tr = h11 + h22
    eig_max = tr / 2.0 + np.sqrt(np.maximum((tr / 2.0) ** 2 - det, 0.0))
    shift = np.where(neg_def, 0.0, np.maximum(eig_max, 0.0) + 1e-3 * np.abs(tr) + 1e-8)
    h11_s, h22_s = h11 - shift, h22 - shift
    det_s = h11_s * h22_s - h12**2
    d1 = -(h22_s * g1 - h12 * g2) / det_s
    d2 = np.where(free2, -(-h12 * g1 + h11_s * g2) / det_s, 0.0)
    return d1, d2


def maximize_newton_2d(
    objective: Callable,
    x,
    y,
    *,
    y_free,
    y_bounds: tuple[float, float],
    x_bound: float = np.inf,
    tol_scale=None,
    max_iter: int = 200,
    tol: float = 1e-9,
    values: bool = False,
):
    """Maximise many independent smooth functions ``f_j(x_j, y_j)`` at once.

    Each iteration takes a Newton step on the free coordinates (with a Levenberg shift where
    the Hessian is not negative definite), caps it at 5 in either coordinate, then halves it
    until the objective does not decrease. ``y`` is kept in ``y_bounds``; a ``y`` at a bound
    whose gradient points outwards is held there (an active set).

    Parameters
    ----------
    objective : callable
        ``objective(x, y, rows)`` for the problems ``rows`` (an index array) at the points
        ``x, y`` (arrays of the same length as ``rows``). Returns
        ``(f, f_x, f_y, f_xx, f_xy, f_yy)``, also at the trial points of the line search, so
        an accepted trial point is not evaluated again.
    x, y : array_like, shape (J,)
        Starting points (not modified).
    y_free : array_like of bool, shape (J,)
        False where ``y`` is held fixed at its start.
    y_bounds : (low, high)
        Box for ``y``.
    x_bound : float, default inf
        ``x`` is kept in ``[-x_bound, x_bound]``.
    tol_scale : array_like, shape (J,), optional
        Per-problem scale of the tolerance (default 1).
    max_iter : int, default 200
    tol : float, default 1e-9
        Stop when ``|f_x| + |f_y| < tol * tol_scale`` (free gradient only) or the step
        vanishes.
    values : bool, default False
        Also return ``(f, f_x, f_y, f_xx, f_xy, f_yy)`` at the maximisers (kept from the
        iterations, not evaluated again).

    Returns
    -------
    x, y : numpy.ndarray, shape (J,)
        The maximisers.
    converged : numpy.ndarray of bool, shape (J,)
    values : tuple of numpy.ndarray, shape (J,)
        Only when ``values=True``.

    Examples
    --------
    >>> import numpy as np
    >>> def f(x, y, rows, derivatives=True):  # maximum at (1, 2); second problem y <= 1
    ...     val = -((x - 1) ** 2) - 2 * (y - 2) ** 2 + 0.5 * (x - 1) * (y - 2)
    ...     if not derivatives:
    ...         return val
    ...     one = np.ones_like(x)
    ...     gx, gy = -2 * (x - 1) + 0.5 * (y - 2), -4 * (y - 2) + 0.5 * (x - 1)
    ...     return val, gx, gy, -2 * one, 0.5 * one, -4 * one
    >>> x, y, ok = maximize_newton_2d(f, [0.0, 0.0], [0.0, 0.0], y_free=[True, True],
    ...                               y_bounds=(-10.0, 10.0))
    >>> np.round(x, 6).tolist(), np.round(y, 6).tolist(), ok.tolist()
    ([1.0, 1.0], [2.0, 2.0], [True, True])
    """
    x = np.array(x, dtype=float)
    y = np.array(y, dtype=float)
    y_free = np.asarray(y_free, dtype=bool)
    ylo, yhi = y_bounds
    scale = np.ones(x.size) if tol_scale is None else np.asarray(tol_scale, dtype=float)
    active = np.ones(x.size, bool)
    converged = np.zeros(x.size, bool)
    # objective and derivatives at the current points: trial points of the line search are
    # evaluated with derivatives, so an accepted one is not evaluated again
    cache = np.zeros((6, x.size))
    known = np.zeros(x.size, bool)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        todo_eval = idx[~known[idx]]
        if todo_eval.size:
            cache[:, todo_eval] = objective(x[todo_eval], y[todo_eval], todo_eval)
            known[todo_eval] = True
        f, g1, g2, h11, h12, h22 = cache[:, idx]
        # active set at the y bounds
        at_lo = (y[idx] <= ylo + 1e-12) & (g2 < 0)
        at_hi = (y[idx] >= yhi - 1e-12) & (g2 > 0)
        free2 = y_free[idx] & ~(at_lo | at_hi)
        gnorm = np.abs(g1) + np.abs(np.where(free2, g2, 0.0))
        done = gnorm < tol * scale[idx]
        d1, d2 = _newton_step(g1, g2, h11, h12, h22, free2)
        # cap the step, then backtrack until the objective does not decrease
        cap = np.minimum(1.0, 5.0 / np.maximum(np.abs(d1), np.abs(d2)).clip(1e-300))
        d1, d2 = d1 * cap, d2 * cap
        step = np.ones(idx.size)
        todo = ~done
        new_x, new_y = x[idx].copy(), y[idx].copy()
        for _ls in range(40):
            if not todo.any():
                break
            t = np.flatnonzero(todo)
            cx = np.clip(x[idx][t] + step[t] * d1[t], -x_bound, x_bound)
            cy = np.clip(y[idx][t] + step[t] * d2[t], ylo, yhi)
            trial = np.asarray(objective(cx, cy, idx[t]))
            ok = trial[0] >= f[t] - 1e-12 * np.abs(f[t])
            new_x[t[ok]], new_y[t[ok]] = cx[ok], cy[ok]
            cache[:, idx[t[ok]]] = trial[:, ok]
            todo[t[ok]] = False
            step[t[~ok]] *= 0.5
        small = (np.abs(new_x - x[idx]) + np.abs(new_y - y[idx])) < 1e-12
        x[idx], y[idx] = new_x, new_y
        fin = done | small
        converged[idx[fin]] = True
        active[idx[fin]] = False
    if not values:
        return x, y, converged
    rest = np.flatnonzero(~known)
    if rest.size:
        cache[:, rest] = objective(x[rest], y[rest], rest)
    return x, y, converged, tuple(cache)
