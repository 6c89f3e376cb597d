"""Turn result tables into text, CSV or JSON, and put answers side by side."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd

FORMATS = ("table", "csv", "json")


def render(df: pd.DataFrame, fmt: str = "table", *, digits: int = 4) -> str:
    """Render a result table.

    ``table``: aligned text for people (NaN shown blank, floats to ``digits`` significant
    digits); ``csv``: full precision, NaN as an empty field; ``json``: a list of records with
    full precision, NaN as ``null``.

    Examples
    --------
    >>> import pandas as pd
    >>> print(render(pd.DataFrame({"model": ["a"], "se": [float("nan")]}), "csv").strip())
    model,se
    a,
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
    if fmt == "csv":
        buf = io.StringIO()
        df.to_csv(buf, index=False, na_rep="", float_format="%.10g")
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


def _json_value(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v
