"""Frequentist noise estimators: numpy core in ``_core``, score intervals in ``intervals``, table
wrappers in ``noise``."""

from bayesnoise.frequentist.arena import ARENA_COLUMNS, arena_summary
from bayesnoise.frequentist.columns import model_intervals, pair_intervals
from bayesnoise.frequentist.intervals import (
    accuracy_interval,
    difference_interval,
    here_accuracy_interval,
    here_difference_interval,
    proportion_interval,
)
from bayesnoise.frequentist.noise import (
    MODEL_COLUMNS,
    PAIR_COLUMNS,
    model_noise,
    pair_noise,
    pair_noise_dataset,
)
from bayesnoise.frequentist.paired import PairedTestResult, paired_test
from bayesnoise.frequentist.power import (
    meta_z,
    minimum_detectable_difference,
    required_questions,
    required_samples,
    unpaired_components,
)

__all__ = [
    "ARENA_COLUMNS",
    "MODEL_COLUMNS",
    "PAIR_COLUMNS",
    "PairedTestResult",
    "accuracy_interval",
    "arena_summary",
    "difference_interval",
    "here_accuracy_interval",
    "here_difference_interval",
    "meta_z",
    "minimum_detectable_difference",
    "model_intervals",
    "model_noise",
    "pair_intervals",
    "pair_noise",
    "pair_noise_dataset",
    "paired_test",
    "proportion_interval",
    "required_questions",
    "required_samples",
    "unpaired_components",
]
