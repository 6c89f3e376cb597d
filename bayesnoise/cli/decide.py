"""Commands added by the decide work (being written)."""

from __future__ import annotations


def register(sub) -> None:
    """Add this module's commands to the ``bayesnoise`` sub-parsers."""
