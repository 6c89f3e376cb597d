"""Conditional modes of the kappa grid: the hand-written Newton against scipy.optimize.

``kappa_grid`` needs, for every model and every node of log kappa (25 coarse + 41 fine nodes
per model), the mode in eta = logit mu of the Beta-Binomial log likelihood plus the Beta prior
on mu, and the curvature there. The package does this with ``maximize_newton_2d``
(``bayesnoise/conjugate/newton.py``: batched damped Newton with a line search, all problems
advanced together, started from the pooled accuracy / the coarse modes). The scipy drop-in
timed against it is :func:`scipy_conditional` below: ``scipy.optimize.elementwise.find_root``
(Chandrupatla's bracketing method, vectorised over all problems) on the gradient over the
whole box ``[-ETA_BOUND, ETA_BOUND]``, same gradient tolerance, then one evaluation at the
roots for the curvature. It passes the same tests (tests/test_published.py, the conjugate
tests). Per-problem ``scipy.optimize.minimize`` (L-BFGS-B) is timed on a few models and
extrapolated, for reference.

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
from scipy.optimize import elementwise

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


def _laplace(eta, lam, terms, model_of, mu_prior, ok):
    """The outputs of ``kappa_grid._conditional`` from the modes (as the package computes)."""
    ll, _, hee = terms_loglik(eta, lam.ravel(), terms, model_of, mu_prior)
    curv = np.maximum(-hee, 1e-12)
    a0, b0 = mu_prior
    norm = special.betaln(a0, b0) if a0 > 0 and b0 > 0 else 0.0
    lml = ll - norm + 0.5 * np.log(2.0 * np.pi / curv)
    s = lam.shape
    sd = (1.0 / np.sqrt(curv)).reshape(s)
    return eta.reshape(s), sd, lml.reshape(s), ok.reshape(s).all(axis=1)


def scipy_conditional(lam, eta0, terms, n_obs, mu_prior, max_iter, tol):
    """Drop-in for ``kappa_grid._conditional`` on ``scipy.optimize.elementwise.find_root``.

    Root of the gradient in eta (scaled by ``1 + n_obs``, so ``fatol = tol`` is the
    package's ``|d/deta| < tol (1 + n_obs)``) bracketed by ``[-ETA_BOUND, ETA_BOUND]``; where
    the gradient has no sign change there, the maximum is at the bound it points to.
    """
    n_models, n_nodes = lam.shape
    model_of = np.repeat(np.arange(n_models), n_nodes)
    lam_r = lam.ravel()
    scale = 1.0 + n_obs[model_of]

    def gradient(e, rows):
        rows = rows.astype(np.intp)
        return terms_loglik(e, lam_r[rows], terms, model_of[rows], mu_prior)[1] / scale[rows]

    res = elementwise.find_root(
        gradient,
        (-kg.ETA_BOUND, kg.ETA_BOUND),
        args=(np.arange(lam.size),),
        tolerances={"fatol": tol},
        maxiter=max_iter,
    )
    at_bound = res.status == -1
    eta = np.where(at_bound, np.where(res.f_bracket[1] > 0, kg.ETA_BOUND, -kg.ETA_BOUND), res.x)
    return _laplace(eta, lam, terms, model_of, mu_prior, res.success | at_bound)


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
    return _laplace(eta, lam, terms, model_of, mu_prior, ok)


NEWTON = kg._conditional
SOLVERS = {"newton": NEWTON, "scipy": scipy_conditional}


@contextlib.contextmanager
def using(solver):
    kg._conditional = solver
    try:
        yield
    finally:
        kg._conditional = NEWTON


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
    t_newton, _ = best_of({"n": lambda: kg.kappa_grid(*args)}, 3)
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
