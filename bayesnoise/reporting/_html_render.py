"""Rendering of the HTML report: jinja2 templates (autoescaped), number formats, PNG data URIs.

The templates live in ``bayesnoise/reporting/templates/`` (package data): ``report.html.j2`` the
page, ``section.html.j2`` one benchmark, ``macros.html.j2`` the table, ``report.css`` and
``sort.js`` inlined into the page so that it needs no network.
"""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass, field
from functools import cache

import numpy as np

#: Package (for :class:`jinja2.PackageLoader`) and folder of the templates.
TEMPLATE_PACKAGE, TEMPLATE_FOLDER = "bayesnoise.reporting", "templates"


@cache
def environment():
    """The jinja2 environment of the report: HTML autoescaped, undefined names are errors.

    Examples
    --------
    >>> environment().from_string("{{ x }}").render(x="<b>")
    '&lt;b&gt;'
    """
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader(TEMPLATE_PACKAGE, TEMPLATE_FOLDER),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_template(name: str, **context) -> str:
    """Render the template ``name`` of ``templates/`` with ``context``."""
    return environment().get_template(name).render(**context)


def png_data_uri(fig, dpi: int = 90) -> str:
    """A figure as a ``data:image/png;base64,...`` URI."""
    buffer = io.BytesIO()
    getattr(fig, "figure", fig).savefig(buffer, format="png", dpi=dpi)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def slug(text: str) -> str:
    """An HTML id from a title."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "section"


def fmt(value, digits: int = 3) -> str:
    """A cell's plain text (the templates escape it): numbers rounded, NaN as an empty cell.

    Examples
    --------
    >>> fmt(0.123456, 4), fmt(12000), fmt(float("nan")), fmt(2e-5)
    ('0.1235', '12,000', '', '2e-05')
    """
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            return ""
        return f"{value:.2g}" if 0 < abs(value) < 1e-3 else f"{value:.{digits}f}"
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    return str(value)


def count_text(value) -> str:
    """A count: whole numbers without decimals (``10``, not ``10.0``), a mean to one decimal.

    Examples
    --------
    >>> count_text(10.0), count_text(1079.5), count_text(float("nan"))
    ('10', '1,079.5', '')
    """
    value = float(value) if value is not None else np.nan
    if not np.isfinite(value):
        return ""
    return f"{value:,.0f}" if value == round(value) else f"{value:,.1f}"


def interval(low, high, digits: int = 3) -> str:
    """``low – high`` (empty when either end is missing)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return ""
    return f"{low:.{digits}f} – {high:.{digits}f}"


@dataclass
class Column:
    """A table header: its label, the tooltip (the registry's description), CSS classes."""

    label: str
    title: str = ""
    css: str = ""


@dataclass
class Cell:
    """A table cell: plain text, the number it sorts by, CSS classes of the cell and a span."""

    text: str
    value: str | None = None
    css: str = ""
    span: str = ""


@dataclass
class Table:
    """What the ``table`` macro of ``macros.html.j2`` draws."""

    columns: list[Column]
    rows: list[list[Cell]]
    css: str = "sortable"
    caption: str = ""
    row_css: list[str] = field(default_factory=list)


def sort_value(value) -> str | None:
    """The ``data-v`` attribute of a numeric cell (None when missing)."""
    value = float(value) if value is not None else np.nan
    return f"{value:.10g}" if np.isfinite(value) else None


def num(value, digits: int = 3, css: str = "") -> Cell:
    """A numeric cell."""
    value = float(value) if value is not None else np.nan
    return Cell(fmt(value, digits), sort_value(value), css)


def count(value, css: str = "") -> Cell:
    """A count cell (:func:`count_text`)."""
    return Cell(count_text(value), sort_value(value), css)


def text(value, css: str = "t", span: str = "") -> Cell:
    """A text cell."""
    return Cell("" if value is None else str(value), None, css, span)
