"""Scores graded by an LLM judge, corrected with human labels: :func:`judge`."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import BY, check_alternative, did_you_mean, option
from bayesnoise.data import DataError

from ._inputs import READ_OPTIONS, check_read_options, interval_level
from ._result import to_result

__all__ = ["judge"]

METHODS = ("frequentist", "bayes", "mcmc")
BIASES = ("per-model", "shared")
_READ_USED = ("models", "model_col", "question_col")
RANDOM_NOTE = (
    "the correction assumes the human-labelled items are a random sample of the judged items "
    "(checked: labelled share per model, questions' judge means on labelled vs other questions)"
)
WEIGHTED_NOTE = (
    "the correction weights each labelled item by 1 / its inclusion probability (column {col}); "
    "it assumes the labels were drawn with those probabilities"
)
#: Most distinct inclusion probabilities (strata) method="bayes" takes.
MAX_STRATA = 20

#: Columns per model and per pair, by method (the first block is printed by every method).
JUDGE_MODEL_COLUMNS = {
    "common": [
        "items",
        "human_labels",
        "accuracy_judge",
        "accuracy_judge_low",
        "accuracy_judge_high",
        "accuracy_human",
        "accuracy_human_low",
        "accuracy_human_high",
    ],
    "frequentist": [
        "accuracy_ppi",
        "accuracy_ppi_low",
        "accuracy_ppi_high",
        "ppi_lambda",
        "effective_human_labels",
    ],
    "bayes": [
        "accuracy_corrected",
        "accuracy_corrected_low",
        "accuracy_corrected_high",
        "accuracy_rogan_gladen",
    ],
    "mcmc": [
        "accuracy_corrected_mcmc",
        "accuracy_corrected_mcmc_low",
        "accuracy_corrected_mcmc_high",
        "accuracy_rogan_gladen",
    ],
    "agreement": ["judge_sensitivity", "judge_specificity", "judge_kappa"],
}
JUDGE_PAIR_COLUMNS = {
    "common": [
        "questions",
        "human_labels",
        "difference_judge",
        "difference_judge_low",
        "difference_judge_high",
        "difference_human",
        "difference_human_low",
        "difference_human_high",
    ],
    "frequentist": [
        "difference_ppi",
        "difference_ppi_low",
        "difference_ppi_high",
        "p_value_ppi",
        "ppi_lambda",
        "effective_human_labels",
    ],
    "bayes": [
        "difference_corrected",
        "difference_corrected_low",
        "difference_corrected_high",
        "prob_a_better_corrected",
    ],
    "mcmc": [
        "difference_corrected_mcmc",
        "difference_corrected_mcmc_low",
        "difference_corrected_mcmc_high",
        "prob_a_better_corrected_mcmc",
    ],
}


def _z_mean(x, confidence_level, alternative):
    """Mean of ``x`` with its normal interval (ddof 0, the PPI convention)."""
    from bayesnoise.frequentist.ppi import z_interval

    x = np.asarray(x, float)
    mean = float(x.mean())
    low, high = z_interval(mean, float(x.std() / np.sqrt(x.size)), confidence_level, alternative)
    return mean, float(low), float(high)


def _check_options(method, by, judge_bias, alternative, confidence_level, read):
    if method not in METHODS:
        raise DataError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if by not in BY:
        raise DataError(f"by must be 'model' or 'pair', got {by!r}")
    if judge_bias not in BIASES:
        raise DataError(f"judge_bias must be one of {', '.join(BIASES)}, got {judge_bias!r}")
    try:
        check_alternative(alternative)
        interval_level("judge", confidence_level)
    except ValueError as error:
        raise DataError(str(error)) from None
    opts = check_read_options(read)
    given = [k for k, v in opts.items() if k not in _READ_USED and v != READ_OPTIONS[k]]
    if given:
        raise DataError(
            f"option(s) {', '.join(given)} do not apply to judge-graded tables; judge reads "
            "one table (model, question, judge score, human label)"
        )
    return opts


def _verdicts(judge, source, name):
    finite = judge[np.isfinite(judge)]
    if not np.isin(finite, (0.0, 1.0)).all():
        bad = finite[~np.isin(finite, (0.0, 1.0))][0]
        raise DataError(
            f"{source}: judge {name!r} gives graded scores (e.g. {bad:g}); the misclassification "
            "model (method='bayes' or 'mcmc') needs 0/1 verdicts: threshold the scores yourself, "
            "or use method='frequentist' (PPI takes scores in [0, 1])"
        )


def _labelled_checks(table):
    from bayesnoise.frequentist.ppi import LABELLING_CHECK_LEVEL, labelling_checks

    if table.label_prob is not None:  # unequal by design: the weights correct for it
        return {"p_share": float("nan"), "p_judge_mean": float("nan")}
    checks = labelling_checks(table.labelled, table.judge[0])
    if np.isfinite(checks["p_share"]) and checks["p_share"] < 0.01:
        warnings.warn(
            f"judge: the human-labelled share differs between models (chi-square p = "
            f"{checks['p_share']:.2g}); labels must be a random sample of each model's items "
            "(see docs/howto/judge.md#the-random-subset)",
            UserWarning,
            stacklevel=3,
        )
    if np.isfinite(checks["p_judge_mean"]) and checks["p_judge_mean"] < LABELLING_CHECK_LEVEL:
        warnings.warn(
            f"judge: the labelled questions' judge scores differ from the rest (Mann-Whitney p "
            f"= {checks['p_judge_mean']:.2g}); not a random subset? add a label_prob column; "
            "see docs/warnings.md#judge-labelled",
            UserWarning,
            stacklevel=3,
        )
    return checks


def _model_rows(table, j, confidence_level, alternative, power_tuning):
    from bayesnoise.frequentist.ppi import agreement, ppi_mean

    rows = []
    for m, model in enumerate(table.models):
        scores = table.judge[j, m]
        items = np.isfinite(scores)
        lab = items & np.isfinite(table.human[m])
        y, yhat, yu = table.human[m, lab], scores[lab], scores[items & ~lab]
        w = _weights(table, m, items, lab)
        row = {"model": model, "items": int(items.sum()), "human_labels": int(lab.sum())}
        if lab.sum() < 2 or yu.size < 1:
            raise DataError(
                f"{table.source}: model {model!r} has {int(lab.sum())} human-labelled and "
                f"{yu.size} unlabelled items; the correction needs >= 2 of each"
            )
        mean, low, high = _z_mean(scores[items], confidence_level, alternative)
        row.update(accuracy_judge=mean, accuracy_judge_low=low, accuracy_judge_high=high)
        human = ppi_mean(
            y,
            yhat,
            yu,
            lam=0.0,
            w=w[0],
            w_unlabelled=w[1],
            confidence_level=confidence_level,
            alternative=alternative,
        )
        row.update(
            accuracy_human=human.estimate,
            accuracy_human_low=human.low,
            accuracy_human_high=human.high,
        )
        r = ppi_mean(
            y,
            yhat,
            yu,
            lam=None if power_tuning else 1.0,
            w=w[0],
            w_unlabelled=w[1],
            confidence_level=confidence_level,
            alternative=alternative,
        )
        row.update(
            accuracy_ppi=r.estimate,
            accuracy_ppi_low=r.low,
            accuracy_ppi_high=r.high,
            ppi_lambda=r.lam,
            effective_human_labels=r.effective_labels,
        )
        agree = agreement(y, yhat)
        row.update({f"judge_{k}": v for k, v in agree.items()})
        rows.append(row)
    return rows


def _weights(table, m, items, lab):
    """Inverse-probability weights of model m's labelled and unlabelled items (None, None
    without inclusion probabilities)."""
    from bayesnoise.frequentist.ppi import inclusion_weights

    if table.label_prob is None:
        return None, None
    return inclusion_weights(table.label_prob[m, items], lab[items])


def _pair_prob(table, a, b, items):
    """Per question, the inclusion probability of a pair's question (None without them); the
    two models' probabilities must agree where both were judged."""
    if table.label_prob is None:
        return None
    pa, pb = table.label_prob[a], table.label_prob[b]
    differ = items & (pa != pb)
    if differ.any():
        q = int(np.flatnonzero(differ)[0])
        raise DataError(
            f"{table.source}: question {table.questions[q]!r} has label_prob {pa[q]:g} for "
            f"{table.models[a]!r} and {pb[q]:g} for {table.models[b]!r}; pairs need each "
            "question's probability of being labelled for both models (one value per question)"
        )
    return pa


