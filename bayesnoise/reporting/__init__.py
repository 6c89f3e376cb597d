"""Rendering results for people: text tables now (an HTML report will live here too)."""

from .html import reference_table, write_report
from .text import FORMATS, format_for_path, render, write_table

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "render",
    "write_report",
]
