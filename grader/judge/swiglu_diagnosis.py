"""What the fused SwiGLU kernel tests say when a kernel's values are wrong: the diagnosis (which term,
which layout, which precision), the memory maps, and the checks of a kernel's outputs."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from grader.kernels import maps as kernel_map
from grader.judge.checks import expect_rounded, expect_shape, fail, rounding_errors
from grader.judge.kernel_target import StudentKernels, drawn, session_verdict
from grader.judge.swiglu_support import (blocks_per_row_hint, BROADCAST_ROW_HINT, EXERCISE, GATE_SCALE,
                                  backward_budgets, backward_formula,
                                  close_hint, CONTIGUITY_HINT,
                                  contiguous_reads, draw, eager_forward, expect_as_accurate_as_eager,
                                  expect_kernels_launched, forward_formula,
                                  FUNCTION, KERNEL, kernel_where, roughly,
                                  rows_unwritten_hint, run_kernels, tolerance, unwritten_hint, VALUE_DTYPES)


# Each diagnosis is (cause, hint): the cause a stable id (what pytest's summary, the feedback and the item
# analysis group by), the hint the sentence the student reads.
ROUNDING = "not within the rounding budget"  # close to the formula, whatever the numbers


def diagnose_forward(got, gate, value, layout, tol) -> tuple[str, str]:
    g, v = gate.double(), value.double()
    exact = forward_formula(gate, value)
    candidates = [
        (ROUNDING, close_hint(tol), exact),
        ("sigmoid in place of silu", "the output is sigmoid(gate) * value: SiLU is gate * sigmoid(gate)",
         torch.sigmoid(g) * v),
        ("activation on value", "the output is silu(value) * gate: the activation belongs on gate, value stays"
         " linear", F.silu(v) * g),
        ("product with value missing", "the output is silu(gate) alone: multiply by value", F.silu(g)),
        ("activation missing", "the output is gate * value: the activation silu(gate) = gate * sigmoid(gate) is"
         " missing", g * v),
        ("activation on both", "the output is silu(gate) * silu(value): only gate gets the activation",
         F.silu(g) * F.silu(v)),
    ]
    if layout == "chunk":
        flat_g, flat_v = contiguous_reads(gate, value)
        candidates.append(("read as contiguous", CONTIGUITY_HINT, F.silu(flat_g) * flat_v))
    for cause, hint, candidate in candidates:
        if roughly(got, candidate):
            return cause, hint
    return "formula not recognised", "check TODO 1 step by step: out = gate * sigmoid(gate) * value, computed in COMPUTE_DTYPE"


def diagnose_backward(got_gate, got_value, grad_out, gate, value, layout, tol) -> tuple[str, str]:
    go, g, v = grad_out.double(), gate.double(), value.double()
    want_gate, want_value = backward_formula(grad_out, gate, value)
    sig = torch.sigmoid(g)
    if roughly(got_gate, want_value) and roughly(got_value, want_gate):
        return "gradients swapped", ("grad_gate and grad_value are swapped: store d loss/d gate through grad_gate_ptr"
                                     " and d loss/d value through grad_value_ptr, and return them in the order"
                                     " (grad_gate, grad_value)")
    if layout == "chunk":
        flat_g, flat_v = contiguous_reads(gate, value)
        if roughly(got_value, go * F.silu(flat_g)):
            return "read as contiguous", CONTIGUITY_HINT
    if not roughly(got_gate, want_gate):
        product_rule = "silu(g) = g * sigmoid(g) is a product"
        for cause, hint, candidate in [
            (ROUNDING, close_hint(tol), want_gate),
            ("grad_gate: the product rule's second term missing", f"grad_gate is grad_out * value * sigmoid(gate):"
             f" that treats sigmoid(gate) as a constant; {product_rule}, so the product rule gives a second term",
             go * v * sig),
            ("grad_gate: only the term of sigmoid's derivative", f"grad_gate has only the term with sigmoid's"
             f" derivative; {product_rule}, and the product rule also gives the term where g is differentiated",
             go * v * g * sig * (1 - sig)),
            ("grad_gate: sigmoid's derivative in place of silu's", f"grad_gate uses the derivative of sigmoid, not of"
             f" silu: {product_rule}", go * v * sig * (1 - sig)),
            ("grad_gate: sigmoid where 1 - sigmoid belongs", "d sigmoid(g)/dg = sigmoid(g) * (1 - sigmoid(g)): the"
             " second term has sigmoid(gate) where 1 - sigmoid(gate) belongs", go * v * sig * (1 + g * sig)),
            ("grad_gate: the factor 1 - sigmoid missing", "d sigmoid(g)/dg = sigmoid(g) * (1 - sigmoid(g)): the"
             " factor 1 - sigmoid(gate) is missing", go * v * sig * (1 + g)),
            ("grad_gate: the second term's factor sigmoid missing", "d sigmoid(g)/dg = sigmoid(g) * (1 - sigmoid(g)):"
             " the second term lacks the factor sigmoid(gate)", go * v * (sig + g * (1 - sig))),
            ("grad_gate: the factor value missing", "grad_gate lacks the factor value: out = silu(gate) * value",
             go * sig * (1 + g * (1 - sig))),
            ("grad_gate: the factor grad_out missing", "grad_gate lacks the factor grad_out: the chain rule"
             " multiplies by it", v * sig * (1 + g * (1 - sig))),
        ]:
            if roughly(got_gate, candidate):
                return cause, hint
        return "grad_gate: formula not recognised", (
            "grad_gate is wrong: d out/d gate = value * d silu(gate)/d gate; work the derivative of g * sigmoid(g)"
            " out with the product rule and d sigmoid/dg = sigmoid * (1 - sigmoid)")
    for cause, hint, candidate in [
        (ROUNDING, close_hint(tol), want_value),
        ("grad_value: sigmoid in place of silu", "grad_value is grad_out * sigmoid(gate): d out/d value is"
         " silu(gate) = gate * sigmoid(gate)", go * sig),
        ("grad_value: the factor grad_out missing", "grad_value lacks the factor grad_out: the chain rule multiplies"
         " by it", g * sig),
        ("grad_value: value in place of silu(gate)", "grad_value is grad_out * value: d out/d value is silu(gate)",
         go * v),
    ]:
        if roughly(got_value, candidate):
            return cause, hint
    return "grad_value: formula not recognised", ("grad_value is wrong: d out/d value = silu(gate) = gate *"
                                                  " sigmoid(gate), times grad_out")


def value_cause(op: str, found: list[tuple[str, str]], diagnosed) -> tuple[str, str]:
    """(cause, hint) for a kernel's wrong values: the first of ``found`` (cause, hint) with a hint, else
    the diagnosis's (``diagnose_forward``, ``diagnose_backward``); the cause named with the kernel (``op``)."""
    for cause, hint in found:
        if hint:
            return (cause if cause == "unexplained" else f"{op}: {cause}"), hint
    cause, hint = diagnosed()
    return f"{op}: {cause}", hint


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
             f" {name}'s own dtype in tl.store (one rounding, and half the memory traffic of float32)",
             cause=f"{op}: output dtype", todo="TODO 1" if op == "forward" else "TODO 2")


