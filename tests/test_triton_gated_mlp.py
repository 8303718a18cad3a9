"""Graded tests for exercises/triton_gated_mlp.py, the kernel (TODO 1): the projection in every activation
and dtype, on strided inputs and weights, with and without biases. They run the student's kernel alone,
launched by the given _launch_gated_kernel (``grader/judge/gated_support.py``). Each dtype is judged on its own, on
a hidden width that no tile divides; the layout, no-bias and untouched-input tests against the kernel's own
contiguous, zero-bias output on a width the tiles divide (WHOLE_K_HIDDEN), so they judge the layout, the
bias flag and the stores whatever the formula's mistakes, a K tail's included (test_forward_float32's).
The launch code and the combined weight are ``test_triton_gated_mlp_launch.py``'s, the backward and the
block ``test_triton_gated_mlp_module.py``'s.

Run: ``pytest tests/test_triton_gated_mlp*.py`` (``-m gated``). Without a GPU the kernel runs in Triton's
interpreter, whose loads and stores the suite checks, and whose ``tl.dot`` multiplies as a GPU does:
bfloat16 products exact in float32, float32 tiles in TF32 unless ``input_precision="ieee"``
(``grader/probes/``).
"""

from __future__ import annotations

import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused gated-MLP exercise"
                     " cannot run on macOS or Windows (the other suites do)")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from grader.judge.kernel_target import rests_on  # noqa: E402
from grader.judge.checks import fail  # noqa: E402
from grader.judge.gated_diagnosis import (likely_mistake, read_as_contiguous,  # noqa: E402
                                         weight_read_with_the_others_strides)
from grader.judge.gated_stores import STORED_WITH_X_STRIDES, STORED_WITH_X_STRIDES_HINT, stored_with_strides  # noqa: E402
from grader.kernels import maps as kernel_map  # noqa: E402
from grader.judge.gated_support import (ACTIVATIONS, bounds_mode, expect_float64, expect_formula,  # noqa: E402
                                        expect_in_bounds, expect_kernel_responds, expect_like_own, FLOAT32_RTOL,
                                        formula, INTERMEDIATE, inputs, KERNEL, KERNEL_INPUTS, project,
                                        projection_evidence, VALUE_DTYPES, WHOLE_K_HIDDEN, WIDE_HIDDEN)

pytestmark = pytest.mark.gated



@pytest.mark.points(2)
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_forward_float32(kernels, gen, activation):
    case = inputs(gen)
    evidence = project(kernels, case, activation)
    expect_formula(evidence["out"], case, activation, f"gated_projection(activation={activation!r}) in float32"
                   " (TODO 1-2)", FLOAT32_RTOL, FLOAT32_RTOL, evidence.get("maps"), tf32_ok=False)


# Two points: float64 is its own path through the kernel (COMPUTE_DTYPE's sums), and with it a formula
# mistake (the gate's bias after the activation) costs about a third of the task, as it should. The float64 and
# 16-bit tests judge their arithmetic: an access out of bounds is the float32 tests' and the bounds test's to charge
# (its lanes left out, the values inside judged), so a missing mask costs about the kernel's bounds share.
@pytest.mark.points(2)
def test_forward_float64(kernels, gen):
    case = inputs(gen, torch.float64)
    expect_float64(project(kernels, case, "gelu", bounds="apart")["out"], case, "gelu",
                   "gated_projection in float64 (TODO 1-2)")


