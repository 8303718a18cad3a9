"""Graded tests for exercises/mlp_cost.py: parameter counts (TODO 1-2), forward FLOPs (TODO 3-4),
backward FLOPs (TODO 5-6) and the GLU width that matches an MLP's parameters (TODO 7).

Run: ``pytest tests/test_cost.py`` (this task alone: ``-m cost``). The id in brackets says which block.

Where the expected numbers come from: the exercise's reference ``MLP`` and ``GLU``, built on the meta
device (any size costs nothing), through the ``block_cost`` probe: their parameters counted with
``p.numel()``, and their matrix-product FLOPs counted by ``torch.utils.flop_counter.FlopCounterMode``
in one forward pass and in the backward pass to the input and every parameter. That counter sees
matrix products only; the bias adds, the activation and the gate product are added by the rules the
exercise's docstring states (``elementwise_flops``), which no counter checks.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from grader.judge.checks import fail
from grader.judge.seam import error_fields, format_error

pytestmark = pytest.mark.cost

COST = "mlp_cost"
BLOCKS = [pytest.param("MLP", id="MLP"), pytest.param("GLU", id="GLU")]
TODO = {("MLP", "param_count"): "TODO 1", ("GLU", "param_count"): "TODO 2",
        ("MLP", "forward_flops"): "TODO 3", ("GLU", "forward_flops"): "TODO 4",
        ("MLP", "backward_flops"): "TODO 5", ("GLU", "backward_flops"): "TODO 6"}

# (hidden_dim, intermediate_dim, bias): small and odd sizes, GPT-2 small's (768, 3072), its SwiGLU
# width 2048, and LLaMA-7B's (4096, 11008) without biases.
PARAM_CASES = [(8, 12, True), (8, 12, False), (64, 171, True), (768, 3072, True), (768, 2048, False),
               (4096, 11008, False)]
# ... and the input the FLOPs are counted on: the count per token must not depend on its shape.
FLOP_CASES = [(8, 12, True, (5, 8)), (64, 171, False, (2, 3, 64)), (96, 256, True, (4, 96)),
              (768, 2048, True, (2, 768)), (4096, 11008, False, (3, 4096))]


# ------------------------------------------------------------------------------------ helpers

def call_text(function: str, kwargs: dict) -> str:
    return f"{function}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


def answer(target, function: str, todo: str, exact_counts: bool = False, **kwargs) -> tuple[int, str]:
    """What the code under test returns for ``function(**kwargs)``, and how to name that call.
    ``exact_counts``: called with right parameter counts in place of the module's own (see the probe)."""
    where = f"{call_text(function, kwargs)} ({todo} in {target.where(COST)})"
    evidence = target.evidence(COST, "cost_function", function=function, kwargs=kwargs, exact_counts=exact_counts)
    if "error" in evidence:
        fail(format_error(evidence["error"]), **error_fields(evidence["error"]))
    if type(evidence["value"]) is not int:
        why = ("a count is a whole number: divide with // or round with math.ceil, which return ints"
               if evidence["type"] == "float" else "return a plain Python int")
        fail(f"{where} returned {evidence['repr']}, a {evidence['type']}, not an int: {why}")
    return evidence["value"], where


def measured(reference, cls_name: str, hidden: int, intermediate: int, x_shape=None) -> dict:
    """Parameters and FlopCounterMode's counts of the reference block (see the module docstring)."""
    return reference.probe("mlp_block", "block_cost", cls_name=cls_name,
                           ctor={"hidden_dim": hidden, "intermediate_dim": intermediate},
                           x_shape=list(x_shape or (1, hidden)))


def elementwise_flops(block: str, backward: bool, intermediate: int, hidden: int, bias: bool) -> dict:
    """The exercise's rules for what FlopCounterMode does not count, per token, by part."""
    gated = block == "GLU"
    factor = 2 if backward else 1  # a bias's gradient is a sum: 1 FLOP per number either way
    return {"biases": ((2 if gated else 1) * intermediate + hidden) if bias else 0,
            "activation": factor * intermediate,
            "gate product": factor * intermediate if gated else 0}


