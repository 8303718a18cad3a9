"""The fused SwiGLU suite against known wrong and correct kernels, the stubs and the reference.

The shared checks come from ``selfcheck.variant_checks``. A run of ``tests/test_triton_swiglu.py``
takes a few seconds, most of it starting the child processes the seam runs this exercise in (one for
the student's file, one for the student's kernels in the stub's launch code), so wrong variants get
only the tests they name, except the policy panel (every test still reports) and ``ONLY_NAMED`` (they fail
nothing but the tests they name).
"""

from __future__ import annotations

import pytest

from grader.tasks import TASKS
from selfcheck.variant_checks import VariantChecks

pytestmark = [pytest.mark.swiglu]  # python -m selfcheck --task: the tasks this checks

SWIGLU_SUITES = next(task.suites for task in TASKS if task.name == "swiglu")

pytest.importorskip("triton", reason="Triton is not installed (Linux only): the fused SwiGLU suite skips too")

# A kernel writing out of bounds must fail its tests without ending the run: every test must report (the policy
# panel's forward_without_masks and mask_off_by_one, graded in full, show it for a missing mask and a wrong one).
# Kernels that hard-code float32 lose points in the float64 tests alone, each naming float64 precision.
ONLY_NAMED = {"float32_for_float64", "gate_float32_value_float64", "public_attorch_glu",
              "public_fla_swiglu", "public_flaggems_silu_and_mul", "public_kernel_hyperdrive_swiglu"}


class TestTritonVariants(VariantChecks):
    suite, exercise, min_wrong, min_correct = SWIGLU_SUITES, "triton_swiglu", 8, 2
    whole_suite = only_named = frozenset(ONLY_NAMED)  # and the policy panel (selfcheck/panels.py)
    others_per_push = 1
    named_per_push = 7  # of the wrong variants graded neither in full nor in the panel (selfcheck/sample.py)
