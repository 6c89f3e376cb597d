"""The HTML report: its numbers are the library's, it needs no network, every input is in it."""

import re
import warnings
from html import unescape

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise import frequentist
from bayesnoise.cli import main
from bayesnoise.reporting.html import (
    benchmark_section,
    reference_table,
    render_report,
    write_report,
)

pytest.importorskip("matplotlib")

#: The figures of the "Benchmark quality" block, in order.
QUALITY_FIGURES = ["difference-sum", "p-values", "difficulty", "heatmap"]


@pytest.fixture(scope="module")
def ds():
    rng = np.random.default_rng(7)
    u = rng.beta(0.9, 1.1, 200)
    shift = np.array([-0.1, -0.01, 0.0, 0.01, 0.1])[:, None]
    p = np.clip(u + shift, 0, 1)
    return bn.from_arrays(rng.binomial(5, p), np.full(p.shape, 5), models=list("vwxyz"))


@pytest.fixture(scope="module")
def section(ds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return benchmark_section(ds, title="synthetic")


def test_tables_are_the_library_tables(ds, section):
    expected = frequentist.pair_noise(ds, confidence_level=0.95)
    pd.testing.assert_frame_equal(
        section.pairs[expected.columns].reset_index(drop=True), expected, check_like=True
    )
    models = frequentist.model_noise(ds, confidence_level=0.95)
    np.testing.assert_array_equal(section.models["accuracy"], models["accuracy"])


def test_verdicts_use_holm_p_and_power_functions(ds, section):
    pairs = section.pairs
    k = 5.0
    for _, row in pairs.iterrows():
        if row.p_value_adjusted < 0.05:
            winner = row.model_a if row.difference > 0 else row.model_b
            assert row.verdict == f"{winner} better, p = {row.p_value_adjusted:.2g} after Holm"
        elif row.difference != 0:
            need = frequentist.required_questions(
                abs(row.difference), data=max(row.data, 0.0), prediction=row.prediction, k=k
            )
            assert f"needs ~{need:,.0f} questions at K = 5" in row.verdict


def test_page_is_self_contained_and_lists_every_model(ds, section):
    html = render_report([section])
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)  # nothing fetched
    assert "<link" not in html and "@import" not in html
    assert re.findall(r"<script>", html) == ["<script>"]  # one inline script (table sorting)
    table = html.split('class="sortable model-table"')[1].split("</table>")[0]
    for model in ds["model"].values:
        assert f'<span class="model">{model}</span>' in table
    figures = re.findall(r'<figure data-figure="([a-z-]+)"><img src="data:image/png;base64,', html)
    assert sorted(figures) == sorted(
        ["noise", "cdf", "forest", "matrix", "scatter", "power", *QUALITY_FIGURES]
    )


def test_quality_figures_are_in_the_quality_block_with_captions(ds, section):
    """Eval-Arena's pair wins and p-value figures, the difficulty histogram and the heat map
    sit in the "Benchmark quality" block (not under "Figures"), each with its caption, worded
    with the registry's labels."""
    from bayesnoise.reporting._html_quality import _captions
    from bayesnoise.vocabulary import label

    html = render_report([section])
    block = html.split("<h3>Benchmark quality</h3>")[1].split("<h3>Figures</h3>")[0]
    captions = _captions(ds.sizes["model"], frequentist.question_quality(ds))
    for name in QUALITY_FIGURES:
        figure = re.search(
            rf'<figure data-figure="{name}"><img src="data:image/png;base64,[^"]+" '
            r'alt="([^"]*)"><figcaption>([^<]*)</figcaption></figure>',
            block,
        )
        assert figure, name
        assert unescape(figure.group(2)) == unescape(figure.group(1)) == captions[name], name
    assert label("win_rate") in captions["difference-sum"] and "10 model pairs" in block
    assert label("p_value") in captions["p-values"] and label("p_value_sign_questions") in block
    assert html.count('data-figure="heatmap"') == 1  # moved, not drawn twice


def test_several_inputs_make_an_index(ds, tmp_path):
    out = write_report(
        {"first": ds, "second": ds.isel(model=[0, 1, 2])}, tmp_path / "r.html", progress=False
    )
    html = out.read_text()
    assert '<a href="#first">' in html and '<a href="#second">' in html
    assert 'id="first"' in html and 'id="second"' in html


