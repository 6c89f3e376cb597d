"""Eval-Arena's family signal-to-noise: bigger against smaller models of one series.

For a bigger model A and the next smaller model B of one family (crux-eval/eval-arena
``signal_noise.py``)::

    family_snr = (acc_A - acc_B) / se_difference / log2(size_A / size_B) = z / size_doublings

the paired z of ``bayesnoise pairs`` per doubling of the model size. Eval-Arena divides by the
sign-test SE sqrt(#(A != B)) / N instead of the paired SE sqrt(var_i(d_i) / N); the two agree
when few questions separate the models (sum d_i^2 = #(A != B) for 0/1 scores, and the mean of
d_i is small). :func:`family_signal` takes a Dataset because it reuses
:func:`bayesnoise.frequentist.pair_noise_dataset` for ``se_difference`` and ``z``.
"""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise.data import MODEL, DataError

__all__ = [
    "family_pairs",
    "family_signal",
    "family_table",
]

FAMILY_COLUMNS = [
    "model_a",
    "model_b",
    "family",
    "size_a",
    "size_b",
    "accuracy_a",
    "accuracy_b",
    "difference",
    "se_difference",
    "z",
    "size_doublings",
    "family_snr",
]


def _size(text: str, model: str, where: str) -> float:
    try:
        size = float(text)
    except (TypeError, ValueError):
        size = np.nan
    if not (np.isfinite(size) and size > 0):
        raise DataError(f"{where}: model {model!r} has size {text!r}; sizes must be numbers > 0")
    return size


def family_table(models, families, *, where: str = "families") -> pd.DataFrame:
    """Family and size of each model that belongs to a series.

    Parameters
    ----------
    models : sequence of str
        The models of the results.
    families : str, re.Pattern or pandas.DataFrame
        A DataFrame with columns ``model``, ``family``, ``size`` (a number, e.g. billions of
        parameters), or a regular expression searched in each model name. The size is the
        group named ``size`` (else the second group, Eval-Arena's ``(.*)[-_x](\\d+\\.?\\d?)[bB]``);
        the family the group named ``family`` (else the first of two groups, else the name
        with the size replaced by ``*``: ``llama-7b-chat`` and ``llama-13b-chat`` are
        ``llama-*b-chat``).
    where : str
        Name of the families source, for error messages.

    Returns
    -------
    pandas.DataFrame
        ``model, family, size`` for the models that belong to a family, in ``models`` order;
        ``attrs["unmatched"]`` lists the others.

    Examples
    --------
    >>> family_table(["llama-7b", "llama-13b", "gpt"], r"(?P<size>\\d+)b").values.tolist()
    [['llama-7b', 'llama-*b', 7.0], ['llama-13b', 'llama-*b', 13.0]]
    """
    models = [str(m) for m in models]
    if isinstance(families, pd.DataFrame):
        missing = [c for c in ("model", "family", "size") if c not in families.columns]
        if missing:
            raise DataError(
                f"{where}: a families table needs the columns model, family, size; it lacks "
                f"{', '.join(missing)} (found {', '.join(map(str, families.columns))})"
            )
        spec = families.assign(model=families["model"].astype(str))
        twice = spec["model"][spec["model"].duplicated()]
        if not twice.empty:
            raise DataError(f"{where}: model {twice.iloc[0]!r} is listed twice")
        spec = spec.set_index("model")
        rows = [
            (m, str(spec.at[m, "family"]), _size(spec.at[m, "size"], m, where))
            for m in models
            if m in spec.index
        ]
        unknown = sorted(set(spec.index) - set(models))
        if unknown:
            shown = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
            warnings.warn(
                f"{where}: {len(unknown)} listed model(s) are not in the results: {shown}",
                UserWarning,
                stacklevel=2,
            )
    else:
        pattern = re.compile(families) if isinstance(families, str) else families
        named = pattern.groupindex
        if "size" not in named and pattern.groups < 2:
            raise DataError(
                f"{where}: the regular expression {pattern.pattern!r} needs a group named size "
                "(e.g. '(?P<size>\\d+(\\.\\d+)?)[bB]') or two groups (family, size)"
            )
        size_group = "size" if "size" in named else 2
        family_group = "family" if "family" in named else (1 if "size" not in named else None)
        rows = []
        for m in models:
            hit = pattern.search(m)
            if hit is None or hit.group(size_group) is None:
                continue
            if family_group is not None:
                family = hit.group(family_group)
            else:
                start, end = hit.span(size_group)
                family = m[:start] + "*" + m[end:]
            rows.append((m, str(family), _size(hit.group(size_group), m, where)))
    table = pd.DataFrame(rows, columns=["model", "family", "size"])
    table.attrs["unmatched"] = [m for m in models if m not in set(table["model"])]
    return table


