"""Cluster-robust standard errors for questions that come in groups (passages, subjects, repos).

Questions drawn in clusters are not independent: two questions about the same passage tend to
be right or wrong together, so var_i(p_i) / N understates the variance of the mean score. With
C clusters and r_i = p_i - pbar the centred K-averaged per-question scores of a model, let
S_c = sum_{i in c} r_i. The cluster-robust (CR1) variance of the mean score is

    var_clustered = C / (C - 1) * sum_c S_c^2 / N^2,

the sandwich of an OLS regression on an intercept with cluster-robust covariance
(statsmodels ``cov_type="cluster"`` with its default ``use_correction=True``, whose factor
C / (C - 1) * (N - 1) / (N - 1) reduces to C / (C - 1) for an intercept). For all M models at
once, S is an M x C matrix and C / (C - 1) S S^T / N^2 is the covariance of the M mean scores;
a pair's variance is V_aa + V_bb - 2 V_ab (exactly the CR1 variance of the paired
differences). Tests and intervals use Student t with C - 1 degrees of freedom (statsmodels'
``df_correction=True`` with ``use_t=True``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from bayesnoise._common import by_caller, check_confidence_level, fmt_value, option, pair_table
from bayesnoise.data import MODEL, QUESTION, DataError, attr, complete
from bayesnoise.frequentist import _core, _score

__all__ = [
    "cluster_codes",
    "cluster_noise",
    "cluster_pair_noise",
    "clustered_moments",
]

#: Below this many clusters the cluster-robust SE is itself noisy (its relative error is
#: about 1 / sqrt(2 C)) and t with C - 1 degrees of freedom is only a rough fix.
FEW_CLUSTERS = 30


def cluster_codes(ds: xr.Dataset, cluster="cluster") -> tuple[np.ndarray, np.ndarray]:
    """Integer cluster code per question (0..C-1) and the cluster labels, from a dataset.

    Parameters
    ----------
    ds : xarray.Dataset
        Dims ``(model, question)``.
    cluster : str or array_like, default "cluster"
        Name of a coordinate along ``question`` holding each question's cluster (what
        ``load(..., columns={"cluster": ...})`` / ``--cluster-col`` adds), or the labels
        themselves, one per question in ``ds.question`` order.

    Returns
    -------
    codes : numpy.ndarray of int, shape (N,)
    labels : numpy.ndarray, shape (C,)
        Labels in order of first appearance.

    Raises
    ------
    DataError
        No such coordinate, labels not aligned with the questions, a missing label, or fewer
        than 2 clusters.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> ds = from_arrays(np.ones((1, 4)), np.ones((1, 4)))
    >>> codes, labels = cluster_codes(ds, ["x", "y", "x", "z"])
    >>> codes.tolist(), labels.tolist()
    ([0, 1, 0, 2], ['x', 'y', 'z'])
    """
    source = attr(ds, "source")
    n = ds.sizes[QUESTION]
    if isinstance(cluster, str):
        if cluster not in ds.coords:
            raise DataError(
                f"{source}: no coordinate {cluster!r} giving each question's cluster; load with "
                f"{option('cluster_col', 'COLUMN')}"
                + by_caller(" or pass the labels as an array aligned with ds.question", "")
            )
        if ds[cluster].dims != (QUESTION,):
            raise DataError(
                f"{source}: coordinate {cluster!r} has dims {ds[cluster].dims}; a cluster label "
                "must be one value per question (dims ('question',))"
            )
        labels = ds[cluster].values
    else:
        labels = np.asarray(cluster, dtype=object)
        if labels.shape != (n,):
            raise DataError(
                f"{source}: got {labels.size} cluster labels of shape {labels.shape} for {n} "
                "questions; pass one label per question, in ds.question order"
            )
    codes, uniques = pd.factorize(pd.Series(labels, dtype=object), use_na_sentinel=True)
    if np.any(codes < 0):
        q = ds[QUESTION].values[np.flatnonzero(codes < 0)[0]]
        raise DataError(
            f"{source}: question {fmt_value(q)} has no cluster label ({int((codes < 0).sum())} such "
            "questions); give every question a cluster (a question alone is its own cluster)"
        )
    if uniques.size < 2:
        raise DataError(
            f"{source}: all {n} questions are in one cluster; a cluster-robust SE needs at "
            f"least 2 clusters (and about {FEW_CLUSTERS} to be reliable)"
        )
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _by_cluster(x: np.ndarray, codes: np.ndarray, n_clusters: int) -> np.ndarray:
    """Sums over the questions of each cluster along the last axis: (M, N) -> (M, C)."""
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(n_clusters))
    return np.add.reduceat(x[:, order], starts, axis=1)


def clustered_moments(p, codes, *, mask=None, matrices: bool = True) -> dict[str, np.ndarray]:
    """Cluster-robust moments of the mean scores (numpy core; all pairs from matrix products).

    Parameters
    ----------
    p : array_like, shape (M, N)
        Per-question scores (K-averaged), any value where ``mask`` is False.
    codes : array_like of int, shape (N,)
        Cluster code 0..C-1 of each question (every code present).
    mask : array_like of bool, shape (M, N), optional
        Answered cells; default all. A model is measured on the questions it answered and the
        clusters holding at least one of them.
    matrices : bool, default True
        Also return the M x M matrices (complete data only); False skips the two products
        (for many independent rows, e.g. simulation replicates).

    Returns
    -------
    dict
        (M,) arrays ``accuracy``, ``questions`` (N_m), ``clusters`` (C_m), ``var_iid``
        (var_i(p_i) / N_m, ddof 0: the squared ``se_mean`` of the noise table),
        ``var_clustered`` (C_m / (C_m - 1) sum_c S_c^2 / N_m^2) and ``icc`` (between-cluster
        covariance over var_i(p_i): the moment estimator sum_c sum_{i != j in c} r_i r_j /
        sum_c m_c (m_c - 1); NaN when every cluster has one question). With complete data
        also (M, M) ``cov_clustered`` (the CR1 covariance of the mean scores),
        ``cov_iid`` (R R^T / N^2) and ``cov_between`` (the between-cluster covariance per
        question pair, whose diagonal is the numerator of ``icc``).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[1.0, 1.0, 0.0, 0.0]])
    >>> out = clustered_moments(p, np.array([0, 0, 1, 1]))
    >>> float(out["var_iid"][0]), float(out["var_clustered"][0]), float(out["icc"][0])
    (0.0625, 0.25, 1.0)
    """
    p = np.atleast_2d(np.asarray(p, dtype=float))
    codes = np.asarray(codes, dtype=np.int64)
    n_clusters = int(codes.max()) + 1
    mask = np.ones(p.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    full = bool(mask.all())
    n = mask.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(mask, p, 0.0).sum(axis=1) / n
        r = np.where(mask, p - acc[:, None], 0.0)
        sums = _by_cluster(r, codes, n_clusters)
        sizes = _by_cluster(mask.astype(float), codes, n_clusters)
        c = (sizes > 0).sum(axis=1)
        pairs_within = (sizes * (sizes - 1.0)).sum(axis=1)
        ss = (r * r).sum(axis=1)
        s2 = (sums * sums).sum(axis=1)
        out = {
            "accuracy": acc,
            "questions": n,
            "clusters": c,
            "var_iid": ss / n / n,
            "var_clustered": c / (c - 1.0) * s2 / n / n,
            "icc": np.where(pairs_within > 0, (s2 - ss) / pairs_within, np.nan) / (ss / n),
        }
        if full and matrices:
            total = float(n[0])
            gram_s = sums @ sums.T
            gram_r = r @ r.T
            out["cov_clustered"] = c[0] / (c[0] - 1.0) * gram_s / total**2
            out["cov_iid"] = gram_r / total**2
            within = float(pairs_within[0])
            out["cov_between"] = (gram_s - gram_r) / within if within > 0 else gram_s * np.nan
    return out


def _pair_var(cov: np.ndarray, *, clip: bool = True) -> np.ndarray:
    """Var(a - b) = C_aa + C_bb - 2 C_ab for all pairs (clipped at 0 unless ``clip=False``)."""
    d = np.diag(cov)
    var = d[:, None] + d[None, :] - 2.0 * cov
    return np.maximum(var, 0.0) if clip else var


def _t_quantile(confidence_level: float, df) -> np.ndarray:
    return stats.t.ppf(0.5 + check_confidence_level(confidence_level) / 2.0, df)


def _warn_few(ds: xr.Dataset, clusters: int) -> None:
    if clusters < FEW_CLUSTERS:
        warnings.warn(
            f"only {clusters} clusters: the cluster-robust SE is noisy below about "
            f"{FEW_CLUSTERS} (relative error ~ 1/sqrt(2 C)) and its t intervals "
            f"({clusters - 1} df) may under-cover; cluster by a coarser column if you can",
            UserWarning,
            stacklevel=3,
        )


CLUSTER_COLUMNS = [
    "model",
    "clusters",
    "questions",
    "accuracy",
    "se_iid",
    "se_clustered",
    "design_effect",
    "icc",
]


def cluster_noise(
    ds: xr.Dataset, cluster="cluster", *, confidence_level: float | None = None
) -> pd.DataFrame:
    """Per model: the accuracy with its iid and cluster-robust standard errors.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`. Each model is measured on the questions it answered.
    cluster : str or array_like, default "cluster"
        A coordinate along ``question`` or one label per question (:func:`cluster_codes`).
    confidence_level : float, optional
        Add ``accuracy_low``, ``accuracy_high``: the Wilson score interval at the effective
        number of questions acc (1 - acc) / se_clustered^2 (capped at the number of samples),
        with the Student t quantile on C - 1 degrees of freedom in place of z. It stays in
        [0, 1]; with one question per cluster it is the package's accuracy interval up to
        C / (C - 1) and t.

    Returns
    -------
    pandas.DataFrame
        ``model, clusters, questions, accuracy, se_iid, se_clustered, design_effect, icc``:
        ``se_iid = sqrt(var_i(p_i) / N)`` (the noise table's ``se_mean``), ``se_clustered``
        the CR1 cluster-robust SE, ``design_effect = se_clustered^2 / se_iid^2`` (about
        1 + (m - 1) icc for clusters of m questions; C / (C - 1) when no two questions
        correlate), ``icc`` the intra-cluster correlation of the per-question scores as
        observed (K-averaged; see :func:`clustered_moments`). ``df.attrs`` holds
        ``clusters`` and ``df`` (C - 1 of the dataset).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = np.repeat(rng.beta(2, 2, 40), 5)  # 40 clusters of 5 alike questions
    >>> ds = from_arrays(rng.binomial(4, u)[None], np.full((1, 200), 4), models=["a"])
    >>> row = cluster_noise(ds, np.repeat(np.arange(40), 5)).iloc[0]
    >>> bool(row.design_effect > 2), int(row.clusters)
    (True, 40)
    """
    codes, _ = cluster_codes(ds, cluster)
    count = ds["samples"].transpose(MODEL, QUESTION).values
    p = _core.cell_means(ds["correct"].transpose(MODEL, QUESTION).values, count)
    mask = count > 0
    mom = clustered_moments(p, codes, mask=mask)
    _warn_few(ds, int(mom["clusters"].min()))
    se_iid, se_cl = np.sqrt(mom["var_iid"]), np.sqrt(mom["var_clustered"])
    with np.errstate(invalid="ignore", divide="ignore"):
        deff = mom["var_clustered"] / mom["var_iid"]
    df = pd.DataFrame(
        {
            "model": ds[MODEL].values.astype(str),
            "clusters": mom["clusters"],
            "questions": mom["questions"],
            "accuracy": mom["accuracy"],
            "se_iid": se_iid,
            "se_clustered": se_cl,
            "design_effect": deff,
            "icc": mom["icc"],
        }
    )
    if confidence_level is not None:
        acc, n = mom["accuracy"], mom["questions"].astype(float)
        n_eff = _score.effective_n(
            acc * (1.0 - acc),
            mom["var_clustered"] * n,
            n,
            fallback=n,
            cap=np.where(mask, count, 0).sum(axis=1),
        )
        low, high = _score.wilson(acc, n_eff, _t_quantile(confidence_level, mom["clusters"] - 1))
        df["accuracy_low"], df["accuracy_high"] = low, high
    df.attrs.update(clusters=int(codes.max()) + 1, df=int(codes.max()))
    return df


CLUSTER_PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "difference",
    "se_iid",
    "se_clustered",
    "design_effect",
    "icc",
    "z",
    "p_value",
]


def cluster_pair_noise(ds: xr.Dataset, cluster="cluster", *, on_missing: str = "raise"):
    """All unordered pairs: the paired difference with iid and cluster-robust SEs.

    Every pair comes from the M x M cluster-robust covariance of the mean scores (one product
    of the M x C matrix of per-cluster sums with itself), not from a loop over pairs.

    Parameters
    ----------
    ds : xarray.Dataset
        At least two models.
    cluster : str or array_like, default "cluster"
        A coordinate along ``question`` or one label per question (:func:`cluster_codes`).
    on_missing : {"raise", "intersect"}
        What to do when models do not cover the same questions
        (:func:`bayesnoise.data.complete`).

    Returns
    -------
    pandas.DataFrame
        ``model_a, model_b, difference, se_iid, se_clustered, design_effect, icc, z,
        p_value``: ``difference`` = accuracy a - accuracy b; ``se_iid = sqrt(var_i(p_a - p_b)
        / N)`` (the pairs table's ``se_difference``); ``se_clustered`` the CR1 SE of the paired
        difference; ``design_effect`` their squared ratio; ``icc`` the intra-cluster
        correlation of the per-question differences; ``z = difference / se_clustered`` (NaN
        where the variance is zero up to rounding) and ``p_value`` its two-sided p-value from
        Student t with C - 1 degrees of freedom. ``df.attrs``: ``clusters``, ``questions``,
        ``df``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(1)
    >>> u = np.repeat(rng.beta(2, 2, 40), 5)
    >>> c = rng.binomial(4, np.stack([u, u, 0.9 * u]))
    >>> ds = from_arrays(c, np.full(c.shape, 4), models=["a", "b", "c"])
    >>> out = cluster_pair_noise(ds, np.repeat(np.arange(40), 5))
    >>> out[["model_a", "model_b"]].values.tolist()
    [['a', 'b'], ['a', 'c'], ['b', 'c']]
    """
    if ds.sizes[MODEL] < 2:
        raise DataError(f"{attr(ds, 'source')}: pairs need at least two models")
    codes, _ = cluster_codes(ds, cluster)
    keep = complete(ds, on_missing=on_missing)
    if keep.sizes[QUESTION] != ds.sizes[QUESTION]:
        kept = np.isin(ds[QUESTION].values, keep[QUESTION].values)
        codes, _ = pd.factorize(codes[kept])
        if codes.max() < 1:
            raise DataError("the questions every model answered are all in one cluster")
    ds = keep
    p = _core.cell_means(
        ds["correct"].transpose(MODEL, QUESTION).values,
        ds["samples"].transpose(MODEL, QUESTION).values,
    )
    mom = clustered_moments(p, codes)
    n_clusters = int(mom["clusters"][0])
    _warn_few(ds, n_clusters)
    acc = mom["accuracy"]
    var_cl = _pair_var(mom["cov_clustered"])
    var_iid = _pair_var(mom["cov_iid"])
    n = float(mom["questions"][0])
    scale = np.abs(p).max(axis=1)
    flat = _score.is_zero_variance(var_iid * n, np.maximum.outer(scale, scale))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(flat, np.nan, (acc[:, None] - acc[None, :]) / np.sqrt(var_cl))
        icc = _pair_var(mom["cov_between"], clip=False) / (var_iid * n)
        deff = var_cl / var_iid
    out = pair_table(
        ds[MODEL].values,
        {
            "difference": acc[:, None] - acc[None, :],
            "se_iid": np.sqrt(var_iid),
            "se_clustered": np.sqrt(var_cl),
            "design_effect": deff,
            "icc": icc,
            "z": z,
            "p_value": _score.t_pvalue(z, n_clusters - 1),
        },
    )
    out.attrs.update(clusters=n_clusters, questions=int(n), df=n_clusters - 1)
    return out