def test_fractional_scores_leave_out_bayes_with_a_note(tmp_path):
    rng = np.random.default_rng(3)
    wide = pd.DataFrame(rng.uniform(0, 1, (80, 3)), columns=["a", "b", "c"])
    ds = bn.load(wide)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = benchmark_section(ds, title="fractional")
    assert any("Bayesian" in note for note in s.notes)
    assert "cdf" not in s.figures and "noise" in s.figures


def test_reference_table_and_cli(capsys):
    try:
        ref = reference_table("CRUXEval-output-T0.8", accuracy=0.4)
    except bn.DataError:
        pytest.skip("models/ reference tables not present")
    from bayesnoise.conjugate import theory_se_difference

    n = ref["questions"].to_numpy(float)
    np.testing.assert_allclose(ref["se_model_theory"], np.sqrt(0.4 * 0.6 / n), rtol=1e-12)
    np.testing.assert_allclose(
        ref["se_difference_theory"],
        theory_se_difference(0.4, n, ref["benchmark_kappa"].to_numpy()),
        rtol=1e-12,
    )
    assert main(["reference", "cruxeval_output_temp0.8", "--format", "csv"]) == 0
    assert "CRUXEval-output-T0.8" in capsys.readouterr().out
    assert main(["reference", "no-such-benchmark"]) == 2


def test_cli_report_and_plot_on_bundled_data(bundled_data, tmp_path):
    path = str(bundled_data / "cruxeval_output_temp0.8.csv.gz")
    assert main(["report", path, "-o", str(tmp_path / "r.html"), "--no-progress"]) == 0
    html = (tmp_path / "r.html").read_text()
    assert "Against the reference noise models" in html or "models/" not in html
    for kind in ("heatmap", "matrix"):
        assert main(["plot", kind, path, "-o", str(tmp_path / f"{kind}.svg")]) == 0
        assert (tmp_path / f"{kind}.svg").read_text().lstrip().startswith("<?xml")
    assert main(["plot", "heatmap", path, "-o", str(tmp_path / "x.txt")]) == 2


@pytest.mark.shared_data
@pytest.mark.slow
def test_report_builds_for_all_the_noises_subset(shared_data, tmp_path):
    # a subset for CI time; examples/make_report.py --all-the-noises builds every table
    root = shared_data / "all-the-noises"
    files = [
        root / "main" / "input_table_humaneval.csv",
        root / "lowk_temp1" / "input_table_gmat_cot.csv",
    ]
    out = write_report(files, tmp_path / "atn.html", on_missing="intersect", progress=False)
    html = out.read_text().replace("<wbr>", "")  # names may break after "_"
    for f in files:
        ds = bn.load(f)
        for model in ds["model"].values:
            assert f'<span class="model">{model}</span>' in html


