"""Graded tests for exercises/triton_swiglu.py: the fused SwiGLU kernels (TODO 1-2), their autograd
wiring (TODO 3-5) and the FusedSwiGLU block (TODO 6-7).

Run: ``pytest tests/test_triton_swiglu.py`` (this task alone: ``-m swiglu``). On a CUDA GPU the kernels
run natively; without one they run in Triton's interpreter, which the suite switches on by itself
(``grader/probes/``). Where Triton cannot be installed (macOS, Windows) the whole module is skipped.
Longer than 400 lines because it is one task's graded suite, which a student runs as one file.

Two targets, so that the points for a working kernel come from the kernel alone:

* ``kernels``: the student's ``_swiglu_forward_kernel`` and ``_swiglu_backward_kernel``, read out of the
  file without running it, checked to be Triton language with the stub's parameters, and launched by
  the reference's launch code in a process of their own (``grader/kernels/source.py``). The kernel
  tests (forward/backward in float32, 16 bits and other layouts; memory bounds) run on this.
* ``target``: the student's file as it is. The launch tests (``test_kernels_launched``: the functions
  launch the student's kernels and return what the ``kernels`` target computes on the same inputs),
  the empty, in-place, autograd and block tests run on this.

Kernel outputs are compared with the float64 formula evaluated on the very inputs the kernels got:

* float32: within 2**-18 relative (32 units in the last place), plus 2**-20 of the largest value for
  the cancellation in the derivative near its zero (gate = -1.28). That is what float32 arithmetic
  with the GPU's fast exp loses for |gate| up to about 12; a wrong term is off by orders more.
* float16 and bfloat16: at least as accurate as PyTorch eager on the same inputs. Eager's
  ``F.silu(gate) * value`` rounds twice (silu, then the product) and errs by up to about 1.5 units in
  the last place; a kernel may err as much as eager does at worst on the same tensor, plus a tenth
  (``EAGER_SLACK``: a kernel that rounds where eager does, from a float32 silu of its own, can land on
  the other side of a rounding boundary), never less than half a unit (one rounding), plus the
  float32 allowance above; and on average no more than eager errs, plus 8 % (``EAGER_MEAN_SLACK``),
  which is what tells a kernel computing in 16 bits from eager where the worst elements alone do not. The ideal the messages teach
  is one rounding: compute in float32, round when storing. A kernel that computes in 16 bits rounds
  after every operation and errs by 2 to 7 units. Under the interpreter, bfloat16 arithmetic and
  conversions round as on a GPU (``grader/probes/``), so the bound is the same on CPU and GPU.
"""

from __future__ import annotations

import math
import re

import pytest
import torch
import torch.nn.functional as F

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused SwiGLU exercise"
                     " cannot run on macOS or Windows (the other suites do)")

from tests.checks import (BLOCKS, Block, describe_mismatch, expect_close, expect_rounded, expect_shape, fail,  # noqa: E402
                          is_close, rounding_errors, ulp)
from grader.kernels.source import SWIGLU  # noqa: E402
from grader.probes import stand_in_backward, stand_in_forward  # noqa: E402
from grader.kernels import maps as kernel_map  # noqa: E402
from tests.snapshot import triton_launch_code  # noqa: E402
from tests.kernel_target import StudentKernels, rests_on, start_side_by_side, student_kernels, verdict_data  # noqa: E402
from tests.seam import Target, error_fields, format_error  # noqa: E402
from tests.test_mlp import DROPOUT_SHAPE, HIDDEN, INTERMEDIATE, P, run  # noqa: E402

pytestmark = pytest.mark.swiglu

EXERCISE = "triton_swiglu"
GATE_SCALE = 3.0  # gate spreads over about [-12, 12]: both tails of the sigmoid and the silu minimum
FLOAT32_RTOL = 2.0**-18
CANCELLATION = 2.0**-20  # times the largest |expected|: absolute slack where the derivative crosses 0
EAGER_SLACK = 1.1  # 16 bits: up to this times eager's worst error (margins checked over 50 seeds by the self-checks)
EAGER_MEAN_SLACK = 1.08  # and up to this times eager's mean error

SHAPES = {"0d": (), "1d": (3001,), "2d": (37, 129), "3d": (3, 17, 65), "4d": (2, 3, 5, 33)}  # no multiple of a block
HALF_SHAPE = (61, 67)  # 4087 elements: enough that a kernel computing in 16 bits shows
LAYOUT_SHAPES = {"chunk": (4, 6, 45), "transposed": (45, 37), "strided": (6, 45)}
EMPTY_SHAPES = [(0,), (3, 0, 5)]

FUSED = Block(
    "FusedSwiGLU", EXERCISE, "TODO 6", "TODO 7", BLOCKS["GLU"].layers, BLOCKS["GLU"].count_formula,
    BLOCKS["GLU"].count,
)
KERNEL = {"forward": ("_swiglu_forward_kernel", "TODO 1"), "backward": ("_swiglu_backward_kernel", "TODO 2")}
FUNCTION = {"forward": "swiglu_forward", "backward": "swiglu_backward"}


# ------------------------------------------------------------------------------------ helpers

@pytest.fixture(scope="session")
def kernels(pytestconfig, target, tmp_path_factory) -> Target:
    """The student's two kernels alone, launched by the reference's launch code (tests/kernel_target.py)
    on the tensors the test picks. The kernel tests judge what this computes, so the kernels must do
    the work: no Python of the student's runs there."""
    def kernels_of(kwargs: dict) -> list[str]:
        ops = [kwargs["op"]] if "op" in kwargs else [case["op"] for case in kwargs.get("cases", [])]
        return [KERNEL[op][0] for op in ops]

    return student_kernels(pytestconfig, target, tmp_path_factory.mktemp("kernels"), SWIGLU, triton_launch_code(),
                           kernels_of)


@pytest.fixture(scope="module", autouse=True)
def _start_both_processes(target, kernels) -> None:
    """The student's file and the student's kernels run in a process each, started side by side."""
    start_side_by_side([target, kernels], EXERCISE, "swiglu")


def draw(gen, shape, dtype, scale=1.0) -> torch.Tensor:
    return (torch.randn(shape, generator=gen, dtype=torch.float64) * scale).to(dtype)


def kernel_where(target, op: str) -> str:
    kernel, todo = KERNEL[op]
    return f"{kernel} ({todo} in {target.where(EXERCISE)})"


def forward_formula(gate, value) -> torch.Tensor:
    gate, value = gate.double(), value.double()
    return gate * torch.sigmoid(gate) * value


def backward_formula(grad_out, gate, value) -> tuple[torch.Tensor, torch.Tensor]:
    grad_out, gate, value = grad_out.double(), gate.double(), value.double()
    sig = torch.sigmoid(gate)
    return grad_out * value * sig * (1 + gate * (1 - sig)), grad_out * gate * sig


def eager_forward(gate, value) -> torch.Tensor:
    """What PyTorch eager computes in the inputs' own dtype: the yardstick for 16-bit accuracy."""
    return F.silu(gate) * value


def eager_backward(grad_out, gate, value) -> tuple[torch.Tensor, torch.Tensor]:
    gate, value = gate.detach().clone().requires_grad_(True), value.detach().clone().requires_grad_(True)
    eager_forward(gate, value).backward(grad_out.to(gate.dtype))
    return gate.grad, value.grad


def ulps(got: torch.Tensor, exact: torch.Tensor) -> float:
    """The largest error of ``got`` in units in the last place of its dtype (0 for an empty tensor)."""
    if not got.numel():
        return 0.0
    return float(((got.double() - exact.double()).abs() / ulp(exact, got.dtype)).max())


