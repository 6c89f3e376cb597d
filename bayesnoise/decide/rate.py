"""One success rate per model (or per pair) with your prior, beside the frequentist test
(``bayesnoise rate``): :func:`rate_table`, :func:`rate_pairs_table`.

Per model the Bayesian side is :func:`bayesnoise.conjugate.rate_table.model_rate_posterior`
(conjugate Beta at K = 1, the prior on the population mean mu at K > 1); the frequentist side
is :mod:`bayesnoise.frequentist.rate` (exact binomial, score and likelihood-ratio tests with the
Clopper-Pearson interval at K = 1; the t-test on per-question means at K > 1).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesnoise._common import WARNING_WIDTH, one_line, see_warnings
from bayesnoise.conjugate.rate import prior_predictive_p_value
from bayesnoise.conjugate.rate_table import (
    beta_rejected,
    model_rate_posterior,
    paired_prob_a_better,
    prob_a_above_b,
)
from bayesnoise.data import MODEL, QUESTION, attr, beta_binomial_counts
from bayesnoise.frequentist.rate import (
    binomial_rate_test,
    clopper_pearson,
    mean_rate_test,
    paired_rate_test,
)

__all__ = [
    "model_posteriors",
    "rate_pairs_table",
    "rate_table",
]

#: Columns of ``rate`` per model, in order (those of a missing part are left out).
RATE_COLUMNS = [
    "model",
    "questions",
    "samples_per_question",
    "successes",
    "trials",
    "accuracy",
    "rate_model",
    "prior_a",
    "prior_b",
    "prior_weight",
    "p_value_prior",
    "rate",
    "rate_sd",
    "rate_var",
    "rate_low",
    "rate_high",
    "rate_hpd_low",
    "rate_hpd_high",
    "target",
    "prob_rate_above",
    "p_value_binomial",
    "z_rate",
    "p_value_score",
    "lr_statistic",
    "p_value_lr",
    "rate_exact_low",
    "rate_exact_high",
    "p_value_t",
    "rate_t_low",
    "rate_t_high",
]
#: Columns of ``rate --by pair``.
RATE_PAIR_COLUMNS = [
    "model_a",
    "model_b",
    "questions",
    "rate_a",
    "rate_b",
    "prob_rate_a_better",
    "prob_rate_a_better_paired",
    "difference",
    "a_only",
    "b_only",
    "p_value_mcnemar_exact",
    "p_value_paired_t",
]
_K1_ONLY = ("p_value_binomial", "z_rate", "p_value_score", "lr_statistic", "p_value_lr")
#: ``p_value_prior`` below this: the prior and the data disagree (one warning).
PRIOR_CONFLICT = 0.01
#: How that warning begins.
PRIOR_CONFLICT_TEXT = "prior and data disagree for"


def effective_trials(correct, count) -> tuple[int, int]:
    """(successes, trials) whose binomial variance matches the observed rate's: at K = 1 the
    counts themselves; at K > 1 the trials ``acc (1 - acc) N / s^2`` (``s^2`` the variance of
    the per-question means over the N questions), kept within [N, total samples], and the
    successes ``acc`` times those, rounded (N where every question has the same mean).

    Examples
    --------
    >>> effective_trials([1, 0, 1], [1, 1, 1])
    (2, 3)
    >>> effective_trials([4, 0, 4, 4], [4, 4, 4, 4])  # deterministic questions: N trials
    (3, 4)
    """
    c = np.asarray(correct, dtype=float)
    k = np.asarray(count, dtype=float)
    if np.all(k == 1):
        return int(c.sum()), int(k.size)
    means = c / k
    n_q = means.size
    acc = float(means.mean())
    s2 = float(means.var(ddof=1)) if n_q > 1 else 0.0
    trials = float(n_q) if s2 <= 0 else acc * (1 - acc) * n_q / s2
    trials = round(float(min(max(trials, n_q), k.sum())))
    return round(acc * trials), trials


def _prior_check(ci, ki, prior) -> dict:
    """``prior_weight`` (a + b, pseudo-trials) and ``p_value_prior`` (two-sided
    prior-predictive tail probability of the observed count, Beta-Binomial)."""
    s, n = effective_trials(ci, ki)
    return {
        "prior_weight": float(prior.a + prior.b),
        "p_value_prior": float(prior_predictive_p_value(s, n, prior)),
    }


def _counts(ds):
    c, k = beta_binomial_counts(ds, needed_by="rate (a success rate)")
    return c, k


def model_posteriors(ds, priors: dict) -> dict:
    """Model -> (posterior, kind) under ``priors`` (model -> BetaPrior)."""
    c, k = _counts(ds)
    models = list(map(str, ds[MODEL].values))
    return {m: model_rate_posterior(c[i], k[i], priors[m]) for i, m in enumerate(models)}


def rate_table(
    ds, priors: dict, *, target=None, confidence_level=0.95, alternative="greater"
) -> pd.DataFrame:
    """Per model: the posterior of its success rate and the frequentist test against a target.

    Parameters
    ----------
    ds : xarray.Dataset
        0/1 scores (threshold graded ones first).
    priors : dict
        Model -> :class:`~bayesnoise.conjugate.BetaPrior`.
    target : float, optional
        p0 of H0: p <= p0 (``alternative="greater"``): adds ``prob_rate_above`` and the tests.
    confidence_level : float, default 0.95
    alternative : {"greater", "less", "two-sided"}, default "greater"

    Returns
    -------
    pandas.DataFrame
        :data:`RATE_COLUMNS` (the K = 1 test columns only where a model has K = 1, the t-test
        ones only where a model has K > 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import BetaPrior
    >>> from bayesnoise.data import from_arrays
    >>> ds = from_arrays(np.array([[1, 1, 0, 1]]), np.ones((1, 4)), models=["m"])
    >>> t = rate_table(ds, {"m": BetaPrior(1, 1)}, target=0.5)
    >>> round(float(t["rate"][0]), 4), round(float(t["p_value_binomial"][0]), 4)
    (0.6667, 0.3125)
    """
    c, k = _counts(ds)
    models = list(map(str, ds[MODEL].values))
    rows, rejected = [], []
    for i, m in enumerate(models):
        used = k[i] > 0
        ci, ki = c[i][used], k[i][used]
        post, kind = model_rate_posterior(ci, ki, priors[m])
        if beta_rejected(ci, ki, post):
            rejected.append(m)
        eq = post.confidence_interval(confidence_level, "equal_tailed")
        hpd = post.confidence_interval(confidence_level, "hdi")
        row = {
            "model": m,
            "questions": int(used.sum()),
            "samples_per_question": float(ki.mean()),
            "successes": int(ci.sum()),
            "trials": int(ki.sum()),
            "accuracy": float((ci / ki).mean()),
            "rate_model": kind,
            "prior_a": float(priors[m].a),
            "prior_b": float(priors[m].b),
            **_prior_check(ci, ki, priors[m]),
            "rate": float(post.mean),
            "rate_sd": float(post.sd),
            "rate_var": float(post.var),
            "rate_low": float(eq.low),
            "rate_high": float(eq.high),
            "rate_hpd_low": float(hpd.low),
            "rate_hpd_high": float(hpd.high),
        }
        if target is not None:
            row["target"] = float(target)
            row["prob_rate_above"] = float(post.prob_greater(float(target)))
        if np.all(ki == 1):
            if target is not None:
                row.update(binomial_rate_test(int(ci.sum()), int(ki.sum()), target, alternative))
            low, high = clopper_pearson(int(ci.sum()), int(ki.sum()), confidence_level, alternative)
            row["rate_exact_low"], row["rate_exact_high"] = low, high
        else:
            row.update(mean_rate_test(ci / ki, target, alternative, confidence_level))
            if target is None:
                row.pop("p_value_t")
        rows.append(row)
    df = pd.DataFrame(rows)
    df = df[[col for col in RATE_COLUMNS if col in df.columns]]
    df.attrs.update(_notes(ds, df, priors, target, alternative))
    if rejected:
        _warn_beta(rejected)
        df.attrs["beta_rejected"] = rejected
    _warn_conflict(df)
    return df


def _prior_checks(c, k, models, priors) -> pd.DataFrame:
    """Per model the columns :func:`_warn_conflict` reads (for ``by="pair"``)."""
    rows = []
    for i, m in enumerate(models):
        used = k[i] > 0
        ci, ki = c[i][used], k[i][used]
        rows.append(
            {
                "model": m,
                "questions": int(used.sum()),
                "samples_per_question": float(ki.mean()),
                "trials": int(ki.sum()),
                "accuracy": float((ci / ki).mean()),
                "prior_a": float(priors[m].a),
                "prior_b": float(priors[m].b),
                **_prior_check(ci, ki, priors[m]),
            }
        )
    return pd.DataFrame(rows)


def _warn_conflict(df) -> None:
    """One line where ``p_value_prior`` < :data:`PRIOR_CONFLICT`: the prior and the data
    disagree; both rates and both weights of the most discordant model."""
    # a prior with a, b <= 1 (uniform, Jeffreys) has density everywhere on (0, 1) and the
    # weight of at most two trials: it cannot swamp data, only find extreme counts unlikely
    vague = (df["prior_a"] <= 1) & (df["prior_b"] <= 1)
    bad = df[(df["p_value_prior"] < PRIOR_CONFLICT) & ~vague].sort_values("p_value_prior")
    if bad.empty:
        return
    r = bad.iloc[0]
    prior_mean = r["prior_a"] / r["prior_weight"]
    n = r["trials"] if r["samples_per_question"] == 1 else r["questions"]
    unit = "trials" if r["samples_per_question"] == 1 else "questions"
    text = (
        f"{PRIOR_CONFLICT_TEXT} {{who}}{'' if len(bad) == 1 else ', first'}: prior mean "
        f"{prior_mean:.3g} (a + b = {r['prior_weight']:.3g}) vs observed {r['accuracy']:.3g} "
        f"({n:.0f} {unit}), p_value_prior {r['p_value_prior']:.1g}; check the prior; "
        f"{see_warnings('prior-conflict')}"
    )
    line = one_line(text, bad["model"])
    if len(line) > WARNING_WIDTH:  # no room for the list: the count and the first name, cut
        text = text.replace("{who}, first:", "{who}:")
        head = f"{len(bad)} model(s), first "
        spare = max(WARNING_WIDTH - len(text) + len("{who}") - len(head), 4)
        name = str(r["model"])
        name = name if len(name) <= spare else name[: spare - 3] + "..."
        line = text.replace("{who}", head + name)
    warnings.warn(line, UserWarning, stacklevel=3)


def _warn_beta(models) -> None:
    shown = ", ".join(models[:3]) + (f" and {len(models) - 3} more" if len(models) > 3 else "")
    warnings.warn(
        f"rate: question accuracies are not Beta-distributed for {shown} (likelihood-ratio "
        "test); rate_low/high assume a Beta, rate_t_low/high do not. See docs/howto/rate.md",
        UserWarning,
        stacklevel=3,
    )


def _notes(ds, df, priors, target, alternative) -> dict:
    notes = {}
    kinds = set(df["rate_model"])
    if any("K > 1" in k for k in kinds):
        notes["rate_note"] = (
            "K > 1: samples of one question are not independent trials; the prior is on the "
            "population mean mu of the Beta-Binomial hierarchy (kappa ~ LogNormal(median 1, "
            "log sd 1.5), integrated), and the frequentist side is the t-test on per-question "
            "means"
        )
    if target is not None:
        notes["hypothesis"] = {
            "greater": f"H0: rate <= {target:g} vs H1: rate > {target:g}",
            "less": f"H0: rate >= {target:g} vs H1: rate < {target:g}",
            "two-sided": f"H0: rate = {target:g} vs H1: rate != {target:g}",
        }[alternative]
    if "threshold_note" in ds.attrs:
        notes["threshold_note"] = ds.attrs["threshold_note"]
        notes["threshold"] = ds.attrs["threshold"]
        notes["success"] = ds.attrs["success"]
    notes["source"] = attr(ds, "source")
    return notes


def rate_pairs_table(
    ds, priors: dict, *, confidence_level=0.95, alternative="greater"
) -> pd.DataFrame:
    """Every pair A - B: P(rate_A > rate_B) under the priors and the paired one-sided test.

    ``prob_rate_a_better`` treats the two posteriors as independent (the note's two-sample
    model); the frequentist test uses the questions both answered (exact McNemar at K = 1,
    paired t at K > 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.conjugate import BetaPrior
    >>> from bayesnoise.data import from_arrays
    >>> ds = from_arrays(np.array([[1, 1, 1, 0], [0, 1, 0, 0]]), np.ones((2, 4)),
    ...                  models=["a", "b"])
    >>> t = rate_pairs_table(ds, {"a": BetaPrior(1, 1), "b": BetaPrior(1, 1)})
    >>> int(t["a_only"][0]), float(t["p_value_mcnemar_exact"][0])
    (2, 0.25)
    """
    c, k = _counts(ds)
    models = list(map(str, ds[MODEL].values))
    posts = {m: model_rate_posterior(c[i], k[i], priors[m])[0] for i, m in enumerate(models)}
    rows = []
    for i in range(len(models)):
        for j in range(i + 1, len(models)):
            a, b = models[i], models[j]
            shared = (k[i] > 0) & (k[j] > 0)
            ma = c[i][shared] / k[i][shared]
            mb = c[j][shared] / k[j][shared]
            k1 = bool(np.all(k[i][shared] == 1) and np.all(k[j][shared] == 1))
            row = {
                "model_a": a,
                "model_b": b,
                "questions": int(shared.sum()),
                "rate_a": float(posts[a].mean),
                "rate_b": float(posts[b].mean),
                "prob_rate_a_better": prob_a_above_b(posts[a], posts[b]),
                "difference": float(ma.mean() - mb.mean()) if shared.any() else np.nan,
            }
            if shared.any():
                row.update(paired_rate_test(ma, mb, k1=k1, alternative=alternative))
                if k1:
                    row["prob_rate_a_better_paired"] = paired_prob_a_better(
                        row["a_only"], row["b_only"]
                    )
            rows.append(row)
    df = pd.DataFrame(rows)
    df = df[[col for col in RATE_PAIR_COLUMNS if col in df.columns]]
    _warn_conflict(_prior_checks(c, k, models, priors))
    for col in ("a_only", "b_only"):
        if col in df.columns and df[col].notna().all():
            df[col] = df[col].astype(np.int64)
    df.attrs.update(_notes(ds, df.assign(rate_model=""), priors, None, alternative))
    df.attrs["pairing"] = (
        "prob_rate_a_better: the two models' posteriors taken as independent (the priors "
        "chosen); prob_rate_a_better_paired (K = 1) and the p-values use the questions both "
        f"answered ({QUESTION}s shared)"
    )
    return df
