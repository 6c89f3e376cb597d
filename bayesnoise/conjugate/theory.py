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

__all__ = ["benchmark_kappa", "theory_se_difference"]


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


def benchmark_kappa(correct, count, *, bins: int = 5, min_models: int = 2):
    """One kappa per benchmark, by pooling models of similar accuracy (the paper's Figure 6).

    Models are sorted by accuracy and cut into ``bins`` groups of equal size; within a group the
    models' samples on a question are pooled as draws of one u_i (the theory's assumption that
    close models share question accuracies), and (mu, kappa) is fitted by empirical Bayes on the
    pooled counts. This works with K = 1 per model, where a per-model kappa is not identifiable.

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
        ``accuracy``, ``kappa``, ``models``, ``status`` per group.

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
    c, k = check_counts(correct, count, require_answered=True)
    mask = k > 0
    if c.ndim != 2:
        raise ValueError("correct/count must be (models, questions)")
    acc = (np.where(mask, c / np.where(mask, k, 1), 0).sum(axis=1)) / mask.sum(axis=1)
    order = np.argsort(acc)
    n_bins = max(1, min(int(bins), c.shape[0] // max(int(min_models), 1)))
    groups = []
    pooled_c, pooled_k = [], []
    parts = np.array_split(order, n_bins)
    for part in parts:
        pooled_c.append(c[part].sum(axis=0))
        pooled_k.append(k[part].sum(axis=0))
    fit = fit_empirical_bayes(np.array(pooled_c), np.array(pooled_k), warn=False)
    for j, part in enumerate(parts):
        groups.append(
            {
                "accuracy": float(acc[part].mean()),
                "kappa": float(fit.kappa[j]),
                "models": int(part.size),
                "status": str(fit.kappa_status[j]),
            }
        )
    # groups whose kappa ran to a bound (e.g. a hard benchmark where most questions are never
    # solved: the 'u_i = 0' questions of the paper) say little about the Beta shape: use the
    # estimated groups when there are any
    good = [g["kappa"] for g in groups if g["status"] == "estimated"]
    if not good:
        good = [g["kappa"] for g in groups if g["status"] != "assumed"]
    if not good:
        raise ValueError("kappa is not identifiable for any group (need >= 2 samples per question)")
    return float(np.median(good)), groups
