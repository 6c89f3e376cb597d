"""Dask-backed datasets: blockwise sums and Gram matrix on a LocalCluster, equal to the
in-memory path to 1e-10 (the only differences are summation order).

The tests run on a small dataset (one 2-worker cluster shared by the module). The same checks on
data that the workers cannot hold (768 MiB over 2 x 300 MiB workers; 458 MiB over 400 MiB
workers) take ~30 s CPU each: ``benchmarks/bench_dask.py`` runs them at that size, its result in
``benchmarks/results/dask.md``.

The all-pairs components (Gram matrix and sums) are tested through ``_core.pair_components``:
``pair_noise`` also builds ``questions_a_above`` (frequentist.columns), which gathers the
(M, N) scores.
"""

import contextlib
import logging
import time
import warnings

import numpy as np
import pytest
import xarray as xr

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("dask.distributed")

# out-of-core size (benchmarks/bench_dask.py): the three float64 variables take 3 * 256 MB
MODELS, QUESTIONS, CHUNK = 40, 800_000, 25_000
WORKER_MEMORY = "300MiB"
SMALL_QUESTIONS = 100_000  # the tests: 4 chunks of 25,000 questions, 96 MB in all


def _block(seed, n_models, n_questions):
    """One chunk of K = 4 results, seeded by its position (so every run builds the same data)."""
    rng = np.random.default_rng(seed)
    u = rng.beta(2.0, 1.5, (n_models, n_questions))
    return rng.binomial(4, u).astype(float)


def _arrays(ds):
    """(p, w, k) of 0/1-score data as the noise tables build them (lazy for Dask)."""
    from bayesnoise.frequentist import _core

    return _core.cell_means(ds["correct"].data, ds["samples"].data), None, ds["samples"].data


def _dataset(questions=QUESTIONS):
    import dask.array as da

    blocks = [
        da.from_delayed(dask.delayed(_block)(j, MODELS, CHUNK), (MODELS, CHUNK), float)
        for j in range(questions // CHUNK)
    ]
    correct = da.concatenate(blocks, axis=1)
    count = da.full((MODELS, questions), 4, chunks=(MODELS, CHUNK), dtype=np.int64)
    dims = ("model", "question")
    return xr.Dataset(
        {"correct": (dims, correct), "samples": (dims, count), "sum_sq": (dims, correct)},
        coords={
            "model": [f"m{i}" for i in range(MODELS)],
            "question": [f"q{i}" for i in range(questions)],
        },
        attrs={"benchmark": "dask", "source": "dask", "binary": True, "counts_known": True},
    )


def _cluster(memory_limit):
    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit=memory_limit,
        silence_logs=logging.ERROR,
        dashboard_address=":0",  # any free port (8787 may be taken by another run)
    )


@pytest.fixture(scope="module")
def client():
    """One 2-worker process cluster for the module (starting one costs ~4 s CPU)."""
    with _cluster(CONJUGATE_WORKER_MEMORY) as cluster, distributed.Client(cluster) as c:
        yield c


def check_dask_equals_in_memory(questions=QUESTIONS, worker_memory=WORKER_MEMORY, client=None):
    """Model and pair components on the cluster equal the in-memory ones; returns the seconds.

    Without ``client`` a cluster of 2 workers of ``worker_memory`` is started, and the data
    must exceed what the two workers can hold."""
    # imported here: the workers unpickle _block from this module and need not load bayesnoise
    from bayesnoise.frequentist import _core, model_noise

    chunked = _dataset(questions)
    nbytes = 3 * MODELS * questions * 8
    with contextlib.ExitStack() as stack:
        if client is None:
            cluster = stack.enter_context(_cluster(worker_memory))
            stack.enter_context(distributed.Client(cluster))
            assert nbytes > 2 * dask.utils.parse_bytes(worker_memory)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lazy_models = model_noise(chunked)
            lazy_pairs = _core.pair_components(*_arrays(chunked))
        elapsed = time.perf_counter() - t0
    in_memory = chunked.compute()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = model_noise(in_memory)
        pairs = _core.pair_components(*_arrays(in_memory))
    num = models.select_dtypes("number").columns
    np.testing.assert_allclose(lazy_models[num].values, models[num].values, rtol=1e-10, atol=1e-12)
    for key in ("difference", "total", "data", "prediction", "var_mean", "correlation", "wins"):
        np.testing.assert_allclose(lazy_pairs[key], pairs[key], rtol=1e-10, atol=1e-12)
    print(f"dask: 2 workers, {nbytes / 2**20:.0f} MiB of data, {elapsed:.1f} s")
    return elapsed


