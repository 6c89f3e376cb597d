"""The success-rate commands: ``rate`` (each model's rate with your prior, against a target)
and ``threshold`` (the rate at each threshold of a grid); each calls the verb of that name."""

from __future__ import annotations

from pathlib import Path

from bayesnoise._defaults import ALTERNATIVES
from bayesnoise.verbs.choices import PRIOR_HELP

from ._options import add_level
from .tables import _command


def add_priors(p) -> None:
    """``--prior`` (every model) and ``--priors FILE`` (per model)."""
    p.add_argument(
        "--prior",
        default="uniform",
        metavar="PRIOR",
        help=f"Beta prior of every model's rate: {PRIOR_HELP} (default uniform)",
    )
    p.add_argument(
        "--priors",
        type=Path,
        metavar="FILE",
        help="per-model priors: a CSV with columns model,a,b or model,mean,sd (other models "
        "take --prior)",
    )


def add_target(p) -> None:
    p.add_argument(
        "--target",
        type=float,
        metavar="P0",
        help="target rate p0: adds prob_rate_above and the test of H0: rate <= p0",
    )


def register(sub) -> None:
    """Add ``rate`` and ``threshold`` to the ``bayesnoise`` sub-parsers."""
    p = _command(
        sub,
        "rate",
        "rate",
        "each model's success rate under a prior you choose, against a target (0/1 scores; "
        "graded ones with --threshold)",
    )
    add_priors(p)
    add_target(p)
    add_level(p, "credible and confidence interval level (default 0.95)", default=0.95)
    p.add_argument(
        "--by",
        choices=("model", "pair"),
        default="model",
        help="pair: every pair A - B, P(rate A > rate B) and the paired test (default model)",
    )
    p.add_argument(
        "--alternative",
        choices=ALTERNATIVES,
        default="greater",
        help="side of the frequentist tests and their intervals (default greater: H0: rate <= "
        "p0; by pair: H0: rate A <= rate B)",
    )

    p = _command(
        sub,
        "threshold",
        "threshold",
        "each model's success rate at each threshold of a grid (graded scores)",
    )
    p.add_argument(
        "--grid",
        required=True,
        metavar="START:STOP:STEP",
        help="thresholds: start:stop:step (stop included) or a comma-separated list",
    )
    add_priors(p)
    add_target(p)
    add_level(p, "credible interval level (default 0.95)", default=0.95)
