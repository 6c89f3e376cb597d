"""Sampling the hierarchical models and adding the derived noise quantities.

:func:`fit` is the one entry point: it samples a :class:`BuiltModel` with PyMC's NUTS (default),
nutpie or numpyro, adds the observed counts and the finite-sample noise quantities that the
marginal and joint models integrate out (drawn exactly from the conditional Betas), checks
convergence, and returns an :class:`xarray.DataTree` (arviz 1.x's replacement for
``InferenceData``). :func:`save_fit` and :func:`load_fit` store it as NetCDF.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

import numpy as np
import xarray as xr

from bayesnoise._common import new_spellings, reject_old, seed_of

from .diagnostics import ConvergenceWarning, check_convergence, default_var_names, warn_user
from .inputs import BuiltModel
from .samplers import check_arguments, raised_draws, resolve_sampler, retry_message

__all__ = ["fit", "load_fit", "save_fit"]

# Posterior draws processed at once when drawing u exactly (bounds memory to ~chunk*M*N floats).
_CHUNK_CELLS = 4_000_000


@new_spellings
def fit(
    model: BuiltModel,
    *,
    sampler: Literal["auto", "pymc", "nutpie", "numpyro"] = "auto",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 2,
    cores: int | None = None,
    rng: int = 0,
    progress: bool = True,
    target_accept: float | None = None,
    derived: bool = True,
    check: bool = True,
    adapt: bool = True,
    **old,
) -> xr.DataTree:
    """Sample a bayesnoise PyMC model and return the posterior with derived noise quantities.

    Parameters
    ----------
    model : BuiltModel
        From :func:`marginal_model`, :func:`latent_model`, :func:`fixed_hyper_model` or
        :func:`joint_model`.
    sampler : {"auto", "pymc", "nutpie", "numpyro"}, default "auto"
        NUTS implementation; ``"auto"`` is nutpie for the joint model when it is installed and
        PyMC's otherwise (:func:`resolve_sampler`). Always passed explicitly to PyMC (with nutpie installed,
        ``pm.sample`` would otherwise pick it silently and skip PyMC's convergence checks);
        convergence is checked here for every sampler. With nutpie, the joint model's log
        density is the numba kernel of :mod:`bayesnoise.mcmc.numba_joint` (the same density,
        several times faster per gradient than nutpie's compilation of the PyMC graph).
        nutpie and numpyro are optional extras: without them an ``ImportError``
        (``OptionalDependencyError``) naming the extra to install is raised before anything
        is compiled.
    draws, tune, chains : int
        Kept draws per chain, tuning steps per chain, number of chains.
    cores : int, optional
        Parallel chains (default ``min(chains, CPU count)``).
    rng : int or numpy.random.Generator, default 0
        Seeds the sampler and the exact Beta draws of the derived quantities.
    progress : bool, default True
        Show the sampler's progress bar. It is always written to standard error, never to
        standard output (which stays free for results).
    target_accept : float, optional
        NUTS target acceptance (sampler default when None); raise to 0.9-0.99 on divergences.
    derived : bool, default True
        Add the finite-sample quantities the model integrates out: for the marginal model
        ``ubar``, ``V_x``, ``V_pred`` per model; for the joint model also ``dbar``
        (dims ``model_a``, ``model_b``: posterior of mean_i(u_ai - u_bi) over the questions
        both answered) and ``population_difference`` (``mu_a - mu_b``). ``u`` is drawn once per
        posterior draw from ``Beta(alpha + c, beta + K - c)``, which is exact.
    check : bool, default True
        Warn (:class:`ConvergenceWarning`, naming the variables) when r_hat > 1.01, bulk or
        tail ESS < 400, or any transition diverged.
    adapt : bool, default True
        With ``check``: when the sampled parameters are out of those bounds, sample once more
        with more draws (:func:`~bayesnoise.mcmc.samplers.raised_draws`: enough for the
        smallest ESS to reach 400 at the rate measured, 2 to 4 times as many, twice the
        tuning, ``target_accept`` 0.95 after divergences) and say so in one
        :class:`ConvergenceWarning`, which also says whether the second run is within bounds.
        The draws and tuning steps used are in ``attrs``. Not with one chain (r_hat needs
        two: a one-chain run is a quick look).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior``, ``sample_stats``, ``observed_data`` (``correct``, ``count`` on
        dims ``model``, ``question``); attrs ``bayesnoise_model``, ``sampler``,
        ``compile_time``, ``sampling_time`` (seconds), ``rng``, ``priors`` (JSON),
        ``draws`` and ``tune`` (per chain, as sampled).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.mcmc import marginal_model, fit
    >>> rng = np.random.default_rng(0)
    >>> correct = rng.binomial(10, rng.beta(1.0, 1.0, size=(2, 100)))
    >>> tree = fit(marginal_model(correct, 10), draws=100, tune=100, chains=1,
    ...            progress=False, check=False)
    >>> sorted(tree["posterior"].data_vars)
    ['V_pred', 'V_x', 'data_var', 'kappa', 'mu', 'prediction_var', 'ubar']
    """
    reject_old("fit", old)
    check_arguments(model, sampler, draws, tune, chains)
    sampler = resolve_sampler(sampler, model.kind)
    kind, data = model.kind, model.data
    rng = seed_of(rng)  # nutpie and the retry's SeedSequence take an int
    run = (model, sampler, chains, cores, rng, progress)
    tree, compile_time, sampling_time = _sample(*run, draws, tune, target_accept)
    first = asked = None
    if check and adapt and chains > 1:  # out of bounds: sample once more, and say so
        first = check_convergence(tree, var_names=default_var_names(kind), warn=False)
        if not first.ok:
            asked = (draws, tune, target_accept)
            draws, tune, target_accept = raised_draws(first, *asked)
            tree, compile_time, sampling_time = _sample(*run, draws, tune, target_accept)
    tree["observed_data"] = xr.Dataset(
        {
            "correct": (("model", "question"), data.correct),
            "count": (("model", "question"), data.count),
        },
        coords={"model": data.models, "question": data.questions},
    )
    if derived:
        seed_seq = np.random.SeedSequence([int(rng), 4])
        if kind == "marginal":
            _add_finite_sample_marginal(tree, data, np.random.default_rng(seed_seq))
        elif kind == "joint":
            _add_finite_sample_joint(tree, data, seed_seq)
    tree.attrs.update(
        {
            "bayesnoise_model": kind,
            "sampler": sampler,
            "compile_time": float(compile_time),
            "sampling_time": float(sampling_time),
            "random_seed": int(rng),
            "priors": json.dumps(asdict(model.priors)),
            "draws": int(draws),
            "tune": int(tune),
        }
    )
    if check:
        report = check_convergence(tree, default_var_names(kind), warn=first is None or first.ok)
        if first is not None and not first.ok:  # one warning says both runs
            used = (draws, tune, target_accept)
            warn_user(retry_message(first, asked, used, report), ConvergenceWarning)
    return tree


def _sample(model, sampler, chains, cores, rng, progress, draws, tune, target_accept):
    """One run of the sampler: (tidied tree, compile seconds, sampling seconds)."""
    import pymc as pm

    kind = model.kind
    start = time.perf_counter()
    if sampler == "nutpie":
        import nutpie

        if kind == "joint":  # same log density, hand-written in numba (numba_joint)
            from .numba_joint import compile_joint_nutpie

            compiled = compile_joint_nutpie(model)
        else:
            compiled = nutpie.compile_pymc_model(model.model)
        compile_time = time.perf_counter() - start
        kwargs: dict[str, Any] = {}
        if target_accept is not None:
            kwargs["target_accept"] = target_accept
        t1 = time.perf_counter()
        with contextlib.redirect_stdout(sys.stderr):
            tree = nutpie.sample(
                compiled,
                draws=draws,
                tune=tune,
                chains=chains,
                cores=cores if cores is not None else chains,
                seed=rng,
                progress_bar=progress,
                save_warmup=False,
                **kwargs,
            )
        sampling_time = time.perf_counter() - t1
    else:
        kwargs = {}
        if target_accept is not None:
            kwargs["target_accept"] = target_accept
        # PyMC's rich console writes to whatever sys.stdout is: progress goes to stderr.
        with contextlib.redirect_stdout(sys.stderr):
            tree = pm.sample(
                draws=draws,
                tune=tune,
                chains=chains,
                cores=cores,
                random_seed=rng,
                progressbar=progress,
                quiet=not progress,
                nuts_sampler=sampler,
                compute_convergence_checks=False,
                model=model.model,
                **kwargs,
            )
        wall = time.perf_counter() - start
        sampling_time = float(tree["posterior"].attrs.get("sampling_time", wall))
        compile_time = max(wall - sampling_time, 0.0)
    return _tidy(tree), compile_time, sampling_time


def _tidy(tree: xr.DataTree) -> xr.DataTree:
    """Keep posterior, sample_stats (numeric variables only, so NetCDF can store them)."""
    keep = {}
    for group in ("posterior", "sample_stats", "constant_data"):
        if group in tree.children:
            ds = tree[group].to_dataset()
            if group == "sample_stats":
                ds = ds[[v for v in ds.data_vars if ds[v].dtype.kind in "biuf"]]
                if "tree_depth" not in ds and "depth" in ds:  # nutpie's name
                    ds["tree_depth"] = ds["depth"]
            keep[group] = ds
    out = xr.DataTree.from_dict(keep)
    out.attrs.update(tree.attrs)
    return out


def _posterior_array(tree: xr.DataTree, name: str) -> np.ndarray:
    return tree["posterior"][name].transpose("chain", "draw", ...).values


def _draw_chunks(n_samples: int, cells: int):
    step = max(1, _CHUNK_CELLS // max(cells, 1))
    for lo in range(0, n_samples, step):
        yield slice(lo, min(lo + step, n_samples))


def _finite_sample_stats(u: np.ndarray, mask: np.ndarray, n: np.ndarray):
    """ubar, V_x, V_pred over the answered questions; u has shape (S, M, N)."""
    w = mask[None]
    ubar = (u * w).sum(-1) / n
    v_x = (w * (u - ubar[..., None]) ** 2).sum(-1) / n
    v_pred = (w * u * (1 - u)).sum(-1) / n
    return ubar, v_x, v_pred


def _store(tree: xr.DataTree, shape: tuple[int, int], values: dict[str, tuple]) -> None:
    post = tree["posterior"].to_dataset()
    for name, (dims, arr) in values.items():
        post[name] = (("chain", "draw", *dims), arr.reshape(*shape, *arr.shape[1:]))
    tree["posterior"] = post


def _add_finite_sample_marginal(tree, data, rng) -> None:
    mu = _posterior_array(tree, "mu")
    kappa = _posterior_array(tree, "kappa")
    shape = mu.shape[:2]
    mu = mu.reshape(-1, mu.shape[-1])
    kappa = kappa.reshape(-1, kappa.shape[-1])
    mask = data.mask
    n = mask.sum(axis=1)
    out = {k: np.empty_like(mu) for k in ("ubar", "V_x", "V_pred")}
    for sl in _draw_chunks(len(mu), data.correct.size):
        a = (mu[sl] * kappa[sl])[..., None] + data.correct
        b = ((1 - mu[sl]) * kappa[sl])[..., None] + data.count - data.correct
        u = rng.beta(a, b)
        for key, val in zip(out, _finite_sample_stats(u, mask, n), strict=True):
            out[key][sl] = val
    _store(tree, shape, {k: (("model",), v) for k, v in out.items()})


def _pair_counts(mask: np.ndarray) -> np.ndarray:
    w = mask.astype(float)
    return w @ w.T


def _u_chunk(rng, theta, b, phi, data, full: bool):
    """Exact u-draws for a block of posterior draws: ubar, V_x, V_pred and (partial) s."""
    from ._jointkernel import joint_u_stats

    n_draws, n_models = theta.shape
    out = [np.empty((n_draws, n_models)) for _ in range(3)]
    u = np.empty((0 if full else n_draws, n_models, b.shape[1]))
    gen = np.random.default_rng(rng)
    joint_u_stats(gen, theta, b, phi, data.correct, data.count, *out, u)
    if full:
        return out, None
    # s[., a, b] = sum_i u_ai m_ai m_bi, as one 2-D matrix product (u is 0 where unanswered)
    w = data.mask.astype(float)
    s = (u.reshape(-1, w.shape[1]) @ w.T).reshape(n_draws, n_models, n_models)
    return out, s


def _add_finite_sample_joint(tree, data, seed_seq) -> None:
    """Add ubar, V_x, V_pred, dbar, population_difference; seed_seq: SeedSequence or Generator."""
    from concurrent.futures import ThreadPoolExecutor

    theta = _posterior_array(tree, "theta")
    shape = theta.shape[:2]
    theta = np.ascontiguousarray(theta.reshape(-1, theta.shape[-1]))
    b = np.ascontiguousarray(_posterior_array(tree, "difficulty").reshape(theta.shape[0], -1))
    phi = np.ascontiguousarray(_posterior_array(tree, "phi").reshape(theta.shape))
    mu = _posterior_array(tree, "mu").reshape(theta.shape)
    mask = data.mask
    full = bool(mask.all())
    # fixed blocks with their own child seeds: the draws do not depend on the thread count
    blocks = list(_draw_chunks(len(theta), data.correct.size))
    seeds = seed_seq.spawn(len(blocks))
    with ThreadPoolExecutor(max_workers=2) as pool:  # the kernel releases the GIL
        results = list(
            pool.map(
                lambda j: _u_chunk(
                    seeds[j], theta[blocks[j]], b[blocks[j]], phi[blocks[j]], data, full
                ),
                range(len(blocks)),
            )
        )
    out = {
        k: np.concatenate([r[0][i] for r in results])
        for i, k in enumerate(("ubar", "V_x", "V_pred"))
    }
    if full:  # every model answered every question: dbar is a difference of means
        dbar = out["ubar"][:, :, None] - out["ubar"][:, None, :]
    else:
        s = np.concatenate([r[1] for r in results])
        with np.errstate(invalid="ignore", divide="ignore"):
            dbar = (s - np.swapaxes(s, -1, -2)) / _pair_counts(mask)
    pop = mu[:, :, None] - mu[:, None, :]
    values = {k: (("model",), v) for k, v in out.items()}
    values["dbar"] = (("model_a", "model_b"), dbar)
    values["population_difference"] = (("model_a", "model_b"), pop)
    _store(tree, shape, values)
    post = tree["posterior"].to_dataset()
    post = post.assign_coords(model_a=data.models, model_b=data.models)
    tree["posterior"] = post


def save_fit(tree: xr.DataTree, path: str | Path) -> Path:
    """Write a fit to NetCDF-4 (h5netcdf engine); :func:`load_fit` reads it back.

    Parameters
    ----------
    tree : xarray.DataTree
        From :func:`fit`.
    path : str or pathlib.Path
        File to write (overwritten).

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np, xarray as xr
    >>> from bayesnoise.mcmc import save_fit, load_fit
    >>> post = xr.Dataset({"mu": (("chain", "draw"), np.full((1, 3), 0.5))})
    >>> tree = xr.DataTree.from_dict({"posterior": post})
    >>> path = save_fit(tree, os.path.join(tempfile.mkdtemp(), "fit.nc"))
    >>> load_fit(path)["posterior"]["mu"].values.tolist()
    [[0.5, 0.5, 0.5]]
    """
    path = Path(path)
    tree.to_netcdf(path, engine="h5netcdf")
    return path


def load_fit(path: str | Path) -> xr.DataTree:
    """Read a fit written by :func:`save_fit` fully into memory (the file is closed afterwards).

    Parameters
    ----------
    path : str or pathlib.Path

    Returns
    -------
    xarray.DataTree

    Examples
    --------
    See :func:`save_fit`.
    """
    with xr.open_datatree(Path(path), engine="h5netcdf") as tree:
        return tree.load().copy()
