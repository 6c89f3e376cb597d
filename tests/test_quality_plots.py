"""Benchmark-quality figures draw the numbers they claim, and the report has its section.

References: pair wins counted question by question, the McNemar curve from scipy's chi-square
quantile, the difficulty histogram from pandas on the raw rows, p-values from scipy.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.plots.quality import (
    plot_difference_sum,
    plot_difficulty,
    plot_pvalue_difference,
)

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def binary():
    """6 models x 200 questions, 0/1 scores, a few questions nobody solves."""
    rng = np.random.default_rng(21)
    difficulty = rng.normal(0, 1.5, 200)
    difficulty[:7] = 50.0  # unsolvable
    prob = special.expit(np.linspace(-1, 1, 6)[:, None] - difficulty[None, :])
    return (rng.random(prob.shape) < prob).astype(int)


@pytest.fixture(scope="module")
def ds(binary):
    return bn.from_arrays(binary, np.ones(binary.shape), models=list("abcdef"))


def _by_gid(artists):
    return {a.get_gid(): a for a in artists}


def test_difference_sum_points_and_curves(binary, ds):
    ax = plot_difference_sum(ds)
    xy = _by_gid(ax.collections)["pairs"].get_offsets()
    m = binary.shape[0]
    expected = []
    for a in range(m):
        for b in range(a + 1, m):
            wins_a = int(np.sum((binary[a] == 1) & (binary[b] == 0)))  # A right, B wrong
            wins_b = int(np.sum((binary[b] == 1) & (binary[a] == 0)))
            expected.append((abs(wins_a - wins_b), wins_a + wins_b))
    np.testing.assert_array_equal(np.asarray(xy), np.array(expected, dtype=float))
    lines = _by_gid(ax.lines)
    assert set(lines) == {"x=y", "p=0.05", "p=0.1", "p=0.2"}
    x, y = lines["p=0.05"].get_data()
    np.testing.assert_allclose(x, 1 + np.sqrt(y * stats.chi2.ppf(0.95, 1)), rtol=1e-12)
    # on the curve McNemar's continuity-corrected statistic is the critical value
    stat = (x - 1) ** 2 / y
    np.testing.assert_allclose(stats.chi2.sf(stat, 1), 0.05, rtol=1e-9)
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None


def test_pvalue_difference_draws_the_pair_table(binary, ds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # K = 1 split note
        ax = plot_pvalue_difference(ds)
    points = _by_gid(ax.collections)
    assert set(points) == {"p_value", "p_value_sign_questions"}
    xy = points["p_value"].get_offsets()
    m = binary.shape[0]
    ref = []
    for a in range(m):
        for b in range(a + 1, m):
            d = binary[a] - binary[b]
            ref.append((abs(d.mean()), stats.ttest_rel(binary[a], binary[b]).pvalue))
    ref = np.array(ref)
    np.testing.assert_allclose(np.asarray(xy)[:, 0], ref[:, 0], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(xy)[:, 1], np.maximum(ref[:, 1], 1e-16), rtol=1e-9)
    assert ax.get_yscale() == "log"
    (alpha,) = [line for line in ax.lines if line.get_gid() == "alpha"]
    assert alpha.get_ydata()[0] == 0.05


def test_difficulty_histogram(binary, ds):
    ax = plot_difficulty(ds, bins=10)
    rows = pd.DataFrame(binary.T)  # questions x models
    accuracy = rows.mean(axis=1)
    unsolved = (rows.sum(axis=1) == 0).to_numpy()
    solved = [p for p in ax.patches if p.get_gid() == "solved"]
    (gap,) = [p for p in ax.patches if p.get_gid() == "unsolved"]
    assert gap.get_height() == unsolved.sum() >= 7  # the 7 unsolvable ones at least
    counts, _ = np.histogram(accuracy[~unsolved], bins=np.linspace(0, 1, 11))
    assert [int(p.get_height()) for p in solved] == counts.tolist()
    assert f"{unsolved.sum()} unsolved" in ax.get_title()


def test_plot_kinds_are_commands(tmp_path, bundled_data):
    crux = str(bundled_data / "cruxeval_output_temp0.8.csv.gz")
    for kind in ("difference-sum", "p-values", "difficulty", "heatmap"):
        fig = bn.plot.KINDS[kind](crux, progress=False)
        assert type(fig).__name__ == "Figure" and fig.axes
        out = tmp_path / f"{kind}.png"
        assert main(["plot", kind, crux, "-o", str(out), "--no-progress"]) == 0
        assert out.stat().st_size > 1000
    assert bn.plot.difference_sum is bn.plot.KINDS["difference-sum"]


def test_report_has_the_benchmark_quality_section(ds):
    from bayesnoise.reporting.html import benchmark_section, render_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        section = benchmark_section(ds, title="toy", figures=False)
    html = render_report([section])
    assert "<h3>Benchmark quality</h3>" in html
    start = html.index("<h3>Benchmark quality</h3>")
    block = html[start : html.index("<h3>", start + 10)]
    # every listed question id links to a row of the listed-questions table
    links = re.findall(r'<a href="#([^"]+)">', block)
    rows = set(re.findall(r'<tr id="([^"]+)">', block))
    assert links and set(links) <= rows
    unsolved = int((ds["correct"].values.sum(axis=0) == 0).sum())
    assert f"Unsolved</b> ({unsolved})" in block and "Solved by one model" in block
    assert "Most suspect (top 10)" in block
    # win rate and Elo of every model, and the signal of the measured-noise SNR
    board = re.search(r'<table class="sortable leaderboard">.*?</table>', block, re.S).group(0)
    assert all(f'<td class="t name">{m}</td>' in board for m in "abcdef")
    acc = ds["correct"].values.mean(axis=1)
    signal = (acc.max() - acc.min()) / acc.mean()
    assert f"accuracies = {signal:.3g}" in block
