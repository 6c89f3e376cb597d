"""The Beta(p, 1-p) theory of the paper (section 4.2.1) and its kappa generalisation.

If two close models share the question accuracies u_i ~ Beta(p kappa, (1 - p) kappa) and predict
independently given the question, the paired data noise vanishes and the total variance of
A - B for one sample per question is ``2 E[u (1 - u)] = 2 p (1 - p) kappa / (kappa + 1)``; with
kappa = 1 (Beta(p, 1-p)) this is ``p (1 - p)``, so SE(A - B) = sqrt(p (1 - p) / N).
"""

from __future__ import annotations

import numpy as np

from bayesnoise.data import check_counts

from .empirical_bayes import fit_empirical_bayes
from .posterior import population_variances

__all__ = ["accuracy_group_fits", "benchmark_kappa", "theory_se_difference"]


def theory_se_difference(accuracy, n_questions, kappa=1.0):
    """Predicted SE(A - B) of two close models at accuracy p on N questions.

    Parameters
    ----------
    accuracy : array_like
        p, e.g. the mean accuracy of the pair.
    n_questions : int or array_like
        Number of questions N.
    kappa : float or array_like, default 1.0
        Concentration; 1 is the paper's Beta(p, 1-p).

    Returns
    -------
    numpy.ndarray
        ``sqrt(2 p (1 - p) kappa / (kappa + 1) / N)``.

    Examples
    --------
    >>> round(float(theory_se_difference(0.5, 100)), 4)  # sqrt(0.25 / 100)
    0.05
    """
    p = np.asarray(accuracy, dtype=float)
    n = np.asarray(n_questions, dtype=float)
    kap = np.asarray(kappa, dtype=float)
    if np.any((p < 0) | (p > 1)) or np.any(n <= 0) or np.any(kap <= 0):
        raise ValueError("need 0 <= accuracy <= 1, n_questions > 0, kappa > 0")
    _, prediction_var = population_variances(p, kap)
    return np.sqrt(2 * prediction_var / n)[()]


def accuracy_group_fits(correct, count, *, bins: int = 5, min_models: int = 2) -> list[dict]:
    """Empirical-Bayes (mu, kappa) of groups of models of similar accuracy, samples pooled.

    Models are sorted by accuracy and cut into ``min(bins, M // min_models)`` groups of (nearly)
    equal size; within a group the models' samples on a question are pooled as draws of one u_i
    (the theory's assumption that close models share question accuracies), and (mu, kappa) is
    fitted by empirical Bayes on the pooled counts. This works with K = 1 per model, where a
    per-model kappa is not identifiable.

    Parameters
    ----------
    correct, count : array_like, shape (M, N)
        Correct samples and samples per question of M models on N questions.
    bins : int, default 5
    min_models : int, default 2
        Smallest group size (fewer models cannot be pooled into K >= 2).

    Returns
    -------
    list of dict
        Per group, lowest accuracy first: ``accuracy`` (mean over its models), ``mu``,
        ``kappa``, ``status`` (the fit's kappa status), ``models`` (how many) and ``indices``
        (their rows in ``correct``).

    Examples
    --------
    >>> import numpy as np
    >>> c = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1], [1, 1, 0]])
    >>> [g["indices"].tolist() for g in accuracy_group_fits(c, np.ones_like(c), bins=2)]
    [[2, 0], [3, 1]]
    """
    c, k = check_counts(correct, count, require_answered=True)
    mask = k > 0
    if c.ndim != 2:
        raise ValueError("correct/count must be (models, questions)")
    acc = (np.where(mask, c / np.where(mask, k, 1), 0).sum(axis=1)) / mask.sum(axis=1)
    n_bins = max(1, min(int(bins), c.shape[0] // max(int(min_models), 1)))
    parts = np.array_split(np.argsort(acc), n_bins)
    pooled_c = np.array([c[part].sum(axis=0) for part in parts])
    pooled_k = np.array([k[part].sum(axis=0) for part in parts])
    fit = fit_empirical_bayes(pooled_c, pooled_k, warn=False)
    return [
        {
            "accuracy": float(acc[part].mean()),
            "mu": float(fit.mu[j]),
            "kappa": float(fit.kappa[j]),
            "models": int(part.size),
            "status": str(fit.kappa_status[j]),
            "indices": part,
        }
        for j, part in enumerate(parts)
    ]


def benchmark_kappa(correct, count, *, bins: int = 5, min_models: int = 2):
    """One kappa per benchmark, by pooling models of similar accuracy (the paper's Figure 6).

    The median of the kappas of :func:`accuracy_group_fits`.

    Parameters
    ----------
    correct, count : array_like, shape (M, N)
        Correct samples and samples per question of M models on N questions.
    bins : int, default 5
    min_models : int, default 2
        Smallest group size (fewer models cannot be pooled into K >= 2).

    Returns
    -------
    kappa : float
        Median of the estimated group kappas (groups at a kappa bound are used only when no
        group has an interior estimate).
    groups : list of dict
        :func:`accuracy_group_fits`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(0.7, 0.7, 300)          # p = 0.5, kappa = 1.4, shared by 10 models
    >>> c = rng.binomial(1, np.broadcast_to(u, (10, 300)))
    >>> kap, groups = benchmark_kappa(c, np.ones_like(c), bins=2)
    >>> bool(1.0 < kap < 2.0)
    True
    """
    groups = accuracy_group_fits(correct, count, bins=bins, min_models=min_models)
    # groups whose kappa ran to a bound (e.g. a hard benchmark where most questions are never
    # solved: the 'u_i = 0' questions of the paper) say little about the Beta shape: use the
    # estimated groups when there are any
    good = [g["kappa"] for g in groups if g["status"] == "estimated"]
    if not good:
        good = [g["kappa"] for g in groups if g["status"] != "assumed"]
    if not good:
        raise ValueError("kappa is not identifiable for any group (need >= 2 samples per question)")
    return float(np.median(good)), groups
