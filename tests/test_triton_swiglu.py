"""Graded tests for exercises/triton_swiglu.py, the kernels (TODO 1-2): forward and backward in float32,
in 16 bits and in other layouts, empty inputs, what the launch functions launch, memory bounds, inputs
left as they are. The autograd wiring (TODO 3-5) and the FusedSwiGLU block (TODO 6-7) have suites of
their own beside this one; what the three share (tolerances and why) is ``grader/judge/swiglu_support.py``.

Run: ``pytest -m swiglu`` (the whole task, all three files), or this file alone. On a CUDA GPU the
kernels run natively; without one they run in Triton's interpreter, which the suite switches on by
itself (``grader/probes/``). Where Triton cannot be installed (macOS, Windows) the module is skipped.
"""

from __future__ import annotations


import pytest

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused SwiGLU exercise"
                     " cannot run on macOS or Windows (the other suites do)")

import torch  # noqa: E402

from grader.kernels import maps as kernel_map  # noqa: E402
from grader.probes import stand_in_backward, stand_in_forward  # noqa: E402
from grader.judge.checks import describe_mismatch, expect_shape, fail  # noqa: E402
from grader.judge.kernel_target import rests_on  # noqa: E402
from grader.judge.seam import error_fields, format_error  # noqa: E402
from grader.judge.stand_in_log import BACKWARD, FORWARD, served_on, shown  # noqa: E402
from grader.judge.swiglu_diagnosis import (bounds_mode, check_backward, check_dtype, check_forward,  # noqa: E402
                                    expect_float64_arithmetic,
                                    expect_kernel_computes,
                                    expect_told_on_more_elements, kernel_verdict, KERNEL_INPUTS,
                                    LONG_ROWS, memory_map, same_as_kernel)
from grader.judge.swiglu_support import (backward_formula, blocks_per_row_hint, draw, EMPTY_SHAPES, EXERCISE,  # noqa: E402
                                         expect_kernels_launched, expect_stand_in_followed, expect_whole_rows_run,
                                         follows, forward_formula,
                                         FUNCTION, GATE_SCALE, HALF_SHAPE, KERNEL, kernel_where, LAYOUT_SHAPES,
                                         run_kernels, SHAPES, unwritten_hint, VALUE_DTYPES)

pytestmark = pytest.mark.swiglu




# ------------------------------------------------------------------------------ the forward kernel

@pytest.mark.points(5)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@rests_on(lambda a: expect_told_on_more_elements(a["kernels"], "forward", a["device"], a["shape"]), counts_once=False)
def test_forward_float32(kernels, gen, shape, device):
    evidence, gate, value, _ = run_kernels(kernels, gen, "forward", shape, device=device)
    check_forward(kernels, evidence, gate, value, device=device)


@pytest.mark.points(3)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
def test_forward_16bit(kernels, gen, dtype, device):
    evidence, gate, value, _ = run_kernels(kernels, gen, "forward", HALF_SHAPE, dtype=dtype, device=device)
    check_forward(kernels, evidence, gate, value, device=device)


# The float64 tests judge float64 arithmetic: an access out of bounds is the value and bounds tests' to charge
# (its lanes are left out, the values inside judged: bounds "apart").
@pytest.mark.points(5)
def test_forward_float64(kernels, gen, device):
    evidence, gate, value, _ = run_kernels(kernels, gen, "forward", HALF_SHAPE, dtype=torch.float64, device=device,
                                           bounds="apart")
    expect_float64_arithmetic(evidence, {"out": forward_formula(gate, value)}, "forward")
    check_forward(kernels, evidence, gate, value, device=device)


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", LAYOUT_SHAPES.keys())
def test_forward_noncontiguous(kernels, gen, layout, device):
    evidence, gate, value, _ = run_kernels(kernels, gen, "forward", LAYOUT_SHAPES[layout], layout=layout,
                                           device=device)
    judge_layout(kernels, "forward", evidence, gate, value, None, layout, "contiguous", device,
                 lambda: check_forward(kernels, evidence, gate, value, layout, device=device))


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_computes(a['kernels'], "forward", a['device'], "swiglu_forward handles empty inputs"))
def test_forward_empty(target, kernels, gen, device):
    for shape in EMPTY_SHAPES:
        evidence, gate, *_ = run_kernels(target, gen, "forward", shape, device=device)
        expect_shape(evidence["out"].shape, shape, f"swiglu_forward on empty inputs of shape {shape}",
                     "return an empty tensor of the inputs' shape (a grid of 0 programs cannot be launched)")
        check_dtype(target, "forward", evidence["out"], gate.dtype, "out")


