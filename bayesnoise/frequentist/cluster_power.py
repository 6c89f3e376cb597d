"""Power with clustered questions: detectable gaps and the number of clusters needed.

Questions come in C clusters of m questions. A question's K-averaged score is its expected
score u_i plus prediction noise of variance ``prediction / K``; the u_i of two questions in the
same cluster correlate with the intra-cluster correlation ``icc`` (a share ``icc`` of the data
variance is between clusters). The mean score of a cluster then has variance

    data (1 + (m - 1) icc) / m + prediction / (K m),

and the clusters are independent, so the power functions of :mod:`bayesnoise.frequentist.power`
apply with the cluster as the unit: :func:`clustered_components` gives the per-cluster
components, and ``n`` counts clusters.
"""

from __future__ import annotations

import numpy as np

from bayesnoise.frequentist.power import minimum_detectable_difference, required_questions

__all__ = [
    "cluster_minimum_detectable_difference",
    "cluster_power_table",
    "clustered_components",
    "required_clusters",
]


def clustered_components(cluster_size, *, data, prediction, icc):
    """Per-cluster variance components, to use with the power functions and ``n`` = clusters.

    Parameters
    ----------
    cluster_size : float or array_like
        Questions per cluster m. For unequal sizes use sum_c m_c^2 / N (the size-weighted
        mean size), which gives the exact variance of the mean score.
    data : float or array_like
        Data variance per question (score units squared, e.g. the ``data`` column of
        :func:`model_noise` or :func:`pair_noise`; not an SE).
    prediction : float or array_like
        Prediction variance per question and sample (e.g. the ``prediction`` column).
    icc : float or array_like
        Intra-cluster correlation of the questions' expected scores, in [0, 1]. The ``icc``
        column of :func:`cluster_noise` is that of the scores as observed with the eval's K;
        to plan at that same K pass ``data = se_iid**2 * N``, ``prediction = 0`` and that icc.

    Returns
    -------
    data, prediction : numpy.ndarray or float
        ``data (1 + (m - 1) icc) / m`` and ``prediction / m``: the variance components of a
        cluster's mean score.

    Examples
    --------
    >>> data_c, prediction_c = clustered_components(10, data=0.04, prediction=0.2, icc=0.25)
    >>> round(float(data_c), 6), round(float(prediction_c), 6)
    (0.013, 0.02)
    """
    m = np.asarray(cluster_size, dtype=float)
    icc = np.asarray(icc, dtype=float)
    if np.any(m < 1) or np.any((icc < 0) | (icc > 1)):
        raise ValueError("cluster_size must be >= 1 and icc in [0, 1]")
    data_c = np.asarray(data, dtype=float) * (1.0 + (m - 1.0) * icc) / m
    return data_c[()], (np.asarray(prediction, dtype=float) / m)[()]


def cluster_minimum_detectable_difference(
    n_clusters,
    cluster_size,
    *,
    data,
    prediction,
    icc,
    k=1,
    alpha=0.05,
    power=0.8,
    alternative="two-sided",
):
    """Smallest true difference detected with probability ``power`` with clustered questions.

    :func:`bayesnoise.frequentist.minimum_detectable_difference` with the cluster as the unit
    (:func:`clustered_components`): ``(z_{1-alpha/2} + z_power) sqrt((data (1 + (m - 1) icc)
    + prediction / k) / (C m))``.

    Parameters
    ----------
    n_clusters : int or array_like
        Number of clusters C.
    cluster_size : float or array_like
        Questions per cluster m (see :func:`clustered_components` for unequal sizes).
    data, prediction : float or array_like
        Per-question data and prediction variances of the score or paired difference tested.
    icc : float or array_like
        Intra-cluster correlation of the questions' expected scores.
    k : int or array_like, default 1
        Samples per question.
    alpha, power : float
        Level of the test and probability of detection, in (0, 1).
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    numpy.ndarray or float
        The difference in accuracy units.

    Examples
    --------
    With icc = 0 this is the unclustered answer for N = C m questions.

    >>> from bayesnoise.frequentist import minimum_detectable_difference
    >>> a = cluster_minimum_detectable_difference(50, 10, data=0.02, prediction=0.1, icc=0.0, k=5)
    >>> b = minimum_detectable_difference(500, data=0.02, prediction=0.1, k=5)
    >>> bool(abs(a - b) < 1e-15)
    True
    """
    data_c, pred_c = clustered_components(cluster_size, data=data, prediction=prediction, icc=icc)
    return minimum_detectable_difference(
        n_clusters,
        data=data_c,
        prediction=pred_c,
        k=k,
        alpha=alpha,
        power=power,
        alternative=alternative,
    )