def judge(got: int, want: int, where: str, mistakes: list[tuple], detail: str, after: str = "") -> None:
    """Fail with the hint of the first known mistake that gives ``got``, or the bare numbers. A mistake is
    (cause, hint, value): the cause a stable id (it groups the mistake into one line of pytest's summary
    wherever it is made, whatever the numbers in the hint), the value what the mistake returns."""
    if got == want:
        return
    cause, hint = next(((c, h) for c, h, value in mistakes if value == got and value != want), ("unexplained", ""))
    fail(f"{where} returned {got:,}, expected {want:,}: {hint or detail}{after}", cause=cause)


# ------------------------------------------------------------------------------------ parameters

@pytest.mark.points(1)
@pytest.mark.parametrize("block", BLOCKS)
def test_param_count(target, reference, block):
    function = f"{block.lower()}_param_count"
    for hidden, intermediate, bias in PARAM_CASES:
        got, where = answer(target, function, TODO[block, "param_count"], hidden_dim=hidden,
                            intermediate_dim=intermediate, bias=bias)
        real = measured(reference, block, hidden, intermediate)
        weights, biases = real["weights"], real["params"] - real["weights"]
        h, i = hidden, intermediate
        mistakes = [
            ("weights only", f"only the weights are counted; with bias=True each layer also has a bias as long as"
             f" its output, {biases:,} numbers in all", weights) if bias else
            ("biases counted without bias", "bias=False, but biases are counted: without them the block holds its"
             " weight matrices only", weights + biases),
        ]
        if block == "MLP":
            mistakes += [("one bias missing", "one bias is missing: Wi's has intermediate_dim numbers, Wo's hidden_dim",
                          weights + (i if bias else 0)),
                         ("one bias missing", "one bias is missing: Wi's has intermediate_dim numbers, Wo's hidden_dim",
                          weights + (h if bias else 0)),
                         ("Wo's bias length", "Wo's bias is as long as Wo's output, hidden_dim, not intermediate_dim",
                          weights + (2 * i if bias else 0)),
                         ("one weight matrix", "one weight matrix is counted; MLP has two, Wi and Wo, each hidden_dim x"
                          " intermediate_dim", h * i + (biases if bias else 0))]
        else:
            mistakes += [("counted like an MLP",
                          "counted like an MLP: GLU has three weight matrices, Wg, Wv and Wo, each hidden_dim x"
                          " intermediate_dim", 2 * h * i + ((i + h) if bias else 0)),
                         ("one bias missing", "a bias is missing: Wg and Wv have one of intermediate_dim numbers each, Wo one of"
                          " hidden_dim", weights + ((i + h) if bias else 0)),
                         ("one bias missing", "a bias is missing: Wg and Wv have one of intermediate_dim numbers each, Wo one of"
                          " hidden_dim", weights + (2 * i if bias else 0))]
        judge(got, real["params"] if bias else weights, where, mistakes,
              f"{block}(hidden_dim={h}, intermediate_dim={i}) holds {weights:,} weights and {biases:,} biases"
              f" (counted with p.numel()); bias={bias}")


# ------------------------------------------------------------------------------------------ FLOPs

