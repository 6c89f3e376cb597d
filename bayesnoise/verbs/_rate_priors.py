"""The priors of ``rate``: one for every model (``prior=``) and per-model ones (``priors=``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bayesnoise.data import DataError

from .choices import PRIOR_HELP


def parse_prior(spec, *, where: str = "prior"):
    """A :class:`~bayesnoise.conjugate.BetaPrior` from ``"uniform"``, ``"jeffreys"``, ``"a,b"``,
    ``"mean=M,sd=S"``, a tuple, a dict or a BetaPrior; any problem is a DataError."""
    from bayesnoise.conjugate import BetaPrior, beta_prior

    if isinstance(spec, str):
        text = spec.strip().lower().replace(" ", "")
        if "=" in text:
            try:
                spec = {
                    key: float(value)
                    for key, value in (item.split("=", 1) for item in text.split(","))
                }
            except ValueError:
                raise DataError(f"{where}: cannot read {spec!r}; use {PRIOR_HELP}") from None
        elif "," in text:
            try:
                spec = tuple(float(v) for v in text.split(","))
            except ValueError:
                raise DataError(f"{where}: cannot read {spec!r}; use {PRIOR_HELP}") from None
        else:
            spec = text
    if isinstance(spec, dict) and set(spec) == {"mean", "sd"}:
        mean, sd = float(spec["mean"]), float(spec["sd"])
        if not 0 < mean < 1:
            raise DataError(f"{where}: a prior mean must be in (0, 1), got {mean:g}")
        if not sd > 0 or sd * sd >= mean * (1 - mean):
            raise DataError(
                f"{where}: no Beta distribution has mean {mean:g} and sd {sd:g}: it needs "
                f"0 < sd and sd^2 < mean (1 - mean) = {mean * (1 - mean):.6g} "
                f"(sd < {np.sqrt(mean * (1 - mean)):.6g})"
            )
    if isinstance(spec, BetaPrior):
        return spec
    try:
        return beta_prior(spec)
    except (TypeError, ValueError) as err:
        raise DataError(f"{where}: {err}; use {PRIOR_HELP}") from None


def _table(priors):
    import pandas as pd

    if isinstance(priors, pd.DataFrame):
        return priors, "priors table"
    if isinstance(priors, dict):
        return None, "priors"
    path = Path(priors)
    if not path.exists():
        raise DataError(f"{path}: no such priors file")
    sep = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    return pd.read_csv(path, sep=sep), str(path)


def model_priors(models, prior="uniform", priors=None, *, source: str = "the file") -> dict:
    """Model name -> BetaPrior: ``priors`` (a table with columns ``model,a,b`` or
    ``model,mean,sd``, its path, or a dict model -> prior) where given, else ``prior``."""
    common = parse_prior(prior, where="prior")
    out = {str(m): common for m in models}
    if priors is None:
        return out
    table, name = _table(priors)
    if table is None:
        given = {str(m): spec for m, spec in priors.items()}
    else:
        cols = [str(c).strip().lower() for c in table.columns]
        table = table.set_axis(cols, axis=1)
        if "model" not in cols or not ({"a", "b"} <= set(cols) or {"mean", "sd"} <= set(cols)):
            raise DataError(
                f"{name}: needs columns model,a,b or model,mean,sd; it has {', '.join(cols)}"
            )
        keys = ("a", "b") if {"a", "b"} <= set(cols) else ("mean", "sd")
        given = {}
        for i, row in enumerate(table.itertuples(index=False)):
            rec = row._asdict()
            model = str(rec["model"])
            if model in given:
                raise DataError(f"{name}, row {i + 1}: model {model!r} appears twice")
            spec = {k: rec[k] for k in keys}
            given[model] = spec if keys == ("mean", "sd") else (spec["a"], spec["b"])
    unknown = [m for m in given if m not in out]
    if unknown:
        raise DataError(
            f"{name}: model {unknown[0]!r} is not in {source}; its models are {', '.join(out)}"
        )
    for model, spec in given.items():
        out[model] = parse_prior(spec, where=f"{name}: model {model!r}")
    return out