def _pairs(models):
    return [(a, b) for a in range(len(models)) for b in range(a + 1, len(models))]


def _pair_rows(table, j, confidence_level, alternative, power_tuning):
    from bayesnoise.frequentist.ppi import ppi_mean, ppi_paired_difference

    rows = []
    for a, b in _pairs(table.models):
        sa, sb = table.judge[j, a], table.judge[j, b]
        items = np.isfinite(sa) & np.isfinite(sb)
        lab = items & np.isfinite(table.human[a]) & np.isfinite(table.human[b])
        ma, mb = table.models[a], table.models[b]
        if lab.sum() < 2 or (items & ~lab).sum() < 1:
            raise DataError(
                f"{table.source}: pair {ma!r} - {mb!r} has {int(lab.sum())} questions labelled "
                f"for both models and {int((items & ~lab).sum())} others; the paired correction "
                "needs >= 2 and >= 1 (label the same questions for every model)"
            )
        d = table.human[a] - table.human[b]
        dhat = sa - sb
        prob = _pair_prob(table, a, b, items)
        w = (None, None)
        if prob is not None:
            from bayesnoise.frequentist.ppi import inclusion_weights

            w = inclusion_weights(prob[items], lab[items])
        row = {"model_a": ma, "model_b": mb, "questions": int(items.sum())}
        row["human_labels"] = int(lab.sum())
        mean, low, high = _z_mean(dhat[items], confidence_level, alternative)
        row.update(difference_judge=mean, difference_judge_low=low, difference_judge_high=high)
        human = ppi_mean(
            d[lab],
            dhat[lab],
            dhat[items & ~lab],
            lam=0.0,
            w=w[0],
            w_unlabelled=w[1],
            confidence_level=confidence_level,
            alternative=alternative,
        )
        row.update(
            difference_human=human.estimate,
            difference_human_low=human.low,
            difference_human_high=human.high,
        )
        r = ppi_paired_difference(
            table.human[a],
            table.human[b],
            sa,
            sb,
            lam=None if power_tuning else 1.0,
            label_prob=prob,
            confidence_level=confidence_level,
            alternative=alternative,
        )
        row.update(
            difference_ppi=r.estimate,
            difference_ppi_low=r.low,
            difference_ppi_high=r.high,
            p_value_ppi=r.p_value,
            ppi_lambda=r.lam,
            effective_human_labels=r.effective_labels,
        )
        rows.append(row)
    return rows


