"""What the fused SwiGLU suites share: inputs, the exact formulas, tolerances, running the kernels,
the stand-in kernels' coefficients, and the premise the autograd and block tests rest on.

The suites (``test_triton_swiglu.py``: the kernels; ``test_triton_swiglu_autograd.py``: the wiring;
``test_triton_swiglu_block.py``: FusedSwiGLU) judge two targets, so that the points for a working
kernel come from the kernel alone:

* ``kernels``: the student's ``_swiglu_forward_kernel`` and ``_swiglu_backward_kernel``, read out of the
  file without running it, checked to be Triton language with the stub's parameters, and launched by
  the reference's launch code in a process of their own (``grader/kernels/source.py``).
* ``target``: the student's file as it is (the launch, empty, in-place, autograd and block tests).

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

import re


import pytest
import torch
import torch.nn.functional as F

from grader.kernels import maps as kernel_map
from grader.kernels.triton_errors import triton_error
from grader.judge.checks import Block, fail, is_close, rounding_errors, ulp
from grader.judge.mlp_blocks import BLOCKS
from grader.judge.kernel_target import StudentKernels, drawn, session_verdict
from grader.judge.seam import error_fields, format_error

EXERCISE = "triton_swiglu"
GATE_SCALE = 3.0  # gate spreads over about [-12, 12]: both tails of the sigmoid and the silu minimum
FLOAT32_RTOL = 2.0**-18
CANCELLATION = 2.0**-20  # times the largest term that cancels: absolute slack where the derivative crosses 0
EAGER_SLACK = 1.1  # 16 bits: up to this times eager's worst error (margins checked over 50 seeds by the self-checks)
EAGER_MEAN_SLACK = 1.08  # and up to this times eager's mean error

SHAPES = {"0d": (), "1d": (3001,), "2d": (37, 129), "3d": (3, 17, 65), "4d": (2, 3, 5, 33)}  # no multiple of a block
HALF_SHAPE = (61, 67)  # 4087 elements: enough that a kernel computing in 16 bits shows
LAYOUT_SHAPES = {"chunk": (4, 6, 45), "transposed": (45, 37), "strided": (6, 45)}
EMPTY_SHAPES = [(0,), (3, 0, 5)]
# The dtypes the value tests run: each is its own path through a kernel (COMPUTE_DTYPE can branch), so the
# bounds test and the premise of the tests built on the kernels run every one of them, not float32 alone.
VALUE_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.float64)

FUSED = Block(
    "FusedSwiGLU", EXERCISE, "TODO 6", "TODO 7", BLOCKS["GLU"].layers, BLOCKS["GLU"].count_formula,
    BLOCKS["GLU"].count, output_layer=BLOCKS["GLU"].output_layer,
)
KERNEL = {"forward": ("_swiglu_forward_kernel", "TODO 1"), "backward": ("_swiglu_backward_kernel", "TODO 2")}
FUNCTION = {"forward": "swiglu_forward", "backward": "swiglu_backward"}


# ------------------------------------------------------------------------------------ helpers

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


def backward_scales(grad_out, gate, value) -> tuple[torch.Tensor, torch.Tensor]:
    """The size of what each gradient is summed from: grad_gate's 1 + gate * (1 - sigmoid(gate)) cancels to 0
    near gate = -1.28, where its rounding error is that of the terms, not of the (tiny) result. Without it
    a tensor of one element (or a few, all near there) would be judged against its own tiny value."""
    grad_out, gate, value = grad_out.double(), gate.double(), value.double()
    sig = torch.sigmoid(gate)
    return (grad_out * value * sig).abs() * (1 + (gate * (1 - sig)).abs()), (grad_out * gate * sig).abs()


def backward_budgets(grad_out, gate, value) -> list[tuple[str, torch.Tensor, torch.Tensor, dict]]:
    """(name, exact, eager, tolerance) for grad_gate and grad_value: how the kernel's tests and the autograd
    tests alike judge a backward's gradients."""
    exact, eager, scales = (backward_formula(grad_out, gate, value), eager_backward(grad_out, gate, value),
                            backward_scales(grad_out, gate, value))
    return [(name, exact[i], eager[i], tolerance(gate.dtype, exact[i], eager[i], scales[i]))
            for i, name in enumerate(("grad_gate", "grad_value"))]


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