def check_forward(target, evidence, gate, value, layout="contiguous", device="cpu") -> None:
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
        cause, hint = value_cause("forward", [
            ("inputs overwritten", overwritten_inputs(target, evidence, "forward")),
            *unwritten_causes(target, "forward", out, exact, "out", layout != "contiguous", device),
            ("elements never written", unwritten_hint(out, exact, layout, launch(target))),
            ("unexplained", too_few_to_tell(exact))], lambda: diagnose_forward(out, gate, value, layout, tol))
    what = f"{kernel_where(target, 'forward')}: silu(gate) * value in {gate.dtype}"
    expect_rounded(out, exact, what, hint + memory_map(evidence, "forward", "out"), **tol, cause=cause)
    expect_as_accurate_as_eager(out, exact, eager_forward(gate, value), what, tol)


def unwritten_causes(target, op: str, got, exact, name: str, rows: bool, device: str) -> list[tuple[str, str]]:
    """(cause, hint) for elements a kernel never wrote, where the NaNs say why: the partial blocks of every
    row (too few blocks per row, a session's verdict on the kernel) or whole rows (stores that do not move
    to their row). Each cause is the same in every test the mistake fails."""
    unwritten = bool((got.double().isnan() & ~exact.isnan()).any())
    grid = blocks_per_row_hint(target, op, device) if unwritten and launch(target) == "trusted" else ""
    return [("blocks per row rounded down", grid), ("rows never written", rows_unwritten_hint(got, exact, name, rows))]


