"""What the fused gated-MLP suites share: inputs, the exact formula, running the projection, and the
kernel's own verdicts (``grader/judge/gated_launch.py`` judges what is built on the kernel).

The suites (``test_triton_gated_mlp.py``: the kernel, TODO 1; ``test_triton_gated_mlp_launch.py``: the
launch code and the combined weight, TODO 2-3; ``test_triton_gated_mlp_module.py``: the backward and
FusedGatedMLP, TODO 4-5) judge two targets, so that the points for a working kernel come from the kernel
alone (grader/judge/kernel_target.py):

* ``kernels``: ``_gated_projection_kernel`` (and the ``@triton.jit`` helpers it calls) read out of the
  file without running it and launched by the given ``_launch_gated_kernel`` in a process of its own.
  The kernel tests run on this.
* ``target``: the student's file as it is. The launch code runs on this, judged against what the kernel
  computes on ``kernels``; the backward and the block run on this too, judged on what the student's own
  gated_projection gives, once the kernel computes and gated_projection gets its result from it. Whether
  they use the kernel is decided by replacing it with a stand-in that computes something else
  (``grader/probes/stand_ins.py``): what they return must follow.

Every expected value is computed here, in float64, from the formula ``act(x Wg^T + bg) * (x Wv^T + bv)``
on the very inputs the code under test got; a wrong value is compared with the mistakes students make
(``grader/judge/gated_diagnosis.py``) to say which it is.
"""
from __future__ import annotations


import pytest
import torch

from grader.kernels import maps as kernel_map
from grader.kernels.triton_errors import triton_error
from grader.probes.activations import ACTIVATIONS as BY_NAME
from grader.judge.checks import describe_mismatch, fail
from grader.judge.gated_diagnosis import likely_mistake, TF32
from grader.judge.gated_stores import STORED_WITH_X_STRIDES, STORED_WITH_X_STRIDES_HINT, stored_with_strides
from grader.judge.kernel_target import StudentKernels, drawn, session_verdict
from grader.judge.seam import error_fields, format_error

EXERCISE = "triton_gated_mlp"
TOKENS, HIDDEN, INTERMEDIATE = 37, 45, 29  # no multiple of the 16-wide tiles: every edge is masked
ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "relu", "sigmoid")
KERNEL = "_gated_projection_kernel"
FLOAT32_RTOL = 2.0**-16  # float32 accumulation over 45 products: a few ulp of the largest sum
WIDE_HIDDEN = 509  # 16 bits: 32 steps of the K loop, so that summing in 16 bits shows against eager's 4 roundings
# What is built on the kernel (gated_projection, the combined weight, the backward, the block: TODO 2-5) is
# judged on x with 64 features, a multiple of any BLOCK_K from 16 to 64: a K loop wrong only in its last,
# partial step (no K mask, the remainder dropped) is TODO 1's tests' to charge, and leaves these to be judged.
WHOLE_K_HIDDEN = 64
KERNEL_INPUTS = ["x_ptr", "gate_weight_ptr", "value_weight_ptr"]
# The dtypes the value tests run, each its own path through the kernel (COMPUTE_DTYPE's sums, a branch on it): the
# bounds test runs every one, and so does the verdict on whether the kernel goes out of bounds on its own.
VALUE_DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16)


def torch_activation(name: str):
    return BY_NAME[name]()  # the suites' one table of activations by name


def inputs(gen: torch.Generator, dtype=torch.float32, tokens: int = TOKENS, bias: bool = True,
           hidden: int = HIDDEN) -> dict:
    def draw(*shape, scale=1.0):
        return (torch.randn(*shape, generator=gen, dtype=torch.float64) * scale).to(dtype)

    case = {"x": draw(tokens, hidden), "gate_weight": draw(INTERMEDIATE, hidden, scale=hidden**-0.5),
            "value_weight": draw(INTERMEDIATE, hidden, scale=hidden**-0.5)}
    if bias:
        case.update(gate_bias=draw(INTERMEDIATE), value_bias=draw(INTERMEDIATE))
    return case


def formula(case: dict, activation: str) -> torch.Tensor:
    """The right answer, in float64."""
    x, wg, wv = (case[n].double() for n in ("x", "gate_weight", "value_weight"))
    bg, bv = (case[n].double() if case.get(n) is not None else torch.zeros(wg.shape[0], dtype=x.dtype)
              for n in ("gate_bias", "value_bias"))
    return torch_activation(activation)(x @ wg.T + bg) * (x @ wv.T + bv)