def _interval(x, confidence_level, alternative):
    """Equal-tailed (or one-sided) interval of posterior draws along the first axis."""
    if alternative == "two-sided":
        return np.quantile(x, (1 - confidence_level) / 2, axis=0), np.quantile(
            x, (1 + confidence_level) / 2, axis=0
        )
    if alternative == "greater":
        return np.quantile(x, 1 - confidence_level, axis=0), np.full(x.shape[1:], np.inf)
    return np.full(x.shape[1:], -np.inf), np.quantile(x, confidence_level, axis=0)


def _bayes_models(table, j, rows, method, confidence_level, alternative, judge_bias, mc):
    from bayesnoise.conjugate.judge import (
        EXACT_LIMIT,
        pattern_counts,
        rate_posterior_exact,
        rogan_gladen,
    )

    name = "accuracy_corrected" + ("_mcmc" if method == "mcmc" else "")
    counts = []
    for m in range(len(table.models)):
        items = np.isfinite(table.judge[j, m])
        lab, unl = pattern_counts(table.human[m, items][None], table.judge[j, m, items][None])
        counts.append((lab, unl))
        tn, fp, fn, tp = lab.ravel()
        rows[m]["accuracy_rogan_gladen"] = rogan_gladen(tp, fn, fp, tn, unl[1], unl[0])
        if table.label_prob is not None:  # Se, Sp from the 1/pi-weighted labelled items
            h, v = table.human[m, items], table.judge[j, m, items]
            w = np.where(np.isfinite(h), 1.0 / table.label_prob[m, items], 0.0)
            with np.errstate(invalid="ignore", divide="ignore"):  # NaN without both labels
                se = np.sum(w * (h == 1) * v) / np.sum(w * (h == 1))
                sp = np.sum(w * (h == 0) * (1 - v)) / np.sum(w * (h == 0))
                rg = (v.mean() + sp - 1) / (se + sp - 1)
            rows[m]["accuracy_rogan_gladen"] = float(rg)
    if table.label_prob is not None:
        for m in range(len(table.models)):
            items = np.isfinite(table.judge[j, m])
            rate = _stratified(
                table,
                table.human[m, items][None],
                table.judge[j, m, items][None],
                table.label_prob[m, items],
                mc,
            )[:, 1]
            low, high = _interval(rate, confidence_level, alternative)
            rows[m].update({name: float(rate.mean()), f"{name}_low": low, f"{name}_high": high})
        return {"engine": STRATIFIED_ENGINE}
    labs = np.stack([c[0] for c in counts])
    unls = np.stack([c[1] for c in counts])
    exact = (
        method == "bayes"
        and judge_bias == "per-model"
        and all((u[1] + 1) * (u[0] + 1) <= EXACT_LIMIT for u in unls)
    )
    if exact:
        for m, (lab, unl) in enumerate(counts):
            tn, fp, fn, tp = lab.ravel().astype(int)
            post = rate_posterior_exact(tp, fn, fp, tn, int(unl[1]), int(unl[0]))
            low, high = post.interval(confidence_level)
            if alternative == "greater":
                low, high = post.quantile(1 - confidence_level), np.inf
            elif alternative == "less":
                low, high = -np.inf, post.quantile(confidence_level)
            rows[m].update({name: post.mean, f"{name}_low": low, f"{name}_high": high})
        return {"engine": "exact mixture"}
    share = "all" if judge_bias == "shared" else "none"
    draws = _sample(labs, unls, share, method, mc)
    rate = draws["cell"][..., 1].reshape(-1, len(table.models))
    low, high = _interval(rate, confidence_level, alternative)
    for m in range(len(table.models)):
        rows[m].update(
            {name: float(rate[:, m].mean()), f"{name}_low": low[m], f"{name}_high": high[m]}
        )
    return draws["info"]