KERNEL_INPUTS = {"forward": ["gate_ptr", "value_ptr"], "backward": ["grad_out_ptr", "gate_ptr", "value_ptr"]}


def memory_map(evidence: dict, op: str, output: str) -> str:
    """What the kernel touched, drawn for a test that failed on ``output`` (grader/kernels/maps.py)."""
    return kernel_map.explain(evidence.get("maps"), f"{output}_ptr", KERNEL_INPUTS[op], elementwise=True)




def check_backward(target, evidence, grad_out, gate, value, layout="contiguous", grad_out_layout="contiguous",
                   device="cpu") -> None:
    expect_kernels_launched(target, evidence, "backward", todo="TODO 2")
    got_gate, got_value = evidence["grad_gate"], evidence["grad_value"]
    for name, got in (("grad_gate", got_gate), ("grad_value", got_value)):
        expect_shape(got.shape, gate.shape, f"swiglu_backward's {name} for inputs of shape {tuple(gate.shape)}",
                     "each gradient has its input's shape")
        check_dtype(target, "backward", got, gate.dtype, name)
    for name, exact, by_eager, tol in backward_budgets(grad_out, gate, value):
        got = evidence[name]
        bad = rounding_errors(got, exact, **tol)
        cause, hint = "unexplained", ""
        if bool(bad.any()):
            found = [("inputs overwritten", overwritten_inputs(target, evidence, "backward")),
                     *unwritten_causes(target, "backward", got, exact, name,
                                       (layout, grad_out_layout) != ("contiguous", "contiguous"), device),
                     ("elements never written", unwritten_hint(got, exact, layout, launch(target)))]
            cause, hint = value_cause("backward", [*found, ("unexplained", too_few_to_tell(exact))],
                                      lambda tol=tol: diagnose_backward(got_gate, got_value, grad_out, gate, value,
                                                                        layout, tol))
            if grad_out_layout == "broadcast_row" and not any(told for _, told in found):
                cause, hint = "backward: grad_out's own stride", BROADCAST_ROW_HINT
        what = f"{kernel_where(target, 'backward')}: {name} in {gate.dtype}"
        expect_rounded(got, exact, what, hint + memory_map(evidence, "backward", name), **tol, cause=cause)
        expect_as_accurate_as_eager(got, exact, by_eager, what, tol)


def kernel_verdict(kernels, op: str, device: str) -> str:
    """Why the ``op`` kernel does not compute SwiGLU where no Python of the student's runs (the
    ``kernels`` process); "" when it does. Its memory bounds apart: an access outside its tensors is
    test_memory_stays_in_bounds's and the kernel's own tests' to judge, not the premise of the tests that
    build on the kernel's values. One run, once per session, on drawn."""
    def judge() -> None:
        evidence, gate, value, grad_out = run_kernels(kernels, drawn(f"swiglu {op}"), op, (3, 37), device=device,
                                                      bounds="apart")
        if op == "forward":
            check_forward(kernels, evidence, gate, value, device=device)
        else:
            check_backward(kernels, evidence, grad_out, gate, value, device=device)

    return session_verdict((EXERCISE, id(kernels), op, device), judge, f"the {op} kernel failed")


def kernel_bounds_verdict(kernels, op: str, device: str) -> str:
    """The first access out of bounds the ``op`` kernel makes on its own, in any dtype a value test runs, under the
    stub's launch code where no Python of the student's runs; "" when it stays in bounds. Once per session, on drawn."""
    def judge() -> str:
        for dtype in VALUE_DTYPES:  # a kernel that branches on COMPUTE_DTYPE has a path per dtype
            # Rows longer than a block too: a kernel that counts too few blocks per row runs past the end there.
            for shape, layout in (((3, 37), "contiguous"), ((5, 37), "chunk"), (LONG_ROWS, "contiguous")):
                try:
                    evidence, *_ = run_kernels(kernels, drawn(f"swiglu {op} bounds"), op, shape, dtype, layout=layout,
                                               device=device, bounds="apart")
                except pytest.fail.Exception:
                    return ""  # it does not run at all: its own tests say why
                if evidence.get("out_of_bounds"):
                    return evidence["out_of_bounds"]
        return ""

    return session_verdict((EXERCISE, id(kernels), op, device, "bounds"), judge, "")


