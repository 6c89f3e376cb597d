"""Result tables as aligned text, CSV, TSV or JSON; the format chosen by name or file extension."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "format_for_path",
    "render",
    "write_table",
]

FORMATS = ("table", "csv", "tsv", "json")
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".txt": "table"}


def render(df: pd.DataFrame, fmt: str = "table", *, digits: int = 4) -> str:
    """Render a result table.

    ``table``: aligned text for people (NaN shown blank, floats to ``digits`` significant
    digits); ``csv`` / ``tsv``: full precision, NaN as an empty field; ``json``: a list of
    records with full precision, NaN as ``null``.

    Parameters
    ----------
    df : pandas.DataFrame
    fmt : {"table", "csv", "tsv", "json"}
    digits : int
        Significant digits of floats in ``table``.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> print(render(pd.DataFrame({"model": ["a"], "se": [float("nan")]}), "csv").strip())
    model,se
    a,
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
    if fmt in ("csv", "tsv"):
        buf = io.StringIO()
        sep = "," if fmt == "csv" else "\t"
        out = _formatted_floats(df)  # other float columns (e.g. Float64) still by pandas:
        out.to_csv(buf, index=False, na_rep="", float_format="%.10g", sep=sep)
        return buf.getvalue()
    if fmt == "json":
        records = [
            {k: _json_value(v) for k, v in row.items()} for row in df.to_dict(orient="records")
        ]
        return json.dumps(records, indent=1) + "\n"
    formatters = {
        col: (lambda v: "" if pd.isna(v) else f"{v:.{digits}g}")
        for col in df.columns
        if pd.api.types.is_float_dtype(df[col])
    }
    return df.to_string(index=False, formatters=formatters, na_rep="") + "\n"


def _formatted_floats(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its numpy float columns as ``%.10g`` text, NaN as an empty field: the same
    text as ``to_csv(float_format="%.10g")``, which formats value by value through pandas
    (0.30 s for a 44,850-pair table against 0.20 s here)."""
    out = df.copy(deep=False)
    for i, dtype in enumerate(df.dtypes):
        if dtype in (np.float64, np.float32):
            values = df.iloc[:, i].to_numpy()
            # printf-style, as pandas' float_format applies it
            text = np.array(["%.10g" % x for x in values.tolist()], dtype=object)  # noqa: UP031
            text[np.isnan(values)] = ""
            out.isetitem(i, text)
    return out


def _json_value(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def format_for_path(path: str | Path, fmt: str | None = None) -> str:
    """The output format: ``fmt`` when given, else from the file extension (.csv, .tsv, .json,
    .txt); an unknown extension without ``fmt`` is an error.

    Examples
    --------
    >>> format_for_path("out.csv"), format_for_path("out.csv", "json")
    ('csv', 'json')
    """
    if fmt is not None:
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix not in _EXTENSIONS:
        raise ValueError(
            f"{path}: cannot tell the output format from the extension {suffix!r}; use "
            f"{', '.join(_EXTENSIONS)} or give --format {'|'.join(FORMATS)}"
        )
    return _EXTENSIONS[suffix]


def write_table(df: pd.DataFrame, path: str | Path, fmt: str | None = None) -> Path:
    """Write ``df`` to ``path`` in ``fmt`` or the format its extension names; return the path.

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> out = write_table(pd.DataFrame({"a": [1]}), pathlib.Path(tempfile.mkdtemp()) / "t.json")
    >>> out.read_text().split()
    ['[', '{', '"a":', '1', '}', ']']
    """
    path = Path(path)
    path.write_text(render(df, format_for_path(path, fmt)))
    return path
