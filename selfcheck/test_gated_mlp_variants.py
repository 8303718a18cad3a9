"""The fused gated-MLP suite against known wrong and correct implementations, the stubs and the reference.

The shared checks come from ``selfcheck.variant_checks``. The mistakes in ``ONLY_NAMED`` break one
property each, so they must fail the tests they name and nothing else: one mistake, one charge.
"""

from __future__ import annotations

import pytest

from grader.tasks import TASKS
from selfcheck.variant_checks import VariantChecks

GATED_SUITES = next(task.suites for task in TASKS if task.name == "gated")

pytest.importorskip("triton", reason="Triton is not installed (Linux only): the fused gated-MLP suite skips too")

ONLY_NAMED = frozenset({"combined_halves_swapped", "accumulates_in_16bit", "backward_drops_gate_bias", "projection_in_pytorch",
              "float32_for_float64"})


class TestGatedMlpVariants(VariantChecks):
    suite, exercise, min_wrong, min_correct = GATED_SUITES, "triton_gated_mlp", 8, 3
    only_named = ONLY_NAMED