def tolerance(dtype: torch.dtype, exact: torch.Tensor, eager: torch.Tensor | None = None) -> dict:
    """The rounding budget for ``dtype`` (see the module docstring for why); ``eager``: PyTorch eager's
    result on the same inputs, which sets the budget in 16 bits."""
    atol = CANCELLATION * float(exact.abs().max()) if exact.numel() else 0.0
    if dtype == torch.float64:
        return {"roundings": 0.0, "rtol": 1e-12, "atol": 1e-12 * atol / CANCELLATION}
    if dtype == torch.float32:
        return {"roundings": 0.0, "rtol": FLOAT32_RTOL, "atol": atol}
    return {"roundings": max(0.5, EAGER_SLACK * ulps(eager, exact)), "rtol": FLOAT32_RTOL, "atol": atol}


def mean_ulps(got: torch.Tensor, exact: torch.Tensor) -> float:
    return float(((got.double() - exact.double()).abs() / ulp(exact, got.dtype)).mean()) if got.numel() else 0.0


def expect_as_accurate_as_eager(got: torch.Tensor, exact: torch.Tensor, eager: torch.Tensor, what: str,
                                tol: dict) -> None:
    """16 bits: on average no less accurate than PyTorch eager on the same inputs (after expect_rounded)."""
    if got.dtype not in (torch.float16, torch.bfloat16):
        return
    mine, eagers = mean_ulps(got, exact), mean_ulps(eager, exact)
    if mine > EAGER_MEAN_SLACK * eagers:
        fail(f"{what}: mean error {mine:.3f} ulp, PyTorch eager's on the same inputs {eagers:.3f} ulp (allowed"
             f" {EAGER_MEAN_SLACK:g} times that): {less_accurate_than_eager(tol)}")


def less_accurate_than_eager(tol: dict) -> str:
    return (f"less accurate than PyTorch eager (F.silu(gate) * value, and its autograd; allowed:"
            f" {tol['roundings']:.2f} ulp on these inputs, eager's worst error plus a tenth): is the kernel computing in"
            " 16 bits? Convert right after tl.load to"
            " COMPUTE_DTYPE, compute there, and convert to the output's dtype only in tl.store: one rounding,"
            " half an ulp")


def roughly(got: torch.Tensor, candidate: torch.Tensor) -> bool:
    """Loose enough for 16-bit outputs, tight enough to tell the known mistakes apart."""
    scale = float(candidate.abs().max()) if candidate.numel() else 0.0
    return is_close(got, candidate, 2e-2, 1e-2 * scale)


def run_kernels(target, gen, op, shape, dtype=torch.float32, layout="contiguous", grad_out_layout="contiguous",
                device="cpu", **extra):
    """Inputs drawn here, laid out by the probe; returns (evidence, gate, value, grad_out)."""
    gate = draw(gen, shape, dtype, GATE_SCALE)
    value = draw(gen, shape, dtype)
    grad_out = None
    if op == "backward":
        # An expanded grad_out holds one value: what autograd passes down from out.sum().
        if grad_out_layout == "expanded":
            grad_out = torch.full(shape, 0.75, dtype=dtype)
        elif grad_out_layout == "broadcast_row":  # one row for every row: its row stride is 0
            grad_out = draw(gen, shape[-1:], dtype).expand(shape).clone()
        else:
            grad_out = draw(gen, shape, dtype)
    evidence = target.evidence(EXERCISE, "swiglu_kernels", op=op, gate=gate, value=value, grad_out=grad_out,
                               layout=layout, grad_out_layout=grad_out_layout, device=device, **extra)
    if "error" in evidence:
        fail(format_error(evidence["error"]) + kernel_error_hint(evidence["error"], grad_out_layout)
             + kernel_map.for_error(evidence["error"]), **error_fields(evidence["error"]))
    return evidence, gate, value, grad_out


def kernel_error_hint(error: dict, grad_out_layout: str = "contiguous") -> str:
    """What to do about an error a kernel raised under the interpreter, where the words say it."""
    message = error.get("message", "")
    if grad_out_layout == "broadcast_row" and "grad_out_ptr" in message:
        return f". Here {BROADCAST_ROW_HINT}"
    if re.search(r"Expected dtype \[.*fp32.*\] but got (fp16|bf16)", message):
        return ("; the kernel computes in the inputs' 16-bit dtype, where tl.sigmoid and tl.exp accept only"
                " float32 and float64: convert right after tl.load with .to(COMPUTE_DTYPE), compute there, and"
                " convert to the output's dtype only in tl.store")
    return ""


def expect_kernels_launched(target, evidence: dict, op: str, stage: str | None = None, todo: str = "") -> None:
    kernels = evidence["kernels"] if "kernels" in evidence else evidence.get(f"{op}_kernels", [])
    if kernels:
        return
    foreign = evidence.get("foreign_kernels") or []
    also = f" (only kernels defined elsewhere: {', '.join(foreign)})" if foreign else ""
    stage = stage or FUNCTION[op]
    fail(f"{stage} launched no Triton kernel of {target.where(EXERCISE)}{also}: the work must be done by"
         f" Triton kernels launched from the exercise module, not by PyTorch operations"
         f"{f' ({todo})' if todo else ''}")


def stand_in_coefficients(gen) -> dict:
    """Coefficients of the stand-in kernels (``grader/probes/``), drawn per test from the test's own
    seed without using up its generator: no fixed formula can be returned in their place."""
    drawn = torch.Generator().manual_seed(gen.initial_seed() ^ 0x5EED)
    a, b, c, d = (1.25 + torch.rand(4, generator=drawn, dtype=torch.float64)).tolist()
    return {"forward": [a, -b], "backward": [c, -d]}


def follows(got, want: torch.Tensor) -> bool:
    """``got`` is what the stand-in wrote (computed in float64, rounded once to ``got``'s dtype)."""
    return (isinstance(got, torch.Tensor) and got.shape == want.shape
            and not bool(rounding_errors(got, want.to(got.dtype), roundings=1.0).any()))


def stand_in_text(op: str, coefficients: dict) -> str:
    if op == "forward":
        a, b = coefficients["forward"]
        return f"_swiglu_forward_kernel by a stand-in that writes {a:.3f} * gate {b:+.3f} * value"
    c, d = coefficients["backward"]
    return (f"_swiglu_backward_kernel by a stand-in that writes grad_gate = {c:.3f} * grad_out + gate and"
            f" grad_value = {d:.3f} * grad_out + value")


def expect_stand_in_followed(target, ok: bool, op: str, stage: str, coefficients: dict, todo: str,
                             foreign: list | None = None) -> None:
    """The verdict on "does the work with the exercise's kernels": the grader replaced the kernel and
    the result changed accordingly (see stand_in_coefficients)."""
    if ok:
        return
    also = f" It launched only kernels defined elsewhere: {', '.join(foreign)}." if foreign else ""
    fail(f"{stage} does not get its result from {KERNEL[op][0]}: with {stand_in_text(op, coefficients)}, it still"
         f" returned something else. The work must be done by the Triton kernels of {target.where(EXERCISE)},"
         f" launched through {FUNCTION[op]} ({todo}), not by PyTorch operations.{also}")


def unwritten_hint(got: torch.Tensor, exact: torch.Tensor, layout: str = "contiguous", launch: str = "yours") -> str:
    """A hint from where the NaNs are: the probes fill the inputs' surroundings and every fresh
    allocation with NaN, so a NaN is an element read from outside or never written. (bfloat16
    arithmetic is no cause: under the interpreter it rounds as on a GPU, see grader/probes/.)

    ``launch``: "yours" where the student's own launch code ran (its grid may be the cause), "trusted"
    in the kernel tests, whose grid the stub's launch code sets (then only the kernel can be).
    """
    nan = got.double().isnan() & ~exact.isnan()
    if not bool(nan.any()):
        return ""
    return _nan_pattern(nan, layout, launch)


