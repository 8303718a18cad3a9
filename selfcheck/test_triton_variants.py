"""The fused SwiGLU suite against known wrong and correct kernels, the stubs and the reference.

The shared checks come from ``selfcheck.variant_checks``. A run of ``tests/test_triton_swiglu.py``
takes a few seconds, most of it starting the child process the seam runs this exercise in, so wrong
variants get only the tests they name, except those in ``WHOLE_SUITE``, whose point is that every
test still reports.
"""

from __future__ import annotations

import pytest

from selfcheck.variant_checks import variant_checks

pytest.importorskip("triton", reason="Triton is not installed (Linux only): the fused SwiGLU suite skips too")

# A kernel writing out of bounds must fail its tests without ending the run: every test must report.
WHOLE_SUITE = {"missing_mask"}

globals().update(variant_checks("test_triton_swiglu.py", "triton_swiglu", min_wrong=8, min_correct=2,
                                whole_suite=WHOLE_SUITE))
