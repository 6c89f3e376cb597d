"""Frequentist noise estimators (DESIGN.md section 2): numpy core in ``_core``, table wrappers here."""

from bayesnoise.frequentist.arena import ARENA_COLUMNS, arena_summary
from bayesnoise.frequentist.intervals import accuracy_interval, proportion_interval
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
    "meta_z",
    "minimum_detectable_difference",
    "model_noise",
    "pair_noise",
    "pair_noise_dataset",
    "paired_test",
    "proportion_interval",
    "required_questions",
    "required_samples",
    "unpaired_components",
]
