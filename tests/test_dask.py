"""Dask-backed datasets: blockwise sums and Gram matrix on a LocalCluster, equal to the
in-memory path to 1e-10 (the only differences are summation order).

The all-pairs components (Gram matrix and sums) are tested through ``_core.pair_components``:
``pair_noise`` also builds ``questions_a_above`` (frequentist.columns), which gathers the
(M, N) scores.
"""

import logging
import time
import warnings

import numpy as np
import pytest
import xarray as xr

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("dask.distributed")

MODELS, QUESTIONS, CHUNK = 40, 800_000, 25_000
WORKER_MEMORY = "300MiB"  # the three float64 variables take 3 * 256 MB = 768 MB


def _block(seed, n_models, n_questions):
    """One chunk of K = 4 results, seeded by its position (so every run builds the same data)."""
    rng = np.random.default_rng(seed)
    u = rng.beta(2.0, 1.5, (n_models, n_questions))
    return rng.binomial(4, u).astype(float)


def _arrays(ds):
    """(p, w, k) of 0/1-score data as the noise tables build them (lazy for Dask)."""
    from bayesnoise.frequentist import _core

    return _core.cell_means(ds["correct"].data, ds["count"].data), None, ds["count"].data


def _dataset():
    import dask.array as da

    blocks = [
        da.from_delayed(dask.delayed(_block)(j, MODELS, CHUNK), (MODELS, CHUNK), float)
        for j in range(QUESTIONS // CHUNK)
    ]
    correct = da.concatenate(blocks, axis=1)
    count = da.full((MODELS, QUESTIONS), 4, chunks=(MODELS, CHUNK), dtype=np.int64)
    dims = ("model", "question")
    return xr.Dataset(
        {"correct": (dims, correct), "count": (dims, count), "sum_sq": (dims, correct)},
        coords={
            "model": [f"m{i}" for i in range(MODELS)],
            "question": [f"q{i}" for i in range(QUESTIONS)],
        },
        attrs={"benchmark": "dask", "source": "dask", "binary": True, "counts_known": True},
    )


@pytest.mark.slow
def test_dask_equals_in_memory():
    # imported here: the workers unpickle _block from this module and need not load bayesnoise
    from bayesnoise.frequentist import _core, model_noise

    chunked = _dataset()
    nbytes = 3 * MODELS * QUESTIONS * 8
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=WORKER_MEMORY,
            silence_logs=logging.ERROR,
        ) as cluster,
        distributed.Client(cluster),
    ):
        assert nbytes > 2 * dask.utils.parse_bytes(WORKER_MEMORY)
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
    print(f"dask: 2 workers x {WORKER_MEMORY}, {nbytes / 2**20:.0f} MiB of data, {elapsed:.1f} s")
