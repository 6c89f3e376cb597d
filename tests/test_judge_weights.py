"""Judge labels drawn with known unequal inclusion probabilities (issue 37, item 12): weighted
PPI++ against ppi_py (the oracle: ``w=``, ``w_unlabeled=``), the stratified Bayes posterior
against its closed-form mean, a nondegenerate interval when every label agrees (against the
Clopper-Pearson bound), and the reader's errors. Coverage: studies/judge_weights.py."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnoise as bn
from bayesnoise.conjugate.judge import stratified_posterior
from bayesnoise.data import DataError
from bayesnoise.frequentist.ppi import (
    inclusion_weights,
    ppi_mean,
    ppi_paired_difference,
    rectifier_se_floor,
)

ppi_py = pytest.importorskip("ppi_py")


def _world(seed, m=2000, models=1):
    """Hard questions (30%) labelled with probability 0.35, easy ones 0.10; the judge is
    lenient on hard questions, so an unweighted correction is biased."""
    rng = np.random.default_rng(seed)
    hard = rng.random(m) < 0.3
    p = np.where(hard, 0.3, 0.85)
    y = (rng.random((models, m)) < p) * 1.0
    j = np.where(y == 1, rng.random(y.shape) < 0.9, rng.random(y.shape) > np.where(hard, 0.5, 0.7))
    pi = np.where(hard, 0.35, 0.10)
    lab = rng.random(m) < pi
    return y, j * 1.0, pi, lab


def _sq(x):
    return float(np.squeeze(x))


def _oracle(y, yhat, yu, w, wu, lam, alpha):
    """ppi_py's estimate (lam None: its tuning) and, at the lam given, the interval with the
    Hajek-linearised SE: ppi_py's own interval of the centred data (``y - mean(w r)`` for
    ``r = y - lam yhat``, ``yu - mean(w_U yu)``), whose SDs are those of ``w (r - mean(w r))``
    and ``w_U lam (yu - mean(w_U yu))``, its estimate then 0, shifted to the estimate."""
    w, wu = w / w.mean(), wu / wu.mean()  # ppi_py normalises the weights to mean 1 too
    est = _sq(ppi_py.ppi_mean_pointestimate(y, yhat, yu, w=w, w_unlabeled=wu))
    if lam is None:
        return est, None, None
    est = _sq(ppi_py.ppi_mean_pointestimate(y, yhat, yu, lam=lam, w=w, w_unlabeled=wu))
    r = y - lam * yhat
    yc, yuc = y - np.mean(w * r), yu - np.mean(wu * yu)
    low, high = ppi_py.ppi_mean_ci(yc, yhat, yuc, alpha=alpha, lam=lam, w=w, w_unlabeled=wu)
    assert abs(_sq(low) + _sq(high)) < 1e-10  # centred: the estimate is 0
    return est, est + _sq(low), est + _sq(high)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("lam", [None, 1.0, 0.4])
def test_weighted_ppi_is_ppi_py_with_the_linearised_se(seed, lam):
    y, j, pi, lab = _world(seed)
    y, j = y[0], j[0]
    w, wu = inclusion_weights(pi, lab)
    ours = ppi_mean(y[lab], j[lab], j[~lab], lam=lam, w=w, w_unlabelled=wu, confidence_level=0.9)
    est, _, _ = _oracle(y[lab], j[lab], j[~lab], w, wu, lam, 0.1)
    assert abs(ours.estimate - est) < 1e-8  # lam None: ppi_py's tuned lam
    est, low, high = _oracle(y[lab], j[lab], j[~lab], w, wu, ours.lam, 0.1)
    assert abs(ours.low - low) < 1e-8 and abs(ours.high - high) < 1e-8
    # the p-value is the z-test with that SE
    ours = ppi_mean(y[lab], j[lab], j[~lab], lam=ours.lam, w=w, w_unlabelled=wu, null=0.7)
    se = (high - low) / (2 * stats.norm.ppf(0.95))
    assert abs(ours.p_value - 2 * stats.norm.sf(abs(est - 0.7) / se)) < 1e-8


@pytest.mark.parametrize("seed", range(3))
def test_weighted_se_is_the_wls_sandwich(seed):
    # independent formula for the SE chosen in benchmarks/results/judge_weights_se.md: each
    # Hajek mean is the intercept of a weighted least-squares fit on a constant, and its
    # linearised variance is statsmodels' HC0 sandwich variance of that intercept; the SE
    # is the root of the two parts' sum (lam^2 times the judge part), estimate and lam are
    # ppi_py's. Tolerance: the two are the same algebra in different floating-point order
    sm = pytest.importorskip("statsmodels.api")
    y, j, pi, lab = _world(20 + seed)
    y, j = y[0], j[0]
    w, wu = inclusion_weights(pi, lab)
    ours = ppi_mean(y[lab], j[lab], j[~lab], w=w, w_unlabelled=wu)
    wn, wun = w / w.mean(), wu / wu.mean()
    est = _sq(ppi_py.ppi_mean_pointestimate(y[lab], j[lab], j[~lab], w=wn, w_unlabeled=wun))
    assert abs(ours.estimate - est) < 1e-8  # ppi_py's estimate with its tuned lam
    r = y[lab] - ours.lam * j[lab]
    rect = sm.WLS(r, np.ones(r.size), weights=w).fit(cov_type="HC0")
    judge = sm.WLS(j[~lab], np.ones(wu.size), weights=wu).fit(cov_type="HC0")
    assert abs(ours.lam * judge.params[0] + rect.params[0] - ours.estimate) < 1e-10
    se = np.sqrt(rect.bse[0] ** 2 + (ours.lam * judge.bse[0]) ** 2)
    assert abs(ours.se - se) < 1e-10
    assert ours.se > rectifier_se_floor(w.sum() ** 2 / np.sum(w**2))  # the floor is not in it


def test_unweighted_ppi_is_ppi_py():
    y, j, _, lab = _world(2)
    y, j = y[0], j[0]
    ours = ppi_mean(y[lab], j[lab], j[~lab])
    low, high = ppi_py.ppi_mean_ci(y[lab], j[lab], j[~lab], alpha=0.05)
    assert abs(ours.low - _sq(low)) < 1e-8 and abs(ours.high - _sq(high)) < 1e-8


def test_weighted_paired_difference_is_ppi_py_with_the_linearised_se():
    y, j, pi, lab = _world(5, models=2)
    nan_y = np.where(lab, y, np.nan)
    d, dh = y[0] - y[1], j[0] - j[1]
    w, wu = inclusion_weights(pi, lab)
    r = ppi_paired_difference(nan_y[0], nan_y[1], j[0], j[1], label_prob=pi)
    est, _, _ = _oracle(d[lab], dh[lab], dh[~lab], w, wu, None, 0.05)
    _, low, high = _oracle(d[lab], dh[lab], dh[~lab], w, wu, r.lam, 0.05)
    assert abs(r.estimate - est) < 1e-8
    assert abs(r.low - low) < 1e-8 and abs(r.high - high) < 1e-8


def _frame(y, j, pi, lab, col="label_prob"):
    k, m = y.shape
    return pd.DataFrame(
        {
            "model": np.repeat([f"m{i}" for i in range(k)], m),
            "question": np.tile([f"q{i}" for i in range(m)], k),
            "judge_score": j.ravel(),
            "human": np.where(np.tile(lab, k), y.ravel(), np.nan),
            col: np.tile(pi, k),
        }
    )


def test_judge_finds_label_prob_and_weights_by_it():
    y, j, pi, lab = _world(7)
    df = _frame(y, j, pi, lab)
    r = bn.judge(df).isel(model=0)  # label_prob found on its own
    w, wu = inclusion_weights(pi, lab)
    lam = float(r["ppi_lambda"])
    args = (y[0, lab], j[0, lab], j[0, ~lab], w, wu)
    est, _, _ = _oracle(*args, None, 0.05)
    assert abs(float(r["accuracy_ppi"]) - est) < 1e-8
    _, low, high = _oracle(*args, lam, 0.05)
    assert abs(float(r["accuracy_ppi_low"]) - low) < 1e-8
    assert abs(float(r["accuracy_ppi_high"]) - high) < 1e-8
    other = bn.judge(df.rename(columns={"label_prob": "p_sel"}), label_prob_col="p_sel")
    assert float(other["accuracy_ppi"][0]) == float(r["accuracy_ppi"])


def test_weights_remove_the_selection_bias():
    # one large seeded data set: 3,000 hard + 7,000 easy questions; the population accuracy
    # is 0.3 * 0.3 + 0.7 * 0.85 = 0.685. The unweighted PPI++ leans to the hard questions'
    # rectifier (about -0.06); the weighted one lies within 3 of its SEs of the truth
    y, j, pi, lab = _world(11, m=10_000)
    truth = 0.3 * 0.3 + 0.7 * 0.85
    w, wu = inclusion_weights(pi, lab)
    weighted = ppi_mean(y[0, lab], j[0, lab], j[0, ~lab], w=w, w_unlabelled=wu)
    plain = ppi_mean(y[0, lab], j[0, lab], j[0, ~lab])
    assert abs(weighted.estimate - truth) < 3 * weighted.se
    assert plain.estimate < truth - 3 * plain.se


def test_stratified_posterior_mean_is_the_closed_form():
    # one model, strata s and verdicts k: E[p] = sum_{s,k} E[share_sk] E[P(y=1 | s, k)] with
    # share ~ Dirichlet(1 + items_sk) and P(y=1 | s, k) ~ Beta(1 + right_sk, 1 + wrong_sk)
    y, j, pi, lab = _world(3, m=600)
    yl = np.where(lab, y[0], np.nan)
    draws = stratified_posterior(yl[None], j, pi, draws=40_000, rng=1)[:, 1]
    cells = [(s, k) for s in np.unique(pi) for k in (0.0, 1.0) if ((pi == s) & (j[0] == k)).any()]
    size = np.array([((pi == s) & (j[0] == k)).sum() for s, k in cells]) + 1.0
    right = np.array([((pi == s) & (j[0] == k) & (yl == 1)).sum() for s, k in cells])
    wrong = np.array([((pi == s) & (j[0] == k) & (yl == 0)).sum() for s, k in cells])
    expect = np.sum(size / size.sum() * (1 + right) / (2 + right + wrong))
    # tolerance: 5 Monte Carlo SEs of the draws' mean
    assert abs(draws.mean() - expect) < 5 * draws.std() / np.sqrt(draws.size)


def test_bayes_with_label_prob_is_stratified_and_mcmc_says_no():
    y, j, pi, lab = _world(4, m=800)
    df = _frame(y, j, pi, lab)
    r = bn.judge(df, method="bayes", draws=500, chains=2)
    assert "stratified" in r.attrs["posterior"]
    assert float(r["accuracy_corrected_low"][0]) < float(r["accuracy_corrected_high"][0])
    with pytest.raises(DataError, match="method='mcmc' does not take inclusion probabilities"):
        bn.judge(df, method="mcmc")


@pytest.mark.parametrize("power_tuning", [True, False])
def test_all_labels_right_gives_a_nondegenerate_interval(power_tuning):
    # 30 random labels of a model at 0.94, all 30 right (22% of such data sets): the interval
    # must not be the point 1; the exact binomial (Clopper-Pearson) region of 30/30 is
    # [cp_low, 1], and the PPI++ and human-only intervals reach down to it
    rng = np.random.default_rng(2)
    m = 1000
    y = (rng.random(m) < 0.94) * 1.0
    lab = np.zeros(m, bool)
    lab[rng.choice(np.flatnonzero(y == 1), 30, replace=False)] = True
    j = np.where(y == 1, rng.random(m) < 0.9, rng.random(m) > 0.7) * 1.0
    df = _frame(y[None], j[None], np.full(m, 0.03), lab, col="unused")
    r = bn.judge(df, power_tuning=power_tuning).isel(model=0)
    cp_low = stats.binomtest(30, 30).proportion_ci(0.95, method="exact").low
    for name in ("accuracy_ppi", "accuracy_human"):
        low, high = float(r[f"{name}_low"]), float(r[f"{name}_high"])
        assert high - low > 0.05
        assert low <= cp_low + 1e-9 and high >= 1.0 - 1e-9


@pytest.mark.parametrize(
    ("value", "match"),
    [(1.5, "label_prob column 'label_prob' holds 1.5"), (0.0, "holds 0"), ("", "holds")],
)
def test_bad_label_prob_names_the_line(value, match):
    y, j, pi, lab = _world(8, m=50)
    df = _frame(y, j, pi, lab).astype({"label_prob": object})
    df.loc[3, "label_prob"] = value
    with pytest.raises(DataError, match=match):
        bn.judge(df)


def test_probability_one_without_a_label_is_an_error():
    y, j, pi, lab = _world(9, m=50)
    pi = pi.copy()
    pi[np.flatnonzero(~lab)[0]] = 1.0
    with pytest.raises(DataError, match="label_prob is 1 but the item has no human label"):
        bn.judge(_frame(y, j, pi, lab))


def test_check_takes_label_prob():
    y, j, pi, lab = _world(12, models=2)
    res = bn.check(
        _frame(y, j, pi, lab), baseline="m0", candidate="m1", label_prob_col="label_prob"
    )
    ours = ppi_paired_difference(
        np.where(lab, y[1], np.nan),
        np.where(lab, y[0], np.nan),
        j[1],
        j[0],
        label_prob=pi,
        confidence_level=0.95,
        alternative="less",
    )
    assert abs(float(res["change"][0]) - ours.estimate) < 1e-12
