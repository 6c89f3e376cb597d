"""Elo ratings of models from question-level scores: Bradley-Terry on expected win counts.

Every question is a battle between every pair of models: ``a`` beats ``b`` on question ``i``
with probability ``p_a,i (1 - p_b,i)``, so the expected decisive wins are
``W[a, b] = sum_i p_a,i (1 - p_b,i)``; the rest of the question's weight is a tie (both pass or
both fail). As in Chatbot Arena and Eval-Arena ("Bradley-Terry coefficients following Chatbot
Arena"), a tie counts as half a win for each side (``ties="half"``, the default): the wins fitted
are ``W[a, b] + T[a, b] / 2 = (n + W[a, b] - W[b, a]) / 2`` with ``T`` the expected ties and
``n`` the number of questions (:func:`half_win_matrix`). ``ties="exclude"`` fits ``W`` alone
(ties are no battle), which stretches the spread of the ratings (572 against 146 Elo on MBPP+)
and is reported as ``elo_decisive``, not ``elo``. The Bradley-Terry model
``P(a beats b) = 1 / (1 + 10 ** ((elo_b - elo_a) / 400))`` is fitted by maximum likelihood; the
ratings are anchored so that their mean is 1000. Eval-Arena counts a fractional score as a pass
above 0.5 before it forms battles; here a fractional score is the probability of a pass (the
two agree on 0/1 scores).

The point estimate is fitted with ``scipy.optimize.minimize`` (:func:`bradley_terry`). The
bootstrap is vectorised: the win matrices of a batch of replicates come from one float32
product of their question multiplicities with the pair columns ``p_a,i (1 - p_c,i)``
(:func:`_replicate_wins`), and the refits run batched over replicates as float32 chord
iterations, ``theta <- theta - grad H^-1`` with the point estimate's Hessian H (:func:`_chord`);
the few that do not converge fall back to batched Newton steps (:func:`_refit`) and then to
scipy. On 300 models x 3,000 questions the refits by scipy one at a time took about 5 times
longer than the whole bootstrap, and MM iterations needed hundreds of sweeps
(benchmarks/bench_quality.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import linalg, optimize, special
from scipy.sparse.csgraph import connected_components

from bayesnoise._common import check_confidence_level
from bayesnoise.frequentist.chunked import is_binary

__all__ = [
    "bradley_terry",
    "elo",
    "half_win_matrix",
    "win_matrix",
]

ELO_SCALE = 400.0 / np.log(10.0)  # Elo points per unit of natural log-odds
ELO_MEAN = 1000.0
#: How ties (both pass or both fail) count, and the name of the rating column each gives.
TIES = {"half": "elo", "exclude": "elo_decisive"}
# Bootstrap refits: at most this many (replicate, model, model) cells at once.
_REP_CELLS = 2**21
# Bootstrap win matrices: at most this many (replicate, model, model) cells per batch,
_WIN_CELLS = 2**25
# and this many (question, model, model) cells of the pair columns multiplied at once.
_PAIR_CELLS = 2**23
_STEP_TOL = 1e-9  # refit converged when no Newton step is longer (log-odds; ~4e-7 Elo)
_CHORD_TOL = 1e-6  # float32 chord refits: no step longer (log-odds; 4e-4 Elo)


def win_matrix(p, counts=None) -> np.ndarray:
    """M x M expected wins ``W[a, b] = sum_i c_i p_a,i (1 - p_b,i)``, zero diagonal.

    ``counts`` (N,) weights the questions (bootstrap multiplicities; default 1). Every term is
    non-negative, so an entry is exactly 0 when ``a`` never beats ``b``. 0/1 scores without
    weights are multiplied in float32, exactly (whole-number partial sums below 2^24).

    Examples
    --------
    >>> win_matrix([[1, 1, 0], [0, 1, 1.0]]).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    p = np.asarray(p, dtype=float)
    if counts is not None:
        used = np.flatnonzero(counts)
        wins = (p[:, used] * counts[used]) @ (1.0 - p[:, used]).T
    elif p.shape[1] < 2**24 and is_binary(p):
        p32 = p.astype(np.float32)
        wins = (p32 @ (1.0 - p32).T).astype(np.float64)
    else:
        wins = p @ (1.0 - p).T
    np.fill_diagonal(wins, 0.0)
    return wins


