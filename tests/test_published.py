"""Reproduce numbers that others published from the third-party data in ../shared/data."""

import glob
import os
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise.frequentist import _core, arena_summary, model_noise, pair_noise_dataset

pytestmark = pytest.mark.shared_data
RTOL = 1e-6  # the published CSVs print ~16 significant digits; 1e-6 leaves room for summation order


def _runs(shared_data):
    """(run, benchmark, input file, summary file, model table) for every published benchmark with inputs."""
    out = []
    for run in ("highk_temp0.7", "lowk_temp0.7"):
        for summary in sorted(
            glob.glob(str(shared_data / "all-the-noises" / run / "published" / "summary_*.csv"))
        ):
            bench = os.path.basename(summary)[len("summary_") : -len(".csv")]
            inp = shared_data / "all-the-noises" / run / f"input_table_{bench}.csv"
            if inp.exists():
                table = (
                    shared_data / "all-the-noises" / run / "published" / f"model_table_{bench}.csv"
                )
                out.append((run, bench, inp, summary, table))
    return out


def _load(path):
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # some models skipped a few questions: intersect, as upstream
        return bn.complete(bn.load(path), on_missing="intersect")


@pytest.fixture(scope="module")
def published(shared_data):
    cases = _runs(shared_data)
    assert len(cases) == 20, "expected 4 highk + 16 lowk benchmarks with input tables"
    return [(run, bench, _load(inp), pd.read_csv(summary), pd.read_csv(table))
            for run, bench, inp, summary, table in cases]  # fmt: skip


def _pair_rows(ds, pub):
    mat = pair_noise_dataset(ds)
    index = {m: i for i, m in enumerate(mat.model.values)}
    ia = np.array([index[m] for m in pub.model_a])
    ib = np.array([index[m] for m in pub.model_b])
    return mat, ia, ib


def test_pair_standard_errors_match_published(published):
    rows = 0
    for run, bench, ds, pub, _ in published:
        mat, ia, ib = _pair_rows(ds, pub)
        for ours, theirs in (
            ("se_total", "SE(A-B)"),
            ("se_data", "SE_x(A-B)"),
            ("se_prediction", "SE_pred(A-B)"),
        ):
            x, y = mat[ours].values[ia, ib], pub[theirs].to_numpy()
            both_nan = np.isnan(x) & np.isnan(y)
            # atol: a variance whose true value is 0 comes out as +-1e-18 after the M x M
            # cancellation var_a + var_b - 2 cov (terms O(1), ~10 ulps); its SE is then
            # sqrt(1e-15 / N) at most, where upstream printed 0.
            ok = np.isclose(x, y, rtol=RTOL, atol=np.sqrt(1e-15 / ds.sizes["question"])) | both_nan
            assert ok.all(), f"{run}/{bench} {ours}: {int((~ok).sum())} of {len(ok)} rows differ"
            # NaN only where a model has a question with K = 1 (split not identifiable)
            k1 = (ds["samples"].values < 2).any(axis=1)
            assert np.all(k1[ia[both_nan]] | k1[ib[both_nan]])
        rows += len(pub)
    assert rows > 29_000


def _boundary(x):
    """Counts whose exact value is a whole number, where truncation depends on float rounding."""
    return np.abs(x - np.round(x)) < 1e-6


def _sign_rows(ds, pub):
    mat, ia, ib = _pair_rows(ds, pub)
    ours = mat["p_value_sign_one_sample"].values[ia, ib]
    ok = np.isclose(ours, pub["pvalue"].to_numpy(), rtol=RTOL)
    wa = mat["wins_a"].values[ia, ib]
    n = wa + mat["wins_a"].values[ib, ia]
    return ok, _boundary(wa) | _boundary(n)