STRATIFIED_ENGINE = "stratified by inclusion probability, conjugate Dirichlet posterior"


def _stratified(table, y, verdicts, prob, mc):
    """Draws of the true-outcome cells, stratified by the inclusion probabilities."""
    from bayesnoise.conjugate.judge import stratified_posterior

    strata = np.unique(prob)
    if strata.size > MAX_STRATA:
        raise DataError(
            f"{table.source}: label_prob takes {strata.size} distinct values; method='bayes' "
            f"stratifies by them (at most {MAX_STRATA}): round them to the design's strata, "
            "or use method='frequentist' (weighted PPI++)"
        )
    return stratified_posterior(y, verdicts, prob, draws=mc["draws"] * mc["chains"], rng=mc["rng"])


def _sample(labs, unls, share, method, mc):
    if method == "mcmc":
        from bayesnoise.mcmc.judge import sample_misclassification

        out = sample_misclassification(labs, unls, share=share, **mc)
        if out["max_rhat"] > 1.01 or out["divergences"]:
            warnings.warn(
                f"judge: MCMC max r_hat {out['max_rhat']:.3f}, {out['divergences']} divergences; "
                "raise draws and tune",
                UserWarning,
                stacklevel=4,
            )
        out["info"] = {"engine": "PyMC NUTS", "max_rhat": out["max_rhat"]}
        return out
    from bayesnoise.conjugate.judge import misclassification_posterior

    mc = {k: v for k, v in mc.items() if k != "progress"}
    out = misclassification_posterior(labs, unls, share=share, **mc)
    if share == "all":
        out["info"] = {"engine": "conjugate Gibbs sampler"}
    else:
        out["info"] = {
            "engine": "Gibbs warm-up, independence Metropolis-Hastings",
            "min_acceptance": float(np.min(out["acceptance"])),
        }
        if np.min(out["acceptance"]) < 0.05:
            warnings.warn(
                f"judge: the posterior sampler accepted {np.min(out['acceptance']):.0%} of its "
                "proposals for some model or pair; raise draws, or use method='mcmc'",
                UserWarning,
                stacklevel=4,
            )
    return out