def judge_layout(kernels, op: str, evidence: dict, gate, value, grad_out, layout: str, grad_out_layout: str,
                 device: str, check) -> None:
    """A layout test judges the layout. Where the kernel computes SwiGLU (test_{op}_float32 passes), against
    the formula, whose messages name layout mistakes; where it does not yet, against the kernel's own result
    on the same numbers laid out contiguously: the same result is a layout handled right, whatever the
    kernel computes. Only a kernel that writes nothing, or nothing finite, leaves the layout unseen."""
    if not kernel_verdict(kernels, op, device):
        check()
        return
    names = ("out",) if op == "forward" else ("grad_gate", "grad_value")
    expect_kernel_computes(kernels, op, device, f"{FUNCTION[op]} on {layout} inputs is judged against the"
                           " kernel's own result on contiguous ones")
    own = kernels.evidence(EXERCISE, "swiglu_kernels", op=op, gate=gate, value=value, grad_out=grad_out,
                           layout="contiguous", grad_out_layout="contiguous", device=device)
    if "error" in own:
        fail(f"{format_error(own['error'])} (the same numbers laid out contiguously)", **error_fields(own["error"]))
    for name in names:
        if not same_as_kernel(evidence[name], own[name]):
            fail(f"{kernel_where(kernels, op)} on {layout} inputs (grad_out {grad_out_layout}): its {name} differs from"
                 f" its own on the same numbers laid out contiguously [{describe_mismatch(evidence[name], own[name])}]:"
                 " address every tensor with its own row stride (X_ptr + row * X_row_stride + cols), never another's"
                 f" or the row length{memory_map(evidence, op, name)}", cause="layout", todo=KERNEL[op][1])


# ----------------------------------------------------------------------------- the backward kernel

@pytest.mark.points(5)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@rests_on(lambda a: expect_told_on_more_elements(a["kernels"], "backward", a["device"], a["shape"]), counts_once=False)
def test_backward_float32(kernels, gen, shape, device):
    evidence, gate, value, grad_out = run_kernels(kernels, gen, "backward", shape, device=device)
    check_backward(kernels, evidence, grad_out, gate, value, device=device)


@pytest.mark.points(3)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
def test_backward_16bit(kernels, gen, dtype, device):
    evidence, gate, value, grad_out = run_kernels(kernels, gen, "backward", HALF_SHAPE, dtype=dtype, device=device)
    check_backward(kernels, evidence, grad_out, gate, value, device=device)


@pytest.mark.points(5)
def test_backward_float64(kernels, gen, device):
    evidence, gate, value, grad_out = run_kernels(kernels, gen, "backward", HALF_SHAPE, dtype=torch.float64,
                                                  device=device, bounds="apart")
    expect_float64_arithmetic(evidence, dict(zip(("grad_gate", "grad_value"), backward_formula(grad_out, gate, value))),
                              "backward")
    check_backward(kernels, evidence, grad_out, gate, value, device=device)


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", [*LAYOUT_SHAPES.keys(), "grad_out_expanded", "grad_out_broadcast_row"])
def test_backward_noncontiguous(kernels, gen, layout, device):
    shape = LAYOUT_SHAPES.get(layout, (5, 7, 9))
    grad_out_layout = layout.removeprefix("grad_out_") if layout.startswith("grad_out_") else layout
    input_layout = "contiguous" if layout.startswith("grad_out_") else layout
    if layout == "chunk":
        grad_out_layout = "contiguous"  # grad_out is the gradient of out, which is contiguous
    evidence, gate, value, grad_out = run_kernels(kernels, gen, "backward", shape, layout=input_layout,
                                                  grad_out_layout=grad_out_layout, device=device)
    judge_layout(kernels, "backward", evidence, gate, value, grad_out, input_layout, grad_out_layout, device,
                 lambda: check_backward(kernels, evidence, grad_out, gate, value, input_layout, grad_out_layout,
                                        device=device))


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
                "strided": ((9, 31), torch.float32, "strided"),
                "long-rows": (LONG_ROWS, torch.float32, "contiguous")}  # several programs per row: the grid shows


