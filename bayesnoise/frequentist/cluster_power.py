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
    alternative : {"two-sided", "one-sided"}

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
    alternative : {"two-sided", "one-sided"}

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