# Triton error id (grader/kernels/triton_errors.py) -> what it means for this kernel
TRITON_ERROR_HINTS = {
    "math on 16-bit values": "the activation ran on 16-bit values: keep the sums in COMPUTE_DTYPE, float32, and apply"
                             " bias, activation and product there; convert only in tl.store: TODO 1",
    "tl.dot out_dtype": "tl.dot's out_dtype is the dtype it accumulates in, not the inputs': leave it out (or pass"
                        " COMPUTE_DTYPE) and add into COMPUTE_DTYPE sums, converting only in tl.store: TODO 1",
}


def triton_error_hint(message: str) -> str:
    hint = TRITON_ERROR_HINTS.get(triton_error(message))
    return f" ({hint})" if hint else ""


def projection_evidence(target, case: dict, activation: str = "silu", **options) -> dict:
    """The probe's evidence of gated_projection on ``target``, its error included; on the ``kernels`` target, the
    kernel alone through the given _launch_gated_kernel (x two-dimensional: TODO 2's reshape is not the kernel's)."""
    if isinstance(target.backend, StudentKernels):
        options = {**options, "kernel_alone": True}
    return target.evidence(EXERCISE, "gated_projection_run", activation=activation, **{**case, **options})


def project(target, case: dict, activation: str = "silu", **options) -> dict:
    """``projection_evidence``, where an error fails the test with its message."""
    evidence = projection_evidence(target, case, activation, **options)
    expect_in_bounds(target, case, activation, evidence, **options)
    return evidence


def expect_in_bounds(target, case: dict, activation: str, evidence: dict, inputs_were: str = "", **options) -> None:
    """``expect_no_error``, where a store out of bounds that is the output stored through x's strides is told as
    that: x's row stride (K) carries the last rows past out's end, and the probe's own words would blame a mask.
    Told from the output of the same run with its bounds apart (its lanes outside the tensors left out)."""
    error = evidence.get("error", {})
    # The kernel's own store (its target alone: on the student's file a store out of bounds under judged bounds is
    # the launch code's), on a 2-d x laid out as drawn, whose strides are the ones the kernel saw.
    if (error.get("type") == "OutOfBoundsAccess" and options.get("bounds") != "apart" and "tl.store" in error.get("message", "")
            and isinstance(target.backend, StudentKernels) and case["x"].dim() == 2 and case["x"].shape[0] > 0
            and "layout" not in options):
        again = projection_evidence(target, case, activation, **{**options, "bounds": "apart"})
        if "error" not in again and stored_with_strides(again["out"], formula(case, activation), case["x"].stride()):
            fail(f"gated_projection stores out of bounds{f' (on {inputs_were})' if inputs_were else ''}:"
                 f" {STORED_WITH_X_STRIDES_HINT} (TODO 1)", cause=STORED_WITH_X_STRIDES, todo="TODO 1")
    expect_no_error(evidence, inputs_were)


def expect_no_error(evidence: dict, inputs_were: str = "") -> None:
    """Fail with the error the code under test raised, if any (``inputs_were``: which inputs, for the message)."""
    if "error" in evidence:
        message = format_error(evidence["error"])
        message += triton_error_hint(message) + (f" (on {inputs_were})" if inputs_were else "")
        # after an out-of-bounds access: where it went
        fail(message + kernel_map.for_error(evidence["error"]), **error_fields(evidence["error"]))