def half_win_matrix(wins, n) -> np.ndarray:
    """Wins with every tie counted as half a win for each side: ``(n + W - W') / 2``.

    ``wins`` holds the expected decisive wins (:func:`win_matrix`, or a stack of them) and ``n``
    the total question weight of each (the number of questions, or the sum of the bootstrap
    multiplicities); ``n - W[a, b] - W[b, a]`` are the expected ties of the pair. Zero diagonal.

    Examples
    --------
    >>> w = win_matrix([[1, 1, 0, 0], [0, 1, 1, 0.0]])  # one win each, two ties
    >>> half_win_matrix(w, 4).tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    wins = np.asarray(wins)
    out = 0.5 * (
        np.asarray(n, dtype=wins.dtype)[..., None, None] + wins - np.swapaxes(wins, -1, -2)
    )
    idx = np.arange(wins.shape[-1])
    out[..., idx, idx] = 0.0
    return out


def _replicate_wins(rows, counts, binary=False) -> np.ndarray:
    """(B, M, M) float32 :func:`win_matrix` of bootstrap replicates, all in a few products.

    ``rows`` (N, M) holds the scores question by question and ``counts`` (B, N) how often each
    replicate drew each question. Replicate b's matrix is ``P diag(w_b) (1 - P)'``, so entry
    (a, c) of every replicate at once is the product of the multiplicities with the column
    ``p_a,i (1 - p_c,i)`` over the questions: one (B x N) @ (N x M^2) product per block of
    rows a instead of B small products (large products use BLAS threads well, above all on a
    shared machine: 4x faster at load 6 on 2 cores). 0/1 scores: exact, every partial sum a
    whole number below N < 2^24; fractional scores: relative error ~1e-7, far below the
    bootstrap's own Monte Carlo error; every term is non-negative, so a zero stays zero. With
    ``binary`` (0/1 scores) only the upper block triangle is multiplied, half the work: below
    it ``W[c, a] = W[a, c] + solved_c - solved_a``, exact in whole numbers. The diagonal is
    left as computed."""
    n, m = rows.shape
    weights = counts.astype(np.float32)
    out = np.empty((counts.shape[0], m, m), dtype=np.float32)
    block = max(1, _PAIR_CELLS // (n * m))  # rows a per product: (N, block * M) float32
    fails = 1.0 - rows
    solved = weights @ rows if binary else None  # (B, M) questions solved, with multiplicity
    pair_buffer = np.empty(n * min(block, m) * m, dtype=np.float32)  # reused: no page faults
    product_buffer = np.empty(counts.shape[0] * min(block, m) * m, dtype=np.float32)
    for a0 in range(0, m, block):
        a1 = min(m, a0 + block)
        c0 = a0 if binary else 0
        size = (a1 - a0) * (m - c0)
        pairs = pair_buffer[: n * size].reshape(n, a1 - a0, m - c0)
        np.multiply(rows[:, a0:a1, None], fails[:, None, c0:], out=pairs)
        upper = product_buffer[: counts.shape[0] * size].reshape(-1, size)
        np.matmul(weights, pairs.reshape(n, size), out=upper)
        upper = upper.reshape(-1, a1 - a0, m - c0)
        out[:, a0:a1, c0:] = upper
        if binary:  # the rows c >= a0 of the columns a0:a1, from the block just computed
            lower = upper.transpose(0, 2, 1)
            out[:, c0:, a0:a1] = lower + (solved[:, c0:, None] - solved[:, None, a0:a1])
    return out


def _strongly_connected(wins: np.ndarray) -> bool:
    """Whether every model beats, through a chain of wins, every other: the MLE then exists."""
    return connected_components(wins > 0, directed=True, connection="strong")[0] == 1


def _objective(theta, wins, total, row):
    """Minus the log-likelihood plus (sum theta)^2 / 2 (fixes the shift; 0 at the optimum), and
    its gradient."""
    diff = theta[:, None] - theta[None, :]
    s = special.expit(diff)
    value = -(wins * special.log_expit(diff)).sum() + 0.5 * theta.sum() ** 2
    grad = (total * s).sum(axis=1) - row + theta.sum()
    return value, grad


def _hessian(theta, total):
    s = special.expit(theta[:, None] - theta[None, :])
    h = total * s * (1.0 - s)
    hess = -h
    hess[np.diag_indices_from(hess)] += h.sum(axis=1)
    return hess + 1.0


def bradley_terry(wins, *, theta0=None) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry strengths (natural log-odds, mean 0) from a win matrix.

    Maximises ``sum_{a != b} W[a, b] log sigmoid(theta_a - theta_b)`` with
    ``scipy.optimize.minimize`` (Newton-CG with the exact Hessian). The MLE exists only when
    the "a beat b at least partly" graph is strongly connected (no group of models that never
    loses to, or never beats, the rest); otherwise ValueError names the groups.

    Examples
    --------
    >>> import numpy as np
    >>> theta = bradley_terry(np.array([[0.0, 2.0], [1.0, 0.0]]))
    >>> round(float(theta[0] - theta[1]), 6) == round(float(np.log(2.0)), 6)
    True
    """
    wins = np.asarray(wins, dtype=float)
    m = wins.shape[0]
    if wins.shape != (m, m) or m < 2:
        raise ValueError(f"wins must be a square matrix of at least two models, got {wins.shape}")
    wins = wins.copy()
    np.fill_diagonal(wins, 0.0)
    n_groups, labels = connected_components(wins > 0, directed=True, connection="strong")
    if n_groups > 1:
        groups = [np.flatnonzero(labels == g).tolist() for g in range(n_groups)]
        raise ValueError(
            "Bradley-Terry MLE does not exist: the models split into groups that never lose "
            f"to (or never beat) the others, so some ratings are infinite; groups: {groups}. "
            "Drop models that solve nothing or everything."
        )
    total = wins + wins.T
    row = wins.sum(axis=1)
    x0 = np.zeros(m) if theta0 is None else np.asarray(theta0, dtype=float)
    res = optimize.minimize(
        _objective,
        x0,
        args=(wins, total, row),
        jac=True,
        hess=lambda t, *_: _hessian(t, total),
        method="Newton-CG",
        options={"xtol": 1e-12, "maxiter": 1000},
    )
    theta = res.x - res.x.mean()
    grad = _objective(theta, wins, total, row)[1]
    if not np.all(np.abs(grad) <= 1e-6 * max(1.0, row.max())):
        raise RuntimeError(f"Bradley-Terry fit did not converge: {res.message}")
    return theta


