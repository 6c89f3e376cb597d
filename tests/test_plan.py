"""The budget planner (``bn.plan``, ``bayesnoise plan``): K* against a numerical minimum of
the continuous cost, the plan against a brute-force search over (N, K), N against
``required_questions``, the adaptive allocation against enumeration, bad input, and (slow)
the promised SE against simulated evals run at the plan."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import optimize

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.data import DataError, from_arrays
from bayesnoise.decide.plan import optimal_design, resample_plan, target_variance
from bayesnoise.frequentist import required_questions
from studies.ci_decisions import draw, population, shifted, variance_of_difference

CASES = [  # data, prediction, cost_question, cost_sample, target_se
    (0.02, 0.3, 10.0, 1.0, 0.01),
    (0.05, 0.2, 1.0, 1.0, 0.005),
    (0.001, 0.4, 50.0, 0.5, 0.02),
    (0.08, 0.05, 2.0, 3.0, 0.01),
]


@pytest.mark.parametrize("data, prediction, cq, cs, se", CASES)
def test_k_star_is_the_minimum_of_the_continuous_cost(data, prediction, cq, cs, se):
    row = optimal_design(data, prediction, cost_question=cq, cost_sample=cs, target_se=se).iloc[0]

    def cost(k):
        return (cq + k * cs) * (data + prediction / k) / se**2

    best = optimize.minimize_scalar(
        cost, bounds=(1e-3, 1e4), method="bounded", options={"xatol": 1e-8}
    )
    assert row.k_star == pytest.approx(best.x, rel=1e-5)


@pytest.mark.parametrize("data, prediction, cq, cs, se", CASES)
def test_the_plan_is_the_cheapest_design_on_a_brute_force_grid(data, prediction, cq, cs, se):
    """Every (N, K) with K <= 100 and (data + prediction / K) / N <= SE^2 costs at least the
    plan; the plan reaches the SE; its K is K* rounded (within one, integer N)."""
    row = optimal_design(data, prediction, cost_question=cq, cost_sample=cs, target_se=se).iloc[0]
    n, k = row.optimal_questions, row.optimal_samples_per_question
    assert (data + prediction / k) / n <= se**2 * (1 + 1e-12)
    cheapest = np.inf
    for kk in range(1, 101):
        for nn in range(2, 200_000):  # the first N reaching the SE is the cheapest at this K
            if (data + prediction / kk) / nn <= se**2 * (1 + 1e-12):  # float rounding
                cheapest = min(cheapest, nn * (cq + kk * cs))
                break
    assert row.cost_planned == pytest.approx(cheapest)
    assert abs(k - row.k_star) <= 1.0 or row.k_star > 100


def test_a_difference_target_needs_what_required_questions_says():
    t = optimal_design(
        0.03, 0.2, cost_question=5, cost_sample=1, difference=0.02, power=0.9, current_samples=3
    ).iloc[0]
    k = t.optimal_samples_per_question
    n = required_questions(0.02, data=0.03, prediction=0.2, k=k, power=0.9)
    assert t.optimal_questions == n and t.power_planned >= 0.9
    assert t.questions_k1 == required_questions(0.02, data=0.03, prediction=0.2, k=1, power=0.9)
    assert t.questions_current_k == required_questions(
        0.02, data=0.03, prediction=0.2, k=3, power=0.9
    )
    assert t.cost_k1 == t.questions_k1 * 6 and t.cost_current_k == t.questions_current_k * 8
    assert t.cost_planned <= min(t.cost_k1, t.cost_current_k)


def test_max_questions_and_no_data_noise():
    t = optimal_design(
        0.02, 0.3, cost_question=10, cost_sample=1, target_se=0.01, max_questions=300
    )
    assert t.optimal_questions.iloc[0] <= 300
    none = optimal_design(
        0.2, 0.3, cost_question=1, cost_sample=1, target_se=0.01, max_questions=300
    )
    assert np.isnan(none.cost_planned.iloc[0])  # data noise alone needs 2,000 questions
    flat = optimal_design(0.0, 0.3, cost_question=1, cost_sample=1, target_se=0.01, max_samples=50)
    assert np.isinf(flat.k_star.iloc[0]) and flat.optimal_samples_per_question.iloc[0] == 50


def test_target_variance_needs_one_target():
    with pytest.raises(ValueError, match="exactly one target"):
        target_variance()
    with pytest.raises(ValueError, match="exactly one target"):
        target_variance(target_se=0.01, difference=0.02)


# --- adaptive K ---------------------------------------------------------------------------


def test_greedy_resampling_is_the_best_allocation_by_enumeration():
    """3 questions x 2 models, 4 extra samples: greedy's prediction variance left equals the
    minimum over all 126 allocations."""
    c = np.array([[1, 3, 0], [2, 2, 4]])
    k = np.array([[2, 4, 1], [4, 3, 4]])
    plan = resample_plan(c, k, 4)
    from bayesnoise.conjugate import fit_empirical_bayes
    from bayesnoise.decide.plan import question_prediction_variance

    fit = fit_empirical_bayes(c, k, warn=False)
    w = question_prediction_variance(c, k, fit.mu, fit.kappa).ravel()
    kk = k.ravel().astype(float)
    best = np.inf
    for combo in itertools.combinations_with_replacement(range(6), 4):
        extra = np.bincount(combo, minlength=6)
        best = min(best, (w / (kk + extra)).sum())
    assert plan.attrs["se_prediction_after"] == pytest.approx(np.sqrt(best) / 3)
    assert int(plan["extra_samples"].sum()) == 4 and plan["priority"].tolist() == list(
        range(1, len(plan) + 1)
    )


def test_resampling_picks_the_noisiest_questions():
    rng = np.random.default_rng(1)
    u = rng.beta(0.5, 0.5, size=(2, 300))
    k = np.full((2, 300), 4)
    c = rng.binomial(4, u)
    plan = resample_plan(c, k, 150)
    uniform = resample_plan(c, k, 600)  # one more sample everywhere is 600 samples
    assert (
        plan["question_prediction_variance"].min()
        >= np.median(plan["question_prediction_variance"]) * 0.5
    )
    assert plan.attrs["se_prediction_after"] < plan.attrs["se_prediction_before"]
    assert uniform.attrs["se_prediction_after"] < plan.attrs["se_prediction_after"]


# --- the verb and the command -------------------------------------------------------------


@pytest.fixture(scope="module")
def pilot_ds():
    rng = np.random.default_rng(3)
    u = shifted(population(rng, 5000), 0.02)
    p = draw(rng, u, 1, 400, 5)[:, 0]
    return from_arrays(p * 5, np.full(p.shape, 5), models=["base", "cand"]), u


def test_plan_from_a_pilot(pilot_ds):
    ds, _ = pilot_ds
    r = bn.plan(ds, target_se=0.01, cost_question=20, cost_sample=1)
    row = bn.tidy(r).iloc[0]
    pt = bn.tidy(bn.power(ds)).iloc[0]
    assert (row.data, row.prediction) == pytest.approx((pt.data, pt.prediction))
    assert row.k_star == pytest.approx(np.sqrt(20 * pt.prediction / pt.data))
    assert row.current_samples_per_question == 5 and row.cost_planned <= row.cost_current_k
    listed = bn.plan(ds, resample=100)
    assert int(listed["extra_samples"].sum()) == 100


def test_bad_input_exits_2(pilot_ds, tmp_path, capsys):
    ds, _ = pilot_ds
    with pytest.raises(DataError, match=r"cost_sample must be a number > 0"):
        bn.plan(ds, target_se=0.01, cost_sample=0)
    with pytest.raises(DataError, match="exactly one target"):
        bn.plan(ds)
    k1 = from_arrays(np.array([[1, 0, 1], [0, 0, 1]]), np.ones((2, 3)), models=["a", "b"])
    with warnings.catch_warnings():  # the K = 1 and 3-question warnings of the pilot
        warnings.simplefilter("ignore")
        k1_plan = bn.plan(k1, target_se=0.01)  # K = 1 both sides: N at K = 1, said so
    assert "N planned at K = 1" in k1_plan.attrs["assumption"]
    assert int(k1_plan["optimal_samples_per_question"][0]) == 1
    bn.save(ds, tmp_path / "pilot.nc")
    f = str(tmp_path / "pilot.nc")
    for argv in (
        ["--target-se", "0.01", "--cost-question", "-1"],
        ["--target-se", "0.01", "--cost-sample", "0"],
        ["--cost-question", "2"],
    ):
        assert main(["plan", f, *argv, "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and len(err.splitlines()) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (
            main(["plan", f, "--difference", "0.03", "--cost-question", "10", "--no-progress"]) == 0
        )
    assert "optimal_questions" in capsys.readouterr().out


# --- acceptance: the promised SE in simulation ---------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("cost_question", [1.0, 20.0, 200.0])
def test_the_plan_reaches_the_promised_se_in_simulation(pilot_ds, cost_question):
    """Plan from a 400-question, K = 5 pilot, then run 2,000 evals at the plan's (N, K) on
    the same question population: the SE of their differences is within 10% of the promised
    SE (the sd of 2,000 draws has a relative MC SE of 1.6%; the pilot's estimates a few %),
    and no (N, K) on the grid (K <= 100) reaching the target costs less."""
    ds, u = pilot_ds
    row = bn.tidy(bn.plan(ds, target_se=0.01, cost_question=cost_question)).iloc[0]
    n, k = int(row.optimal_questions), int(row.optimal_samples_per_question)
    p = draw(np.random.default_rng(int(cost_question)), u, 2000, n, k)
    realised = (p[1] - p[0]).mean(axis=1).std(ddof=1)
    assert abs(realised / row.se_planned - 1) <= 0.10, (n, k, realised, row.se_planned)
    assert np.sqrt(variance_of_difference(u, k) / n) == pytest.approx(row.se_planned, rel=0.1)
    ks = np.arange(1, 101)
    need = np.maximum(np.ceil((row.data + row.prediction / ks) / 0.01**2 - 1e-9), 2)
    assert row.cost_planned <= (need * (cost_question + ks)).min() + 1e-9
