"""Plain-words explanations of every kappa the empirical-Bayes fit did not estimate."""

from __future__ import annotations

import numpy as np

from bayesnoise._common import one_line, see_warnings

__all__ = [
    "kappa_notes",
]

#: The values of ``kappa_status`` (a column of every per-model table and a field of the fit).
STATUS = {
    "estimated": "estimated",
    "lower": "at lower bound",
    "upper": "at upper bound",
    "k1": "not identified (K = 1): prior",
    "single": "not identified (1 question): prior",
    "assumed": "assumed",
}


def _line(text: str, sel, shape, names) -> str:
    """``text`` with ``{who}`` filled by the models selected by ``sel``: ``"the model"``, or
    ``"N model(s) (a, b, +3 more)"`` cut to keep the note within 200 characters."""
    if not shape:
        return text.replace("{who}", "the model")
    idx = np.flatnonzero(sel)
    if names is not None:
        labels = [np.asarray(names).ravel()[i] for i in idx]
    else:
        labels = ["row " + ",".join(str(int(j)) for j in np.unravel_index(i, shape)) for i in idx]
    return one_line(text, labels)


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
    # One line each (<= 200 characters); the long story is in the docs page it points to.
    assume = "pass --kappa to assume one"
    extreme = np.zeros(status.shape, bool) if extreme is None else extreme
    high = np.zeros(status.shape, bool) if high is None else high
    notes = []
    if np.any(status == STATUS["k1"]):
        text = (
            "kappa is not identifiable for {who} (K = 1): ubar/dbar use the binomial bound; "
            f"run K >= 2 or pass --kappa; {see_warnings('kappa-k1')}"
        )
        notes.append(_line(text, status == STATUS["k1"], shape, names))
    if np.any(status == STATUS["single"]):
        text = (
            "kappa is not identifiable for {who}: one question; intervals rest on kappa's "
            f"prior; {assume}; {see_warnings('kappa-prior')}"
        )
        notes.append(_line(text, status == STATUS["single"], shape, names))
    at_lo = status == STATUS["lower"]
    for sel, what in ((high, "answered every sample correctly"), (~high, "got every sample wrong")):
        group = at_lo & extreme & sel
        if np.any(group):
            text = (
                f"{{who}} {what}: kappa is not identifiable (questions look deterministic); "
                f"{assume}; {see_warnings('kappa-prior')}"
            )
            notes.append(_line(text, group, shape, names))
    if np.any(at_lo & ~extreme):
        text = (
            f"kappa at the grid's lower edge {lo:g} for {{who}}: questions look deterministic; "
            f"intervals rest on its prior; {see_warnings('kappa-edge')}"
        )
        notes.append(_line(text, at_lo & ~extreme, shape, names))
    if np.any(status == STATUS["upper"]):
        text = (
            f"kappa at the grid's upper edge {hi:g} for {{who}}: no spread beyond binomial "
            f"noise; intervals rest on its prior; {see_warnings('kappa-edge')}"
        )
        notes.append(_line(text, status == STATUS["upper"], shape, names))
    return tuple(notes)