def check_flops(target, reference, block: str, backward: bool) -> None:
    kind = "backward_flops" if backward else "forward_flops"
    for hidden, intermediate, bias, x_shape in FLOP_CASES:
        kwargs = {"hidden_dim": hidden, "intermediate_dim": intermediate, "bias": bias}
        got, where = answer(target, f"{block.lower()}_{kind}", TODO[block, kind], **kwargs)
        real = measured(reference, block, hidden, intermediate, x_shape)
        fwd_matmuls = real["forward_flops"] // real["tokens"]
        bwd_matmuls = real["backward_flops"] // real["tokens"]
        fwd_parts = elementwise_flops(block, False, intermediate, hidden, bias)
        bwd_parts = elementwise_flops(block, True, intermediate, hidden, bias)
        forward = fwd_matmuls + sum(fwd_parts.values())
        backward_total = bwd_matmuls + sum(bwd_parts.values())
        matmuls, parts = (bwd_matmuls, bwd_parts) if backward else (fwd_matmuls, fwd_parts)
        want = backward_total if backward else forward
        rest = sum(parts.values())
        biases_if = elementwise_flops(block, backward, intermediate, hidden, True)["biases"]
        mistakes = [
            ("matrix products only", "only the matrix products are counted; the bias adds, the activation"
             f"{' and the gate product' if block == 'GLU' else ''} count too (the docstring's rules)", matmuls),
            ("bias adds missing" if bias else "bias adds without bias",
             "the bias adds are missing: with bias=True each layer adds 1 FLOP per output number"
             if bias else "bias=False, but bias adds are counted: without biases there is nothing to add",
             want - parts["biases"] if bias else want + biases_if),
        ]
        per_number = ("1 FLOP per number, 2 in the backward pass (a derivative or second factor, times the"
                      " incoming gradient)" if backward else "1 FLOP per number")
        if block == "MLP":
            mistakes.append(("activation not counted", f"the activation is not counted: {per_number} it is applied to",
                             want - parts["activation"]))
        else:
            mistakes += [
                # the two cost the same, so the count alone cannot tell which one is missing
                ("activation or gate product not counted",
                 f"the activation or the gate product act(Wg(x)) * Wv(x) is not counted: each is {per_number}",
                 want - parts["gate product"]),
                ("activation and gate product not counted",
                 "the activation and the gate product are not counted", want - parts["activation"] - parts["gate product"]),
                ("two matrix products",
                 "two matrix products are counted; GLU has three (Wg, Wv, Wo), each 2*hidden_dim*intermediate_dim"
                 + (" forward, twice that backward" if backward else ""), matmuls * 2 // 3 + rest),
                ("activation counted on both paths", "the activation is counted on both paths; it acts on the gate Wg(x) only",
                 want + parts["activation"]),
            ]
        if not backward:
            mistakes.append(("multiply-accumulates, products only",
                             f"this is fvcore's convention (one FLOP per multiply-accumulate, nothing but the"
                             f" matrix products counted); this exercise counts 2 FLOPs per multiply-accumulate"
                             f" and adds the docstring's rules ({', '.join(n for n, v in parts.items() if v)})",
                             matmuls // 2))
            mistakes.append(("multiply-accumulates", "the matrix products are counted as multiply-accumulates: a product with an"
                             " (n_in, n_out) weight is 2*n_in*n_out FLOPs, a multiply and an add per weight",
                             matmuls // 2 + rest))
        else:
            mistakes += [
                ("backward counted like the forward",
                 "counted like the forward pass: each product x @ W.T sends back two of its size,"
                 " grad_out @ W for x and grad_out.T @ x for W, so the products cost twice their forward FLOPs",
                 forward),
                ("backward products counted once",
                 "the products count half: each x @ W.T sends back two products of its size, one for x"
                 " (grad_out @ W: x needs its gradient too) and one for W (grad_out.T @ x)", matmuls // 2 + rest),
                ("twice the forward", "exactly twice the forward: right for the matrix products, but a bias's gradient is a sum,"
                 " 1 FLOP per number, not 2", 2 * forward),
                ("forward and backward together",
                 "forward and backward together; return the backward pass alone", forward + backward_total),
                ("activation backward counted once",
                 "the activation's backward is 2 FLOPs per number (its derivative, times the incoming"
                 " gradient), not 1" + (", and so is the gate product's" if block == "GLU" else ""),
                 matmuls + parts["biases"] + fwd_parts["activation"] + fwd_parts["gate product"]),
            ]
        shown = ", ".join(f"{name} {value:,}" for name, value in parts.items() if value)
        judge(got, want, where, mistakes,
              f"FlopCounterMode counts {matmuls:,} FLOPs of matrix products per token in the reference"
              f" {block}'s {'backward' if backward else 'forward'} pass; the docstring's rules add {shown}")


@pytest.mark.points(2)
@pytest.mark.parametrize("block", BLOCKS)
def test_forward_flops(target, reference, block):
    check_flops(target, reference, block, backward=False)


@pytest.mark.points(2)
@pytest.mark.parametrize("block", BLOCKS)
def test_backward_flops(target, reference, block):
    check_flops(target, reference, block, backward=True)


# ------------------------------------------------------------------------------- matched sizing

# (hidden_dim, expansion, multiple_of, bias): GPT-2 small's MLP as SwiGLU (2048), LLaMA-7B (11008),
# small blocks where the biases or the rounding change the answer, and expansions other than 4.
# (10, 4, 1, False): two thirds of the MLP's width, 80/3, is not whole, so flooring it first (26) gives
# a GLU with fewer weights (780) than the MLP (800).
SIZING_CASES = [(768, 4, 1, False), (96, 3.5, 1, False), (4096, 4, 256, False), (10, 4, 1, False),
                (8, 4, 1, True), (64, 4, 8, True), (512, 2, 64, True), (100, 2.5, 16, True)]


def ceil_to(value: Fraction, multiple: int) -> int:
    return math.ceil(Fraction(value) / multiple) * multiple


@pytest.mark.points(3)
def test_glu_intermediate_dim(target, reference):
    for hidden, expansion, multiple_of, bias in SIZING_CASES:
        # With right counts in place of the student's: a wrong count is test_param_count's to charge, once.
        got, where = answer(target, "glu_intermediate_dim", "TODO 7", exact_counts=True, hidden_dim=hidden,
                            expansion=expansion, multiple_of=multiple_of, bias=bias)
        count = "params" if bias else "weights"
        mlp_width = int(expansion * hidden)
        budget = measured(reference, "MLP", hidden, mlp_width)[count]
        # The GLU's count is linear in its width: two real blocks give the slope and the offset.
        one, two = (measured(reference, "GLU", hidden, width)[count] for width in (1, 2))
        per_unit, fixed = two - one, 2 * one - two
        exact = Fraction(budget - fixed, per_unit)  # the width at which the GLU matches the MLP exactly
        want = ceil_to(exact, multiple_of)
        mistakes = [
            ("two thirds rounded down first",
             f"two thirds of the MLP's width were rounded down before rounding up (int(2 * {mlp_width} / 3),"
             " as LLaMA's sizing code does), so the GLU can end up with fewer parameters than the MLP: round"
             " the exact width up once, at the end", ceil_to(Fraction(math.floor(Fraction(2 * mlp_width, 3))),
                                                           multiple_of) if not bias else None),
            ("two thirds not applied", "the 2/3 is not applied: a GLU has three weight matrices to the MLP's two, so at equal"
             " parameters it is about 2/3 as wide", ceil_to(Fraction(mlp_width), multiple_of)),
            # rounding to the nearest multiple gives this too whenever it does not give the answer
            ("rounded down", f"rounded down (or to the nearest multiple, which is below here): a GLU that narrow has fewer"
             f" parameters than the MLP; round up to a multiple of multiple_of={multiple_of}",
             math.floor(exact / multiple_of) * multiple_of),
            ("multiple_of ignored", f"multiple_of={multiple_of} is ignored: round up to a multiple of it", math.ceil(exact)),
            ("budget without biases",
             "the budget counts the weights only; with bias=True the biases count too (MLP: intermediate_dim"
             " + hidden_dim of them, GLU: 2 * intermediate_dim + hidden_dim)",
             ceil_to(Fraction(2 * mlp_width, 3), multiple_of) if bias else None),
            ("expansion ignored", f"expansion={expansion} is ignored: 8/3 * hidden_dim is the answer for expansion 4 only",
             ceil_to(Fraction(8 * hidden, 3), multiple_of) if expansion != 4 else None),
        ]
        if got <= 0:
            fail(f"{where} returned {got}: a width must be positive; expected {want:,}")
        if got == want:
            continue
        glu = per_unit * got + fixed  # from the line through two real blocks: no probe for the student's number
        what = "parameters" if bias else "weights"
        judge(got, want, where, mistakes,
              f"GLU(hidden_dim={hidden}, intermediate_dim={got:,}) has {glu:,} {what}, the MLP"
              f" (intermediate_dim={mlp_width:,}) {budget:,}: want the smallest multiple of {multiple_of} at"
              f" which the GLU has at least the MLP's {what}",
              after=" (judged with right parameter counts in place of your mlp_param_count and glu_param_count)")