def required_clusters(
    difference,
    cluster_size,
    *,
    data,
    prediction,
    icc,
    k=1,
    alpha=0.05,
    power=0.8,
    alternative="two-sided",
):
    """Number of clusters C of ``cluster_size`` questions needed to detect ``difference``.

    :func:`bayesnoise.frequentist.required_questions` with the cluster as the unit. Adding
    questions to each cluster helps little once (m - 1) icc >> 1: the between-cluster part of
    the data variance, ``data icc``, is divided by the number of clusters only.

    Parameters
    ----------
    difference : float or array_like
        True difference to detect, as a fraction.
    cluster_size : float or array_like
        Questions per cluster m.
    data, prediction : float or array_like
        Per-question data and prediction variances.
    icc : float or array_like
        Intra-cluster correlation of the questions' expected scores.
    k : int or array_like, default 1
        Samples per question.
    alpha, power : float
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    numpy.ndarray or float
        C, rounded up; the questions needed are C m.

    Examples
    --------
    >>> int(required_clusters(0.03, 10, data=0.02, prediction=0.1, icc=0.0, k=5))
    35
    >>> int(required_clusters(0.03, 10, data=0.02, prediction=0.1, icc=0.3, k=5))
    82
    """
    data_c, pred_c = clustered_components(cluster_size, data=data, prediction=prediction, icc=icc)
    return required_questions(
        difference,
        data=data_c,
        prediction=pred_c,
        k=k,
        alpha=alpha,
        power=power,
        alternative=alternative,
    )


CLUSTER_POWER_COLUMNS = [
    "clusters",
    "cluster_size",
    "icc",
    "design_effect",
    "clustered_min_difference",
]
CLUSTER_NEEDED_COLUMNS = ["clustered_clusters_needed", "clustered_questions_needed"]