def _refit(wins, theta_hat, inverse, maxiter=30, max_step=1.0):
    """Bradley-Terry MLE of a stack of win matrices (B, M, M), all at once.

    Newton's method batched over the stack, warm-started at the point estimate, each step
    capped at ``max_step`` log-odds. The Newton systems are solved by conjugate gradients
    preconditioned with ``inverse``, the inverse of the point estimate's Hessian, which is
    close to every replicate's: a few (B, M, M) products per step instead of B dense solves.
    Returns (B, M) strengths and a mask of the replicates that converged."""
    total = wins + wins.transpose(0, 2, 1)
    row = wins.sum(axis=2)
    theta = np.repeat(theta_hat[None, :], wins.shape[0], axis=0)
    done = np.zeros(wins.shape[0], dtype=bool)
    for _ in range(maxiter):
        todo = np.flatnonzero(~done)
        th, tot = theta[todo], total[todo]
        s = _win_probability(th)
        grad = np.einsum("bij,bij->bi", tot, s) - row[todo] + th.sum(axis=1, keepdims=True)
        tot *= s
        tot *= 1.0 - s  # off-diagonal Hessian is -N_ab s (1 - s)
        step = _pcg(tot, -grad, inverse)
        size = np.abs(step).max(axis=1)
        step *= np.minimum(1.0, max_step / np.maximum(size, 1e-300))[:, None]
        theta[todo] += step
        done[todo] = size < _STEP_TOL
        if done.all():
            break
    return theta - theta.mean(axis=1, keepdims=True), done


