"""The crossed model's prior, as written for NUTS, is the iid prior its docstring states.

:func:`bayesnoise.mcmc.crossed.crossed_model` writes the random effects sum-to-zero (and, in
the question-sums form, moves w's and z's question means into u and x's template means into
v); the means it leaves to alpha are drawn back by :func:`absorbed_means`. Together they must
give the linear predictor of the original form,

    eta_mqt = u_q + v_t + w_qt + x_mt + z_mq,   all effects independent N(0, s_e^2),

whose covariance is s_q^2 [q = q'] + s_t^2 [t = t'] + s_qt^2 [q = q', t = t'] +
s_mt^2 [m = m', t = t'] + s_mq^2 [m = m', q = q']. The PyMC graph is sampled with the scales
fixed (``pm.do``) and alpha = 0; every entry of the empirical covariance (known zero mean) is
compared with that matrix in Monte Carlo SEs, sqrt((C_ii C_jj + C_ij^2) / S) for normal
products. The entries are 171 correlated z-scores: |z| < 5 for all of them fails by chance
with probability < 171 * 5.7e-7 = 1e-4. The same check rejects the model without the
drawn-back means (the power part: shifts of 9-11 SEs, asserted).
"""

from __future__ import annotations

import numpy as np
import pytest

from bayesnoise.mcmc.crossed import CENTRED, EFFECTS, absorbed_means, crossed_model

pytestmark = pytest.mark.mcmc

M, N, T = 2, 3, 3
SIGMA = {
    "question": 1.0,
    "template": 0.8,
    "question_template": 0.6,
    "model_template": 0.6,
    "model_question": 0.5,
}
DRAWS = 10_000


def _original_covariance() -> np.ndarray:
    m, q, t = (a.ravel() for a in np.meshgrid(range(M), range(N), range(T), indexing="ij"))
    same = {"m": m[:, None] == m, "q": q[:, None] == q, "t": t[:, None] == t}
    s2 = {e: v**2 for e, v in SIGMA.items()}
    return (
        s2["question"] * same["q"]
        + s2["template"] * same["t"]
        + s2["question_template"] * (same["q"] & same["t"])
        + s2["model_template"] * (same["m"] & same["t"])
        + s2["model_question"] * (same["m"] & same["q"])
    )


def _prior_draws(question_sums: bool, centred) -> np.ndarray:
    """(DRAWS, M * N * T) draws of the model's linear predictor, alpha = 0, scales fixed."""
    import pymc as pm

    model = crossed_model(
        np.zeros((M, N, T)),
        np.ones((M, N, T), dtype=int),
        centred=centred,
        question_sums=question_sums,
    )
    fixed = pm.do(model, {**{f"sigma_{e}": v for e, v in SIGMA.items()}, "alpha": np.zeros(M)})
    # y ~ Binomial(n, sigmoid(eta)): the graph's eta is the sigmoid's input.
    eta = fixed["y"].owner.inputs[-1].owner.inputs[0]
    draw = pm.pytensorf.compile([], eta, random_seed=11)
    return np.array([draw() for _ in range(DRAWS)])


def _z(draws: np.ndarray, cov: np.ndarray) -> np.ndarray:
    emp = draws.T @ draws / draws.shape[0]  # the mean is known to be 0
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / draws.shape[0])
    return ((emp - cov) / se)[np.triu_indices_from(cov)]


@pytest.mark.parametrize(
    ("question_sums", "centred"), [(True, CENTRED), (False, ())], ids=["sums-centred", "plain"]
)
def test_written_prior_is_the_iid_prior(question_sums, centred):
    eta = _prior_draws(question_sums, centred)
    var = {e: np.full(DRAWS, SIGMA[e] ** 2) for e in EFFECTS}
    template_part, question_part = absorbed_means(
        var, M, T, N if question_sums else None, np.random.default_rng(12)
    )
    cells_model = np.repeat(np.arange(M), N * T)
    full = eta + template_part[:, cells_model] + question_part[:, None]
    cov = _original_covariance()
    assert np.abs(_z(full, cov)).max() < 5
    # Power: without the drawn-back means the check fails (the zero-sum effects alone have
    # less variance: s_t^2 / T + s_mt^2 / T = 0.33 on same-model entries, ~9 SEs).
    assert np.abs(_z(eta + question_part[:, None], cov)).max() > 5
    if question_sums:  # u's mean: (s_q^2 + s_qt^2 / T + s_mq^2 / M) / N = 0.415, ~11 SEs
        assert np.abs(_z(eta + template_part[:, cells_model], cov)).max() > 5
