"""Rendering results for people: text tables now (an HTML report will live here too)."""

from .text import FORMATS, format_for_path, render, write_table

# The HTML report (jinja2, the estimators, the figures) is imported on first use: the command
# line renders text tables through this package and must not pay for the report at start-up.
_HTML = ("reference_table", "write_report")


def __getattr__(name: str):
    if name in _HTML:
        from . import html

        return getattr(html, name)
    raise AttributeError(f"module 'bayesnoise.reporting' has no attribute {name!r}")


# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "render",
    "write_report",
]