def bounds_mode(kernels, ops, device: str) -> str:
    """How a test of another property than the kernels' (the launch, the wiring, inputs left alone) treats an
    access out of bounds: "apart" where a kernel makes one on its own (its own tests judge it, this test judges
    what was computed inside), "judged" otherwise: then the access comes from the student's launch code, and
    this test fails on it, told as itself."""
    return "apart" if any(kernel_bounds_verdict(kernels, op, device) for op in ops) else "judged"


def same_as_kernel(got: torch.Tensor, launched: torch.Tensor) -> bool:
    """The same tensor, NaN where it is NaN; a GPU may round a differently compiled launch differently."""
    if got.shape != launched.shape or got.dtype != launched.dtype:
        return False
    if not torch.equal(got.isnan(), launched.isnan()):
        return False
    finite = ~got.isnan()
    return not bool(rounding_errors(got[finite], launched[finite], roundings=1.0).any())


LONG_ROWS = (2, 1100)  # rows longer than the largest block (1024): two programs per row, the second masked


def launch_verdict(target, kernels, op: str, device: str) -> str:
    """Why the student's ``op`` function does not return what its kernel computes under the stub's launch
    code, on rows longer than one block (an undersized grid shows there); "" when it does. Once per session."""
    def judge() -> str:
        data = drawn(f"swiglu launch {op}")
        state = data.get_state()
        names = ("out",) if op == "forward" else ("grad_gate", "grad_value")
        bounds = bounds_mode(kernels, (op,), device)
        evidence, *_ = run_kernels(target, data, op, LONG_ROWS, device=device, bounds=bounds)
        data.set_state(state)
        launched, *_ = run_kernels(kernels, data, op, LONG_ROWS, device=device, bounds=bounds)
        same = all(same_as_kernel(evidence[n], launched[n]) for n in names)
        return "" if same else (f"{FUNCTION[op]} does not return what its kernel computes on rows"
                                f" of {LONG_ROWS[1]} columns, more than one block each")

    return session_verdict((EXERCISE, id(target), op, device, "launch"), judge, f"{FUNCTION[op]} failed")


def expect_swiglu_works(target, kernels, device: str, what: str) -> None:
    """For values of the student's own process (autograd, the block): the kernels compute SwiGLU on their
    own, and the student's functions launch them so that every element is theirs."""
    expect_kernels_compute_swiglu(kernels, device, what)
    for op in ("forward", "backward"):
        verdict = launch_verdict(target, kernels, op, device)
        if verdict:
            fail(f"{what}: this counts once {FUNCTION[op]} returns what its kernel computes"
                 f" (test_kernels_launched[{op}-long-rows] passes); it does not yet: {verdict}",
                 waits_on=f"test_kernels_launched[{op}-long-rows]", cause="launch")


def writes_verdict(kernels, op: str, device: str) -> str:
    """"" when the ``op`` kernel, launched where no Python of the student's runs, writes every element of its
    results (right or wrong), and what it writes changes with its inputs (a table of constants, the same on
    any layout, shows nothing), else why not. Two runs, once per session, on drawn."""
    def judge() -> str:
        evidence, *_ = run_kernels(kernels, drawn(f"swiglu {op} writes"), op, (3, 37), device=device,
                                   bounds="apart")
        other, *_ = run_kernels(kernels, drawn(f"swiglu {op} writes, other inputs"), op, (3, 37),
                                device=device, bounds="apart")
        expect_kernels_launched(kernels, evidence, op, todo=KERNEL[op][1])
        names = ("out",) if op == "forward" else ("grad_gate", "grad_value")
        unwritten = [name for name in names if bool(evidence[name].isnan().any())]
        fixed = [name for name in names if torch.equal(evidence[name], other[name])]
        return (f"{KERNEL[op][0]} leaves elements of {' and '.join(unwritten)} unwritten" if unwritten else
                f"{KERNEL[op][0]} writes the same {' and '.join(fixed)} whatever its inputs" if fixed else "")

    return session_verdict((EXERCISE, id(kernels), op, device, "writes"), judge, f"the {op} kernel failed")


