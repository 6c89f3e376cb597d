"""``plan --human-cost``: how many human labels to buy for a target SE of a judge-graded
accuracy (PPI++)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesnoise.data import DataError

from ._result import to_result
from .judge import _check_options, _read_table


def judge_plan(
    data,
    *,
    target_se=None,
    difference=None,
    power=0.8,
    alpha=0.05,
    human_cost=1.0,
    judge_col=None,
    human_col=None,
    human=None,
    label_prob_col=None,
    power_tuning=True,
    **read,
):
    """How many human labels to buy so that each model's corrected accuracy reaches a target SE
    (``bayesnoise plan --human-cost C`` on a judge-graded pilot).

    From the pilot's variances of the human labels, the judge scores and their covariance
    (:func:`bayesnoise.frequentist.ppi.human_labels_for_se`), per model: the smallest number of
    labels among the judged items for which the PPI++ (or PPI) SE reaches ``target_se``, the
    labels a human-only mean would need, and the cost. ``difference`` with ``power`` and
    ``alpha`` instead sets ``target_se = difference / (z_(1 - alpha/2) + z_power)``.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.plan("examples/data/judge_graded.csv", target_se=0.03, human_cost=2.0)
    >>> bool((r["human_labels_needed"] < r["human_labels_alone"]).all())
    True
    """
    from scipy import stats

    from bayesnoise.frequentist.ppi import human_labels_for_se

    if human_cost is None or not float(human_cost) > 0:
        raise DataError(
            f"human_cost must be a number > 0 (the cost of one label), got {human_cost}"
        )
    if (target_se is None) == (difference is None):
        raise DataError("give exactly one target: target_se= or difference= (with power)")
    if target_se is None:
        z = stats.norm.ppf(1 - float(alpha) / 2) + stats.norm.ppf(float(power))
        target_se = float(difference) / z
    if not float(target_se) > 0:
        raise DataError(f"target_se must be > 0, got {target_se}")
    opts = _check_options("frequentist", "model", "per-model", "two-sided", 0.95, read)
    table = _read_table(data, judge_col, human_col, human, opts, label_prob_col)
    rows = []
    for m, model in enumerate(table.models):
        scores = table.judge[0, m]
        items = np.isfinite(scores)
        lab = items & np.isfinite(table.human[m])
        if lab.sum() < 3:
            raise DataError(
                f"{table.source}: model {model!r} has {int(lab.sum())} human labels; the plan "
                "needs >= 3 in the pilot to estimate the variances"
            )
        r = human_labels_for_se(
            table.human[m, lab],
            scores[lab],
            scores[items & ~lab],
            float(target_se),
            power_tuning=power_tuning,
            w=None if table.label_prob is None else 1.0 / table.label_prob[m, lab],
        )
        rows.append(
            {
                "model": model,
                "items": int(items.sum()),
                "human_labels": int(lab.sum()),
                "human_labels_needed": r["human_labels"],
                "human_labels_alone": r["human_labels_alone"],
                "ppi_lambda": r["lam"],
                "human_cost": float(human_cost),
                "human_labels_cost": r["human_labels"] * float(human_cost),
            }
        )
    out = to_result(pd.DataFrame(rows), "model")
    out.attrs.update(
        {"source": table.source, "target_se": float(target_se), "judge": table.judges[0]}
    )
    if np.isnan(out["human_labels_needed"]).any():
        warnings.warn(
            "plan: some models do not reach target_se even with every item labelled "
            "(human_labels_needed NaN); judge more items or relax the target",
            UserWarning,
            stacklevel=2,
        )
    return out
