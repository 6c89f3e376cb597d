"""A registered column (name, label, meaning, unit, scope, method) and the shared units."""

from __future__ import annotations

from dataclasses import dataclass

THESE = "these questions"
POPULATION = "question population"
NONE = ""


@dataclass(frozen=True)
class Column:
    """One registered column: its label, meaning, unit, scope and method."""

    name: str
    label: str
    description: str
    unit: str = ""
    scope: str = NONE
    method: str = ""
    interval: bool = False  # ``<name>_low`` / ``<name>_high`` exist


def _c(name, label, description, unit="", scope=NONE, method="", interval=False):
    return Column(name, label, description, unit, scope, method, interval)


_ACC = "fraction correct (0-1)"
_DIFF = "difference of fractions correct (-1 to 1)"
_PROB = "probability (0-1)"