def family_pairs(table: pd.DataFrame) -> list[tuple[str, str]]:
    """(bigger, smaller) pairs of adjacent sizes within each family (Eval-Arena pairs each size
    with the next smaller one: 70B-13B, 13B-7B). Models of equal size in a family are each
    paired with every model of the next smaller size.

    Examples
    --------
    >>> t = pd.DataFrame({"model": ["l7", "l13", "l70"], "family": ["l"] * 3,
    ...                   "size": [7.0, 13.0, 70.0]})
    >>> family_pairs(t)
    [('l70', 'l13'), ('l13', 'l7')]
    """
    pairs = []
    for _, group in table.groupby("family", sort=True):
        sizes = sorted(set(group["size"]), reverse=True)
        for big, small in itertools.pairwise(sizes):
            for a in group.loc[group["size"] == big, "model"]:
                for b in group.loc[group["size"] == small, "model"]:
                    pairs.append((str(a), str(b)))
    return pairs


def family_signal(ds: xr.Dataset, table: pd.DataFrame, *, on_missing: str = "raise"):
    """Eval-Arena's family SNR of every adjacent pair of sizes in a family.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`.
    table : pandas.DataFrame
        :func:`family_table` of the dataset's models.
    on_missing : {"raise", "intersect"}
        As in :func:`bayesnoise.data.complete` (pairs need the same questions).

    Returns
    -------
    pandas.DataFrame
        One row per (bigger A, smaller B): ``model_a, model_b, family, size_a, size_b,
        accuracy_a, accuracy_b, difference, se_difference, z`` (the numbers of ``bayesnoise pairs``),
        ``size_doublings`` = log2(size_a / size_b) and ``family_snr`` = z / size_doublings.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random((2, 200)) < np.array([[0.7], [0.5]])
    >>> ds = from_arrays(p.astype(int), np.ones((2, 200)), models=["m-14b", "m-7b"])
    >>> t = family_signal(ds, family_table(["m-14b", "m-7b"], r"(?P<size>\\d+)b"))
    >>> t[["model_a", "size_doublings"]].values.tolist()
    [['m-14b', 1.0]]
    """
    from bayesnoise.frequentist.noise import pair_noise_dataset

    pairs = family_pairs(table)
    if not pairs:
        found = ", ".join(f"{f} ({len(g)})" for f, g in table.groupby("family", sort=True))
        raise DataError(
            f"{ds.attrs.get('source', 'input')}: no family has models of two sizes, so there "
            f"is no pair to compare (families found: {found or 'none'}; models outside every "
            f"family: {len(table.attrs.get('unmatched', []))})"
        )
    order = list(map(str, ds[MODEL].values))
    used = sorted({m for pair in pairs for m in pair}, key=order.index)
    with warnings.catch_warnings():  # the K = 1 split note is about columns not shown here
        warnings.filterwarnings("ignore", message="data/prediction split not identifiable")
        mat = pair_noise_dataset(ds.sel({MODEL: used}), on_missing=on_missing, progress=False)
    spec = table.set_index("model")
    rows = []
    for a, b in pairs:
        pick = {"model_a": a, "model_b": b}
        doublings = float(np.log2(spec.at[a, "size"] / spec.at[b, "size"]))
        z = float(mat["z"].sel(pick))
        rows.append(
            (
                a,
                b,
                spec.at[a, "family"],
                float(spec.at[a, "size"]),
                float(spec.at[b, "size"]),
                float(mat["accuracy"].sel({MODEL: a})),
                float(mat["accuracy"].sel({MODEL: b})),
                float(mat["difference"].sel(pick)),
                float(mat["se_difference"].sel(pick)),
                z,
                doublings,
                z / doublings,
            )
        )
    return pd.DataFrame(rows, columns=FAMILY_COLUMNS)
