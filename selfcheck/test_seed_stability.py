"""The same files get the same verdicts under any seed.

A panel of wrong MLP/GLU blocks (the mistakes whose grade used to move with the data: a hard-coded
activation, tanh GELU, float32 casts, missing biases, a residual added, dropout before Wo, the
activation on the value branch) is graded under 20 seeds; each must fail the same tests every time.
The seed only draws the tests' data, and every verdict is an exact comparison or a statistic far
from its bound, so nothing may change.
"""

from __future__ import annotations

import pytest

from selfcheck.harness import VARIANTS, parallel, run_variant
from selfcheck.variant_checks import FAST, WORKERS

PANEL = ["activation_hardcoded_gelu", "default_activation_tanh_gelu", "default_activation_relu",
         "output_cast_to_float32", "missing_biases", "residual_inside_block", "dropout_before_wo",
         "glu_activation_on_value_path", "layer_norm_inside_block"]
SEEDS = range(1, 21)


@pytest.fixture(scope="module")
def verdicts() -> dict:
    calls = {(name, seed): (lambda name=name, seed=seed: run_variant(
        "test_mlp.py", "mlp_block", VARIANTS / "mlp_block" / f"{name}.py", f"--seed={seed}", **FAST))
        for name in PANEL for seed in SEEDS}
    with parallel(calls, WORKERS) as futures:
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("name", PANEL)
def test_one_verdict_per_mistake_whatever_the_seed(verdicts, name):
    seen = {}
    for seed in SEEDS:
        _, outcomes = verdicts[(name, seed)]
        failing = tuple(sorted(t for t, o in outcomes.items() if o.status != "passed"))
        seen.setdefault(failing, []).append(seed)
    assert len(seen) == 1, f"{name}: the failing tests depend on the seed: " + "; ".join(
        f"seeds {seeds}: {list(failing)}" for failing, seeds in seen.items())
    assert next(iter(seen)), f"{name} fails no test"