def _win_probability(theta) -> np.ndarray:
    """(B, M, M) sigmoid(theta_a - theta_b) as pi_a / (pi_a + pi_b), pi = exp(theta - max):
    5x faster than ``expit`` of the differences; ``expit`` when strengths span > 500 log-odds
    (pi would underflow)."""
    top = theta.max(axis=1, keepdims=True)
    if (top - theta.min(axis=1, keepdims=True)).max() > 500.0:
        return special.expit(theta[:, :, None] - theta[:, None, :])
    pi = np.exp(theta - top)
    return pi[:, :, None] / (pi[:, :, None] + pi[:, None, :])


def _pcg(h, rhs, inverse, rtol=1e-12, maxiter=200):
    """Solve (diag(h 1) - h + 1 1') x = rhs for each of a stack of weight matrices ``h``."""
    deg = h.sum(axis=2)

    def apply(v):
        return deg * v - np.einsum("bij,bj->bi", h, v) + v.sum(axis=1, keepdims=True)

    def precondition(v):
        return v @ inverse

    x = np.zeros_like(rhs)
    res = rhs.copy()
    z = precondition(res)
    d = z.copy()
    rz = (res * z).sum(axis=1)
    stop = rtol * np.maximum(rz, 1e-300)
    for _ in range(maxiter):
        active = rz > stop
        if not active.any():
            break
        hd = apply(d)
        alpha = np.where(active, rz / np.maximum((d * hd).sum(axis=1), 1e-300), 0.0)[:, None]
        x += alpha * d
        res -= alpha * hd
        z = precondition(res)
        rz_new = (res * z).sum(axis=1)
        d = z + (rz_new / np.maximum(rz, 1e-300))[:, None] * d
        rz = rz_new
    return x


def _chord(wins, theta_hat, inverse, maxiter=40, max_step=1.0):
    """Bradley-Terry MLE of a stack of win matrices (B, M, M) by chord iterations.

    ``theta <- theta - grad(theta) H^-1`` with H the Hessian of the point estimate (its
    ``inverse`` given), the same for every replicate and every step: one gradient per step and
    no linear solve. Started at the point estimate it converges linearly (about 7 steps to
    ``_CHORD_TOL`` on 300 models x 3,000 questions, against 4-5 Newton steps that each cost
    several Hessian products). The (B, M, M) work is in float32 (the gradient summed in
    float64): its rounding moves the fit by < 1e-6 log-odds, hence the tolerance. Replicates
    whose strengths span > 80 log-odds (float32 would underflow) or that do not converge are
    returned with ``done`` False, for :func:`_refit`. Returns (B, M) strengths, mean 0, and
    ``done``."""
    total = (wins + wins.transpose(0, 2, 1)).astype(np.float32)
    row = wins.sum(axis=2)
    theta = np.repeat(theta_hat[None, :], wins.shape[0], axis=0)
    done = np.zeros(wins.shape[0], dtype=bool)
    live = np.ones(wins.shape[0], dtype=bool)
    work = np.empty(total.shape, dtype=np.float32)
    for _ in range(maxiter):
        todo = np.flatnonzero(live & ~done)
        if todo.size == 0:
            break
        th = theta[todo]
        top = th.max(axis=1, keepdims=True)
        span_ok = (top - th.min(axis=1, keepdims=True))[:, 0] <= 80.0
        live[todo[~span_ok]] = False
        todo, th, top = todo[span_ok], th[span_ok], top[span_ok]
        pi = np.exp(th - top).astype(np.float32)
        s = work[: todo.size]
        np.add(pi[:, :, None], pi[:, None, :], out=s)
        np.divide(pi[:, :, None], s, out=s)  # sigmoid(theta_a - theta_b)
        s *= total if todo.size == total.shape[0] else total[todo]
        grad = s.sum(axis=2, dtype=np.float64) - row[todo] + th.sum(axis=1, keepdims=True)
        step = -(grad @ inverse)
        size = np.abs(step).max(axis=1)
        step *= np.minimum(1.0, max_step / np.maximum(size, 1e-300))[:, None]
        theta[todo] += step
        done[todo] = size < _CHORD_TOL
        live[todo[~np.isfinite(size)]] = False
    return theta - theta.mean(axis=1, keepdims=True), done