@pytest.mark.points(1)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bfloat16", "float16"])
def test_forward_16bit(kernels, gen, dtype):
    case = inputs(gen, dtype, hidden=WIDE_HIDDEN)
    got = project(kernels, case, "silu", bounds="apart")["out"]
    want = formula(case, "silu")
    x, wg, wv, bg, bv = (case[n] for n in ("x", "gate_weight", "value_weight", "gate_bias", "value_bias"))
    eager = F.silu(F.linear(x, wg, bg)) * F.linear(x, wv, bv)  # PyTorch in 16 bits: four roundings
    if got.dtype != dtype:
        fail(f"gated_projection in {dtype}: returned {got.dtype}; allocate the output in x's dtype")
    # Precision is judged once the formula holds: a 16-bit result is within a few 16-bit roundings of the
    # largest value, a wrong formula off by the whole of a term.
    if got.shape != want.shape or not torch.allclose(got.double(), want, rtol=2**-5, atol=2**-5 * want.abs().max().item()):
        cause, hint = likely_mistake(got, case, "silu", rtol=2**-6)
        fail(f"gated_projection in {dtype} differs from act(x Wg^T + bg) * (x Wv^T + bv) by more than 16 bits"
             f" can explain: {hint}", cause=cause, todo="TODO 1")
    # The mean error, not the largest: where a sum nearly cancels, float32 accumulation itself is off by
    # more than a 16-bit ulp of the tiny result, in the fused kernel as in eager. Summing in float32 and
    # rounding once gives at most 0.56 of eager's mean error, summing in 16 bits at least 1.86 times it
    # (30 seeds, bfloat16 and float16: the maintainers' self-check of this rule).
    error, allowed = (got.double() - want).abs().mean().item(), (eager.double() - want).abs().mean().item()
    if not error <= allowed:
        fail(f"gated_projection in {dtype} errs by {error:.3g} on average, PyTorch eager by {allowed:.3g}: is it"
             f" accumulating in 16 bits? Keep both sums in COMPUTE_DTYPE (tl.zeros(..., dtype=COMPUTE_DTYPE),"
             " tl.dot into them), apply bias, activation and product there, and convert only in tl.store (TODO 1)",
             cause="16-bit accumulation")


