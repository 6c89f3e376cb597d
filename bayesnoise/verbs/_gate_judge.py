""":func:`bayesnoise.check` on scores graded by an LLM judge (``judge_col=``, ``human_col=``,
``human=``): the one-sided PPI++ gate or the misclassification model's posterior
(:mod:`bayesnoise.decide.judge_gate`)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from bayesnoise._common import did_you_mean, few, option
from bayesnoise.data import DataError

from ._inputs import READ_OPTIONS
from ._result import to_result

__all__ = ["check_judged", "judged"]

#: Input options a judge-graded table uses (the others do not apply to it).
_READ_USED = ("model_col", "question_col")
RANDOM_NOTE = (
    "the correction assumes the human-labelled questions are a random sample of the judged "
    "ones (checked: labelled share per model, questions' judge means on labelled vs other ones)"
)
_DOCS = "see docs/howto/judge.md#gate-a-change-in-ci"


def judged(judge_col, human_col, human) -> bool:
    """True when any judge input is given: check then gates judge-graded scores."""
    return judge_col is not None or human_col is not None or human is not None


def _warn(text: str) -> None:
    warnings.warn(text, UserWarning, stacklevel=4)


def _one_source(data):
    if isinstance(data, list | tuple):
        if len(data) != 1:
            raise DataError(
                f"judge-graded check reads one table holding both models ({len(data)} sources "
                "given); put the baseline's and the candidate's rows in one table, with the human "
                f"labels in it or in the table given by {option('human', 'FILE')}"
            )
        return data[0]
    return data


def _labelled_checks(table, idx, source):
    from bayesnoise.frequentist.ppi import LABELLING_CHECK_LEVEL, labelling_checks

    checks = labelling_checks(table.labelled[idx], table.judge[0][idx])
    source = str(source) if len(str(source)) <= 40 else "..." + str(source)[-37:]
    if np.isfinite(checks["p_share"]) and checks["p_share"] < 0.01:
        _warn(
            f"check: {source}: the human-labelled share differs between the two models "
            f"(chi-square p = {checks['p_share']:.2g}); label the same random questions for "
            f"both ({_DOCS})"
        )
    if np.isfinite(checks["p_judge_mean"]) and checks["p_judge_mean"] < LABELLING_CHECK_LEVEL:
        _warn(
            f"check: {source}: the labelled questions' judge scores differ from the rest "
            f"(Mann-Whitney p = {checks['p_judge_mean']:.2g}); not a random subset? add a "
            "label_prob column; see docs/warnings.md#judge-labelled"
        )
    return checks


def check_judged(
    data,
    *,
    baseline,
    candidate,
    margin,
    alpha,
    method,
    n_resamples,
    rng,
    read,
    judge_col,
    human_col,
    human,
    label_prob_col=None,
):
    """The judge-graded :func:`bayesnoise.check` (its docs); ``read`` already checked."""
    from bayesnoise.decide.judge_gate import FEW_LABELLED_DISCORDANT, judge_gate
    from bayesnoise.io.judge import read_judge

    source = _one_source(data)
    given = [k for k, v in read.items() if k not in _READ_USED and v != READ_OPTIONS[k]]
    if given:
        raise DataError(
            f"option(s) {', '.join(given)} do not apply to judge-graded tables; check with "
            "judge_col/human_col/human reads one table (model, question, judge score, human "
            "label)"
        )
    table = read_judge(
        source,
        judge_col=judge_col,
        human_col=human_col,
        human=human,
        model_col=read["model_col"],
        question_col=read["question_col"],
        label_prob_col=label_prob_col,
    )
    name = table.source
    if len(table.judges) > 1:
        raise DataError(
            f"{name}: {len(table.judges)} judges ({', '.join(table.judges)}); check gates on "
            f"one: name its column with {option('judge_col', 'NAME')}, or keep one judge's rows"
        )
    if baseline is None or candidate is None:
        raise DataError(
            f"{name}: name both models with {option('baseline', repr('MODEL'))} and "
            f"{option('candidate', repr('MODEL'))}; models are {few(table.models)}"
        )
    if str(baseline) == str(candidate):
        raise DataError(f"baseline and candidate are the same model ({baseline!r})")
    idx = []
    for role, model in (("baseline", baseline), ("candidate", candidate)):
        if str(model) not in table.models:
            raise DataError(f"{name}: {did_you_mean(model, table.models, role=role)}")
        idx.append(table.models.index(str(model)))
    jb, jc = table.judge[0, idx[0]], table.judge[0, idx[1]]
    hb, hc = table.human[idx[0]], table.human[idx[1]]
    items = np.isfinite(jb) & np.isfinite(jc)
    both = items & np.isfinite(hb) & np.isfinite(hc)
    if items.sum() < max(np.isfinite(jb).sum(), np.isfinite(jc).sum()):
        _warn(
            f"check: {name}: pairing on the {int(items.sum())} questions the judge scored for "
            f"both models; {int(np.isfinite(jb).sum() - items.sum())} of the baseline's and "
            f"{int(np.isfinite(jc).sum() - items.sum())} of the candidate's are left out"
        )
    one = int((items & (np.isfinite(hb) != np.isfinite(hc))).sum())
    if one:
        _warn(
            f"check: {name}: {one} questions are human-labelled for one model only; the paired "
            f"correction uses the {int(both.sum())} labelled for both ({_DOCS})"
        )
    if both.sum() < 2 or (items & ~both).sum() < 1:
        raise DataError(
            f"{name}: {int(both.sum())} questions are human-labelled for both {baseline!r} and "
            f"{candidate!r} and {int((items & ~both).sum())} are not; the paired correction "
            "needs >= 2 and >= 1 (label the same random questions for both models)"
        )
    prob = None
    if table.label_prob is not None:
        pb, pc = table.label_prob[idx[0]], table.label_prob[idx[1]]
        differ = items & (pb != pc)
        if differ.any():
            q = int(np.flatnonzero(differ)[0])
            raise DataError(
                f"{name}: question {table.questions[q]!r} has label_prob {pb[q]:g} for "
                f"{baseline!r} and {pc[q]:g} for {candidate!r}; give each question's "
                "probability of being labelled for both models (one value per question)"
            )
        prob = pb
        checks = {"p_share": float("nan"), "p_judge_mean": float("nan")}
    else:
        checks = _labelled_checks(table, idx, name)
    try:
        res = judge_gate(
            hb,
            hc,
            jb,
            jc,
            margin=margin,
            alpha=alpha,
            method=method,
            n_resamples=n_resamples,
            rng=rng,
            label_prob=prob,
            baseline=str(baseline),
            candidate=str(candidate),
            name=Path(name).name,
        )
    except ValueError as err:
        raise DataError(f"{name}: judge column {table.judges[0]!r}: {err}") from None
    if method == "frequentist":
        differ = int(np.count_nonzero(hc[both] != hb[both]))
        if differ < FEW_LABELLED_DISCORDANT:
            _warn(
                f"check: {name}: human labels differ between the models on {differ} of "
                f"{int(both.sum())} labelled questions; the PPI++ z test is approximate: label "
                f"more ({_DOCS})"
            )
    out = to_result(res.rows, "benchmark")
    head = res.to_dict()
    head.pop("benchmarks")
    out.attrs.update(head)
    out.attrs.update(
        {
            "source": name,
            "judge": table.judges[0],
            "human_labels": int(both.sum()),
            "note": RANDOM_NOTE,
            "p_labelled_share": checks["p_share"],
            "p_labelled_judge_mean": checks["p_judge_mean"],
        }
    )
    return out