def expect_formula(got: torch.Tensor, case: dict, activation: str, what: str, rtol: float, atol: float,
                   maps: dict | None = None, waits_on: str = "", todo: str = "TODO 1", tf32_ok: bool = True) -> None:
    """``maps``: what the kernel loaded and stored (the probe's record), drawn where it explains a failure;
    ``waits_on``: the test whose property this is, where the formula is this test's premise only;
    ``todo``: where a mistake found here is made (TODO 3 for the combined weight's tests); ``tf32_ok``: a
    result whose only fault is tl.dot's TF32 products passes (float32's precision is test_forward_float32's
    property alone: TF32 costs those tests and nothing built on them)."""
    want = formula(case, activation)
    if got.shape != want.shape:
        fail(f"{what}: shape {tuple(got.shape)}, expected {tuple(want.shape)} (..., intermediate): TODO 2's"
             " output allocation and final reshape")
    if got.dtype != case["x"].dtype:
        fail(f"{what}: dtype {got.dtype}, expected x's {case['x'].dtype}: allocate the output in x's dtype and"
             " convert in tl.store")
    if not torch.allclose(got.double(), want, rtol=rtol, atol=atol * want.abs().max().item(), equal_nan=False):
        drawn = kernel_map.explain(maps, "out_ptr", KERNEL_INPUTS)  # what the kernel touched
        cause, hint = likely_mistake(got, case, activation, todo)
        if tf32_ok and cause == TF32:
            return
        fail(f"{what} differs from act(x Wg^T + bg) * (x Wv^T + bv): {hint}"
             f" [{describe_mismatch(got, want, rtol, atol * want.abs().max().item())}]{drawn}", cause=cause,
             waits_on=waits_on, todo=todo)


def expect_float64(got: torch.Tensor, case: dict, activation: str, what: str) -> None:
    """The formula to float64 precision; a result right to float32 precision only is told as summing in float32."""
    want = formula(case, activation)
    if got.dtype == torch.float64 and got.shape == want.shape and not torch.allclose(
            got, want, rtol=1e-12, atol=1e-12 * want.abs().max().item()):
        if torch.allclose(got, want, rtol=1e-5, atol=1e-5 * want.abs().max().item()):
            fail(f"{what} is right to float32 precision only: accumulate in COMPUTE_DTYPE (float64 here:"
                 " COMPUTE_DTYPES maps it), not in tl.float32, and keep the biases and the epilogue in it (TODO 1)",
                 cause="float64 summed in float32", todo="TODO 1")
    expect_formula(got, case, activation, what, 1e-12, 1e-12)


# ------------------------------------------------------------- the kernel's verdicts, asked once



def kernel_bounds_verdict(kernels) -> str:
    """The first access out of bounds the student's kernel makes on its own under trusted launch code, in any dtype
    a value test runs, on drawn; "" where it stays in bounds (or does not run: its own tests say why). Asked once
    per session."""
    def judge() -> str:
        for dtype in VALUE_DTYPES:
            case = inputs(drawn(f"gated kernel bounds {dtype}"), dtype)
            try:
                violation = project(kernels, case, "silu", bounds="apart")["out_of_bounds"]
            except pytest.fail.Exception:
                continue  # this dtype does not run: its value test says why
            if violation:
                return violation
        return ""

    return session_verdict((EXERCISE, "bounds"), judge, "")


def bounds_mode(kernels) -> str:
    """How a test of another property than the kernel's values and bounds (a layout, the launch, the combined
    weight, the block) treats an access out of bounds: "apart" where the kernel makes one on its own under the
    given launch code (the kernel's value and bounds tests charge it; this test judges what was computed inside the
    tensors), "judged" where it does not: then an access out of bounds comes from the code under test, and this
    test fails on it."""
    return "apart" if kernel_bounds_verdict(kernels) else "judged"


def kernel_verdict(kernels, dtype: torch.dtype = torch.float32, weight_layout: str = "contiguous") -> str:
    """"" when the student's kernel computes the projection under trusted launch code (silu in float32,
    gelu in float64, on drawn; the weights in ``weight_layout``), else the first line of why not. Its bounds
    apart: an access outside the tensors is the kernel's value and bounds tests' to charge, not the premise of
    the tests built on its values. Asked once per session for each."""
    def judge() -> None:
        case = inputs(drawn(f"gated kernel{'' if dtype == torch.float32 else ' float64'}"), dtype)
        if dtype == torch.float64:
            expect_float64(project(kernels, case, "gelu", bounds="apart")["out"], case, "gelu",
                           f"{KERNEL} in float64 (TODO 1)")
        else:
            evidence = project(kernels, case, "silu", weight_layout=weight_layout, bounds="apart")
            expect_formula(evidence["out"], case, "silu", f"{KERNEL} (TODO 1)", FLOAT32_RTOL, FLOAT32_RTOL)

    return session_verdict((EXERCISE, "kernel", str(dtype), weight_layout), judge, "the kernel failed")


