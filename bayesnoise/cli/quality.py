"""The benchmark-quality commands ``signal`` (signal-to-noise ratio) and ``decision-accuracy``
(do two score tables rank models alike); each calls the Python verb of the same name."""

from __future__ import annotations

from bayesnoise import verbs

from ._options import (
    COLUMNS_HELP,
    add_level,
    add_n_resamples,
    add_rng,
    count,
    input_parent,
    output_parent,
)
from .tables import _command


def _decision_accuracy(files, **kw):
    """The verb with the two positional files (the command line passes them as one list)."""
    small, target = files
    return verbs.decision_accuracy(small, target, **kw)


def register(sub) -> None:
    """Add ``signal`` and ``decision-accuracy`` to the ``bayesnoise`` sub-parsers."""
    p = _command(
        sub,
        "signal",
        "signal",
        "signal-to-noise ratio: from checkpoints (signal-and-noise) or the measured noise",
    )
    p.add_argument(
        "--checkpoint-column",
        metavar="NAME",
        help="column of the training checkpoint (step) of each row: signal-and-noise's SNR, "
        "noise = std / mean of a model's last checkpoint scores (snr_checkpoints); the file "
        "may also hold one score per model and checkpoint (no question column)",
    )
    p.add_argument(
        "--last",
        type=count,
        default=30,
        metavar="N",
        help="checkpoints at the end of each series in the noise (default 30)",
    )
    p.add_argument(
        "--noise-model",
        metavar="NAME",
        help="the model whose noise to use (default: each model with a series; without "
        "checkpoints, each model)",
    )
    p.add_argument(
        "--group-column",
        metavar="NAME",
        help="one result per subtask: a column naming each question's group (e.g. subject)",
    )
    p.add_argument(
        "--families",
        metavar="FILE|REGEX",
        help="Eval-Arena's family SNR instead: a table (model, family, size) or a regular "
        "expression with a group named size, e.g. '(?P<size>\\d+(\\.\\d+)?)[bB]'",
    )
    p.epilog = (
        "signal = (max - min) / mean of the models' scores (final checkpoints, else accuracies)\n"
        "with --checkpoint-column:  noise_checkpoints = std / mean of the noise model's last\n"
        "                           --last scores; snr_checkpoints = signal / noise_checkpoints\n"
        "without (measured noise):  noise_se_total = se_total / accuracy,\n"
        "                           noise_se_prediction = se_prediction / accuracy,\n"
        "                           snr_se_total, snr_se_prediction = signal / noise\n"
        "--families:                family_snr = z / log2(size_a / size_b) per adjacent sizes\n\n"
        + COLUMNS_HELP
    )

    text = "decision accuracy: fraction of model pairs two score tables rank the same way"
    p = sub.add_parser(
        "decision-accuracy",
        parents=[input_parent(file=False), output_parent()],
        help=text,
        description=text,
        epilog="SMALL and TARGET: per-question results or one score per model (model and "
        "score columns, no question column); models are matched by name. " + COLUMNS_HELP,
    )
    p.usage = "bayesnoise decision-accuracy [options] SMALL TARGET"
    p.add_argument(
        "file",
        nargs=2,
        metavar="SMALL TARGET",  # one string: argparse cannot format a tuple in --help here
        help="the small-scale results, then the target-scale results of the same models",
    )
    add_level(p, "level of the bootstrap interval over models (default 0.95)", 0.95)
    add_n_resamples(
        p,
        1000,
        "bootstrap replicates (over models; over questions for the expected value)",
        old=("--bootstrap",),
    )
    add_rng(p, "bootstraps")
    p.set_defaults(verb=_decision_accuracy, shows="table")
