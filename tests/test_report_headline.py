"""The report opens with the answer: the top group and its test, the smallest difference the
benchmark resolves, the most suspect questions, before any table; no empty columns; K = 1
notes say what the report did; docs paths are links."""

import re
import warnings
from html import unescape

import numpy as np
import pytest
from scipy import stats

import bayesnoise as bn
from bayesnoise import frequentist
from bayesnoise.decide import rank_table
from bayesnoise.reporting.html import benchmark_section, render_report

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def k1():
    """Six models at K = 1 on 250 questions, two of them close at the top, one flawed question
    that the better models fail."""
    rng = np.random.default_rng(21)
    u = rng.beta(0.9, 1.1, 250)
    shift = np.array([0.12, 0.1, 0.0, -0.02, -0.1, -0.2])[:, None]
    y = rng.binomial(1, np.clip(u + shift, 0, 1))
    y[:, 0] = [0, 0, 0, 1, 1, 1]  # the better models fail question 0
    ds = bn.from_arrays(y, np.ones_like(y), models=[f"m{i}" for i in range(6)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        section = benchmark_section(ds, title="k1", figures=False)
    return ds, section, render_report([section])


def _headline(html):
    block = html.split('<div class="headline">')[1].split("</div>")[0]
    return [unescape(re.sub(r"<[^>]+>", "", p)) for p in re.findall(r"<p>(.*?)</p>", block)]


def test_headline_comes_before_any_table(k1):
    _, _, html = k1
    assert html.index('<div class="headline">') < html.index("<table")


def test_headline_names_the_top_group_and_its_test(k1):
    ds, _, html = k1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranks = rank_table(ds, confidence_level=0.95, rng=0)
    top = ranks.loc[ranks["in_top_group"], "model"].tolist()
    first = _headline(html)[0]
    if len(top) == 1:
        assert first.startswith(f"Best model: {top[0]}")
    else:
        assert first.startswith(f"Top group: {len(top)} of 6 models")
        assert all(name in first for name in top)
    assert "Holm-adjusted over all 15 pairs" in first


def test_headline_gives_the_smallest_resolvable_difference(k1):
    """(z_0.975 + z_0.8) paired SEs of the close pairs' differences, median: the normal power
    formula written out with scipy, on the pairs table's se_difference."""
    ds, section, html = k1
    close = section.data["close"]
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the K = 1 split note
        pairs = frequentist.pair_noise(ds)
    keep = pairs.merge(close[["model_a", "model_b"]], on=["model_a", "model_b"])
    expected = float(np.median(z * keep["se_difference"]))
    sentence = [s for s in _headline(html) if s.startswith("Smallest difference")]
    assert len(sentence) == 1
    assert f"resolves: {expected:.3f}" in sentence[0]


def test_headline_names_the_most_suspect_question(k1):
    _, _, html = k1
    q = frequentist.question_quality(k1[0]).sort_values("suspect_rank")
    worst = str(q["question"].iloc[0])
    sentence = [s for s in _headline(html) if s.startswith("Most suspect")]
    assert len(sentence) == 1 and f"{worst} (tau" in sentence[0]
    # the id links to its row of the question table
    assert re.search(r'<a href="#k1-q-[^"]+">' + re.escape(worst) + "</a>", html)


def test_no_empty_or_not_identified_column_at_k1(k1):
    _, _, html = k1
    body = html.split('<table class="sortable model-table">')[1].split("</table>")[0]
    head = [unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<th[^>]*>(.*?)</th>", body)]
    rows = [
        [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>")[1], flags=re.S)
    ]
    assert len(rows) == 6
    for j, name in enumerate(head):
        assert any(r[j] for r in rows), f"column {name!r} is empty on every row"
    assert "not identified" not in body and "kappa" not in " ".join(head)


def test_k1_notes_say_what_was_done_and_link_the_docs(k1):
    _, _, html = k1
    notes = html.split("<h3>Data notes</h3>")[1]
    assert "run K &gt;= 2" not in notes and "run K >= 2" not in notes
    assert "K = 1 binomial bound" in notes
    hrefs = re.findall(r'<a href="([^"]+)">', notes)
    assert hrefs and all(h.endswith("#split") or "#" in h for h in hrefs)
    # no docs path left as plain text
    assert not re.search(r"(?<!>)docs/[\w/-]+\.md", re.sub(r"<a [^>]+>.*?</a>", "", notes))


def test_docs_links_follow_the_site_variable(monkeypatch):
    from bayesnoise.reporting._html_headline import DOCS_ENV, docs_url, linked

    monkeypatch.setenv(DOCS_ENV, "https://docs.example/bn")
    assert docs_url("warnings", "split") == "https://docs.example/bn/warnings.html#split"
    parts = linked("x; see docs/howto/judge.md#the-random-subset")
    assert parts == [
        "x; see ",
        (
            "docs/howto/judge.md#the-random-subset",
            "https://docs.example/bn/howto/judge.html#the-random-subset",
        ),
    ]
    monkeypatch.delenv(DOCS_ENV)
    assert docs_url("warnings").startswith(("file:", "docs/"))
