"""report --factor template (issue 31 item 5): the crossed-factor section has the
variance-decomposition figure, the model x template heat map and the noises tables, whose
numbers are bn.noises' (read back from the cells' data-v attributes, 10 significant digits)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_plan_templates import _pilot

import bayesnoise as bn
from bayesnoise.cli import main


def _table(html: str, name: str) -> list[list[str]]:
    """Cells' data-v values (None for text cells) of the table with aria-label ``name``."""
    body = html.split(f'aria-label="{name}"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], flags=re.S)
    return [
        [v or None for v in re.findall(r'<td[^>]*?(?: data-v="([^"]*)")?>', row)] for row in rows
    ]


def test_factor_section_has_both_figures_and_the_noises_numbers(tmp_path):
    df = _pilot(np.random.default_rng(5), n=30, t=3, k=2)
    out = bn.report(df, output=tmp_path / "r.html", factors=["template"])
    html = out.read_text()
    assert html.count('data-section="factors"') == 1
    for kind in ("noises", "templates"):
        assert re.search(rf'data-figure="{kind}"><img src="data:image/png;base64,\w', html)
    models = bn.noises(df, factors=["template"])
    rows = _table(html, "accuracy over templates")
    names = ["questions", "templates", "cells", "runs_per_cell", "accuracy_templates"]
    names += ["accuracy_templates_low", "se_templates", "df_templates"]
    names += ["accuracy_these_templates", "accuracy_these_templates_low"]
    names += ["se_these_templates", "df_these_templates"]
    assert len(rows) == models.sizes["model"]
    for row, model in zip(rows, models["model"].values, strict=True):
        got = np.array(row[1:], dtype=float)
        want = [float(models[n].sel(model=model)) for n in names]
        np.testing.assert_allclose(got, want, rtol=1e-9)
    comps = _table(html, "variance components")
    want = np.stack(
        [models[v].values.ravel() for v in ("variance_component", "variance_part")], axis=1
    )
    got = np.array([r[2:4] for r in comps], dtype=float)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-15)
    pairs = bn.noises(df, factors=["template"], by="pair")
    prow = _table(html, "difference over templates")[0]
    assert float(prow[6]) == pytest.approx(float(pairs["difference_templates"][0]), rel=1e-9)
    assert float(prow[-2]) == pytest.approx(float(pairs["p_value_templates"][0]), rel=1e-9)


def test_cli_report_with_factor(tmp_path):
    path = tmp_path / "pilot.csv"
    _pilot(np.random.default_rng(5), n=20, t=3, k=2).to_csv(path, index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(path), "--factor", "template", "-o", str(out)]) in (0, None)
    html = out.read_text()
    assert 'data-figure="noises"' in html and 'data-figure="templates"' in html
    assert "<h2>pilot: templates" in html  # the benchmark (file stem) and the factor