def elo(
    p,
    models=None,
    *,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: int | None = 0,
    ties: str = "half",
) -> pd.DataFrame:
    """Elo ratings with bootstrap intervals from a (models x questions) score matrix.

    Parameters
    ----------
    p : array_like, shape (M, N)
        Mean score per cell in [0, 1]; complete (NaN raises).
    models : sequence, optional
        M names for the ``model`` column (default 0..M-1).
    n_resamples : int, default 1000
        Bootstrap replicates; 0 skips the intervals (NaN).
    confidence_level : float, default 0.95
    rng : int or numpy.random.Generator, default 0
        Seed of the ``numpy.random.Generator`` that draws the replicates.
    ties : {"half", "exclude"}, default "half"
        ``"half"``: a tie (both pass or both fail) is half a win for each side, as in Chatbot
        Arena and Eval-Arena (column ``elo``); ``"exclude"``: ties are no battle (column
        ``elo_decisive``).

    Returns
    -------
    pandas.DataFrame
        ``model, elo, elo_low, elo_high`` in model order (``elo_decisive*`` with
        ``ties="exclude"``). ``elo`` is the Bradley-Terry MLE on the expected wins, ties
        counted half (:func:`half_win_matrix`), 400 Elo points per factor 10 in the odds,
        shifted so the mean rating is 1000. ``elo_low``/``elo_high`` are percentile intervals over
        replicates that resample the question columns with replacement and refit (each
        replicate again with mean 1000). A replicate whose MLE does not exist (a model never
        beaten or never winning on the resampled questions) is left out with a warning;
        ``attrs["bootstrap_failed"]`` counts them.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> p = (rng.random((3, 200)) < [[0.3], [0.5], [0.7]]).astype(float)
    >>> t = elo(p, ["a", "b", "c"], n_resamples=200)
    >>> round(float(t["elo"].mean()), 6), bool((t["elo_low"] < t["elo"]).all())
    (1000.0, True)
    """
    p = np.asarray(p, dtype=float)
    if p.ndim != 2 or p.shape[0] < 2 or p.shape[1] == 0:
        raise ValueError(f"p must be a (models, questions) matrix with M >= 2, got {p.shape}")
    if np.isnan(p).any():
        raise ValueError("p has missing cells; Elo needs every model on every question")
    level = check_confidence_level(confidence_level)
    if int(n_resamples) != n_resamples or n_resamples < 0:
        raise ValueError(f"n_resamples must be a whole number >= 0, got {n_resamples!r}")
    if ties not in TIES:
        raise ValueError(f"ties must be one of {sorted(TIES)}, got {ties!r}")
    name = TIES[ties]
    m = p.shape[0]
    models = np.arange(m) if models is None else np.asarray(models)
    wins = win_matrix(p)
    if ties == "half":
        wins = half_win_matrix(wins, p.shape[1])
    theta = bradley_terry(wins)
    table = pd.DataFrame({"model": models, name: ELO_MEAN + ELO_SCALE * theta})
    reps = _bootstrap(p, wins, theta, n_resamples, rng, half=ties == "half")
    ok = ~np.isnan(reps).any(axis=1)
    failed = int(reps.shape[0] - ok.sum())
    if failed:
        warnings.warn(
            f"{failed} of {reps.shape[0]} bootstrap replicates have no finite Bradley-Terry "
            "MLE (a model never beaten or never winning on the resampled questions) and are "
            "left out of the Elo intervals",
            RuntimeWarning,
            stacklevel=2,
        )
    if ok.any():
        lo, hi = np.quantile(reps[ok], [(1 - level) / 2, (1 + level) / 2], axis=0)
    else:
        lo = hi = np.full(m, np.nan)
    table[f"{name}_low"] = ELO_MEAN + ELO_SCALE * lo
    table[f"{name}_high"] = ELO_MEAN + ELO_SCALE * hi
    table.attrs.update(
        n_resamples=int(n_resamples), bootstrap_failed=failed, confidence_level=level, ties=ties
    )
    return table