def expect_float64_arithmetic(evidence: dict, wants: dict, op: str) -> None:
    """A float64 result off by about float32's rounding (and no more) was computed in float32, in whole or in
    part (a gate or a sigmoid cast to tl.float32): named as such, whichever part it was."""
    for name, want in wants.items():
        got = evidence.get(name)
        if not isinstance(got, torch.Tensor) or got.dtype != torch.float64 or got.shape != want.shape or not got.numel():
            continue  # shape, dtype and the rest: check_forward / check_backward say what is wrong
        error = float((got - want).abs().max() / want.abs().max().clamp_min(1e-300))
        if 1e-12 < error < 1e-5:
            fail(f"{KERNEL[op][0]} ({KERNEL[op][1]}): {name} for float64 inputs is off by about float32 precision (largest error"
                 f" {error:.1e} of the largest value): the kernel computes float64 in float32, in whole or in part."
                 " Convert everything you load with .to(COMPUTE_DTYPE), which is float64 for float64 tensors, never"
                 " to a fixed tl.float32, and call tl.sigmoid and tl.exp on those values",
                 cause="kernels compute float64 in float32", todo=KERNEL[op][1])


def expect_kernel_computes(kernels, op: str, device: str, what: str) -> None:
    """A property of the ``op`` kernel that any kernel which writes its results can show (bounds, inputs
    untouched, empty input, other layouts) counts once it does: a kernel that writes nothing has every one
    of them. Whether what it writes is right is test_{op}_float32's to judge, not this test's premise."""
    verdict = writes_verdict(kernels, op, device)
    if verdict:
        fail(f"{what}, but this counts once {KERNEL[op][0]} runs and writes its results ({KERNEL[op][1]};"
             f" test_{op}_float32 says what is wrong); it does not yet: {verdict}", waits_on=f"test_{op}_float32",
             todo=KERNEL[op][1])


def expect_told_on_more_elements(kernels, op: str, device: str, shape: tuple) -> None:
    """A float32 test on a handful of elements, failing, where the kernel fails on more too: the larger
    shape's test tells the cause, and this one waits on it rather than add an unexplained second bullet."""
    if math.prod(shape) < 16 and kernel_verdict(kernels, op, device):
        fail(f"{kernel_where(kernels, op)} on {math.prod(shape)} element(s): wrong too, but with so few the cause"
             f" cannot be told; this counts once test_{op}_float32[2d] passes, which names it",
             waits_on=f"test_{op}_float32[2d]", todo=KERNEL[op][1])


def expect_kernels_compute_swiglu(kernels, device: str, what: str) -> None:
    """A value the student's own process computed counts only once the kernels compute SwiGLU where no
    Python of the student's runs (the ``kernels`` process): in the student's process, any code of the
    file could make a launch "compute" whatever it likes."""
    op = "forward" if kernel_verdict(kernels, "forward", device) else "backward"
    verdict = kernel_verdict(kernels, op, device)
    for other in ("forward", "backward") if not verdict else ():  # and each row's every block (long rows)
        op, verdict = other, blocks_per_row_hint(kernels, other, device)
        if verdict:
            break
    if verdict:
        fail(f"{what}: this counts once your kernels compute SwiGLU on their own"
             f" (test_forward_float32 and test_backward_float32 pass); they do not yet: {verdict}",
             waits_on=f"test_{op}_float32", todo=KERNEL[op][1])


def computes_float64_in_float32(kernels, device: str) -> bool:
    """Whether the kernels, given float64 tensors, compute to float32's precision only, whatever part is in
    float32 (every value through tl.float32, or only the gate's sigmoid): their float64 results are off the
    exact formula by float32 roundings (relative errors between 1e-12 and 1e-5), not by float64's and not
    by a wrong formula's."""
    gate = draw(drawn("swiglu float64"), (3, 37), torch.float64, GATE_SCALE)
    value = draw(drawn("swiglu float64 value"), (3, 37), torch.float64)
    grad_out = draw(drawn("swiglu float64 grad_out"), (3, 37), torch.float64)
    results = []
    for op in ("forward", "backward"):
        evidence = kernels.evidence(EXERCISE, "swiglu_kernels", op=op, layout="contiguous", gate=gate, value=value,
                                    grad_out=grad_out if op == "backward" else None, grad_out_layout="contiguous",
                                    device=device, bounds="apart")
        names = ("out",) if op == "forward" else ("grad_gate", "grad_value")
        wants = (forward_formula(gate, value),) if op == "forward" else backward_formula(grad_out, gate, value)
        for name, want in zip(names, wants):
            got = evidence.get(name)
            if not isinstance(got, torch.Tensor) or got.dtype != torch.float64 or got.shape != want.shape:
                return False
            results.append(((got - want).abs() / want.abs().clamp_min(1e-3)).max().item())
    worst = max(results)
    return 1e-12 < worst < 1e-5
