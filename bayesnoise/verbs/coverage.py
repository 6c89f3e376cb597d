"""The coverage self-check verb: :func:`coverage` (``bayesnoise coverage``)."""

from __future__ import annotations

from ._inputs import dataset, fill_docs
from ._result import to_result

__all__ = ["coverage"]

POPULATIONS = ("fitted", "two-point", "empirical")


def coverage(
    data,
    *,
    replicates=200,
    seed=0,
    confidence_level=0.95,
    populations=POPULATIONS,
    max_pair_models=12,
    progress=True,
    **read,
):
    """How often each printed interval holds on simulated benchmarks like this one.

    Simulates ``replicates`` evals with the file's models, N and K per model and question
    from three question populations -- ``fitted`` (each model's fitted Beta), ``two-point``
    (easy and hard questions, matched to each model's accuracy and data variance) and
    ``empirical`` (the observed per-question scores, resampled) -- runs the package's
    intervals on each, and reports how often each contains its truth
    (:func:`bayesnoise.decide.selfcheck.coverage_table`). A status other than ``ok`` says
    an interval is off its nominal level by more than 2 Monte Carlo SEs for a benchmark like
    this one.

    Parameters
    ----------
    {input}
    replicates : int, default 200
        Simulated evals per population (the Monte Carlo SE of a coverage near 0.95 is about
        sqrt(0.95 * 0.05 / replicates) or less).
    seed : int, default 0
    confidence_level : float, default 0.95
    populations : sequence of str, default ("fitted", "two-point", "empirical")
    max_pair_models : int or None, default 12
        Check the pair intervals on the pairs of at most this many models, spread over the
        accuracy ranking (None: all pairs; the cost grows with their number).
    progress : bool, default True

    Returns
    -------
    xarray.Dataset
        Dim ``row``, one per interval and population (``interval`` and ``population`` are
        coordinates: ``r.set_index(row=["interval", "population"]).unstack("row")`` gives
        a (interval, population) grid): ``scope, replicates, units, coverage,
        coverage_mcse, coverage_status, median_width``. ``attrs["notes"]`` says which pairs
        were checked and what K = 1 leaves unidentified.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.coverage("examples/data/cruxeval_output_temp0.8.csv.gz", replicates=10,
    ...                 populations=("fitted",), progress=False)
    >>> r.sizes["row"], str(r["interval"].values[0]), str(r["population"].values[0])
    (8, 'accuracy', 'fitted')
    """
    from bayesnoise.decide.selfcheck import coverage_table

    ds = dataset(data, progress=progress, **read)
    df = coverage_table(
        ds,
        replicates=replicates,
        confidence_level=confidence_level,
        populations=tuple(populations),
        max_pair_models=max_pair_models,
        random_seed=seed,
        progress=progress,
    )
    return to_result(df, "row").set_coords(["interval", "population"])


fill_docs(coverage)
