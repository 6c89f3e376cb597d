"""Rendering results for people: text tables now (an HTML report will live here too)."""

from .html import reference_table, write_report
from .text import FORMATS, format_for_path, render, write_table

__all__ = [
    "FORMATS",
    "format_for_path",
    "reference_table",
    "render",
    "write_report",
    "write_table",
]
