"""The suite's bfloat16 under Triton's interpreter against PyTorch's CPU bfloat16, element by element.

``grader/probes/`` replaces the interpreter's bfloat16 arithmetic and conversions (which work on
the raw uint16 bits and truncate) with float32 arithmetic rounded to nearest even, as a GPU does. The
kernels below run add, sub, mul, div and the conversions on every kind of bfloat16 number (normal,
subnormal, zero, infinity, NaN) and each result must carry the same bits as PyTorch's. They run in a
fresh Python, where the interpreter is switched on before triton is imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.swiglu, pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks

pytest.importorskip("triton", reason="Triton is not installed (Linux only)")

CHILD = r"""
import json, sys
from grader import probes
import torch, triton, triton.language as tl

probes.guard_triton()  # the suite's interpreter: bounds checks and GPU-faithful bfloat16


@triton.jit
def arithmetic(a_ptr, b_ptr, add_ptr, sub_ptr, mul_ptr, div_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)  # bfloat16 x bfloat16, no conversion in the kernel
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(add_ptr + offsets, a + b, mask=mask)
    tl.store(sub_ptr + offsets, a - b, mask=mask)
    tl.store(mul_ptr + offsets, a * b, mask=mask)
    tl.store(div_ptr + offsets, a / b, mask=mask)


@triton.jit
def conversions(x32_ptr, x16_ptr, xbf_ptr, cast_ptr, stored_ptr, from16_ptr, up_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x32 = tl.load(x32_ptr + offsets, mask=mask)
    tl.store(cast_ptr + offsets, x32.to(tl.bfloat16), mask=mask)  # explicit conversion
    tl.store(stored_ptr + offsets, x32, mask=mask)  # implicit, by tl.store into a bfloat16 tensor
    tl.store(from16_ptr + offsets, tl.load(x16_ptr + offsets, mask=mask).to(tl.bfloat16), mask=mask)
    tl.store(up_ptr + offsets, tl.load(xbf_ptr + offsets, mask=mask).to(tl.float32), mask=mask)


def every_kind(gen, n):
    # random bits cover normals, subnormals, zeros, infinities and NaNs of both signs
    bits = torch.randint(-2**15, 2**15, (n,), generator=gen, dtype=torch.int32).to(torch.int16)
    return bits.view(torch.bfloat16)


def differ(got, want):
    same = (got == want) | (got.isnan() & want.isnan())
    return int((~same).sum())


gen = torch.Generator().manual_seed(0)
n, block = 20000, 1024
grid = (triton.cdiv(n, block),)
a, b = every_kind(gen, n), every_kind(gen, n)
outs = [torch.empty(n, dtype=torch.bfloat16) for _ in range(4)]
arithmetic[grid](a, b, *outs, n, BLOCK_SIZE=block)
result = {name: differ(got, want) for name, got, want in
          zip(["add", "sub", "mul", "div"], outs, [a + b, a - b, a * b, a / b])}
# float32 values that land between bfloat16 numbers, ties included, and float16 values
x32 = (torch.randn(n, generator=gen) * torch.exp2(torch.randint(-140, 120, (n,), generator=gen).float()))
x32[:1000] = (a[:1000].float().view(torch.int32) | 0x8000).view(torch.float32)  # exact ties
x16 = torch.randn(n, generator=gen).mul(100).half()
cast, stored, from16 = (torch.empty(n, dtype=torch.bfloat16) for _ in range(3))
up = torch.empty(n, dtype=torch.float32)
conversions[grid](x32, x16, a, cast, stored, from16, up, n, BLOCK_SIZE=block)
result.update({"float32 -> bfloat16 (.to)": differ(cast, x32.bfloat16()),
               "float32 -> bfloat16 (tl.store)": differ(stored, x32.bfloat16()),
               "float16 -> bfloat16": differ(from16, x16.bfloat16()),
               "bfloat16 -> float32": differ(up, a.float()),
               "elements": n, "nan inputs": int(a.isnan().sum())})
print(json.dumps(result))
"""


def in_fresh_python(code: str) -> dict:
    """Run ``code`` in a new interpreter with Triton's interpreter on: the JSON it prints last."""
    env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_bfloat16_matches_pytorch_element_by_element():
    result = in_fresh_python(CHILD)
    assert result["nan inputs"] > 0  # the special values really were there
    mismatches = {k: v for k, v in result.items() if k not in ("elements", "nan inputs") and v}
    assert not mismatches, f"bfloat16 results that differ from PyTorch's (of {result['elements']}): {mismatches}"


DOT_CHILD = r"""
import json
from grader import probes
import torch, triton, triton.language as tl

probes.guard_triton()


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ks = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * N + cols[None, :], mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)  # bfloat16 tiles, float32 accumulator
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


g = torch.Generator().manual_seed(0)
a = torch.randn(37, 45, generator=g).bfloat16()
b = torch.randn(45, 29, generator=g).bfloat16()
c = torch.empty(37, 29)
gemm[(3, 2)](a, b, c, 37, 29, 45, BM=16, BN=16, BK=16)
want = a.float() @ b.float()  # the same bfloat16 values, multiplied and summed in float32
print(json.dumps({"max_error": (c - want).abs().max().item(), "scale": want.abs().max().item()}))
"""


def test_bfloat16_dot_accumulates_exact_products_in_float32():
    """tl.dot on bfloat16 tiles: the stock interpreter multiplies the uint16 bit patterns (errors of 1e21);
    the grader's patch must agree with torch.matmul in float32 of the same values, to float32 rounding."""
    result = in_fresh_python(DOT_CHILD)
    assert result["max_error"] <= 1e-5 * result["scale"], result


@pytest.mark.parametrize("version", ["3.7.1", "3.10.0", "4.0.0", "nightly"])
def test_a_triton_outside_the_tested_range_is_refused_with_the_range(version):
    from grader.probes.triton_bf16 import check_triton_version

    with pytest.raises(RuntimeError, match=r">=3\.8, <3\.10.*pip install 'triton>=3\.8,<3\.10'"):
        check_triton_version(version)


def test_the_installed_triton_is_in_the_tested_range():
    import triton

    from grader.probes.triton_bf16 import check_triton_version

    check_triton_version(triton.__version__)
