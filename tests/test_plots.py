"""What each figure draws equals what the library computes (the figures only arrange numbers)."""

import warnings

import numpy as np
import pytest

import bayesnoise as bn
from bayesnoise import conjugate, decide, frequentist, plots

matplotlib = pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def ds():
    rng = np.random.default_rng(42)
    u = rng.beta(0.8, 1.2, 240)  # shared question difficulty: close models, paired noise small
    shift = np.linspace(-0.08, 0.08, 6)[:, None]
    p = np.clip(u + shift, 0, 1)
    return bn.from_arrays(rng.binomial(6, p), np.full(p.shape, 6), models=list("abcdef"))


@pytest.fixture(scope="module")
def pairs(ds):
    return frequentist.pair_noise(ds)


def test_noise_vs_accuracy_points_and_theory(ds, pairs):
    ax = plots.plot_noise_vs_accuracy(ds, pairs=pairs)
    close = pairs[np.abs(pairs.difference) < 5 * pairs.se_total]
    by_gid = {c.get_gid(): c for c in ax.collections}
    # one point per close pair, at the pair's mean accuracy and its library SE
    for column in ("se_total", "se_data", "se_prediction"):
        xy = by_gid[column].get_offsets()
        assert len(xy) == len(close)
        np.testing.assert_array_equal(xy[:, 1], close[column].to_numpy())
        np.testing.assert_array_equal(xy[:, 0], (close.accuracy_a + close.accuracy_b) / 2)
    lines = {line.get_gid(): line for line in ax.lines}
    x, y = lines["theory"].get_data()
    n = ds.sizes["question"]
    np.testing.assert_allclose(y, np.sqrt(x * (1 - x) / n), rtol=1e-12)  # paper eq. 24, kappa=1
    kappa, _ = conjugate.benchmark_kappa(ds["correct"].values, ds["samples"].values)
    x, y = lines["theory_kappa"].get_data()
    np.testing.assert_allclose(y, conjugate.theory_se_difference(x, n, kappa), rtol=1e-12)
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None


