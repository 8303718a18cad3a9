"""tl.dot on float32 tiles under the suite's interpreter: TF32 unless told "ieee", as on a GPU.

On a GPU with tensor cores, ``tl.dot`` multiplies float32 tiles in TF32 by default (Triton 3.9:
``input_precision`` defaults to "tf32", and the inputs are cut to 10 bits of mantissa without
rounding); the stock interpreter multiplies them in full float32, so a kernel that leaves
``input_precision`` out would pass the float32 tests on a CPU and fail them on a GPU. ``grader/probes/``
cuts the inputs as a GPU does. The kernel below runs each precision on the same tiles; the results
must be the products of the cut inputs for "tf32" (said or left out) and of the inputs themselves for
"ieee" and "tf32x3", each to float32 rounding.
"""

from __future__ import annotations

import pytest

from selfcheck.test_interpreter_bfloat16 import in_fresh_python

pytestmark = [pytest.mark.swiglu, pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks

pytest.importorskip("triton", reason="Triton is not installed (Linux only)")

CHILD = r"""
import json
from grader import probes
import torch, triton, triton.language as tl

probes.guard_triton()  # the suite's interpreter


@triton.jit
def one_tile(a_ptr, b_ptr, c_ptr, M, N, K, PRECISION: tl.constexpr, SIZE: tl.constexpr):
    i = tl.arange(0, SIZE)  # the whole product in one (SIZE, SIZE) tile, zeros past its edges
    a = tl.load(a_ptr + i[:, None] * K + i[None, :], mask=(i[:, None] < M) & (i[None, :] < K), other=0.0)
    b = tl.load(b_ptr + i[:, None] * N + i[None, :], mask=(i[:, None] < K) & (i[None, :] < N), other=0.0)
    if PRECISION == "left out":
        c = tl.dot(a, b)
    else:
        c = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + i[:, None] * N + i[None, :], c, mask=(i[:, None] < M) & (i[None, :] < N))


def tf32(t):
    return (t.view(torch.int32) & ~0x1FFF).view(torch.float32)  # the low 13 bits of the mantissa cut


g = torch.Generator().manual_seed(0)
a, b = torch.randn(37, 45, generator=g), torch.randn(45, 29, generator=g)
exact, cut = a.double() @ b.double(), tf32(a).double() @ tf32(b).double()
scale = exact.abs().max().item()
result = {}
for precision in ("left out", "tf32", "ieee", "tf32x3"):
    c = torch.empty(37, 29)
    one_tile[(1,)](a, b, c, 37, 29, 45, PRECISION=precision, SIZE=64)
    result[precision] = {"from exact": (c.double() - exact).abs().max().item() / scale,
                         "from tf32": (c.double() - cut).abs().max().item() / scale}
print(json.dumps(result))
"""

FLOAT32_ROUNDING = 1e-6  # relative to the largest product: float32 sums of 45 products
TF32_ERROR = 1e-4  # what cutting both inputs to 10 bits of mantissa costs at least, on these tiles


def test_float32_dot_is_tf32_unless_told_ieee():
    result = in_fresh_python(CHILD)
    for precision in ("left out", "tf32"):
        assert result[precision]["from tf32"] <= FLOAT32_ROUNDING, (precision, result)
        assert result[precision]["from exact"] >= TF32_ERROR, (precision, result)
    for precision in ("ieee", "tf32x3"):
        assert result[precision]["from exact"] <= FLOAT32_ROUNDING, (precision, result)