@pytest.mark.points(1)
@pytest.mark.parametrize("case", LAUNCH_CASES.keys())
@pytest.mark.parametrize("op", ["forward", "backward"])
def test_kernels_launched(target, kernels, gen, op, case, device):
    shape, dtype, layout = LAUNCH_CASES[case]
    grad_out_layout = "contiguous" if layout == "chunk" else layout
    drawn = gen.get_state()
    # The launch is judged here; an access out of bounds that the kernel makes on its own, by its own tests.
    bounds = bounds_mode(kernels, (op,), device)
    if case == "long-rows" and blocks_per_row_hint(kernels, op, device):
        # The kernel leaves each row's partial block to programs that store past its tensors' ends, into whatever
        # memory lies there (another output's, in one process and not in the other): nothing to judge a launch by.
        fail(f"{FUNCTION[op]} on rows longer than a block is judged against what its kernel computes there; this"
             f" counts once {KERNEL[op][0]} computes every block of a row (test_{op}_float32 says what is wrong)",
             waits_on=f"test_{op}_float32", todo=KERNEL[op][1])
    evidence, gate, *_ = run_kernels(target, gen, op, shape, dtype, layout, grad_out_layout, device, bounds=bounds)
    names = ("out",) if op == "forward" else ("grad_gate", "grad_value")
    for name in names:
        expect_shape(evidence[name].shape, gate.shape, f"{FUNCTION[op]}'s {name} for {layout} inputs of shape {shape}",
                     "each result has the inputs' shape")
        check_dtype(target, op, evidence[name], dtype, name)
    # Does the result come from the kernel? Run it again with the kernel replaced by a stand-in.
    gen.set_state(drawn)
    swapped, gate, value, grad_out = run_kernels(target, gen, op, shape, dtype, layout, grad_out_layout, device,
                                                 stand_ins=True, bounds=bounds)
    kernel = STAND_IN_KERNEL[op]
    if op == "forward":
        wants = [(stand_in_forward(gate, value, c),) for c in served_on(swapped, kernel, gate=gate, value=value)]
    else:
        wants = [stand_in_backward(grad_out, gate, value, c)
                 for c in served_on(swapped, kernel, grad_out=grad_out, gate=gate, value=value)]
    followed = any(all(follows(swapped[n], w) for n, w in zip(names, want)) for want in wants)
    coefficients = shown(swapped, kernel)
    # Unchanged by the swap: not the kernel's result. Changed, but not to the stand-in's values: the
    # launch reads or writes the wrong places, which the comparison below explains; then judged here.
    unchanged = all(torch.equal(swapped[n].isnan(), evidence[n].isnan())
                    and torch.equal(swapped[n].nan_to_num(), evidence[n].nan_to_num()) for n in names)
    if unchanged:
        expect_stand_in_followed(target, False, op, FUNCTION[op], coefficients, KERNEL[op][1],
                                 evidence.get("foreign_kernels"))
    gen.set_state(drawn)
    launched, *_ = run_kernels(kernels, gen, op, shape, dtype, layout, grad_out_layout, device, bounds=bounds)
    for name in names:
        got, want = evidence[name], launched[name]
        if same_as_kernel(got, want):
            continue
        what = (f"{FUNCTION[op]} returned {name}, which is not what {kernel_where(target, op)} computes when the"
                f" stub's launch code runs it on the same {layout} {dtype} inputs")
        unwritten = unwritten_hint(got, want, layout)
        if unwritten:
            fail(f"{what}: {unwritten}{memory_map(evidence, op, name)}", cause="launch")
        left = int((want.isnan() & ~got.isnan()).sum())
        if left:
            fail(f"{what} (there the kernel leaves {left} of {want.numel()} elements unwritten): the values must be"
                 " the kernel's, computed by the kernel, not by PyTorch")
        fail(f"{what} [{describe_mismatch(got, want)}]: return the tensor the kernel wrote, and launch it as the"
             " stub's launch code does" + memory_map(evidence, op, name), cause="launch")
    expect_stand_in_followed(target, followed, op, FUNCTION[op], coefficients, KERNEL[op][1],
                             evidence.get("foreign_kernels"))