def test_noise_vs_accuracy_k1_draws_total_only():
    rng = np.random.default_rng(1)
    p = np.broadcast_to(rng.beta(1, 1, 200), (4, 200))
    ds1 = bn.from_arrays(rng.binomial(1, p), np.ones((4, 200)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # K = 1: split not identifiable (warned by the library)
        ax = plots.plot_noise_vs_accuracy(ds1, kappa=None)
    assert {c.get_gid() for c in ax.collections} == {"se_total"}


def test_components_one_panel_per_setting(ds):
    fig = plots.plot_noise_components({"T=0.8": ds, "T=0.2": ds}, kappa=None)
    assert len(fig.axes) == 2
    assert [ax.get_title().split(":")[0] for ax in fig.axes] == ["T=0.8", "T=0.2"]


def test_heatmap_is_the_sorted_dataset(ds):
    ax = plots.plot_heatmap(ds)
    shown = np.asarray(ax.images[0].get_array())
    acc = frequentist.model_noise(ds)["accuracy"].to_numpy()
    p = (ds["correct"] / ds["samples"]).values  # (model, question)
    expected = p[np.argsort(acc, kind="stable")][:, np.argsort(-p.mean(axis=0), kind="stable")].T
    np.testing.assert_array_equal(shown, expected)
    assert np.all(np.diff(np.nanmean(shown, axis=1)) <= 1e-12)  # rows easiest first


def test_question_cdfs_match_pooled_fit(ds):
    ax = plots.plot_question_cdfs(ds, bins=2)
    acc = frequentist.model_noise(ds)["accuracy"].to_numpy()
    groups = np.array_split(np.argsort(acc), 2)  # models by accuracy, two equal groups
    c, k = plots.pooled_counts(ds["correct"].values, ds["samples"].values, groups)
    fit = conjugate.fit_empirical_bayes(c, k, warn=False)
    from scipy import stats

    lines = {line.get_gid(): line for line in ax.lines}
    for j in range(2):
        x, y = lines[f"empirical-{j}"].get_data()
        np.testing.assert_array_equal(x, np.sort(c[j] / k[j]))
        x, y = lines[f"beta-{j}"].get_data()
        a, b = fit.mu[j] * fit.kappa[j], (1 - fit.mu[j]) * fit.kappa[j]
        np.testing.assert_allclose(y, stats.beta.cdf(x, a, b), rtol=1e-12)


def test_forest_interval_ends_are_the_table(ds):
    table = decide.compare_models(ds)
    ax = plots.plot_forest(table)
    ordered = table.sort_values("accuracy", kind="stable")
    drawn = {c.get_gid(): np.array(c.get_segments()) for c in ax.collections}
    assert set(drawn) == {s[0] for s in plots.FOREST_SERIES}
    for low, high, _, _ in plots.FOREST_SERIES:
        np.testing.assert_array_equal(drawn[low][:, 0, 0], ordered[low].to_numpy())
        np.testing.assert_array_equal(drawn[low][:, 1, 0], ordered[high].to_numpy())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ordered["model"].tolist()


def test_pair_matrix_values_order_and_marks(pairs):
    ax = plots.plot_pair_matrix(pairs, "z")
    mat = np.ma.filled(ax.images[0].get_array(), np.nan)
    acc = plots.model_accuracies(pairs)
    order = sorted(acc, key=acc.get)
    for _, row in pairs.iterrows():
        i, j = order.index(row.model_a), order.index(row.model_b)
        assert mat[i, j] == row.z and mat[j, i] == -row.z
    marks = next(c for c in ax.collections if c.get_gid() == "significant").get_offsets()
    assert len(marks) == 2 * int((pairs.p_value_adjusted < 0.05).sum())


def test_pair_matrix_p_a_better_mirror(ds, pairs):
    bayes = conjugate.posterior_pairs_table(ds)
    merged = pairs.merge(bayes[["model_a", "model_b", "prob_a_better"]], on=["model_a", "model_b"])
    mat = np.ma.filled(
        plots.plot_pair_matrix(merged, "prob_a_better").images[0].get_array(), np.nan
    )
    off = ~np.eye(len(mat), dtype=bool)
    np.testing.assert_allclose((mat + mat.T)[off], 1.0, rtol=0, atol=1e-15)  # P(A>B)+P(B>A)=1


def test_accuracy_scatter_points_and_colours(pairs):
    ax = plots.plot_accuracy_scatter(pairs)
    points = ax.collections[0]
    xy = points.get_offsets()
    assert len(xy) == 2 * len(pairs)
    np.testing.assert_array_equal(xy[: len(pairs), 0], pairs.accuracy_a)
    np.testing.assert_array_equal(points.get_array(), np.r_[pairs.p_value, pairs.p_value])


def test_power_curves_are_the_power_function():
    fig = plots.plot_power(0.01, 0.1, n=400, k=4)
    lines = {line.get_gid(): line for ax in fig.axes for line in ax.lines}
    for gid, k in (("n:k=1", 1), ("n:k=4", 4), ("n:k=inf", np.inf)):
        x, y = lines[gid].get_data()
        expected = frequentist.minimum_detectable_difference(x, data=0.01, prediction=0.1, k=k)
        np.testing.assert_allclose(y, expected, rtol=1e-12)
    x, y = lines["k"].get_data()
    np.testing.assert_allclose(
        y, frequentist.minimum_detectable_difference(400, data=0.01, prediction=0.1, k=x)
    )


def test_figures_render_to_png_with_labels(ds, pairs, tmp_path):
    figures = {
        "noise": plots.plot_noise_vs_accuracy(ds, pairs=pairs),
        "heatmap": plots.plot_heatmap(ds),
        "cdf": plots.plot_question_cdfs(ds),
        "forest": plots.plot_forest(decide.compare_models(ds)),
        "matrix": plots.plot_pair_matrix(pairs),
        "scatter": plots.plot_accuracy_scatter(pairs),
        "power": plots.plot_power(0.01, 0.1, n=400, k=4),
    }
    for name, fig in figures.items():
        path = plots.save_figure(fig, tmp_path / f"{name}.png")
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        for ax in fig.figure.axes:
            if ax.get_label() == "<colorbar>" or not ax.has_data():
                continue
            assert ax.get_xlabel() and ax.get_ylabel(), name


def test_import_bayesnoise_does_not_import_matplotlib():
    import subprocess
    import sys

    code = "import sys, bayesnoise, bayesnoise.cli; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.mcmc
def test_mcmc_plots_through_arviz_plots(tmp_path):
    pytest.importorskip("arviz_plots")
    from bayesnoise import mcmc

    rng = np.random.default_rng(0)
    correct = rng.binomial(5, rng.beta(2.0, 2.0, size=(2, 60)))
    tree = mcmc.fit(
        mcmc.marginal_model(correct, 5, models=["a", "b"]),
        draws=60,
        tune=60,
        chains=2,
        progress=False,
        check=False,
        rng=1,
    )
    for kind in plots.MCMC_KINDS:
        pc = plots.plot_mcmc(tree, kind, var_names=["mu"])
        pc.savefig(tmp_path / f"{kind}.png")
        assert (tmp_path / f"{kind}.png").stat().st_size > 0
    # forest: the drawn credible intervals (twigs) are arviz-stats' equal-tailed intervals
    import arviz_base
    import arviz_stats

    pc = plots.plot_mcmc(tree, "forest", var_names=["mu"], combined=True)
    twig = pc.get_viz("twig", "mu")
    prob = arviz_base.rcParams["stats.ci_prob"]
    expected = arviz_stats.eti(tree.posterior["mu"], prob=prob).values
    drawn = np.array([line.get_xdata() for line in twig.values.ravel()])
    np.testing.assert_allclose(drawn, expected, rtol=1e-12)