def tolerance(dtype: torch.dtype, exact: torch.Tensor, eager: torch.Tensor | None = None,
              scale: torch.Tensor | None = None) -> dict:
    """The rounding budget for ``dtype`` (see the module docstring for why); ``eager``: PyTorch eager's
    result on the same inputs, which sets the budget in 16 bits; ``scale``: the size of the terms the
    result is summed from, where they can cancel (``backward_scales``), else the result's own."""
    size = exact if scale is None else scale
    atol = CANCELLATION * float(size.abs().max()) if size.numel() else 0.0
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
        expect_whole_rows_run(target, op, device, evidence["error"])
        fail(format_error(evidence["error"]) + kernel_error_hint(evidence["error"], grad_out_layout)
             + kernel_map.for_error(evidence["error"]), **error_fields(evidence["error"]))
    return evidence, gate, value, grad_out


# ------------------------------------------------------------------- the kernel's map from programs to blocks

GRID_ROWS = (3, 1100)  # halves of h.chunk: rows of 1100 columns, a whole block of 1024 and a partial one each


def blocks_per_row_hint(kernels, op: str, device: str) -> str:
    """Where the ``op`` kernel, under the stub's launch code (whose grid is right), leaves the last, partial
    block of every row unwritten and writes all the rest, the hint that names it: the kernel counts too few
    blocks per row (n_cols // BLOCK_SIZE rounds down), so the programs meant for the partial blocks take
    blocks of rows past the end (out of bounds) instead. Told from where the NaNs are, whatever the kernel
    computes; "" otherwise. Only the kernel tests' target (trusted launch code) is asked. Once per session."""
    if not isinstance(getattr(kernels, "backend", None), StudentKernels):
        return ""

    def judge() -> str:
        try:
            evidence, *_ = run_kernels(kernels, drawn(f"swiglu {op} blocks per row"), op, GRID_ROWS, layout="chunk",
                                       device=device, bounds="apart")
        except pytest.fail.Exception:
            return ""  # it does not run: its own tests say why
        nans = [evidence[name].isnan() for name in (("out",) if op == "forward" else ("grad_gate", "grad_value"))]
        # The stray programs' stores can land in another output's memory (inside the launch's tensors, so not out
        # of bounds): one output with its partial blocks unwritten, and none with a whole block unwritten, tell it.
        start = max(tail_start(nan) for nan in nans)
        if not 0 < start < GRID_ROWS[1] or any(bool(nan[:, :start].any()) for nan in nans):
            return ""
        return (f"in every row the last, partial block (from column {start} on, rows of {GRID_ROWS[1]}"
                " columns) is never written, and every whole block is: the kernel counts too few blocks per row."
                " blocks_per_row = n_cols // BLOCK_SIZE rounds down, so the programs meant for the partial blocks"
                " take blocks of rows past the last one; count tl.cdiv(n_cols, BLOCK_SIZE) blocks per row, as the"
                " launch code's grid does, and mask the partial block with cols < n_cols")

    return session_verdict((EXERCISE, id(kernels), op, device, "blocks per row"), judge, "")


def tail_start(nan: torch.Tensor) -> int:
    """The column from which every row of ``nan`` is NaN to its end with none before, the same in every row;
    -1 where the NaNs are not that."""
    rows = nan.reshape(-1, nan.shape[-1])
    starts = {int(r.nonzero()[0]) if bool(r.any()) else -1 for r in rows}
    start = next(iter(starts))
    return start if len(starts) == 1 and start >= 0 and bool(rows[:, start:].all()) else -1


def expect_whole_rows_run(target, op: str, device: str, error: dict) -> None:
    """An access out of bounds from a kernel that counts too few blocks per row is told as that, one cause
    with the same kernel's unwritten blocks (``blocks_per_row_hint``), not as a missing mask."""
    if error.get("type") != "OutOfBoundsAccess":
        return
    hint = blocks_per_row_hint(target, op, device)
    if hint:
        fail(f"{kernel_where(target, op)}: {hint} [{format_error(error)}]{kernel_map.for_error(error)}",
             cause=f"{op}: blocks per row rounded down", todo=KERNEL[op][1])


BROADCAST_ROW_HINT = ("grad_out is one row broadcast over the others (grad_out_row_stride is 0, as autograd passes"
                      " when the loss sums a bias-like row): address grad_out with its own stride,"
                      " grad_out_ptr + row * grad_out_row_stride + cols, not with another tensor's")


