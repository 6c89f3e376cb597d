"""The column registry: every column name the package prints, what it estimates, and how.

One table, read by every table, CSV/JSON output, command-line help, report and plot label. The
rules it encodes:

* a name means one estimand computed one way wherever it appears; where two methods estimate
  the same estimand the name says the method (``ubar`` from the closed form, ``ubar_mcmc``
  from MCMC; ``se_data`` frequentist, ``se_data_bayes`` from the posterior);
* the *scope* is either ``these questions`` (the N questions asked: prediction noise only) or
  ``question population`` (new questions like these: data and prediction noise);
* interval columns are ``<name>_low`` / ``<name>_high`` of a registered ``<name>``.

Nothing here imports numpy or xarray: the registry is plain data.

Examples
--------
>>> describe("mu_difference_low")["scope"]
'question population'
>>> label("prob_a_better")
'P(A > B), these questions (Bayes)'
"""

from __future__ import annotations

from ._column import NONE, POPULATION, THESE, Column
from ._commands import _COMMAND_COLUMNS, _SHOWN
from ._core import _ENTRIES as _CORE_ENTRIES
from ._decisions import _DECISION_ENTRIES
from ._factors import _FACTOR_ENTRIES
from ._judge import _JUDGE_ENTRIES
from ._rate import _RATE_ENTRIES

# The documented API of this layer (the surface is counted over these lists,
# tests/test_surface.py); the other names stay importable for the package's own layers.
__all__ = [
    "describe",
    "is_registered",
]

_ENTRIES = _CORE_ENTRIES + _DECISION_ENTRIES + _RATE_ENTRIES + _FACTOR_ENTRIES + _JUDGE_ENTRIES

#: name -> :class:`Column`, in the order above.
REGISTRY: dict[str, Column] = {c.name: c for c in _ENTRIES}


def _base(name: str) -> tuple[Column, str]:
    if name in REGISTRY:
        return REGISTRY[name], ""
    for end in ("_low", "_high"):
        stem = name.removesuffix(end)
        if stem != name and stem in REGISTRY and REGISTRY[stem].interval:
            return REGISTRY[stem], end[1:]
    raise KeyError(f"{name!r} is not a registered column; `bayesnoise columns` lists them all")


def is_registered(name: str) -> bool:
    """Whether ``name`` (or the ``_low``/``_high`` end of a registered interval) is registered.

    Parameters
    ----------
    name : str
        A column name.

    Returns
    -------
    bool
    """
    try:
        _base(name)
    except KeyError:
        return False
    return True


def describe(name: str) -> dict[str, str]:
    """The registry entry of a column (interval ends included) as a dict.

    Parameters
    ----------
    name : str
        A registered column, or the ``_low`` / ``_high`` end of a registered interval.

    Returns
    -------
    dict of str to str
        ``name``, ``label``, ``description``, ``unit``, ``scope``, ``method``.

    Examples
    --------
    >>> describe("accuracy_high")["description"].startswith("upper end")
    True
    """
    col, end = _base(name)
    text = col.description
    if end:
        text = f"{'lower' if end == 'low' else 'upper'} end of the interval of {col.name}: {text}"
    label_ = f"{col.label} ({end})" if end else col.label
    return {
        "name": name,
        "label": label_,
        "description": text,
        "unit": col.unit,
        "scope": col.scope,
        "method": col.method,
    }


def label(name: str) -> str:
    """The short human label of a column (for table headers and axes)."""
    return describe(name)["label"]


def command_rows(command: str | None = None) -> list[dict[str, str]]:
    """Registry rows grouped by command (for ``bayesnoise columns``), each with a
    ``command`` field.

    ``command`` given: the columns that command prints, in its order, interval ends
    included (an unknown command is a :class:`KeyError` naming the known ones). None: every
    registered column once, under the first command that prints it (``other``: printed by
    no command, e.g. lower-level functions' columns).

    Examples
    --------
    >>> [r["name"] for r in command_rows("questions")][:3]
    ['question', 'question_accuracy', 'solved_by']
    """
    if command is not None and command not in _COMMAND_COLUMNS:
        known = ", ".join(_COMMAND_COLUMNS)
        raise KeyError(f"no command {command!r} prints columns; the commands are {known}")
    groups = [command] if command is not None else list(_COMMAND_COLUMNS)
    rows, seen = [], set()
    for group in groups:
        for name in _COMMAND_COLUMNS[group]:
            if name in seen and command is None:
                continue
            seen.add(name)
            rows += [{"command": group, **r} for r in _rows_of(REGISTRY[name])]
    if command is None:
        for col in _ENTRIES:
            if col.name not in seen:
                rows += [{"command": "other", **r} for r in _rows_of(col)]
    return rows


def _rows_of(col: Column) -> list[dict[str, str]]:
    ends = [f"{col.name}_low", f"{col.name}_high"] if col.interval else []
    return [describe(n) for n in (col.name, *ends)]


def shown_columns(command: str) -> tuple[str, ...] | None:
    """The columns ``command`` prints by default in its text table, interval ends included;
    None: every column (``--all-columns`` prints them all; CSV and JSON hold them all).

    Examples
    --------
    >>> shown_columns("power")[:4]
    ('model_a', 'model_b', 'difference', 'difference_low')
    >>> shown_columns("noise") is None
    True
    """
    if command not in _SHOWN:
        return None
    out = []
    for name in _SHOWN[command]:
        out.append(name)
        if name in REGISTRY and REGISTRY[name].interval:
            out += [f"{name}_low", f"{name}_high"]
    return tuple(out)


def registry_rows() -> list[dict[str, str]]:
    """Every registered name, interval ends included, as rows (for ``bayesnoise columns``)."""
    rows = []
    for col in _ENTRIES:
        rows.append(describe(col.name))
        if col.interval:
            rows += [describe(f"{col.name}_low"), describe(f"{col.name}_high")]
    return rows
