"""``check`` on factor dims (``factors=`` / ``--factor``): the gate on the crossed difference
over the template population (:mod:`bayesnoise.decide.crossed_gate`)."""

from __future__ import annotations

from bayesnoise.data import MODEL, DataError, attr

from ._factor_tables import BAYES_REFUSAL, _accuracy, _split, crossed_cells, pair_fit
from ._inputs import dataset, gate_model, source_name
from ._result import to_result


def _model_cells(ds, model, role, factors):
    """(model, the dataset of that model alone); the only model when ``model`` is None."""
    model = gate_model(ds, model, role)
    return model, ds.sel({MODEL: [model]})


def check_crossed(pairs, baseline, candidate, margin, alpha, method, progress, read):
    """:func:`bayesnoise.check` on ``pairs`` of (source, other source or None) with factors."""
    import xarray as xr

    from bayesnoise.decide.crossed_gate import crossed_gate

    from .gate import _benchmark_names

    factors = read.get("factors")
    fits, labels, accuracies, names, unshared = [], [], [], (None, None), []
    for source, other in pairs:
        benchmarks = _benchmark_names(source, read)
        if other is not None and benchmarks == [None]:
            benchmarks = _benchmark_names(other, read)
        for name in benchmarks:
            opts = {**read, "benchmark": name}
            ds_b = dataset(source, progress=progress, factors_ok=True, **opts)
            ds_c = (
                ds_b
                if other is None
                else dataset(other, progress=progress, factors_ok=True, **opts)
            )
            if method != "frequentist":
                factor = crossed_cells(ds_b, factors)[0]
                raise DataError(BAYES_REFUSAL.format(source=attr(ds_b, "source"), factor=factor))
            b_name, sel_b = _model_cells(ds_b, baseline, "baseline", factors)
            c_name, sel_c = _model_cells(ds_c, candidate, "candidate", factors)
            if other is not None:  # two files: the cells both have, by question and level
                sel_b = sel_b.assign_coords({MODEL: [f"{b_name} (baseline)"]})
                sel_c = sel_c.assign_coords({MODEL: [f"{c_name} (candidate)"]})
                sel_b, sel_c = xr.align(sel_b, sel_c, join="outer", exclude=[MODEL], fill_value=0)
            joined = xr.concat([sel_b, sel_c], dim=MODEL, join="outer", fill_value=0)
            factor, _, correct, samples, sum_sq = crossed_cells(joined, factors)
            label = name or str(attr(ds_b, "benchmark"))
            where = f"{label}: " if len(benchmarks) > 1 or len(pairs) > 1 else ""
            what = f"{where}candidate {c_name!r} - baseline {b_name!r} (cells both have)"
            cand = (correct[1], samples[1], sum_sq[1])
            base = (correct[0], samples[0], sum_sq[0])
            fit, _ = pair_fit(cand, base, _split(samples), what, factor, attr(ds_b, "source"))
            unshared.append((f"{c_name} - {b_name}", samples[1] > 0, samples[0] > 0))
            if not fit.se_random >= 0:  # NaN: one level, or an SE estimate below 0
                why = (
                    f"it has one {factor} level, and the change over the {factor} population "
                    f"needs 2 or more; to check on this {factor} alone, load without --factor"
                    if fit.n_templates < 2
                    else "the SE estimate of the change is below 0 (the moments of this "
                    f"unbalanced design cancel); add questions or {factor}s"
                )
                raise DataError(f"{attr(ds_b, 'source')}: {what}: no verdict: {why}")
            shared = (samples[0] > 0) & (samples[1] > 0)
            accuracies.append(
                (
                    _accuracy(correct[0], samples[0], shared),
                    _accuracy(correct[1], samples[1], shared),
                )
            )
            fits.append(fit)
            labels.append(label if other is None else f"{label} ({source_name(source)})")
            names = (b_name, c_name)
    if unshared:
        from .factors import warn_unshared

        pairs, cand_cells, base_cells = zip(*unshared, strict=True)
        warn_unshared(pairs, cand_cells, base_cells, factor)
    if len(set(labels)) < len(labels):
        labels = [f"{lab} #{i}" for i, lab in enumerate(labels)]
    res = crossed_gate(
        fits,
        names=labels,
        accuracies=accuracies,
        margin=margin,
        alpha=alpha,
        baseline=names[0],
        candidate=names[1],
    )
    out = to_result(res.rows, "benchmark")
    head = res.to_dict()
    head.pop("benchmarks")
    out.attrs.update(head)
    out.attrs["estimand"] = (
        f"change over the {factor} population ({factor}s a random draw; SE with the "
        f"model x {factor} part, Satterthwaite df)"
    )
    return out