def test_sign_test_pvalues_match_published(published, shared_data):
    """Eval-Arena's sign test: k = trunc(sum p_A (1 - p_B)), n = trunc(k_A + k_B) expected wins.

    From the exact counts, every row matches except rows whose expected win count sits exactly on
    a whole number. There upstream summed its 10-digit printed ``pass1`` column, whose rounding
    put the sum just below the whole number, so it truncated one lower. Fed the same printed
    ``pass1`` values, this function reproduces >= 99% of rows, and again only boundary rows
    differ (our sums are exact to 1e-11 and theirs sequential).
    """
    exact = printed = total = 0
    for run, bench, ds, pub, _ in published:
        ok, boundary = _sign_rows(ds, pub)
        assert boundary[~ok].all(), f"{run}/{bench}: mismatch off an integer boundary"
        raw = pd.read_csv(shared_data / "all-the-noises" / run / f"input_table_{bench}.csv")
        raw["example_id"] = raw["example_id"].astype(str)
        pass1 = raw.pivot(index="model", columns="example_id", values="pass1")
        pass1 = pass1.loc[ds.model.values, ds.question.values].to_numpy()
        as_printed = bn.data.from_arrays(pass1, np.ones(pass1.shape), models=ds.model.values,
                                         counts_known=False)  # fmt: skip
        ok_printed, boundary_printed = _sign_rows(as_printed, pub)
        assert boundary_printed[~ok_printed].all()
        exact, printed, total = exact + ok.sum(), printed + ok_printed.sum(), total + ok.size
    assert printed / total >= 0.99, f"{printed}/{total} from the printed pass1"
    assert exact / total >= 0.985, f"{exact}/{total} from exact counts"  # measured 0.9884


def test_model_standard_errors_match_published(published):
    for run, bench, ds, _, table in published:
        corrected = model_noise(ds).set_index("model").loc[table["model"]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # K = 1 models warn that the split is not identified
            raw = model_noise(ds, correction=False).set_index("model").loc[table["model"]]
        np.testing.assert_allclose(corrected["se_total"], table["SE(A)"], rtol=RTOL)
        # SE(A) is sqrt(acc (1 - acc) / N) exactly
        n = corrected["questions"].to_numpy()
        acc = table["pass1"].to_numpy()
        np.testing.assert_allclose(table["SE(A)"], np.sqrt(acc * (1 - acc) / n), rtol=RTOL)
        k1 = np.isnan(raw["se_data"].to_numpy())
        for ours, theirs in (("se_data", "SE_x(A)"), ("se_prediction", "SE_pred(A)")):
            np.testing.assert_allclose(
                raw[ours][~k1], table[theirs][~k1], rtol=RTOL, err_msg=f"{run}/{bench}"
            )
        # Models whose split we refuse (some K_i = 1) are exactly those with a K = 1 question.
        refused = set(table["model"][k1])
        has_k1 = {m for m in refused if (ds["samples"].sel(model=m).values < 2).any()}
        assert refused == has_k1
        # The corrected data variance differs from the published (uncorrected) one by exactly the
        # predicted bias b = mean_i w_i / (K_i - 1).
        sub = ds.sel(model=list(table["model"][~k1]))
        _p, w = _core.cell_moments(
            sub["correct"].values, sub["samples"].values, sub["sum_sq"].values
        )
        b = np.mean(w / (sub["samples"].values - 1), axis=1)
        published_data = table["SE_x(A)"][~k1].to_numpy() ** 2 * n[~k1]
        np.testing.assert_allclose(
            published_data - corrected["data"][~k1], b, rtol=1e-5, atol=1e-12
        )


@pytest.mark.parametrize(
    ("name", "n", "p5_min", "p5_max"), [("humaneval+", 164, 11, 16), ("mbpp+", 378, 16, 21)]
)
def test_eval_arena_p5(shared_data, name, n, p5_min, p5_max):
    out = arena_summary(bn.load(shared_data / "eval-arena" / f"{name}.jsonl")).iloc[0]
    assert out["questions"] == n
    assert out["p5_min_count"] == p5_min and out["p5_max_count"] == p5_max
    assert out["p5_min"] == pytest.approx(p5_min / n, rel=1e-12)
    assert out["p5_max"] == pytest.approx(p5_max / n, rel=1e-12)


def test_cruxeval_pass_at_1_from_raw_samples(shared_data):
    pub = pd.read_csv(shared_data / "cruxeval-samples" / "published_pass_at_1.csv")
    for (bench, temp), group in pub.groupby(["benchmark", "temperature"]):
        ds = bn.load(shared_data / "cruxeval-samples" / f"{bench}_temp{temp}.csv")
        acc = model_noise(ds).set_index("model")["accuracy"].loc[group["model"]]
        # pass@1 in % is mean_i c_i / K_i; 1e-12 relative is float summation order only
        np.testing.assert_allclose(100 * acc.to_numpy(), group["pass_at_1"], rtol=1e-12)