KERNEL_COVERS_ITS_BLOCK = ("The launch code starts n_rows * cdiv(n_cols, BLOCK_SIZE) programs; program pid must"
                           " store the block of row pid // cdiv(n_cols, BLOCK_SIZE) that starts at column"
                           " (pid % cdiv(n_cols, BLOCK_SIZE)) * BLOCK_SIZE, masked with cols < n_cols")


def _nan_pattern(nan: torch.Tensor, layout: str, launch: str = "yours") -> str:
    if layout == "strided" and not bool(nan.all()):
        return ("there are NaNs where the formula is finite: x[..., ::2] is a strided view with gaps between its"
                " elements (the probes fill them with NaN), and the kernel read the gaps. Index with the strides,"
                " or pass a .contiguous() copy (.reshape(-1) keeps the strides whenever it can)")
    if launch == "trusted":
        cure = KERNEL_COVERS_ITS_BLOCK
        if bool(nan.all()):
            return ("no element was written (all NaN, what fresh memory holds in these tests): the kernel must"
                    " tl.store its results through the output pointer(s), with the mask. " + cure)
    else:
        cure = ("Does the grid round down? Launch triton.cdiv(n, BLOCK_SIZE) programs, not n // BLOCK_SIZE,"
                " so the last, partial block gets a program too (and mask it)")
    if bool(nan.all()):
        return f"no element was written (all NaN, what fresh memory holds in these tests). {cure}"
    flat = nan.reshape(-1)
    first = int(flat.nonzero()[0])
    if bool(flat[first:].all()):
        return (f"the last {flat.numel() - first} elements (from flat index {first} on) are NaN and every one"
                f" before is right: no program wrote them. {cure}")
    rows = nan.reshape(-1, nan.shape[-1])
    starts = {int(r.nonzero()[0]) if bool(r.any()) else -1 for r in rows}
    if len(starts) == 1 and min(starts) > 0 and all(bool(r[min(starts):].all()) for r in rows):
        return (f"in every row the elements from column {min(starts)} on are NaN and the ones before are right:"
                f" no program wrote the end of the rows. {cure}")
    unwritten = "does the grid round down?" if launch != "trusted" else "does every program store its whole block?"
    return ("there are NaNs where the formula is finite: the probes surround the inputs with NaN and fill"
            " fresh memory with NaN, so the kernel read outside its inputs (missing mask on tl.load?) or left"
            f" elements unwritten ({unwritten})")