STAND_IN_KERNEL = {"forward": FORWARD, "backward": BACKWARD}

# LONG_ROWS: more than one block per row, where a kernel that counts too few blocks per row runs past the end.
BOUNDS_CASES = [((1000,), "contiguous"), ((1,), "contiguous"), ((5, 37), "chunk"), (LONG_ROWS, "contiguous")]


@pytest.mark.points(2)
@pytest.mark.parametrize("op", ["forward", "backward"])
@rests_on(lambda a: expect_kernel_computes(a['kernels'], a['op'], a['device'],
                                           f"{kernel_where(a['kernels'], a['op'])} stays in bounds"))
def test_memory_stays_in_bounds(kernels, gen, op, device):
    # Sizes just short of a block, a single element, and rows of a chunked tensor: the last block of
    # every row runs past its end. The kernels run under the interpreter here (in a separate Python
    # on a GPU machine), where every tl.load and tl.store is checked before it happens.
    # In every dtype a value test runs: the float64 value tests leave accesses out of bounds to this test, and a
    # kernel can branch on COMPUTE_DTYPE, so each dtype is a path of its own.
    cases = [(shape, layout, dtype) for dtype in VALUE_DTYPES for shape, layout in BOUNDS_CASES]
    inputs = []
    for shape, layout, dtype in cases:
        gate, value = draw(gen, shape, dtype, GATE_SCALE), draw(gen, shape, dtype)
        grad_out = draw(gen, shape, dtype) if op == "backward" else None
        inputs.append({"op": op, "gate": gate, "value": value, "grad_out": grad_out, "layout": layout})
    results = kernels.probe(EXERCISE, "swiglu_bounds", cases=inputs)["results"]
    for (shape, layout, dtype), evidence in zip(cases, results):
        where = f"{str(dtype).removeprefix('torch.')} inputs of shape {shape}, {layout}"
        if "error" in evidence:
            error = evidence["error"]
            if dtype != torch.float32 and error.get("type") != "OutOfBoundsAccess":
                continue  # this dtype's path never ran to an access: its value tests say why
            expect_whole_rows_run(kernels, op, device, error)
            fail(f"{format_error(error)} ({where}){kernel_map.for_error(error)}", **error_fields(error))
        expect_kernels_launched(kernels, evidence, op, todo=KERNEL[op][1])
        if evidence["guards_touched"]:
            fail(f"{kernel_where(kernels, op)} wrote next to its inputs ({', '.join(evidence['guards_touched'])},"
                 f" {where}): the memory around them changed; missing mask on tl.store, or a"
                 f" store through the wrong pointer")


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", ["contiguous", "chunk"])
@pytest.mark.parametrize("op", ["forward", "backward"])
@rests_on(lambda a: expect_kernel_computes(a['kernels'], a['op'], a['device'],
                                           f"{FUNCTION[a['op']]} leaves its inputs unmodified"))
def test_inputs_unmodified(target, kernels, gen, op, layout, device):
    evidence, *_ = run_kernels(target, gen, op, (4, 6, 45), layout=layout, device=device,
                               bounds=bounds_mode(kernels, (op,), device))
    if evidence["inputs_changed"]:
        fail(f"{FUNCTION[op]} changed its input(s) {', '.join(evidence['inputs_changed'])} in place ({layout}"
             f" inputs): allocate new tensors for the results and store only through the output pointer(s)"
             f" ({kernel_where(target, op)}). The caller still owns its inputs: autograd saved gate and value"
             f" for the backward, and a second backward (retain_graph=True) would read the overwritten values"
             + kernel_map.inputs_stored(evidence.get("maps"), KERNEL_INPUTS[op]), cause="inputs changed")
    if evidence["guards_touched"]:
        fail(f"{kernel_where(target, op)} wrote next to its inputs ({', '.join(evidence['guards_touched'])}):"
             " missing mask on tl.store, or a store through the wrong pointer")
