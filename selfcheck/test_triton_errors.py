"""Triton's own errors, made under the suite's interpreter, are still matched by their patterns in
``grader/kernels/triton_errors.py`` (a Triton release may reword them): each id once, by a kernel that
makes that error, and never by an error it is not."""

from __future__ import annotations

import pytest

from grader.kernels.triton_errors import IDS, triton_error
from selfcheck.test_interpreter_bfloat16 import in_fresh_python

pytestmark = [pytest.mark.swiglu, pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks

pytest.importorskip("triton", reason="Triton is not installed (Linux only)")

CHILD = r"""
import json
from grader import probes
import torch, triton, triton.language as tl

probes.guard_triton()  # the suite's interpreter


@triton.jit
def sigmoid_in_16_bits(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.sigmoid(tl.load(x_ptr + i)))


@triton.jit
def dot_out_bfloat16(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i[:, None] * N + i[None, :])
    tl.store(out_ptr + i[:, None] * N + i[None, :], tl.dot(x, x, out_dtype=tl.bfloat16))


@triton.jit
def right(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.sigmoid(tl.load(x_ptr + i).to(tl.float32)))


made = {}
for name, kernel, x in [("math on 16-bit values", sigmoid_in_16_bits, torch.randn(16, dtype=torch.float16)),
                        ("tl.dot out_dtype", dot_out_bfloat16, torch.randn(16, 16, dtype=torch.bfloat16)),
                        ("no error", right, torch.randn(16, dtype=torch.float16))]:
    try:
        kernel[(1,)](x, torch.empty_like(x), N=16)
        made[name] = ""
    except Exception as exc:
        made[name] = " ".join(str(exc).split())
print(json.dumps(made))
"""


def test_each_triton_error_is_matched_by_its_own_pattern_alone():
    made = in_fresh_python(CHILD)
    assert made.pop("no error") == ""
    assert set(made) == IDS, "every id in the table is made by a kernel here"
    for name, message in made.items():
        assert triton_error(message) == name, f"{name!r}: Triton now says {message!r}"