def contiguous_reads(gate: torch.Tensor, value: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """What a kernel that ignores the row stride reads from the halves of h.chunk(2, dim=-1)."""
    h = torch.cat([gate.double(), value.double()], dim=-1).reshape(-1)
    n, cols = gate.numel(), gate.shape[-1]
    return h[:n].reshape(gate.shape), h[cols:cols + n].reshape(gate.shape)


CONTIGUITY_HINT = ("it matches reading gate and value as if they were contiguous: rows of a half of"
                   " h.chunk(2, dim=-1) are gate_row_stride elements apart, not n_cols; address"
                   " row * row_stride + cols for every tensor")


def close_hint(tol: dict) -> str:
    """For an output close to the formula but outside the budget ``tol``."""
    if tol["roundings"]:
        return less_accurate_than_eager(tol)
    return ("close to the formula but off by more than rounding: convert after tl.load to COMPUTE_DTYPE,"
            " compute there, and convert to the output's dtype only in tl.store")


def diagnose_forward(got, gate, value, layout, tol) -> str:
    g, v = gate.double(), value.double()
    exact = forward_formula(gate, value)
    candidates = [
        (close_hint(tol), exact),
        ("the output is sigmoid(gate) * value: SiLU is gate * sigmoid(gate)", torch.sigmoid(g) * v),
        ("the output is silu(value) * gate: the activation belongs on gate, value stays linear", F.silu(v) * g),
        ("the output is silu(gate) alone: multiply by value", F.silu(g)),
        ("the output is gate * value: the activation silu(gate) = gate * sigmoid(gate) is missing", g * v),
        ("the output is silu(gate) * silu(value): only gate gets the activation", F.silu(g) * F.silu(v)),
    ]
    if layout == "chunk":
        flat_g, flat_v = contiguous_reads(gate, value)
        candidates.append((CONTIGUITY_HINT, F.silu(flat_g) * flat_v))
    for hint, candidate in candidates:
        if roughly(got, candidate):
            return hint
    return "check TODO 1 step by step: out = gate * sigmoid(gate) * value, computed in COMPUTE_DTYPE"


def diagnose_backward(got_gate, got_value, grad_out, gate, value, layout, tol) -> str:
    go, g, v = grad_out.double(), gate.double(), value.double()
    want_gate, want_value = backward_formula(grad_out, gate, value)
    sig = torch.sigmoid(g)
    if roughly(got_gate, want_value) and roughly(got_value, want_gate):
        return ("grad_gate and grad_value are swapped: store d loss/d gate through grad_gate_ptr and"
                " d loss/d value through grad_value_ptr, and return them in the order (grad_gate, grad_value)")
    if layout == "chunk":
        flat_g, flat_v = contiguous_reads(gate, value)
        if roughly(got_value, go * F.silu(flat_g)):
            return CONTIGUITY_HINT
    if not roughly(got_gate, want_gate):
        product_rule = "silu(g) = g * sigmoid(g) is a product"
        for hint, candidate in [
            (close_hint(tol), want_gate),
            (f"grad_gate is grad_out * value * sigmoid(gate): that treats sigmoid(gate) as a constant;"
             f" {product_rule}, so the product rule gives a second term", go * v * sig),
            (f"grad_gate has only the term with sigmoid's derivative; {product_rule}, and the product rule"
             " also gives the term where g is differentiated", go * v * g * sig * (1 - sig)),
            (f"grad_gate uses the derivative of sigmoid, not of silu: {product_rule}", go * v * sig * (1 - sig)),
            ("d sigmoid(g)/dg = sigmoid(g) * (1 - sigmoid(g)): the second term has sigmoid(gate) where"
             " 1 - sigmoid(gate) belongs", go * v * sig * (1 + g * sig)),
            ("d sigmoid(g)/dg = sigmoid(g) * (1 - sigmoid(g)): the factor 1 - sigmoid(gate) is missing",
             go * v * sig * (1 + g)),
            ("d sigmoid(g)/dg = sigmoid(g) * (1 - sigmoid(g)): the second term lacks the factor sigmoid(gate)",
             go * v * (sig + g * (1 - sig))),
            ("grad_gate lacks the factor value: out = silu(gate) * value", go * sig * (1 + g * (1 - sig))),
            ("grad_gate lacks the factor grad_out: the chain rule multiplies by it", v * sig * (1 + g * (1 - sig))),
        ]:
            if roughly(got_gate, candidate):
                return hint
        return ("grad_gate is wrong: d out/d gate = value * d silu(gate)/d gate; work the derivative of"
                " g * sigmoid(g) out with the product rule and d sigmoid/dg = sigmoid * (1 - sigmoid)")
    for hint, candidate in [
        (close_hint(tol), want_value),
        ("grad_value is grad_out * sigmoid(gate): d out/d value is silu(gate) = gate * sigmoid(gate)", go * sig),
        ("grad_value lacks the factor grad_out: the chain rule multiplies by it", g * sig),
        ("grad_value is grad_out * value: d out/d value is silu(gate)", go * v),
    ]:
        if roughly(got_value, candidate):
            return hint
    return "grad_value is wrong: d out/d value = silu(gate) = gate * sigmoid(gate), times grad_out"


def value_cause(op: str, tol: dict, found: list[tuple[str, str]], diagnosed) -> tuple[str, str]:
    """(cause, hint) for a kernel's wrong values: the first of ``found`` (cause, hint) with a hint, else
    the diagnosis, whose hint is its cause (a fixed sentence per mistake; being close to the formula but
    not within the rounding budget is one cause, whatever the numbers)."""
    for cause, hint in found:
        if hint:
            return (cause if cause == "unexplained" else f"{op}: {cause}"), hint
    hint = diagnosed()
    return f"{op}: {'not within the rounding budget' if hint == close_hint(tol) else hint}", hint


def launch(target) -> str:
    """Whose launch code ran: "trusted" (the kernel tests: the stub's, with the student's kernels) or "yours"."""
    return "trusted" if isinstance(target.backend, StudentKernels) else "yours"


def overwritten_inputs(target, evidence: dict, op: str) -> str:
    """The probes record which inputs changed; an output wrong because the inputs were overwritten says so."""
    changed = evidence.get("inputs_changed") or []
    if not changed:
        return ""
    return (f"{FUNCTION[op]} changed its input(s) {', '.join(changed)} in place while computing: store the results"
            f" only through the output pointer(s) into the new tensors the launch code allocates"
            f" ({kernel_where(target, op)})")


def too_few_to_tell(exact: torch.Tensor) -> str:
    """With a handful of elements the known mistakes cannot be told apart: say so rather than guess."""
    if exact.numel() >= 16:
        return ""
    return (f"with {exact.numel()} element(s) the cause cannot be told apart from the numbers; the tests on larger"
            " shapes ([1d], [2d]) name it")


def check_dtype(target, op: str, got: torch.Tensor, dtype: torch.dtype, name: str) -> None:
    if got.dtype != dtype:
        fail(f"{FUNCTION[op]} returned {name} as {got.dtype} for {dtype} inputs: allocate it with the inputs'"
             f" dtype (torch.empty_like(gate)); the kernel computes in COMPUTE_DTYPE and converts to"
             f" {name}'s own dtype in tl.store (one rounding, and half the memory traffic of float32)")


def check_forward(target, evidence, gate, value, layout="contiguous") -> None:
    expect_kernels_launched(target, evidence, "forward", todo="TODO 1")
    out = evidence["out"]
    expect_shape(out.shape, gate.shape, f"swiglu_forward on inputs of shape {tuple(gate.shape)}",
                 "the output has the inputs' shape")
    check_dtype(target, "forward", out, gate.dtype, "out")
    exact = forward_formula(gate, value)
    tol = tolerance(gate.dtype, exact, eager_forward(gate, value))
    bad = rounding_errors(out, exact, **tol)
    cause, hint = "unexplained", ""
    if bool(bad.any()):
        cause, hint = value_cause("forward", tol, [
            ("inputs overwritten", overwritten_inputs(target, evidence, "forward")),
            ("elements never written", unwritten_hint(out, exact, layout, launch(target))),
            ("unexplained", too_few_to_tell(exact))], lambda: diagnose_forward(out, gate, value, layout, tol))
    what = f"{kernel_where(target, 'forward')}: silu(gate) * value in {gate.dtype}"
    expect_rounded(out, exact, what, hint + memory_map(evidence, "forward", "out"), **tol, cause=cause)
    expect_as_accurate_as_eager(out, exact, eager_forward(gate, value), what, tol)


KERNEL_INPUTS = {"forward": ["gate_ptr", "value_ptr"], "backward": ["grad_out_ptr", "gate_ptr", "value_ptr"]}


def memory_map(evidence: dict, op: str, output: str) -> str:
    """What the kernel touched, drawn for a test that failed on ``output`` (grader/kernels/maps.py)."""
    return kernel_map.explain(evidence.get("maps"), f"{output}_ptr", KERNEL_INPUTS[op], elementwise=True)


BROADCAST_ROW_HINT = ("grad_out is one row broadcast over the others (grad_out_row_stride is 0, as autograd passes"
                      " when the loss sums a bias-like row): address grad_out with its own stride,"
                      " grad_out_ptr + row * grad_out_row_stride + cols, not with another tensor's")


def check_backward(target, evidence, grad_out, gate, value, layout="contiguous", grad_out_layout="contiguous") -> None:
    expect_kernels_launched(target, evidence, "backward", todo="TODO 2")
    want_gate, want_value = backward_formula(grad_out, gate, value)
    got_gate, got_value = evidence["grad_gate"], evidence["grad_value"]
    for name, got in (("grad_gate", got_gate), ("grad_value", got_value)):
        expect_shape(got.shape, gate.shape, f"swiglu_backward's {name} for inputs of shape {tuple(gate.shape)}",
                     "each gradient has its input's shape")
        check_dtype(target, "backward", got, gate.dtype, name)
    eager = eager_backward(grad_out, gate, value)
    for name, got, exact, by_eager in (("grad_gate", got_gate, want_gate, eager[0]),
                                       ("grad_value", got_value, want_value, eager[1])):
        tol = tolerance(gate.dtype, exact, by_eager)
        bad = rounding_errors(got, exact, **tol)
        cause, hint = "unexplained", ""
        if bool(bad.any()):
            cause, hint = value_cause("backward", tol, [
                ("inputs overwritten", overwritten_inputs(target, evidence, "backward")),
                ("elements never written", unwritten_hint(got, exact, layout, launch(target))),
                ("unexplained", too_few_to_tell(exact))],
                lambda tol=tol: diagnose_backward(got_gate, got_value, grad_out, gate, value, layout, tol))
            if grad_out_layout == "broadcast_row":
                cause, hint = "backward: grad_out's own stride", BROADCAST_ROW_HINT
        what = f"{kernel_where(target, 'backward')}: {name} in {gate.dtype}"
        expect_rounded(got, exact, what, hint + memory_map(evidence, "backward", name), **tol, cause=cause)
        expect_as_accurate_as_eager(got, exact, by_eager, what, tol)


# ------------------------------------------------------------------------------ the forward kernel

@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_forward_float32(kernels, gen, shape, device):
    evidence, gate, value, _ = run_kernels(kernels, gen, "forward", shape, device=device)
    check_forward(kernels, evidence, gate, value)


@pytest.mark.points(1)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "forward", a["device"], "swiglu_forward in 16 bits is judged"),
          counts_once=False)
def test_forward_16bit(kernels, gen, dtype, device):
    evidence, gate, value, _ = run_kernels(kernels, gen, "forward", HALF_SHAPE, dtype=dtype, device=device)
    check_forward(kernels, evidence, gate, value)


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", LAYOUT_SHAPES.keys())
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "forward", a["device"], "swiglu_forward on other layouts is judged"),
          counts_once=False)
def test_forward_noncontiguous(kernels, gen, layout, device):
    evidence, gate, value, _ = run_kernels(kernels, gen, "forward", LAYOUT_SHAPES[layout], layout=layout,
                                           device=device)
    check_forward(kernels, evidence, gate, value, layout)


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_computes(a['kernels'], "forward", a['device'], "swiglu_forward handles empty inputs"))
def test_forward_empty(target, kernels, gen, device):
    for shape in EMPTY_SHAPES:
        evidence, gate, *_ = run_kernels(target, gen, "forward", shape, device=device)
        expect_shape(evidence["out"].shape, shape, f"swiglu_forward on empty inputs of shape {shape}",
                     "return an empty tensor of the inputs' shape (a grid of 0 programs cannot be launched)")
        check_dtype(target, "forward", evidence["out"], gate.dtype, "out")


