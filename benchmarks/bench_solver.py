"""Conditional modes of the kappa grid: scipy.optimize against the hand-written Newton it replaced.

``kappa_grid`` needs, for every model and every node of log kappa (25 coarse + 41 fine nodes
per model), the mode in eta = logit mu of the Beta-Binomial log likelihood plus the Beta prior
on mu, and the curvature there. Since 2026-11-25 the package finds the modes with
``scipy.optimize.elementwise`` (``bracket_root`` from the start +- 0.5, then ``find_root``,
Chandrupatla's method, vectorised over all problems; ``kappa_grid._conditional``). Before, it
used a hand-written batched damped Newton with a line search (``bayesnoise/conjugate/newton.py``,
``maximize_newton_2d``), kept below verbatim (docstrings shortened) as
:func:`newton_conditional` so that the comparison can be re-measured. Per-problem
``scipy.optimize.minimize`` (L-BFGS-B) is timed on a few models and extrapolated, for
reference.

Project rule: prefer scipy.optimize; keep a hand-written solver only if scipy is more than 2x
slower on the all-models / all-pairs workload. Measured 2026-11-25 (``--repeat 5``, 2 cores
shared with other jobs), the bundled example + the 53 all-the-noises input tables:

=====================  ========  =======  =======  ========  =============  ===============
workload               newton s  scipy s  ratio    floor s   max abs d eta  max abs d table
=====================  ========  =======  =======  ========  =============  ===============
solver (kappa_grid)    1.353     1.947    1.44     0.175     1.2e-06        6.0e-07 (lml)
posterior_table        18.822    20.234   1.08     0.005     1.2e-06        9.2e-08
posterior_pairs_table  22.429    22.883   1.02     0.066     1.2e-06        1.7e-08
=====================  ========  =======  =======  ========  =============  ===============

Per dataset the scipy solver is 2.0-5.2x slower than the Newton (mostly ~2.6x: ~9-10 gradient
evaluations per problem against ~3.5), which is 1.0-2.05x on the tables end to end (the K ~
1100 files: human_eval_plus 1.98 / 1.77, math500 1.54 / 1.56). On highk aime2024 the Newton
did not converge for one (model, node) in 100 iterations (a model with 0 of 33,000 correct;
the fit then warns) and took 0.67 s against scipy's 0.07 s; the 1.2e-06 difference in eta is
that node, every other is below 3e-07. Without that file: solver 2.76x, tables 1.11x /
1.05x. Per-problem ``minimize(method="L-BFGS-B")``: 150-630x the Newton. Decision: scipy (within
2x on the workload); newton.py was deleted.

Workloads, on the bundled example and on every ../shared/data/all-the-noises input table
(``complete(..., on_missing="intersect")`` first, as the pairs table needs):

- ``solver``: ``kappa_grid`` alone (both passes, all models); floor = one evaluation of the
  objective (with derivatives) at every (model, node) of both passes, i.e. a solver that
  needed a single evaluation;
- ``posterior_table`` (all models) and ``posterior_pairs_table`` (all pairs), end to end;
  floor = a numpy pass over the data (per-model mean and variance of c / K; for the pairs also
  the M x M product of the accuracy matrix).

Times are the best of ``--repeat`` runs, the two solvers interleaved. ``max |d eta|`` is the
largest difference of the maximisers (fine-grid modes), ``max |d table|`` the largest absolute
difference of any number in the tables (same random seed), ``max rel`` the same relative.

Run: ``.venv/bin/python benchmarks/bench_solver.py [--repeat 3] [--quick]``
(``--quick``: the example and three shared files; the full run takes a few minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import contextlib
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import optimize, special

import bayesnoise as bn
from bayesnoise.conjugate import kappa_grid as kg
from bayesnoise.conjugate import posterior_pairs_table, posterior_table
from bayesnoise.conjugate.likelihood import model_cells
from bayesnoise.conjugate.rising import count_terms, terms_loglik
from bayesnoise.data import beta_binomial_counts

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "all-the-noises"
QUICK = (
    "highk_temp0.7/input_table_human_eval_plus.csv",
    "highk_temp0.7/input_table_math500_cot.csv",
    "main/input_table_humaneval.csv",
)


def _laplace(eta, ll, hee, shape, mu_prior, ok):
    """The outputs of ``kappa_grid._conditional`` from the modes and the log likelihood and
    its second derivative there (the same formulas as the package)."""
    curv = np.maximum(-hee, 1e-12)
    a0, b0 = mu_prior
    norm = special.betaln(a0, b0) if a0 > 0 and b0 > 0 else 0.0
    lml = ll - norm + 0.5 * np.log(2.0 * np.pi / curv)
    sd = 1.0 / np.sqrt(curv)
    return eta.reshape(shape), sd.reshape(shape), lml.reshape(shape), ok.reshape(shape).all(1)


# ---- the hand-written solver the package used until 2026-11-25 (bayesnoise/conjugate/newton.py
# at that date, docstrings shortened), kept so the comparison can be re-measured ----


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
    objective,
    x,
    y,
    *,
    y_free,
    y_bounds,
    x_bound=np.inf,
    tol_scale=None,
    max_iter=200,
    tol=1e-9,
    values=False,
):
    """Maximise independent ``f_j(x_j, y_j)`` at once: damped Newton steps (Levenberg shift
    where the Hessian is not negative definite), capped at 5, halved until f does not drop;
    ``y`` held in ``y_bounds`` (active set); stop at ``|f_x| + |f_y| < tol * tol_scale``."""
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


def newton_conditional(lam, eta0, terms, n_obs, mu_prior, max_iter, tol):
    """``kappa_grid._conditional`` as it was on the hand-written Newton (started at eta0)."""
    n_models, n_nodes = lam.shape
    model_of = np.repeat(np.arange(n_models), n_nodes)

    def objective(e, la, rows, derivatives=True):
        out = terms_loglik(e, la, terms, model_of[rows], mu_prior, derivatives=derivatives)
        if not derivatives:
            return out
        zero = np.zeros_like(e)
        return out[0], out[1], zero, out[2], zero, zero - 1.0

    eta, _, ok, (ll, _, _, hee, _, _) = maximize_newton_2d(
        objective,
        np.ravel(eta0),
        lam.ravel(),
        y_free=np.zeros(lam.size, bool),
        y_bounds=(-np.inf, np.inf),
        x_bound=kg.ETA_BOUND,
        tol_scale=1.0 + n_obs[model_of],
        max_iter=max_iter,
        tol=tol,
        values=True,
    )
    return _laplace(eta, ll, hee, lam.shape, mu_prior, ok)


def per_problem_conditional(lam, eta0, terms, n_obs, mu_prior, max_iter, tol):
    """Reference: ``scipy.optimize.minimize`` (L-BFGS-B, bounded) one problem at a time."""
    n_models, n_nodes = lam.shape
    model_of = np.repeat(np.arange(n_models), n_nodes)
    lam_r, e0 = lam.ravel(), np.asarray(eta0, float).ravel()
    eta, ok = np.empty(lam.size), np.empty(lam.size, bool)
    for j in range(lam.size):
        rows, lj = model_of[j : j + 1], lam_r[j : j + 1]

        def fun(x, rows=rows, lj=lj):
            ll, g, _ = terms_loglik(x, lj, terms, rows, mu_prior)
            return -ll[0], -g

        r = optimize.minimize(
            fun,
            e0[j : j + 1],
            jac=True,
            method="L-BFGS-B",
            bounds=[(-kg.ETA_BOUND, kg.ETA_BOUND)],
            options={"maxiter": max_iter, "gtol": tol * (1 + n_obs[model_of[j]]), "ftol": 0.0},
        )
        eta[j], ok[j] = r.x[0], r.success
    ll, _, hee = terms_loglik(eta, lam_r, terms, model_of, mu_prior)
    return _laplace(eta, ll, hee, lam.shape, mu_prior, ok)


PACKAGE = kg._conditional  # scipy.optimize.elementwise (bracket_root + find_root)
SOLVERS = {"newton": newton_conditional, "scipy": PACKAGE}


@contextlib.contextmanager
def using(solver):
    kg._conditional = solver
    try:
        yield
    finally:
        kg._conditional = PACKAGE


def grid_inputs(c, k):
    """The arguments ``fit_empirical_bayes`` passes to ``kappa_grid`` (default priors)."""
    cu, ku, w = model_cells(c, k, k > 0)
    succ, samp = (w * cu).sum(axis=1), (w * ku).sum(axis=1)
    eta0 = special.logit(np.clip((succ + 0.5) / (samp + 1.0), 1e-9, 1 - 1e-9))
    return cu, ku, w, eta0


def objective_floor(cu, ku, w, eta0):
    """One evaluation of the objective at every (model, node) of both passes."""
    terms = count_terms(cu, ku, w)
    n_models = w.shape[0]
    n_nodes = 25 + 41
    lam = np.broadcast_to(np.linspace(-4.6, 9.2, n_nodes), (n_models, n_nodes)).ravel()
    eta = np.repeat(eta0, n_nodes)
    terms_loglik(eta, lam, terms, np.repeat(np.arange(n_models), n_nodes), kg.DEFAULT_MU_PRIOR)


def data_floor(c, k, pairs):
    p = np.where(k > 0, c / np.maximum(k, 1), 0.0)
    p.mean(axis=1), p.var(axis=1)
    if pairs:
        p @ p.T


def best_of(fns, repeat):
    """Best time of each of ``fns`` (dict name -> callable), interleaved; and the last outputs."""
    best = dict.fromkeys(fns, np.inf)
    out = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            out[name] = fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best, out


def table_diff(a, b):
    """Max absolute and relative difference of the numeric columns of two tables."""
    num = a.select_dtypes("number").columns
    x, y = a[num].to_numpy(float), b[num].to_numpy(float)
    both = np.isfinite(x) & np.isfinite(y)
    if not np.array_equal(np.isfinite(x), np.isfinite(y)):
        return np.inf, np.inf
    d = np.abs(x - y)[both]
    rel = d / np.maximum(np.abs(x[both]), 1e-300)
    return float(d.max(initial=0.0)), float(rel.max(initial=0.0))


def in_solver(solver, fn):
    def run():
        with using(solver):
            return fn()

    return run


def case(ds, repeat):
    """Rows (workload, times, floor, max |d eta|, max |d table|, max rel) of one dataset."""
    ds = bn.complete(ds, on_missing="intersect")
    c, k = beta_binomial_counts(ds)
    args = grid_inputs(c, k)
    rows = []
    times, grids = best_of(
        {n: in_solver(s, lambda: kg.kappa_grid(*args)) for n, s in SOLVERS.items()}, repeat
    )
    floor, _ = best_of({"floor": lambda: objective_floor(*args)}, repeat)
    d_eta = float(np.max(np.abs(grids["newton"].eta - grids["scipy"].eta)))
    d_lml = float(np.max(np.abs(grids["newton"].loglik - grids["scipy"].loglik)))
    rows.append(("solver", times, floor["floor"], d_eta, d_lml, np.nan))
    for name, fn, pairs in (
        ("posterior_table", posterior_table, False),
        ("posterior_pairs_table", posterior_pairs_table, True),
    ):
        times, tables = best_of(
            {n: in_solver(s, lambda fn=fn: fn(ds, progress=False)) for n, s in SOLVERS.items()},
            repeat,
        )
        floor, _ = best_of({"floor": lambda pairs=pairs: data_floor(c, k, pairs)}, repeat)
        d_abs, d_rel = table_diff(tables["newton"], tables["scipy"])
        rows.append((name, times, floor["floor"], d_eta, d_abs, d_rel))
    return (c.shape[0], c.shape[1], float(np.median(k[k > 0]))), rows


def files(quick):
    out = sorted((ROOT / "examples" / "data").glob("*.csv.gz"))
    if SHARED.exists():
        shared = sorted(SHARED.glob("*/input_table_*.csv"))
        out += [SHARED / q for q in QUICK if (SHARED / q).exists()] if quick else shared
    return out


def per_problem_row(path, n_models=3):
    """Solver time of all models: Newton measured, per-problem L-BFGS-B extrapolated from
    its time on the first ``n_models`` models."""
    ds = bn.complete(bn.load(path), on_missing="intersect")
    c, k = beta_binomial_counts(ds)
    args = grid_inputs(c, k)
    t_newton, _ = best_of({"n": in_solver(newton_conditional, lambda: kg.kappa_grid(*args))}, 3)
    few = grid_inputs(c[:n_models], k[:n_models])
    with using(per_problem_conditional):
        t0 = time.perf_counter()
        kg.kappa_grid(*few)
        t_loop = time.perf_counter() - t0
    return t_newton["n"], t_loop * c.shape[0] / n_models, c.shape[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    opts = parser.parse_args()
    warnings.simplefilter("ignore")
    totals = {}
    print("| data | M | N | K median | workload | newton s | scipy s | scipy / newton | floor s "
          "| max abs d eta | max abs d table (solver: d log lik) | max rel d table |")  # fmt: skip
    print("|" + "---|" * 12)
    for path in files(opts.quick):
        name = path.name if "examples" in str(path) else str(path.relative_to(SHARED))
        try:
            (m, n, kmed), rows = case(bn.load(path), opts.repeat)
        except Exception as err:  # report and go on
            print(f"| {name} | skipped: {type(err).__name__}: {str(err)[:60]} |")
            continue
        for work, t, floor, d_eta, d_abs, d_rel in rows:
            tot = totals.setdefault(work, [0.0, 0.0, 0.0, 0.0, 0.0, 0])
            tot[0] += t["newton"]
            tot[1] += t["scipy"]
            tot[2] += floor
            tot[3] = max(tot[3], d_eta)
            tot[4] = max(tot[4], d_abs)
            tot[5] += 1
            print(f"| {name} | {m} | {n} | {kmed:g} | {work} | {t['newton']:.4f} | "
                  f"{t['scipy']:.4f} | {t['scipy'] / t['newton']:.2f} | {floor:.4f} | "
                  f"{d_eta:.1e} | {d_abs:.1e} | {d_rel:.1e} |")  # fmt: skip
    print()
    print("Totals over the datasets (all models; all pairs):")
    print()
    print("| workload | datasets | newton s | scipy s | scipy / newton | floor s | "
          "max abs d eta | max abs d table |")  # fmt: skip
    print("|" + "---|" * 8)
    for work, (tn, ts, tf, d_eta, d_abs, cnt) in totals.items():
        print(f"| {work} | {cnt} | {tn:.3f} | {ts:.3f} | {ts / tn:.2f} | {tf:.3f} | "
              f"{d_eta:.1e} | {d_abs:.1e} |")  # fmt: skip
    ref = SHARED / QUICK[0]
    if ref.exists():
        tn, tl, m = per_problem_row(ref)
        print()
        print(f"Per-problem scipy.optimize.minimize(L-BFGS-B), solver only, {QUICK[0]} "
              f"(M={m}, extrapolated from 3 models): newton {tn:.3f} s, L-BFGS-B loop "
              f"{tl:.1f} s ({tl / tn:.0f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