def responds_verdict(kernels) -> str:
    """"" when the student's kernel, under trusted launch code, writes finite values that change with x
    and with the weights (x with WHOLE_K_HIDDEN features), else why not: what a test that judges the kernel
    against its own output (on a strided copy, without biases, under the student's launch) needs, since a
    kernel that computes nothing equals itself on any layout. Elements it leaves unwritten (NaN here) do
    not stop it: those tests compare NaN with NaN, so a kernel that writes only some tiles is judged on its
    layouts by the tiles it writes (the tiles it leaves are the formula tests' to charge)."""
    def judge() -> str:
        gen = drawn(f"gated kernel responds {WHOLE_K_HIDDEN}")
        case = inputs(gen, hidden=WHOLE_K_HIDDEN)
        other_x, other_weights = inputs(gen, hidden=WHOLE_K_HIDDEN), inputs(gen, hidden=WHOLE_K_HIDDEN)
        out = project(kernels, case, "silu", bounds="apart")["out"]
        moved_x = project(kernels, {**case, "x": other_x["x"]}, "silu", bounds="apart")["out"]
        moved_w = project(kernels, {**case, "gate_weight": other_weights["gate_weight"],
                                    "value_weight": other_weights["value_weight"]}, "silu", bounds="apart")["out"]
        want = (TOKENS, INTERMEDIATE)
        if tuple(out.shape) != want or not torch.isfinite(out).any():
            return f"{KERNEL} wrote no finite value" if tuple(
                out.shape) == want else f"{KERNEL} wrote shape {tuple(out.shape)}, expected {want}"
        if (same_x := torch.equal(out.nan_to_num(), moved_x.nan_to_num())) or torch.equal(
                out.nan_to_num(), moved_w.nan_to_num()):
            return (f"{KERNEL}'s output does not change when {'x' if same_x else 'the weights'} change: it"
                    " computes nothing from them yet")
        return ""

    return session_verdict((EXERCISE, "responds"), judge, "the kernel failed")


def expect_kernel_responds(kernels, what: str) -> None:
    verdict = responds_verdict(kernels)
    if verdict:
        fail(f"{what}: this is judged against the kernel's own output elsewhere, so it counts once {KERNEL} computes"
             f" something from its inputs (TODO 1; test_forward_float32 says what); it does not yet: {verdict}",
             waits_on="test_forward_float32[silu]", todo="TODO 1")


def expect_like_own(got: torch.Tensor, own: torch.Tensor, what: str, own_what: str, hint: str, cause: str) -> None:
    """``got`` is what the kernel computes on the same numbers as ``own`` in another layout or form: the same
    to float32's rounding (another order of the same sums), whatever the kernel computes."""
    scale = max(own.abs().nan_to_num().max().item(), 1e-30) if own.numel() else 1.0
    if got.shape == own.shape and torch.allclose(got.double(), own.double(), rtol=FLOAT32_RTOL,
                                                 atol=FLOAT32_RTOL * scale, equal_nan=True):
        return
    detail = describe_mismatch(got, own, FLOAT32_RTOL, FLOAT32_RTOL * scale) if got.shape == own.shape else (
        f"shape {tuple(got.shape)}, expected {tuple(own.shape)}")
    fail(f"{what} differs from the kernel's own output {own_what}: {hint} [{detail}]", cause=cause, todo="TODO 1")


def expect_kernel_takes_weight_strides(kernels, what: str) -> None:
    """The kernel's output on transposed weights is its own on contiguous ones (test_forward_noncontiguous_weights),
    on x with WHOLE_K_HIDDEN features: the premise of a TODO 3 test."""
    def judge() -> None:
        case = inputs(drawn("gated kernel strides"), hidden=WHOLE_K_HIDDEN)
        bounds = bounds_mode(kernels)
        expect_like_own(project(kernels, case, "silu", weight_layout="transposed", bounds=bounds)["out"],
                        project(kernels, case, "silu", bounds=bounds)["out"], f"{KERNEL} on transposed weights",
                        "on contiguous ones", "", "weight strides ignored")

    verdict = session_verdict((EXERCISE, "strides"), judge, "the kernel failed")
    if verdict:
        fail(f"{what}: this counts once {KERNEL} reads transposed weights through their strides (TODO 1;"
             f" test_forward_noncontiguous_weights passes); it does not yet: {verdict}",
             waits_on="test_forward_noncontiguous_weights[transposed]", todo="TODO 1")
