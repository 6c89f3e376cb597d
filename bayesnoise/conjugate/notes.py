"""Plain-words explanations of every kappa the empirical-Bayes fit did not estimate."""

from __future__ import annotations

import numpy as np

__all__ = ["STATUS", "kappa_notes"]

#: The values of ``kappa_status`` (a column of every per-model table and a field of the fit).
STATUS = {
    "estimated": "estimated",
    "lower": "at lower bound",
    "upper": "at upper bound",
    "k1": "not identified (K = 1): prior",
    "single": "not identified (1 question): prior",
    "assumed": "assumed",
}


def _who(sel, shape, names) -> str:
    """``"the model"`` or ``"N model(s) (a, b, ...)"`` for the models selected by ``sel``."""
    idx = np.flatnonzero(sel)
    if not shape:
        return "the model"
    more = ", ..." if idx.size > 5 else ""
    if names is not None:
        labels = np.asarray(names).ravel()
        return f"{idx.size} model(s) ({', '.join(str(labels[i]) for i in idx[:5])}{more})"
    pos = [np.unravel_index(i, shape) for i in idx[:5]]
    txt = ", ".join(str(p[0] if len(p) == 1 else p) for p in pos)
    return f"{idx.size} model(s) (index {txt}{more})"


def kappa_notes(
    status, bounds, kappa_prior, shape, names=None, *, extreme=None, high=None
) -> tuple[str, ...]:
    """One note per situation where kappa was not estimated from the data.

    Parameters
    ----------
    status : numpy.ndarray of str, shape (M,)
        Kappa status per flattened model (values of :data:`STATUS`).
    bounds : (low, high)
        Support of the grid over kappa.
    kappa_prior : (median, log_sd)
        The LogNormal prior on kappa.
    shape : tuple
        Shape of the model axes (``()`` for a single model).
    names : sequence of str, optional
        Model labels.
    extreme, high : numpy.ndarray of bool, shape (M,), optional
        Models that answered every sample the same way, and of those the ones that were all
        correct (the others all wrong).

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> import numpy as np
    >>> kappa_notes(np.array(["estimated"]), (0.01, 1e4), (1.0, 1.5), (1,))
    ()
    """
    lo, hi = bounds
    prior = f"its LogNormal prior (median {kappa_prior[0]:g}, log sd {kappa_prior[1]:g})"
    change = "pass kappa=... / CLI --kappa to change it"
    extreme = np.zeros(status.shape, bool) if extreme is None else extreme
    high = np.zeros(status.shape, bool) if high is None else high
    notes = []
    if np.any(status == STATUS["k1"]):
        notes.append(
            f"kappa is not identifiable for {_who(status == STATUS['k1'], shape, names)}: every "
            f"answered question has K <= 1 sample, so the likelihood does not depend on kappa. "
            f"ubar and dbar (and prob_a_better) use the binomial bound (ubar_prior 'binomial bound "
            f"(K = 1)'): the Jeffreys posterior of the accuracy, which holds whatever kappa is "
            f"(covered 0.94-1.00 for true kappa 0.5-100 at N = 100-2,000; about 0.95 when the "
            f"questions are equally hard, up to 1.00 when they are far apart: the price of not "
            f"knowing kappa; 1.2-1.4x the width of an interval that assumes kappa). V_x and "
            f"V_pred integrate kappa over {prior} and are wide; se_data and se_prediction are "
            f"not reported. ubar_prior='beta' (CLI --ubar-prior beta) gives the kappa-prior "
            f"interval instead (covered 0.96 at a true kappa of 1 but 0.81-0.90 at 100). mu and "
            f"mu_difference do not depend on kappa. Run K >= 2 samples per question to "
            f"measure kappa, or assume a value ({change})."
        )
    if np.any(status == STATUS["single"]):
        notes.append(
            f"kappa is not identifiable for {_who(status == STATUS['single'], shape, names)}: a "
            f"single question; intervals integrate kappa over {prior} ({change})."
        )
    at_lo = status == STATUS["lower"]
    for sel, what in ((high, "answered every sample correctly"), (~high, "got every sample wrong")):
        group = at_lo & extreme & sel
        if np.any(group):
            notes.append(
                f"{_who(group, shape, names)} {what}: kappa is not identifiable (nothing tells "
                f"easy questions from hard ones, so the questions look deterministic and the "
                f"likelihood keeps rising towards kappa = {lo:g}); intervals integrate kappa "
                f"over its posterior, which there is mostly {prior}, and mu stays inside (0, 1) "
                f"through the prior on mu ({change})."
            )
    if np.any(at_lo & ~extreme):
        notes.append(
            f"the likelihood of kappa keeps rising towards the lower edge {lo:g} for "
            f"{_who(at_lo & ~extreme, shape, names)}: questions look deterministic (each "
            f"all-correct or all-wrong); intervals integrate kappa over its posterior (the "
            f"prior bounds it), so they do not collapse ({change})."
        )
    if np.any(status == STATUS["upper"]):
        notes.append(
            f"the likelihood of kappa keeps rising towards the upper edge {hi:g} for "
            f"{_who(status == STATUS['upper'], shape, names)}: no question-to-question variation "
            f"beyond binomial noise is detectable; intervals integrate kappa over its posterior "
            f"(the prior bounds it), so they do not collapse ({change})."
        )
    return tuple(notes)