# ----------------------------------------------------------------------------- the backward kernel

@pytest.mark.points(1)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_backward_float32(kernels, gen, shape, device):
    evidence, gate, value, grad_out = run_kernels(kernels, gen, "backward", shape, device=device)
    check_backward(kernels, evidence, grad_out, gate, value)


@pytest.mark.points(1)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "backward", a["device"], "swiglu_backward in 16 bits is judged"),
          counts_once=False)
def test_backward_16bit(kernels, gen, dtype, device):
    evidence, gate, value, grad_out = run_kernels(kernels, gen, "backward", HALF_SHAPE, dtype=dtype, device=device)
    check_backward(kernels, evidence, grad_out, gate, value)


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", [*LAYOUT_SHAPES.keys(), "grad_out_expanded", "grad_out_broadcast_row"])
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "backward", a["device"], "swiglu_backward on other layouts is judged"),
          counts_once=False)
def test_backward_noncontiguous(kernels, gen, layout, device):
    shape = LAYOUT_SHAPES.get(layout, (5, 7, 9))
    grad_out_layout = layout.removeprefix("grad_out_") if layout.startswith("grad_out_") else layout
    input_layout = "contiguous" if layout.startswith("grad_out_") else layout
    if layout == "chunk":
        grad_out_layout = "contiguous"  # grad_out is the gradient of out, which is contiguous
    evidence, gate, value, grad_out = run_kernels(kernels, gen, "backward", shape, layout=input_layout,
                                                  grad_out_layout=grad_out_layout, device=device)
    check_backward(kernels, evidence, grad_out, gate, value, input_layout, grad_out_layout)


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_computes(a['kernels'], "backward", a['device'], "swiglu_backward handles empty inputs"))
def test_backward_empty(target, kernels, gen, device):
    for shape in EMPTY_SHAPES:
        evidence, gate, *_ = run_kernels(target, gen, "backward", shape, device=device)
        for name in ("grad_gate", "grad_value"):
            expect_shape(evidence[name].shape, shape, f"swiglu_backward's {name} for empty inputs of shape {shape}",
                         "return empty gradients of the inputs' shape (a grid of 0 programs cannot be launched)")
            check_dtype(target, "backward", evidence[name], gate.dtype, name)


# ---------------------------------------------------------------------- what the kernels touch

# The student's launch code: the same inputs through swiglu_forward / swiglu_backward and through the
# student's kernel launched by the stub's launch code must give the same tensors. (shape, dtype, layout)
LAUNCH_CASES = {"contiguous": ((9, 31), torch.float32, "contiguous"),
                "chunk-bfloat16": ((3, 5, 31), torch.bfloat16, "chunk"),
                "strided": ((9, 31), torch.float32, "strided")}


def same_as_kernel(got: torch.Tensor, launched: torch.Tensor) -> bool:
    """The same tensor, NaN where it is NaN; a GPU may round a differently compiled launch differently."""
    if got.shape != launched.shape or got.dtype != launched.dtype:
        return False
    if not torch.equal(got.isnan(), launched.isnan()):
        return False
    finite = ~got.isnan()
    return not bool(rounding_errors(got[finite], launched[finite], roundings=1.0).any())


@pytest.mark.points(1)
@pytest.mark.parametrize("case", LAUNCH_CASES.keys())
@pytest.mark.parametrize("op", ["forward", "backward"])
def test_kernels_launched(target, kernels, gen, op, case, device):
    shape, dtype, layout = LAUNCH_CASES[case]
    grad_out_layout = "contiguous" if layout == "chunk" else layout
    drawn = gen.get_state()
    evidence, gate, *_ = run_kernels(target, gen, op, shape, dtype, layout, grad_out_layout, device)
    names = ("out",) if op == "forward" else ("grad_gate", "grad_value")
    for name in names:
        expect_shape(evidence[name].shape, gate.shape, f"{FUNCTION[op]}'s {name} for {layout} inputs of shape {shape}",
                     "each result has the inputs' shape")
        check_dtype(target, op, evidence[name], dtype, name)
    # Does the result come from the kernel? Run it again with the kernel replaced by a stand-in.
    coefficients = stand_in_coefficients(gen)
    gen.set_state(drawn)
    swapped, gate, value, grad_out = run_kernels(target, gen, op, shape, dtype, layout, grad_out_layout, device,
                                                 stand_ins=coefficients)
    want = ((stand_in_forward(gate, value, coefficients["forward"]),) if op == "forward"
            else stand_in_backward(grad_out, gate, value, coefficients["backward"]))
    followed = all(follows(swapped[n], w) for n, w in zip(names, want))
    # Unchanged by the swap: not the kernel's result. Changed, but not to the stand-in's values: the
    # launch reads or writes the wrong places, which the comparison below explains; then judged here.
    unchanged = all(torch.equal(swapped[n].isnan(), evidence[n].isnan())
                    and torch.equal(swapped[n].nan_to_num(), evidence[n].nan_to_num()) for n in names)
    if unchanged:
        expect_stand_in_followed(target, False, op, FUNCTION[op], coefficients, KERNEL[op][1],
                                 evidence.get("foreign_kernels"))
    gen.set_state(drawn)
    launched, *_ = run_kernels(kernels, gen, op, shape, dtype, layout, grad_out_layout, device)
    for name in names:
        got, want = evidence[name], launched[name]
        if same_as_kernel(got, want):
            continue
        what = (f"{FUNCTION[op]} returned {name}, which is not what {kernel_where(target, op)} computes when the"
                f" stub's launch code runs it on the same {layout} {dtype} inputs")
        unwritten = unwritten_hint(got, want, layout)
        if unwritten:
            fail(f"{what}: {unwritten}{memory_map(evidence, op, name)}")
        left = int((want.isnan() & ~got.isnan()).sum())
        if left:
            fail(f"{what} (there the kernel leaves {left} of {want.numel()} elements unwritten): the values must be"
                 " the kernel's, computed by the kernel, not by PyTorch")
        fail(f"{what} [{describe_mismatch(got, want)}]: return the tensor the kernel wrote, and launch it as the"
             " stub's launch code does")
    expect_stand_in_followed(target, followed, op, FUNCTION[op], coefficients, KERNEL[op][1],
                             evidence.get("foreign_kernels"))


BOUNDS_CASES = [((1000,), "contiguous"), ((1,), "contiguous"), ((5, 37), "chunk")]


@pytest.mark.points(1)
@pytest.mark.parametrize("op", ["forward", "backward"])
@rests_on(lambda a: expect_kernel_computes(a['kernels'], a['op'], a['device'],
                                           f"{kernel_where(a['kernels'], a['op'])} stays in bounds"))
def test_memory_stays_in_bounds(kernels, gen, op, device):
    # Sizes just short of a block, a single element, and rows of a chunked tensor: the last block of
    # every row runs past its end. The kernels run under the interpreter here (in a separate Python
    # on a GPU machine), where every tl.load and tl.store is checked before it happens.
    cases = []
    for shape, layout in BOUNDS_CASES:
        gate, value = draw(gen, shape, torch.float32, GATE_SCALE), draw(gen, shape, torch.float32)
        grad_out = draw(gen, shape, torch.float32) if op == "backward" else None
        cases.append({"op": op, "gate": gate, "value": value, "grad_out": grad_out, "layout": layout})
    results = kernels.probe(EXERCISE, "swiglu_bounds", cases=cases)["results"]
    for (shape, layout), evidence in zip(BOUNDS_CASES, results):
        if "error" in evidence:
            error = evidence["error"]
            fail(f"{format_error(error)} (inputs of shape {shape}, {layout}){kernel_map.for_error(error)}",
                 **error_fields(error))
        expect_kernels_launched(kernels, evidence, op, todo=KERNEL[op][1])
        if evidence["guards_touched"]:
            fail(f"{kernel_where(kernels, op)} wrote next to its inputs ({', '.join(evidence['guards_touched'])},"
                 f" shape {shape}, {layout}): the memory around them changed; missing mask on tl.store, or a"
                 f" store through the wrong pointer")


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", ["contiguous", "chunk"])
@pytest.mark.parametrize("op", ["forward", "backward"])
@rests_on(lambda a: expect_kernel_computes(a['kernels'], a['op'], a['device'],
                                           f"{FUNCTION[a['op']]} leaves its inputs unmodified"))
