"""HTML of the report: inline CSS, base64 PNG figures, a few lines of JS to sort tables."""

from __future__ import annotations

import base64
import io
import re
from html import escape

import numpy as np

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1200px;padding:1rem 2rem;color:#1a1a1a;background:#fff}
h1{font-size:1.6rem}h2{font-size:1.3rem;border-bottom:2px solid #ddd;padding-bottom:.2rem;
margin-top:2.5rem}h3{font-size:1.05rem;margin-top:1.6rem}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}
th,td{border:1px solid #ddd;padding:.2rem .45rem;text-align:right;vertical-align:top}
th{background:#f3f3f3;position:sticky;top:0}td{white-space:nowrap}
td.t:last-child{white-space:normal;min-width:16rem}td.t,th.t{text-align:left}
table.sortable th{cursor:pointer}table.sortable th:hover{background:#e4e4e4}
tr:nth-child(even) td{background:#fafafa}.sig{font-weight:600;color:#0a5}
.wrap{max-height:32rem;overflow:auto;border:1px solid #eee;display:inline-block;max-width:100%}
figure{display:inline-block;margin:.5rem 1rem .5rem 0;vertical-align:top;max-width:100%}
figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.8rem;color:#555;max-width:640px}.notes li{margin:.3rem 0}
.muted{color:#666;font-size:.85rem}
"""

# Sort a table by the clicked column: numbers by their data-v attribute, text otherwise.
JS = """
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th, col){
    th.addEventListener('click', function(){
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var dir = th.dataset.dir === 'asc' ? -1 : 1; th.dataset.dir = dir > 0 ? 'asc' : 'desc';
      rows.sort(function(a, b){
        var x = a.cells[col], y = b.cells[col];
        var u = parseFloat(x.dataset.v), v = parseFloat(y.dataset.v);
        if (!isNaN(u) && !isNaN(v)) return dir * (u - v);
        return dir * x.textContent.localeCompare(y.textContent);
      });
      rows.forEach(function(r){ body.appendChild(r); });
    });
  });
});
"""


def png_data_uri(fig, dpi: int = 90) -> str:
    """A figure as a ``data:image/png;base64,...`` URI."""
    buffer = io.BytesIO()
    getattr(fig, "figure", fig).savefig(buffer, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def slug(text: str) -> str:
    """An HTML id from a title."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "section"


def fmt(value, digits: int = 3) -> str:
    """A cell's text: numbers rounded, NaN as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            return ""
        return f"{value:.2g}" if 0 < abs(value) < 1e-3 else f"{value:.{digits}f}"
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    return escape(str(value))


def interval(low, high) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return ""
    return f"{low:.3f} – {high:.3f}"


def table_html(columns, rows, *, css: str = "sortable", text_cols=(1,)) -> str:
    """A sortable table. ``columns``: headers; ``rows``: lists of (text, sort value or None)."""
    head = "".join(
        f'<th class="t">{escape(c)}</th>' if i + 1 in text_cols else f"<th>{escape(c)}</th>"
        for i, c in enumerate(columns)
    )
    body = []
    for row in rows:
        cells = []
        for i, (text, value) in enumerate(row):
            klass = ' class="t"' if i + 1 in text_cols else ""
            v = "" if value is None or not np.isfinite(value) else f' data-v="{value:.10g}"'
            cells.append(f"<td{klass}{v}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="wrap"><table class="{css}"><thead><tr>{head}</tr></thead><tbody>'
        + "\n".join(body)
        + "</tbody></table></div>"
    )


def num(value, digits: int = 3):
    """(text, sort value) of a number."""
    value = float(value) if value is not None else np.nan
    return (fmt(value, digits), value)


def figure_html(name: str, uri: str, caption: str) -> str:
    return (
        f'<figure data-figure="{escape(name)}"><img src="{uri}" alt="{escape(caption)}">'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def page(title: str, body: str, version: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="muted">Written by bayesnoise {escape(version)}. Self-contained: no network '
        "access needed. Click a column header to sort a table.</p>"
        f"{body}<script>{JS}</script></body></html>\n"
    )