def cluster_power_table(
    ds,
    cluster="cluster",
    *,
    difference=None,
    n=None,
    k=None,
    alpha=0.05,
    power=0.8,
    on_missing="raise",
    base=None,
):
    """Cluster-aware power of every pair, to set beside :func:`power_table` (paired design).

    Each pair's per-question components ``data`` and ``prediction`` come from
    :func:`power_table`. Prediction noise does not correlate between questions, so the
    between-cluster covariance of two questions' differences, ``b = icc_obs var_obs`` (the
    intra-cluster correlation and variance of the K-averaged differences as observed,
    :func:`cluster_pair_noise`), is all data variance, and the intra-cluster correlation of
    the *expected* differences is ``icc = b / data``. Negative estimates are taken as 0, and
    ``data`` is raised to ``b`` where its moment estimate came out smaller (a covariance
    cannot exceed the variance), so the clustering measured is never lost. Planning keeps the file's
    cluster size m = sum_c m_c^2 / N (the size-weighted mean, see
    :func:`clustered_components`) and grows the number of clusters: ``n`` questions are
    ``n / m`` clusters.

    Parameters
    ----------
    ds : xarray.Dataset
        At least two models and a cluster label per question.
    cluster : str or array_like, default "cluster"
        A coordinate along ``question`` or one label per question.
    difference : float, optional
        True difference to detect, as a fraction; adds ``clustered_clusters_needed`` and
        ``clustered_questions_needed`` (= clusters x m, rounded up).
    n, k : int, optional
        Questions and samples per question of the planned eval (default: the file's).
    alpha, power : float
        Two-sided level and power, in (0, 1).
    on_missing : {"raise", "intersect"}
    base : pandas.DataFrame, optional
        :func:`power_table` of the same ``ds``, ``n``, ``k``, ``alpha``, ``power`` and
        ``on_missing``, when the caller already has it (computed otherwise).

    Returns
    -------
    pandas.DataFrame
        ``model_a, model_b, clusters`` (C of the file), ``cluster_size`` (m), ``icc`` (of the
        expected per-question differences), ``design_effect`` (variance of the mean difference
        relative to independent questions at the planned K: (data (1 + (m - 1) icc) +
        prediction / K) / (data + prediction / K)), ``clustered_min_difference`` and, with
        ``difference``, the ``*_needed`` columns. With one sample per question (split not
        identifiable) the observed variance stands for ``data`` at K = 1 and, without ``k``,
        at the file's own K; other K give NaN.

    Examples
    --------
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> u = np.repeat(rng.beta(2, 2, 60), 5)  # 60 clusters of 5 alike questions
    >>> drop = np.repeat(rng.uniform(0.5, 1.0, 60), 5)  # b is worse on some clusters
    >>> c = rng.binomial(4, np.stack([u, drop * u]))
    >>> ds = from_arrays(c, np.full(c.shape, 4), models=["a", "b"])
    >>> row = cluster_power_table(ds, np.repeat(np.arange(60), 5), difference=0.05).iloc[0]
    >>> bool(row.design_effect > 1), int(row.clusters), float(row.cluster_size)
    (True, 60, 5.0)
    """
    import pandas as pd

    from bayesnoise.data import QUESTION, complete
    from bayesnoise.frequentist.cluster import cluster_codes, cluster_pair_noise
    from bayesnoise.frequentist.power import power_table

    if base is None:
        base = power_table(ds, n=n, k=k, alpha=alpha, power=power, on_missing=on_missing)
    cp = cluster_pair_noise(ds, cluster, on_missing=on_missing)
    n_file, n_clusters = cp.attrs["questions"], cp.attrs["clusters"]
    cp = base[["model_a", "model_b"]].merge(cp, on=["model_a", "model_b"], how="left")
    codes, _ = cluster_codes(ds, cluster)
    kept = np.isin(ds[QUESTION].values, complete(ds, on_missing=on_missing)[QUESTION].values)
    sizes = np.bincount(codes[kept]).astype(float)
    m = float((sizes**2).sum() / sizes.sum())  # size-weighted mean cluster size
    k_plan = base["planned_samples_per_question"].to_numpy(float)
    var_obs = cp["se_iid"].to_numpy() ** 2 * n_file  # var_i(d_i) of the K-averaged differences
    # between-cluster covariance of two questions' differences; prediction noise adds none
    between = np.maximum(np.nan_to_num(cp["icc"].to_numpy() * var_obs), 0.0)
    data, pred = base["data"].to_numpy(float), base["prediction"].to_numpy(float)
    unknown = np.isnan(data) | np.isnan(pred)  # K = 1 in the file: only the total is known
    # ... which is var_obs at K = 1 and, without k, at the file's own (possibly ragged) K
    at_obs = (k_plan == 1) | (k is None)
    data = np.where(unknown, np.where(at_obs, var_obs, np.nan), np.maximum(data, 0.0))
    data = np.maximum(data, between)  # a covariance cannot exceed the variance
    pred = np.where(unknown, 0.0, pred)
    with np.errstate(invalid="ignore", divide="ignore"):
        icc = np.where(data > 0, between / data, 0.0)
        iid = data + pred / k_plan
        deff = (data * (1.0 + (m - 1.0) * icc) + pred / k_plan) / iid
    kw = {"k": k_plan, "alpha": alpha, "power": power}
    out = pd.DataFrame(
        {
            "model_a": base["model_a"],
            "model_b": base["model_b"],
            "clusters": n_clusters,
            "cluster_size": m,
            "icc": icc,
            "design_effect": deff,
            "clustered_min_difference": cluster_minimum_detectable_difference(
                base["planned_questions"].to_numpy(float) / m,
                m,
                data=data,
                prediction=pred,
                icc=icc,
                **kw,
            ),
        }
    )
    if difference is not None:
        c = required_clusters(difference, m, data=data, prediction=pred, icc=icc, **kw)
        out["clustered_clusters_needed"] = c
        out["clustered_questions_needed"] = np.ceil(c * m)
    return out