def _bayes_pairs(table, j, rows, method, confidence_level, alternative, judge_bias, mc):
    from bayesnoise.conjugate.judge import pattern_counts

    if table.label_prob is not None:
        suffix = "_mcmc" if method == "mcmc" else ""
        for i, (a, b) in enumerate(_pairs(table.models)):
            items = np.isfinite(table.judge[j, a]) & np.isfinite(table.judge[j, b])
            prob = _pair_prob(table, a, b, items)
            cell = _stratified(
                table,
                table.human[[a, b]][:, items],
                table.judge[j, [a, b]][:, items],
                prob[items],
                mc,
            )
            diff = cell[:, 1] - cell[:, 2]
            low, high = _interval(diff, confidence_level, alternative)
            rows[i].update(
                {
                    f"difference_corrected{suffix}": float(diff.mean()),
                    f"difference_corrected{suffix}_low": float(low),
                    f"difference_corrected{suffix}_high": float(high),
                    f"prob_a_better_corrected{suffix}": float((diff > 0).mean()),
                }
            )
        return {"engine": STRATIFIED_ENGINE}
    labs, unls = [], []
    for a, b in _pairs(table.models):
        items = np.isfinite(table.judge[j, a]) & np.isfinite(table.judge[j, b])
        lab, unl = pattern_counts(table.human[[a, b]][:, items], table.judge[j, [a, b]][:, items])
        labs.append(lab)
        unls.append(unl)
    share = "slots" if judge_bias == "shared" else "none"
    draws = _sample(np.stack(labs), np.stack(unls), share, method, mc)
    cell = draws["cell"].reshape(-1, len(labs), 4)
    diff = cell[..., 1] - cell[..., 2]  # A right & B wrong minus A wrong & B right
    low, high = _interval(diff, confidence_level, alternative)
    suffix = "_mcmc" if method == "mcmc" else ""
    for i, row in enumerate(rows):
        row.update(
            {
                f"difference_corrected{suffix}": float(diff[:, i].mean()),
                f"difference_corrected{suffix}_low": low[i],
                f"difference_corrected{suffix}_high": high[i],
                f"prob_a_better_corrected{suffix}": float((diff[:, i] > 0).mean()),
            }
        )
    return draws["info"]