def test_dask_equals_in_memory(client):
    check_dask_equals_in_memory(SMALL_QUESTIONS, client=client)


# per-model tables: (100 models x 200k questions) x 3 float64 variables = 458 MiB of data; a
# task holds 2 models (400k cells) and the temporaries of their table, ~100 MiB beyond a
# worker's ~200 MiB of imports
CONJUGATE_SHAPE, CONJUGATE_CHUNKS = (100, 200_000), (2, 50_000)
CONJUGATE_WORKER_MEMORY = "400MiB"
SMALL_CONJUGATE_SHAPE = (20, 100_000)  # the test: 10 x 2 blocks of 2 models x 50,000, 48 MB


def _block2(i, j, rows, cols):
    """One (models x questions) chunk of K = 4 results, seeded by its position."""
    rng = np.random.default_rng([i, j])
    u = rng.beta(2.0, 1.5, (rows, cols)) * rng.uniform(0.5, 1.0, (rows, 1))
    return rng.binomial(4, u).astype(float)


def _model_chunked(shape=CONJUGATE_SHAPE):
    """K = 4 results chunked over models and questions."""
    import dask.array as da

    (n_models, n_questions), (rows, cols) = shape, CONJUGATE_CHUNKS
    grid = [
        [
            da.from_delayed(dask.delayed(_block2)(i, j, rows, cols), (rows, cols), float)
            for j in range(n_questions // cols)
        ]
        for i in range(n_models // rows)
    ]
    correct = da.block(grid)
    count = da.full(shape, 4, chunks=CONJUGATE_CHUNKS, dtype=np.int64)
    dims = ("model", "question")
    return xr.Dataset(
        {"correct": (dims, correct), "samples": (dims, count), "sum_sq": (dims, correct)},
        coords={"model": [f"m{i}" for i in range(shape[0])]},
        attrs={"benchmark": "dask", "source": "dask", "binary": True, "counts_known": True},
    )


def check_dask_conjugate_posterior_equals_in_memory(
    shape=CONJUGATE_SHAPE, worker_memory=CONJUGATE_WORKER_MEMORY, client=None
):
    # the Beta-Binomial posterior table (and the fit under it) by blocks of 2 models on
    # workers that cannot hold the data; exact columns equal the in-memory table to 1e-10 (the fit of a model uses
    # that model's counts only, the blocks change the summation order at most), the Monte Carlo
    # interval ends (an independent stream per block) within 6 Monte Carlo standard errors of
    # the difference of two independent runs (sqrt 2 * mc_se each, |z| <= 4.2)
    from bayesnoise.conjugate import posterior_table

    chunked = _model_chunked(shape)
    nbytes = 3 * shape[0] * shape[1] * 8
    with contextlib.ExitStack() as stack:
        if client is None:
            cluster = stack.enter_context(_cluster(worker_memory))
            stack.enter_context(distributed.Client(cluster))
            assert nbytes > dask.utils.parse_bytes(worker_memory)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lazy_table = posterior_table(chunked, progress=False)
        elapsed = time.perf_counter() - t0
    in_memory = chunked.compute()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = posterior_table(in_memory, progress=False)
    assert list(lazy_table["model"]) == list(table["model"])
    assert list(lazy_table["kappa_status"]) == list(table["kappa_status"])
    assert lazy_table.attrs["notes"] == table.attrs["notes"]
    exact = ["questions", "accuracy", "ubar", "kappa_median", "se_data_bayes"]
    exact += ["se_prediction_bayes"]
    np.testing.assert_allclose(lazy_table[exact].values, table[exact].values, rtol=1e-10)
    mc = 6 * max(lazy_table.attrs["mc_se"], table.attrs["mc_se"])
    for col in ("mu", "mu_low", "mu_high", "ubar_low", "ubar_high"):
        np.testing.assert_allclose(lazy_table[col].values, table[col].values, rtol=0, atol=mc)
    print(
        f"dask conjugate: 2 workers, {nbytes / 2**20:.0f} MiB, blocks of 2 models, {elapsed:.1f} s"
    )
    return elapsed


def test_dask_conjugate_posterior_equals_in_memory(client):
    check_dask_conjugate_posterior_equals_in_memory(SMALL_CONJUGATE_SHAPE, client=client)