def _bootstrap(p, wins, theta, n_resamples, rng, half=False) -> np.ndarray:
    """(n_resamples, M) refitted strengths; rows of NaN where the replicate's MLE is infinite.

    ``wins`` is the matrix the point estimate was fitted to; with ``half`` each replicate's
    decisive wins are turned into half-win matrices as well (every replicate draws n
    questions, so its total weight is n; exact in float32 for 0/1 scores: halves of whole
    numbers below 2^23)."""
    m, n = p.shape
    n_resamples = int(n_resamples)
    out = np.full((n_resamples, m), np.nan)
    if n_resamples == 0:
        return out
    gen = np.random.default_rng(rng)
    hessian = _hessian(theta, wins + wins.T)
    inverse = linalg.cho_solve(linalg.cho_factor(hessian), np.eye(m))
    rows = np.ascontiguousarray(p.T, dtype=np.float32)  # (N, M)
    binary = n < 2**24 and is_binary(p)
    chunk = max(1, _REP_CELLS // (m * m))  # replicates refitted at once
    batch = chunk * max(1, _WIN_CELLS // (m * m * chunk))  # win matrices computed at once
    for w0 in range(0, n_resamples, batch):
        sizes = [
            min(chunk, n_resamples - b0) for b0 in range(w0, min(n_resamples, w0 + batch), chunk)
        ]
        # resampled question columns, per replicate (drawn chunk by chunk, as always)
        draws = np.concatenate([gen.integers(0, n, size=(b, n)) for b in sizes])
        offset = n * np.arange(draws.shape[0])[:, None]
        counts = np.bincount((draws + offset).ravel(), minlength=draws.size)
        all_wins = _replicate_wins(rows, counts.reshape(draws.shape), binary)
        if half:
            all_wins = half_win_matrix(all_wins, np.full(all_wins.shape[0], n, np.float32))
        for b0 in range(w0, w0 + draws.shape[0], chunk):
            stack = all_wins[b0 - w0 : b0 - w0 + chunk].astype(np.float64)
            for w in stack:
                np.fill_diagonal(w, 0.0)
            # a zero off the diagonal (a never beat b) may leave the MLE infinite: check those
            gaps = (stack <= 0).sum(axis=(1, 2)) > m
            bad = np.array(
                [g and not _strongly_connected(w) for g, w in zip(gaps, stack, strict=True)]
            )
            stack[bad] = wins  # converges at once; reported as NaN below
            fits, done = _chord(stack, theta, inverse)
            if not done.all():  # slow to converge: Newton, then scipy one by one
                slow = np.flatnonzero(~done)
                fits[slow], done[slow] = _refit(stack[slow], theta, inverse)
            for j in np.flatnonzero(~done):
                fits[j] = bradley_terry(stack[j], theta0=theta)
            fits[bad] = np.nan
            out[b0 : b0 + chunk] = fits
    return out