def expect_strides_used(got: torch.Tensor, own: torch.Tensor, case: dict, activation: str, operand: str, layout: str,
                        strides: str) -> None:
    """Where ``got`` (on the strided ``operand``) is not the kernel's ``own`` output, name the reading of it as
    contiguous rows if that is what it is."""
    if read_as_contiguous(got, own, case, activation, operand, layout):
        seen = "the NaN between a strided tensor's elements" if layout == "strided" else "a transposed view's memory row by row"
        fail(f"gated_projection on {layout} {operand}: the kernel reads the {operand} as contiguous rows (it got {seen}):"
             f" index each tile with the strides it is given ({strides}), never a row length of K or a step of 1"
             " (TODO 1)", cause=f"{operand} read as contiguous", todo="TODO 1")


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", ["transposed", "strided"])
@rests_on(lambda a: expect_kernel_responds(a["kernels"], "gated_projection on a strided x"), alone=True)
def test_forward_noncontiguous_x(kernels, gen, layout):
    """Judged against the kernel's own output on the same x laid out contiguously: the layout is this test's
    property, the formula test_forward_float32's."""
    case, bounds = inputs(gen, hidden=WHOLE_K_HIDDEN), bounds_mode(kernels)
    got = project(kernels, case, "silu", layout=layout, bounds=bounds)["out"]
    own = project(kernels, case, "silu", bounds=bounds)["out"]
    if stored_with_strides(own, formula(case, "silu"), case["x"].stride()):  # the store moves with x's layout
        fail(f"gated_projection on a {layout} x: {STORED_WITH_X_STRIDES_HINT} (TODO 1)", cause=STORED_WITH_X_STRIDES,
             todo="TODO 1")
    expect_strides_used(got, own, case, "silu", "x", layout, "stride_xm, stride_xk")
    expect_like_own(got, own, f"gated_projection on a {layout} x",
                    "on the same x made contiguous", "index x's tile with the strides it is given (stride_xm,"
                    " stride_xk), never assume a row is K elements long or its elements 1 apart (TODO 1)",
                    "x strides ignored")


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", ["transposed", "strided"])
@rests_on(lambda a: expect_kernel_responds(a["kernels"], "gated_projection on strided weights"), alone=True)
def test_forward_noncontiguous_weights(kernels, gen, layout):
    """Weights as views (a transposed copy's .T, every other column; the biases stay contiguous): the
    kernel reads each weight through its own two strides, never as rows HIDDEN elements apart. Judged
    against the kernel's own output on contiguous weights."""
    case, bounds = inputs(gen, hidden=WHOLE_K_HIDDEN), bounds_mode(kernels)
    got = project(kernels, case, "gelu", weight_layout=layout, bounds=bounds)["out"]
    own = project(kernels, case, "gelu", bounds=bounds)["out"]
    expect_strides_used(got, own, case, "gelu", "weights", layout, "stride_gn, stride_gk and stride_vn, stride_vk")
    expect_like_own(got, own, f"gated_projection on {layout} weights",
                    "on the same weights made contiguous", "index each weight's (K, N) tile with its own stride_gn,"
                    " stride_gk / stride_vn, stride_vk, never assume a weight's row is K elements long or its"
                    " elements 1 apart (TODO 1)", "weight strides ignored")


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_responds(a["kernels"], "gated_projection on weights of two layouts"), alone=True)
def test_forward_weights_each_by_its_strides(kernels, gen):
    """The gate's weight a transposed view, the value's contiguous: each weight's tile is read through its own
    strides (a kernel that reads one with the other's passes wherever the two share a layout)."""
    case, bounds = inputs(gen, hidden=WHOLE_K_HIDDEN), bounds_mode(kernels)
    got = project(kernels, case, "gelu", weight_layout="transposed/contiguous", bounds=bounds)["out"]
    own = project(kernels, case, "gelu", bounds=bounds)["out"]
    mixed = weight_read_with_the_others_strides(got, case, "gelu")
    if mixed:
        other = "gate" if mixed == "value" else "value"
        mine, theirs = (f"stride_{w[0]}n, stride_{w[0]}k" for w in (mixed, other))
        fail(f"{KERNEL} (TODO 1), on the gate's weight transposed and the value's contiguous, reads the {mixed}'s"
             f" weight with the {other}'s strides ({theirs} where {mine} belong): address each weight's tile with"
             " its own strides", cause="a weight read with the other's strides", todo="TODO 1")
    expect_like_own(got, own, "gated_projection with the gate's weight transposed and the value's contiguous",
                    "on contiguous weights", "read each weight's tile through its own strides, stride_gn, stride_gk"
                    " for the gate's and stride_vn, stride_vk for the value's (TODO 1)", "weight strides ignored")


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_responds(a["kernels"], "gated_projection without biases"), alone=True)
def test_forward_without_bias(kernels, gen):
    """HAS_BIAS=False is judged against the kernel's own output with biases of zeros."""
    case, bounds = inputs(gen, bias=False, hidden=WHOLE_K_HIDDEN), bounds_mode(kernels)
    evidence = project(kernels, case, "relu", bounds=bounds)
    zeros = torch.zeros(INTERMEDIATE, dtype=case["x"].dtype)
    own = project(kernels, {**case, "gate_bias": zeros, "value_bias": zeros.clone()}, "relu", bounds=bounds)["out"]
    hint = ("with HAS_BIAS=False the kernel must read no bias (its pointers are not tensors then) and add nothing:"
            " load and add the biases only under `if HAS_BIAS:` (TODO 1)")
    expect_like_own(evidence["out"], own, "gated_projection without biases (HAS_BIAS=False)",
                    "with biases of zeros", hint + kernel_map.explain(evidence.get("maps"), "out_ptr", KERNEL_INPUTS),
                    "HAS_BIAS=False not honoured")


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_responds(a["kernels"], "gated_projection leaves x as it was"), alone=True)
def test_input_unmodified(kernels, gen):
    case = inputs(gen, hidden=WHOLE_K_HIDDEN)
    evidence = project(kernels, case, "silu", bounds=bounds_mode(kernels))
    if evidence["input_changed"]:
        fail(f"{KERNEL} changed x: the kernel may only store into the output (TODO 1)")


@pytest.mark.points(2)
@rests_on(lambda a: expect_kernel_responds(a["kernels"], f"{KERNEL} stays in bounds"), alone=True)
def test_memory_stays_in_bounds(kernels, gen):
    """Every dtype a value test runs, on sizes no tile divides (M=37, N=29, K=45): each dtype is its own path
    through the kernel, and the float64 and 16-bit value tests leave accesses out of bounds to this test. Every
    load and store is checked before it happens; the first outside the tensors fails, with the dimension its tile
    ran past."""
    for dtype in VALUE_DTYPES:
        case = inputs(gen, dtype)
        evidence = projection_evidence(kernels, case, "silu")
        if dtype == torch.float32 or evidence.get("error", {}).get("type") == "OutOfBoundsAccess":
            expect_in_bounds(kernels, case, "silu", evidence, f"{str(dtype).removeprefix('torch.')} inputs")
        # any other error: this dtype's path never ran to an access, and its value test says why
