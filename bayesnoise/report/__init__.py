"""Rendering results for people: text tables now (an HTML report will live here too)."""

from .text import FORMATS, format_for_path, render, write_table

__all__ = ["FORMATS", "format_for_path", "render", "write_table"]