def judge(
    data,
    *,
    judge_col=None,
    human_col=None,
    human=None,
    method="frequentist",
    by="model",
    confidence_level=0.95,
    pair=None,
    alternative="two-sided",
    power_tuning=True,
    judge_bias="per-model",
    label_prob_col=None,
    draws=2000,
    tune=1000,
    chains=4,
    rng=0,
    progress=True,
    **read,
):
    """Accuracy graded by an LLM judge, corrected with human labels (``bayesnoise judge``).

    The judge scores every item; humans label a random subset. Beside the judge-only numbers
    (biased whenever the judge errs) and the human-only ones (unbiased, wide), the corrected
    answer: prediction-powered inference (``method="frequentist"``: PPI++, or PPI with
    ``power_tuning=False``) or the judge-misclassification model (``"bayes"``: exact mixture
    posterior or a conjugate Gibbs sampler; ``"mcmc"``: the same model in PyMC). Per model also
    the judge's agreement with the humans (sensitivity, specificity, Cohen's kappa).

    Parameters
    ----------
    data : path or DataFrame
        One row per (model, question[, judge]): a judge score in [0, 1] and a human label 0/1,
        empty where no human looked.
    judge_col : str or list of str, optional
        Judge-score column(s) (default ``judge_score``); several columns are several judges.
        A ``judge`` column naming each row's judge also gives several judges.
    human_col : str, optional
        Human-label column (default ``human``).
    human : path or DataFrame, optional
        The human labels as a second table keyed by model and question.
    method : {"frequentist", "bayes", "mcmc"}, default "frequentist"
    by : {"model", "pair"}, default "model"
        Each model's accuracy, or every pair's paired difference on shared questions
        (labelled where both models are).
    confidence_level : float, default 0.95
    pair : (str, str), optional
        With ``by="pair"``: only the pair A - B, in that order, and ``attrs["verdict"]``:
        one line with the corrected difference A - B and the row's interval, and what it
        shows (PPI++: the p-value; bayes / mcmc: ``prob_a_better_corrected`` read two-sided,
        beyond ``1 - (1 - confidence_level) / 2`` either way), one line per judge.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        Sidedness of every interval and of ``p_value_ppi`` (H0: difference 0).
    power_tuning : bool, default True
        PPI++'s tuned weight of the judge (False: PPI, weight 1).
    judge_bias : {"per-model", "shared"}, default "per-model"
        Bayes: the judge's sensitivity and specificity differ per model, or are one pair for
        every model (more precise, biased when the judge favours some models).
    label_prob_col : str, optional
        Column giving each item's probability of having been chosen for a human label, in
        (0, 1], on every row (found on its own when named ``label_prob``). Labels drawn with
        known unequal probabilities (hard questions more often, or by the judge's verdict):
        PPI++ weights them by ``1 / pi`` (``ppi_py``'s ``w=``), ``method="bayes"`` stratifies
        the model by the probability (the design-consistent likelihood; at most 20 distinct
        values). Pairs need one probability per question.
    draws, tune, chains : int
        Posterior draws per chain, burn-in, chains (Gibbs sampler and PyMC).
    rng : int or numpy.random.Generator, default 0
    progress : bool, default True
    **read
        ``models`` (a subset), ``model_col``, ``question_col``.

    Returns
    -------
    xarray.Dataset
        Dim ``model`` (or ``pair``), and ``judge`` first when there are several judges.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.judge("examples/data/judge_graded.csv")
    >>> r.sizes["model"], float(r["accuracy_ppi"].sel(model="model_a")) > 0.5
    (3, True)
    """
    opts = _check_options(method, by, judge_bias, alternative, confidence_level, read)
    level = float(confidence_level)
    table = _read_table(data, judge_col, human_col, human, opts, label_prob_col)
    if table.label_prob is not None and method == "mcmc":
        raise DataError(
            f"{table.source}: method='mcmc' does not take inclusion probabilities "
            f"(label_prob column {table.columns['label_prob']!r}); use method='bayes' (stratified, "
            "exact draws) or method='frequentist' (weighted PPI++)"
        )
    if table.label_prob is not None and method == "bayes" and judge_bias != "per-model":
        raise DataError(
            f"{table.source}: judge_bias={judge_bias!r} does not apply with inclusion "
            "probabilities (the stratified model has its own judge rates per stratum); drop it"
        )
    if pair is not None:
        table = _pair_table(table, pair, by)
    if by == "pair" and len(table.models) < 2:
        raise DataError(f"{table.source}: by='pair' needs two models or more")
    checks = _labelled_checks(table)
    mc = {"draws": int(draws), "tune": int(tune), "chains": int(chains), "rng": rng}
    mc["progress"] = progress
    spec = JUDGE_MODEL_COLUMNS if by == "model" else JUDGE_PAIR_COLUMNS
    results, info = [], {}
    for j, name in enumerate(table.judges):
        if method == "frequentist":
            rows = (_model_rows if by == "model" else _pair_rows)(
                table, j, level, alternative, power_tuning
            )
        else:
            _verdicts(table.judge[j], table.source, name)
            rows = (_model_rows if by == "model" else _pair_rows)(
                table, j, level, alternative, True
            )
            fill = _bayes_models if by == "model" else _bayes_pairs
            info = fill(table, j, rows, method, level, alternative, judge_bias, mc)
        keys = ["model"] if by == "model" else ["model_a", "model_b"]
        cols = keys + spec["common"] + spec[method]
        if by == "model":
            cols += spec["agreement"]
        results.append(to_result(pd.DataFrame(rows)[cols], by))
    out = (
        results[0]
        if len(results) == 1
        else xr.concat(results, dim=pd.Index(table.judges, name="judge"), combine_attrs="override")
    )
    if len(results) > 1:
        out["judge"].attrs.update({"long_name": "judge", "description": "judge name"})
        out.attrs["columns"] = ["judge", *results[0].attrs["columns"]]
    if pair:
        out.attrs["verdict"] = _pair_verdicts(results, table.judges, method, alternative, level)
    out.attrs.update(
        {
            "source": table.source,
            "judges": list(table.judges),
            "method": method,
            "note": RANDOM_NOTE
            if table.label_prob is None
            else WEIGHTED_NOTE.format(col=table.columns["label_prob"]),
            "p_labelled_share": checks["p_share"],
            "p_labelled_judge_mean": checks["p_judge_mean"],
            **({"posterior": info["engine"]} if info else {}),
        }
    )
    return out


