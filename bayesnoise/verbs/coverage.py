"""The coverage self-check verb: :func:`coverage` (``bayesnoise coverage``)."""

from __future__ import annotations

from ._inputs import as_seed, dataset, fill_docs, interval_level
from ._result import to_grid
from .choices import POPULATIONS

__all__ = ["coverage"]


def coverage(
    data,
    *,
    n_resamples=50,
    rng=0,
    confidence_level=0.95,
    populations=POPULATIONS,
    max_pair_models=12,
    progress=True,
    **read,
):
    """How often each printed interval holds on simulated benchmarks like this one.

    Simulates ``n_resamples`` evals with the file's models, N and K per model and question
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
    n_resamples : int, default 50
        Simulated evals per population. The Monte Carlo SE of a coverage near 0.95 is at most
        sqrt(0.95 * 0.05 / n_resamples) (0.031 at 50), less where many models or pairs are
        pooled; each row prints its own (``coverage_mcse``). Four times as many halve it and
        take four times as long (at 50: 4 s of CPU on HumanEval+, 49 models x 164
        questions, K = 1; 18 s on MBPP, 35 x 500, K <= 15; 50 s on MATH500, 48 x 500,
        K = 1,100).
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the simulation.
    confidence_level : float, default 0.95
        Nominal level of the intervals checked (a level is needed: None is an error).
    populations : sequence of str, default ("fitted", "two-point", "empirical")
        The question populations to simulate.
    max_pair_models : int or None, default 12
        Check the pair intervals on the pairs of at most this many models, spread over the
        accuracy ranking (None: all pairs; the cost grows with their number).
    progress : bool, default True
        Progress display on standard error.

    Returns
    -------
    xarray.Dataset
        Dims ``interval`` (the interval checked) and ``population`` (the simulated
        question population): ``scope, replicates, units, coverage, coverage_mcse,
        coverage_status, median_width`` on that grid (:func:`bayesnoise.tidy`: one row per
        interval and population). ``attrs["notes"]`` says which pairs
        were checked and what K = 1 leaves unidentified.

    Examples
    --------
    >>> import bayesnoise as bn
    >>> r = bn.coverage("examples/data/cruxeval_output_temp0.8.csv.gz", n_resamples=10,
    ...                 populations=("fitted",), progress=False)
    >>> r.sizes["interval"], str(r["interval"].values[0]), r["population"].values.tolist()
    (8, 'accuracy', ['fitted'])
    """
    from bayesnoise.decide.selfcheck import coverage_table

    level = interval_level("coverage", confidence_level, "the intervals checked")
    ds = dataset(data, progress=progress, **read)
    df = coverage_table(
        ds,
        n_resamples=n_resamples,
        confidence_level=level,
        populations=tuple(populations),
        max_pair_models=max_pair_models,
        rng=as_seed(rng),
        progress=progress,
    )
    return to_grid(df, ("interval", "population"))


fill_docs(coverage)