def test_inputs_unmodified(target, kernels, gen, op, layout, device):
    evidence, *_ = run_kernels(target, gen, op, (4, 6, 45), layout=layout, device=device)
    if evidence["inputs_changed"]:
        fail(f"{FUNCTION[op]} changed its input(s) {', '.join(evidence['inputs_changed'])} in place ({layout}"
             f" inputs): allocate new tensors for the results and store only through the output pointer(s)"
             f" ({kernel_where(target, op)}). The caller still owns its inputs: autograd saved gate and value"
             f" for the backward, and a second backward (retain_graph=True) would read the overwritten values")
    if evidence["guards_touched"]:
        fail(f"{kernel_where(target, op)} wrote next to its inputs ({', '.join(evidence['guards_touched'])}):"
             " missing mask on tl.store, or a store through the wrong pointer")


# ---------------------------------------------------------------------------- autograd wiring

def check_autograd(target, evidence: dict, grad_out, gate, value, swapped: tuple[dict, dict], kernels=None,
                   device: str = "cpu") -> None:
    """``swapped``: (coefficients, evidence) of the same call with the kernels replaced by stand-ins;
    ``kernels``: the kernel tests' target, to tell a wrong kernel from wrong wiring."""
    here = target.where(EXERCISE)
    if not evidence["requires_grad"]:
        fail(f"swiglu(gate, value) returned a tensor that does not require grad although gate and value do:"
             f" swiglu must return SwiGLUFunction.apply(gate, value) (TODO 5 in {here})")
    if "SwiGLUFunction" not in (evidence["grad_fn"] or ""):
        fail(f"the output of swiglu was made by {evidence['grad_fn']}, not by SwiGLUFunction: return"
             f" SwiGLUFunction.apply(gate, value) (TODO 5 in {here}) so autograd runs your backward kernel")
    coefficients, got = swapped
    expect_stand_in_followed(target, follows(got["out"], stand_in_forward(gate, value, coefficients["forward"])),
                             "forward", "swiglu", coefficients,
                             f"SwiGLUFunction.forward calls swiglu_forward: TODO 3 in {here}")
    # Gate and value in, gradients out, each in either order: the order is judged on the real gradients below.
    ok = any(follows(got["grad_gate"], first) and follows(got["grad_value"], second)
             for inputs in ((gate, value), (value, gate))
             for grads in [stand_in_backward(grad_out, *inputs, coefficients["backward"])]
             for first, second in (grads, grads[::-1]))
    expect_stand_in_followed(target, ok, "backward", "backward through swiglu", coefficients,
                             f"SwiGLUFunction.backward calls swiglu_backward: TODO 4 in {here}")
    for name in ("grad_gate", "grad_value"):
        if evidence[name] is None:
            fail(f"no gradient reached {name.removeprefix('grad_')}: SwiGLUFunction.backward returns one gradient"
                 f" per input of forward, (grad_gate, grad_value) (TODO 4 in {here})")
    want_gate, want_value = backward_formula(grad_out, gate, value)
    eager = eager_backward(grad_out, gate, value)
    for name, want, by_eager in (("grad_gate", want_gate, eager[0]), ("grad_value", want_value, eager[1])):
        got = evidence[name]
        expect_shape(got.shape, gate.shape, f"the gradient {name} from swiglu(...).backward()")
        tol = tolerance(gate.dtype, want, by_eager)
        hint = ""
        if bool(rounding_errors(got, want, **tol).any()):
            if roughly(evidence["grad_gate"], want_value) and roughly(evidence["grad_value"], want_gate):
                hint = ("the gradients come back swapped: SwiGLUFunction.backward returns them in the order of"
                        f" forward's inputs, (grad_gate, grad_value) (TODO 4 in {here})")
            elif (roughly(evidence["grad_gate"], backward_formula(grad_out, value, gate)[0])
                  and roughly(evidence["grad_value"], backward_formula(grad_out, value, gate)[1])):
                hint = ("swiglu_backward got gate and value swapped: SwiGLUFunction.backward must unpack"
                        " ctx.saved_tensors in the order forward saved them (TODO 3 and TODO 4 in"
                        f" {here})")
            elif kernels is not None and gate.dtype == torch.float32 and not kernel_verdict(kernels, "backward", device):
                hint = unwritten_hint(got, want) or (
                    "the backward kernel is right on its own (test_backward_float32 passes), so look at the wiring:"
                    " what SwiGLUFunction.forward saves and how backward passes it and grad_out to swiglu_backward"
                    f" (TODO 3 and TODO 4 in {here})")
            else:
                hint = unwritten_hint(got, want) or ("test_backward_float32 and test_backward_16bit check the kernel"
                                                     " alone; fix those first")
        expect_rounded(got, want, f"swiglu: {name} by autograd in {gate.dtype}", hint, **tol)


def autograd_with_stand_ins(target, gen, gate, value, grad_out, device) -> tuple[dict, dict]:
    """The same autograd call with the kernels replaced by stand-ins: (coefficients, evidence)."""
    coefficients = stand_in_coefficients(gen)
    evidence = target.evidence(EXERCISE, "swiglu_autograd", gate=gate, value=value, grad_out=grad_out, device=device,
                               stand_ins=coefficients)
    if "error" in evidence:
        fail(f"{format_error(evidence['error'])} (with the kernels replaced by the grader's stand-ins)",
             **error_fields(evidence["error"]))
    return coefficients, evidence


_kernel_verdicts: dict[tuple[int, str, str], str] = {}


def kernel_verdict(kernels, op: str, device: str) -> str:
    """Why the ``op`` kernel does not compute SwiGLU where no Python of the student's runs (the
    ``kernels`` process); "" when it does. One run, once per session, on verdict_data."""
    key = (id(kernels), op, device)
    if key not in _kernel_verdicts:
        data = verdict_data(f"swiglu {op}")
        try:
            evidence, gate, value, grad_out = run_kernels(kernels, data, op, (3, 37), device=device)
            if op == "forward":
                check_forward(kernels, evidence, gate, value)
            else:
                check_backward(kernels, evidence, grad_out, gate, value)
            _kernel_verdicts[key] = ""
        except pytest.fail.Exception as failure:
            _kernel_verdicts[key] = str(failure).splitlines()[0] if str(failure) else f"the {op} kernel failed"
    return _kernel_verdicts[key]


def expect_kernel_computes(kernels, op: str, device: str, what: str) -> None:
    """A property of the ``op`` kernel (bounds, inputs untouched, empty input) counts once that kernel
    computes SwiGLU: a kernel that writes nothing has every one of them."""
    verdict = kernel_verdict(kernels, op, device)
    if verdict:
        fail(f"{what}, but this counts once {KERNEL[op][0]} computes its results ({KERNEL[op][1]};"
             f" test_{op}_float32 passes); it does not yet: {verdict}", waits_on=f"test_{op}_float32",
             todo=KERNEL[op][1])