def _pair_table(table, pair, by):
    """The judge table of the two models of ``pair=(A, B)``, in that order."""
    if by != "pair":
        raise DataError(
            f"{option('pair')} compares two models: use it with {option('by', repr('pair'))}"
        )
    names = [str(n) for n in pair]
    if len(names) != 2:
        raise DataError(f"pair names two models, got {len(names)}: {names}")
    if names[0] == names[1]:
        raise DataError(f"pair names the same model twice ({names[0]!r}); give two models")
    return _select(table, names)


def _pair_verdicts(results, judges, method, alternative, confidence_level) -> str:
    """The sentence on the one pair, per judge (prefixed with its name when several)."""
    from bayesnoise.decide.verdicts import judge_sentence

    lines = []
    for name, res in zip(judges, results, strict=True):
        row = {k: res[k].values[0] for k in res.data_vars}
        row.update(model_a=res["model_a"].values[0], model_b=res["model_b"].values[0])
        text = judge_sentence(
            row, method=method, confidence_level=confidence_level, alternative=alternative
        )
        lines.append(text if len(results) == 1 else f"{name}: {text}")
    return "\n".join(lines)


def _read_table(data, judge_col, human_col, human, opts, label_prob_col=None):
    """The judge table of ``data`` (the read options checked by :func:`_check_options`),
    restricted to ``opts["models"]`` when given."""
    from bayesnoise.io.judge import read_judge

    table = read_judge(
        data,
        judge_col=judge_col,
        human_col=human_col,
        human=human,
        model_col=opts["model_col"],
        question_col=opts["question_col"],
        label_prob_col=label_prob_col,
    )
    return _select(table, opts["models"]) if opts["models"] else table


def _select(table, models):
    names = [m.strip() for m in models.split(",")] if isinstance(models, str) else list(models)
    missing = [m for m in names if m not in table.models]
    if missing:
        raise DataError(f"{table.source}: {did_you_mean(missing[0], table.models)}")
    idx = [table.models.index(m) for m in names]
    table.judge = table.judge[:, idx]
    table.human = table.human[idx]
    if table.label_prob is not None:
        table.label_prob = table.label_prob[idx]
    table.models = names
    return table