@pytest.mark.slow
def test_example_script_writes_report_and_figures(tmp_path):
    import subprocess
    import sys

    from conftest import REPO

    subprocess.run(
        [sys.executable, str(REPO / "examples" / "make_report.py"), str(tmp_path)],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    names = {p.name for p in tmp_path.iterdir()}
    assert "report.html" in names and len([n for n in names if n.endswith(".png")]) == 7


def _table(html, css):
    """(header texts, rows of cell texts) of the table with class ``css`` (tags stripped)."""
    body = html.split(f'<table class="{css}">')[1].split("</table>")[0]
    head = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", body)]
    rows = [
        [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>")[1], flags=re.S)
    ]
    return head, rows


def test_k_and_counts_print_as_integers(section):
    html = render_report([section])
    head, rows = _table(html, "sortable model-table")
    k = head.index("K")
    assert [r[k] for r in rows] == ["5"] * 5  # was "5.0"
    assert [r[head.index("questions")] for r in rows] == ["200"] * 5
    summary = dict(re.findall(r'<tr><th class="t">([^<]*)</th><td>([^<]*)</td></tr>', html))
    assert summary["samples per question (K)"] == "5" and summary["models"] == "5"


def test_headers_are_the_registry_labels_with_descriptions(section):
    from bayesnoise.vocabulary import describe, label

    html = render_report([section])
    head, _ = _table(html, "sortable model-table")
    names = ["model", "questions", "samples_per_question", "accuracy", "se_total", "se_mean"]
    assert head[: len(names)] == [label(n) for n in names]
    assert head[-2:] == [label("kappa_median"), label("kappa_status")]
    # the four interval headers name their scope and level
    stems = [h.split(",")[0].split(" (")[0] for h in head[6:10]]
    assert stems == ["accuracy", "ubar", "accuracy", "mu"]
    assert all(h.endswith("95% interval") for h in head[6:10])
    titles = re.findall(r'<th class="t name" title="([^"]*)">model</th>', html)
    assert titles and titles[0].startswith(describe("model")["description"])
    pair_head, _ = _table(html, "sortable pair-table")
    assert pair_head[:3] == [label("model_a"), label("model_b"), label("difference")]
    assert "p adjusted (Holm)" in pair_head and pair_head[-1] == "verdict"


def test_ranks_section_is_the_rank_table(ds, section):
    from bayesnoise.decide import rank_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rank_table(ds, confidence_level=0.95, rng=0)
    pd.testing.assert_frame_equal(section.ranks, expected)
    html = render_report([section])
    assert "<h3>Ranks</h3>" in html
    head, rows = _table(html, "sortable rank-table")
    assert head == [
        "model",
        "accuracy",
        "P(best)",
        "expected rank",
        "rank, 95% interval",
        "top group",
        "group",
    ]
    assert [r[0] for r in rows] == expected["model"].tolist()
    for row, (_, r) in zip(rows, expected.iterrows(), strict=True):
        low, high = int(r.rank_low), int(r.rank_high)
        assert row[4] == (f"{low}" if low == high else f"{low} – {high}")  # integers
        assert row[2] == f"{r.prob_best:.3f}" and row[6] == r.group
        assert row[5] == ("yes" if r.in_top_group else "no")


def test_model_names_are_escaped_by_the_templates(tmp_path):
    rng = np.random.default_rng(11)
    names = ["<script>alert(1)</script>", 'a"b&c', "plain"]
    ds = bn.from_arrays(rng.binomial(3, 0.5, (3, 60)), np.full((3, 60), 3), models=names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        html = render_report([benchmark_section(ds, title="<i>t</i>", figures=False)])
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "a&#34;b&amp;c" in html and "<i>t</i>" not in html
    assert re.findall(r"<script>", html) == ["<script>"]


def test_extra_blocks_are_rendered_in_place(section):
    from dataclasses import replace

    extra = replace(
        section, blocks=[("Extra block", '<p id="extra">made here</p>'), "<div id=whole></div>"]
    )
    html = render_report([extra])
    assert '<h3>Extra block</h3>\n<p id="extra">made here</p>' in html
    assert "<div id=whole></div>" in html
    assert html.index("Extra block") < html.index("<h3>Figures</h3>")


def test_forest_pages_cover_every_model_in_accuracy_order():
    from bayesnoise.plots import FOREST_MAX_MODELS, FOREST_SERIES
    from bayesnoise.reporting._html_sections import forest_pages

    rng = np.random.default_rng(2)
    m = 2 * FOREST_MAX_MODELS + 7
    acc = rng.uniform(0.1, 0.9, m)
    models = pd.DataFrame({"model": [f"m{i}" for i in range(m)], "accuracy": acc})
    for low, high, _, _ in FOREST_SERIES:
        models[low], models[high] = acc - rng.uniform(0, 0.1, m), acc + rng.uniform(0, 0.1, m)
    pages = forest_pages(models)
    assert len(pages) == 3 and all(len(rows) <= FOREST_MAX_MODELS for rows, _, _ in pages)
    order = [i for rows, _, _ in pages for i in rows]
    assert sorted(order) == list(range(m))
    assert np.all(np.diff(acc[order]) <= 0)  # best first, across pages
    lo, hi = pages[0][1]
    ends = models.drop(columns="model").to_numpy()
    assert lo < ends.min() and hi > ends.max() and {p[1] for p in pages} == {(lo, hi)}
    assert pages[1][2] == f" (models 44-85 of {m} by accuracy)"  # 127 = 43 + 42 + 42
    assert forest_pages(models.iloc[:10]) == [(list(range(10)), None, "")]


def test_templates_ship_as_package_data():
    from importlib import resources

    folder = resources.files("bayesnoise.reporting") / "templates"
    names = {"report.html.j2", "section.html.j2", "macros.html.j2", "report.css", "sort.js"}
    assert names <= {p.name for p in folder.iterdir()}