def expect_kernels_compute_swiglu(kernels, device: str, what: str) -> None:
    """A value the student's own process computed counts only once the kernels compute SwiGLU where no
    Python of the student's runs (the ``kernels`` process): in the student's process, any code of the
    file could make a launch "compute" whatever it likes."""
    op = "forward" if kernel_verdict(kernels, "forward", device) else "backward"
    verdict = kernel_verdict(kernels, op, device)
    if verdict:
        fail(f"{what}: this counts once your kernels compute SwiGLU on their own"
             f" (test_forward_float32 and test_backward_float32 pass); they do not yet: {verdict}",
             waits_on=f"test_{op}_float32", todo=KERNEL[op][1])


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], f"swiglu's gradients by autograd in {a['dtype']}"))
def test_autograd_gradients(target, kernels, gen, dtype, device):
    shape = (3, 5, 41)
    gate, value, grad_out = draw(gen, shape, dtype, GATE_SCALE), draw(gen, shape, dtype), draw(gen, shape, dtype)
    evidence = target.probe(EXERCISE, "swiglu_autograd", gate=gate, value=value, grad_out=grad_out, device=device)
    check_autograd(target, evidence, grad_out, gate, value,
                   autograd_with_stand_ins(target, gen, gate, value, grad_out, device), kernels, device)


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], "swiglu's gradients for out.sum().backward()"))
def test_autograd_sum_backward(target, kernels, gen, device):
    # out.sum().backward() hands the backward a grad_out of ones with every stride 0.
    shape = (4, 7, 19)
    gate, value = draw(gen, shape, torch.float32, GATE_SCALE), draw(gen, shape, torch.float32)
    evidence = target.probe(EXERCISE, "swiglu_autograd", gate=gate, value=value, device=device)
    check_autograd(target, evidence, torch.ones(shape), gate, value,
                   autograd_with_stand_ins(target, gen, gate, value, None, device), kernels, device)


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], "gradcheck of swiglu"))
def test_gradcheck_float64(target, kernels, gen, device):
    gate, value = draw(gen, (3, 7), torch.float64, GATE_SCALE), draw(gen, (3, 7), torch.float64)
    evidence = target.probe(EXERCISE, "swiglu_gradcheck", gate=gate, value=value, device=device)
    if not evidence["passed"]:
        # "Jacobian mismatch for output 0 with respect to input 0, numerical:tensor(...)": keep the words
        said = evidence["message"].split(", numerical")[0].split(". ")[0][:200]
        said = said.replace("input 0", "input 0 (gate)").replace("input 1", "input 1 (value)")
        if "not reentrant" in evidence["message"]:
            fail("torch.autograd.gradcheck(swiglu, (gate, value)) in float64 failed: a second backward with the same"
                 " gate, value and grad_out gave other gradients, so the first one changed what the second reads:"
                 " swiglu_backward must leave gate and value as they are and write the gradients into new tensors"
                 " (test_inputs_unmodified says which input changed)")
        if not kernel_verdict(kernels, "backward", device):
            fail(f"torch.autograd.gradcheck(swiglu, (gate, value)) in float64 failed: {said}. The backward kernel is"
                 " right on its own (test_backward_float32 passes), so look at the wiring: what"
                 " SwiGLUFunction.forward saves, and how backward hands it to swiglu_backward and returns the"
                 f" gradients (TODO 3 and TODO 4 in {target.where(EXERCISE)})")
        fail(f"torch.autograd.gradcheck(swiglu, (gate, value)) in float64 failed: {said}."
             " The backward kernel's gradients (TODO 2, returned by SwiGLUFunction.backward, TODO 4) must match"
             " finite differences of the forward; float64 tensors are computed in COMPUTE_DTYPE (float64)")


BAD_CALLS = [
    ("forward: value's shape differs from gate's", "ValueError", ("gate", "value")),
    ("forward: gate is an integer tensor", "TypeError", ("gate",)),
    ("forward: value is an integer tensor", "TypeError", ("value",)),
    ("backward: grad_out's shape differs from gate's", "ValueError", ("grad_out",)),
    ("backward: grad_out is an integer tensor", "TypeError", ("grad_out",)),
]


@pytest.mark.points(1)
def test_bad_arguments_named(target, device):
    for case, exception, names in BAD_CALLS:
        evidence = target.probe(EXERCISE, "swiglu_bad_arguments", case=case, device=device)
        raised, message = evidence["raised"], evidence["message"]
        if raised != exception or not any(name in message for name in names):
            got = f"{raised}: {message}" if raised else "nothing was raised"
            fail(f"{case}: expected a {exception} naming {' or '.join(names)}, got {got}. Keep the argument"
                 " checks (_check_tensor, _check_same) at the top of swiglu_forward and swiglu_backward")


# --------------------------------------------------------------------------- the FusedSwiGLU block

CTOR = {"hidden_dim": HIDDEN, "intermediate_dim": INTERMEDIATE}


def fused_where(target, method: str, todo: str) -> str:
    return f"FusedSwiGLU.{method} ({todo} in {target.where(EXERCISE)})"


@pytest.mark.points(1)
def test_fused_layers(target):
    described = target.probe(EXERCISE, "describe_block", cls_name="FusedSwiGLU", ctor=CTOR)
    want = FUSED.layer_shapes(HIDDEN, INTERMEDIATE)
    if described["param_shapes"] != want:
        fail(f"{fused_where(target, '__init__', 'TODO 6')}: parameters {described['param_shapes']}, expected"
             f" {want}: Wv and Wg map hidden_dim -> intermediate_dim, Wo maps back, all nn.Linear with bias")
    if list(described["state_dict_keys"]) != list(want) and sorted(described["state_dict_keys"]) != sorted(want):
        fail(f"{fused_where(target, '__init__', 'TODO 6')}: state_dict keys {described['state_dict_keys']},"
             f" expected {list(want)}")


FLOAT64_HINT = ("off by about float32 precision: float64 tensors must be computed in float64 (COMPUTE_DTYPE is"
                " tl.float64 for them), not in a hard-coded tl.float32; test_gradcheck_float64 checks swiglu alone")


def float64_hint(got: torch.Tensor, want: torch.Tensor, hint: str) -> str:
    """``hint``, unless a float64 result is off by what computing in float32 loses: then that."""
    if got.dtype == torch.float64 and is_close(got, want, 1e-5, 1e-5) and not is_close(got, want, 1e-9, 1e-10):
        return FLOAT64_HINT
    return hint


def glu_reference(reference, gen, weights, x, **kwargs) -> dict:
    """The exercise's GLU with activation_fn=nn.SiLU, from the reference, on the same weights."""
    evidence, *_ = run(reference, BLOCKS["GLU"], gen, weights=weights, x=x, activation="silu", **kwargs)
    return evidence


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype,shape", [(torch.float64, (2, 3, 4, HIDDEN)), (torch.float32, (5, 7, HIDDEN))],
                         ids=["float64-4d", "float32-3d"])
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], f"FusedSwiGLU's output in {a['dtype']}"))
def test_fused_matches_glu(target, kernels, reference, gen, dtype, shape, device):
    got, weights, x, _ = run(target, FUSED, gen, shape=shape, dtype=dtype, device=device)
    want = glu_reference(reference, gen, weights, x.double())
    what = f"{fused_where(target, 'forward', 'TODO 7')} against GLU(activation_fn=nn.SiLU) with the same weights"
    out = got["out"]
    expect_shape(out.shape, shape, what, "the block maps (..., hidden_dim) to (..., hidden_dim)")
    if out.dtype != dtype:
        fail(f"{what}: {dtype} input gave {out.dtype} output")
    # float32: the block's matrix products round too; 1e-5 is far below any wrong wiring.
    rtol, atol = (1e-9, 1e-10) if dtype == torch.float64 else (1e-5, 1e-5)
    hint = float64_hint(out, want["out"], "Wo(swiglu(Wg(x), Wv(x))): gate from Wg, value from Wv")
    expect_close(out.double(), want["out"], what, hint, rtol=rtol, atol=atol)