def kernel_error_hint(error: dict, grad_out_layout: str = "contiguous") -> str:
    """What to do about an error a kernel raised under the interpreter, where the words say it."""
    if grad_out_layout == "broadcast_row" and error.get("pointer") == "grad_out_ptr":
        return f". Here {BROADCAST_ROW_HINT}"
    if triton_error(error.get("message", "")) == "math on 16-bit values":
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
         f"{f' ({todo})' if todo else ''}", cause="no kernel launched", todo=todo)


def follows(got, want: torch.Tensor) -> bool:
    """``got`` is what the stand-in wrote (computed in float64, rounded once to ``got``'s dtype)."""
    return (isinstance(got, torch.Tensor) and got.shape == want.shape
            and not bool(rounding_errors(got, want.to(got.dtype), roundings=1.0).any()))


def stand_in_text(op: str, coefficients: list[float] | None) -> str:
    """The stand-in a message names: ``coefficients``, those of its first launch (None: never launched)."""
    kernel = KERNEL[op][0]
    if coefficients is None:
        return f"{kernel} replaced by a stand-in (never launched)"
    if op == "forward":
        a, b = coefficients
        return f"{kernel} replaced by a stand-in that writes {a:.3f} * gate {b:+.3f} * value"
    c, d = coefficients
    return (f"{kernel} replaced by a stand-in that writes grad_gate = {c:.3f} * grad_out + gate and"
            f" grad_value = {d:.3f} * grad_out + value")


def expect_stand_in_followed(target, ok: bool, op: str, stage: str, coefficients: list[float] | None, todo: str,
                             foreign: list | None = None) -> None:
    """The verdict on "does the work with the exercise's kernels": the grader replaced the kernel and the
    result is what a launch on the call's inputs was served (``grader/judge/stand_in_log.py``)."""
    if ok:
        return
    also = f" It launched only kernels defined elsewhere: {', '.join(foreign)}." if foreign else ""
    fail(f"{stage} does not get its result from {KERNEL[op][0]}: with {stand_in_text(op, coefficients)}, it"
         f" returned something other than what a launch on its inputs was served. The work must be done by the"
         f" Triton kernels of {target.where(EXERCISE)}, launched through {FUNCTION[op]} ({todo}), not by PyTorch"
         f" operations.{also}",
         cause=f"{op}: result not from the kernel", todo=next(iter(re.findall(r"TODO \d+", todo)), ""))


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
    return nan_pattern(nan, layout, launch)


def rows_unwritten_hint(got: torch.Tensor, exact: torch.Tensor, name: str, rows: bool) -> str:
    """Where whole rows of ``got`` are NaN and the others have none: those rows were never written (a store
    that does not move to its program's row puts every row's results into the same one). ``rows``: the
    kernel sees the tensors as rows (some tensor is not contiguous); contiguous ones are one row."""
    nan = got.double().isnan() & ~exact.isnan()
    if not rows or got.dim() < 2 or not bool(nan.any()):
        return ""
    per_row = nan.reshape(-1, nan.shape[-1])
    never, whole = per_row.all(dim=1), ~per_row.any(dim=1)
    if not bool((never | whole).all()) or not bool(whole.any()):
        return ""
    written = [int(r) for r in whole.nonzero().reshape(-1)]
    told = ", ".join(map(str, written[:3])) + (", ..." if len(written) > 3 else "")
    return (f"{int(never.sum())} of the {len(per_row)} rows of {name} were never written (all NaN, what fresh memory"
            f" holds in these tests) and row(s) {told} were: each program must store into its own row,"
            f" {name}_ptr + row * {name}_row_stride + cols, as it loads from its own rows; a store that leaves out"
            " row * the output's row stride (or an output pointer never advanced to the row) writes every row's"
            " results over the same row")


KERNEL_COVERS_ITS_BLOCK = ("The launch code starts n_rows * cdiv(n_cols, BLOCK_SIZE) programs; program pid must"
                           " store the block of row pid // cdiv(n_cols, BLOCK_SIZE) that starts at column"
                           " (pid % cdiv(n_cols, BLOCK_SIZE)) * BLOCK_SIZE, masked with cols < n_cols")


def nan_pattern(nan: torch.Tensor, layout: str, launch: str = "yours") -> str:
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
