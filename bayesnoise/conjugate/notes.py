"""Plain-words explanations of every kappa the empirical-Bayes fit did not estimate."""

from __future__ import annotations

import numpy as np

__all__ = ["kappa_notes"]


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
    status, kappa, assumed, bounds, shape, names=None, *, extreme=None, high=None
) -> tuple[str, ...]:
    """One note per group of models whose kappa was not estimated from the data.

    Parameters
    ----------
    status : numpy.ndarray of str, shape (M,)
        Kappa status per flattened model (see :class:`EmpiricalBayesFit`).
    kappa : numpy.ndarray, shape (M,)
    assumed : float
        The kappa assumed where it is not identifiable.
    bounds : (low, high)
        The kappa search bounds.
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
    >>> kappa_notes(np.array(["estimated"]), np.array([2.0]), 1.0, (0.01, 1e4), (1,))
    ()
    """
    lo, hi = bounds
    extreme = np.zeros(status.shape, bool) if extreme is None else extreme
    high = np.zeros(status.shape, bool) if high is None else high
    notes = []
    if np.any(status == "assumed"):
        notes.append(
            f"kappa is not identifiable for {_who(status == 'assumed', shape, names)}: every "
            f"answered question has K <= 1 sample (or there is a single question), so the data "
            f"only inform mu. Assumed kappa = {assumed:g} (the Beta(p, 1-p) theory); intervals "
            f"for ubar, V_x and V_pred depend on this assumption (pass kappa=... / CLI --kappa "
            f"to change it)."
        )
    at_lo = status == "lower_bound"
    for sel, what in ((high, "answered every sample correctly"), (~high, "got every sample wrong")):
        group = at_lo & extreme & sel
        if np.any(group):
            notes.append(
                f"{_who(group, shape, names)} {what}: kappa is not identifiable (nothing tells "
                f"easy questions from hard ones, so the questions look deterministic); kappa "
                f"fixed at the lower bound {lo:g}, and mu stays inside (0, 1) only through the "
                f"prior on mu (pass kappa=... / CLI --kappa to change it)."
            )
    if np.any(at_lo & ~extreme):
        notes.append(
            f"kappa ran to the lower bound {lo:g} for {_who(at_lo & ~extreme, shape, names)}: "
            f"questions look deterministic (each all-correct or all-wrong); kappa fixed at {lo:g}."
        )
    if np.any(status == "upper_bound"):
        notes.append(
            f"kappa ran to the upper bound {hi:g} for {_who(status == 'upper_bound', shape, names)}"
            f": no question-to-question variation beyond binomial noise is detectable; kappa "
            f"fixed at {hi:g} (all questions share one rate)."
        )
    if np.any(status == "flat"):
        notes.append(
            f"the marginal likelihood is flat in kappa for {_who(status == 'flat', shape, names)};"
            f" kappa left at kappa={kappa[status == 'flat'][0]:g}, its uncertainty is not reported."
        )
    return tuple(notes)