@pytest.mark.points(2)
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], "FusedSwiGLU's gradients"))
def test_fused_gradients(target, kernels, reference, gen, device):
    got, weights, x, _ = run(target, FUSED, gen, backward=True, device=device)
    want = glu_reference(reference, gen, weights, x, backward=True, grad_out=got["grad_out"])
    where = fused_where(target, "forward", "TODO 7")
    if got["grad_x"] is None:
        fail(f"{where}: no gradient reached the input x: swiglu must be differentiable (SwiGLUFunction, TODO 3-5)")
    expect_close(got["grad_x"], want["grad_x"], f"{where}: gradient with respect to the input x",
                 float64_hint(got["grad_x"], want["grad_x"], "test_autograd_gradients checks swiglu's gradients"
                              " on their own"))
    for name, grad in want["grads"].items():
        if got["grads"].get(name) is None:
            fail(f"{where}: no gradient reached {name}")
        expect_close(got["grads"][name], grad, f"{where}: gradient of {name}", float64_hint(got["grads"][name], grad, ""))


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], "FusedSwiGLU's output dtype"))
def test_fused_dtype_kept(target, kernels, gen, device):
    got, *_ = run(target, FUSED, gen, dtype=torch.bfloat16, device=device)
    if got["out"].dtype != torch.bfloat16:
        fail(f"{fused_where(target, 'forward', 'TODO 7')} turned bfloat16 input (with a bfloat16 block) into"
             f" {got['out'].dtype} output")


def fused_with_stand_ins(weights: dict, x, grad_out, coefficients: dict, gate_from: str = "Wg", value_from: str = "Wv",
                         saved_swapped: bool = False):
    """FusedSwiGLU's (output, gradient of x) in float64 when its kernels are the stand-ins;
    ``saved_swapped``: the backward gets gate and value the other way round (test_autograd_gradients' business)."""
    w = {k: v.double() for k, v in weights.items()}
    x = x.double()
    gate = x @ w[f"{gate_from}.weight"].T + w[f"{gate_from}.bias"]
    value = x @ w[f"{value_from}.weight"].T + w[f"{value_from}.bias"]
    out = stand_in_forward(gate, value, coefficients["forward"]) @ w["Wo.weight"].T + w["Wo.bias"]
    grad_gate, grad_value = stand_in_backward(grad_out.double() @ w["Wo.weight"],
                                              *((value, gate) if saved_swapped else (gate, value)),
                                              coefficients["backward"])
    return out, grad_gate @ w[f"{gate_from}.weight"] + grad_value @ w[f"{value_from}.weight"]


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], "FusedSwiGLU's use of the kernels"))
def test_fused_uses_kernels(target, kernels, gen, device):
    coefficients = stand_in_coefficients(gen)
    got, weights, x, _ = run(target, FUSED, gen, backward=True, device=device, stand_ins=coefficients)
    where = fused_where(target, "forward", "TODO 7")
    # Gate and value in either order: which is which is test_fused_matches_glu's to judge.
    wanted = [fused_with_stand_ins(weights, x, got["grad_out"], coefficients, *order)
              for order in (("Wg", "Wv"), ("Wv", "Wg"))]
    matches = [i for i, (out, _) in enumerate(wanted) if is_close(got["out"], out, 1e-9, 1e-10)]
    expect_stand_in_followed(target, bool(matches), "forward", where, coefficients,
                             f"call swiglu(Wg(x), Wv(x)): TODO 7 in {target.where(EXERCISE)}")
    if got["grad_x"] is not None:  # no gradient at all: test_fused_gradients says so
        order = (("Wg", "Wv"), ("Wv", "Wg"))[matches[0]]
        grads_x = [fused_with_stand_ins(weights, x, got["grad_out"], coefficients, *order, saved_swapped=swapped)[1]
                   for swapped in (False, True)]
        expect_stand_in_followed(target, any(is_close(got["grad_x"], g, 1e-9, 1e-10) for g in grads_x), "backward",
                                 "FusedSwiGLU's backward pass", coefficients, "through swiglu and SwiGLUFunction")
    # The stand-ins' coefficients sit in the student's own process while this runs, where its code can
    # read them: following the swap counts once the kernels compute SwiGLU where no such code runs.


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], "FusedSwiGLU's output without dropout"))
def test_fused_dropout_off_unless_training(target, kernels, reference, gen, device):
    got, weights, x, _ = run(target, FUSED, gen, shape=DROPOUT_SHAPE, dropout=P, train=False, device=device)
    clean = glu_reference(reference, gen, weights, x)["out"]
    expect_close(got["out"], clean, f"{fused_where(target, 'forward', 'TODO 7')} in eval mode with dropout={P}",
                 float64_hint(got["out"], clean, "dropout does nothing in eval mode: apply the nn.Dropout made in"
                              " __init__ (TODO 6)"))
    got, *_ = run(target, FUSED, gen, dropout=0.0, train=True, weights=weights, x=x, device=device)
    expect_close(got["out"], clean, f"{fused_where(target, 'forward', 'TODO 7')} in training mode with dropout=0.0",
                 float64_hint(got["out"], clean, "create the dropout module with the rate `dropout`:"
                              " nn.Dropout(dropout) (TODO 6)"))


def fused_dropout(target, reference, gen, device) -> tuple[torch.Tensor, torch.Tensor]:
    got, weights, x, _ = run(target, FUSED, gen, shape=DROPOUT_SHAPE, dropout=P, train=True, device=device)
    return got["out"], glu_reference(reference, gen, weights, x)["out"]


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], "FusedSwiGLU's dropout"))
def test_fused_dropout_share_of_zeros(target, kernels, reference, gen, device):
    out, clean = fused_dropout(target, reference, gen, device)
    expect_shape(out.shape, clean.shape, "FusedSwiGLU.forward in training mode")
    share = (out == 0).double().mean().item()
    bound = 6 * math.sqrt(P * (1 - P) / out.numel())  # six standard deviations, as in test_mlp
    if abs(share - P) > bound:
        fail(f"{fused_where(target, 'forward', 'TODO 7')} with dropout={P} in training mode: {share:.3f} of the"
             f" outputs are exactly zero, expected {P} +- {bound:.3f}: dropout(Wo(...)) is the last step, with"
             " rate `dropout` passed unchanged to nn.Dropout (TODO 6)")


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernels_compute_swiglu(a['kernels'], a['device'], "FusedSwiGLU's dropout scaling"))
def test_fused_dropout_kept_scaled(target, kernels, reference, gen, device):
    out, clean = fused_dropout(target, reference, gen, device)
    expect_shape(out.shape, clean.shape, "FusedSwiGLU.forward in training mode")
    kept = out != 0
    if bool(kept.all()):
        fail(f"{fused_where(target, 'forward', 'TODO 7')} with dropout={P} dropped no outputs in training mode:"
             " apply the nn.Dropout made in __init__ (TODO 6) last")
    expect_close(out[kept], clean[kept] / (1 - P),
                 f"{fused_where(target, 'forward', 'TODO 7')}: kept outputs in training mode with dropout={P}",
                 float64_hint(out[kept], clean[kept] / (1 - P), "each kept output equals the eval-mode output"
                              " divided by (1 - p): is dropout the last step?"))
