"""Checks shared by the graded suites: comparisons whose failures read as hints, and fixtures' data.

Every assertion the suites make goes through here, so the student's ``pytest`` run, the self-checks
and the grader judge with the same definitions and the same words.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Mapping, NoReturn, Sequence

import pytest
import torch

from grader.results import Fields, Kind
from grader.probes.errors import UNCALLED


class Verdict(pytest.fail.Exception):
    """A failed test: the message for the student, and the fields the grader and the reports read
    (``grader/results.py``; ``tests/conftest.py`` records them on the test's report)."""

    # Shown as pytest shows its own failures ("Failed: <message>"), not under this module's name.
    __module__, __qualname__ = "builtins", "Failed"

    def __init__(self, message: str, fields: dict[str, str]) -> None:
        super().__init__(message, pytrace=False)
        self.fields = fields


def fail(message: str, *, cause: str = "unexplained", todo: str = "", waits_on: str = "",
         kind: Kind | None = None) -> NoReturn:
    """Fail with just the message: the student reads a hint, not a traceback into the suite.

    ``cause``: a stable id of the mistake where the test knows it (the same for every test it fails,
    whatever the numbers in the message); ``todo``: the TODO to look at; ``waits_on``: the test whose
    failure is this test's premise (the kind is then "waits"); ``kind``: see grader/results.py's Kind."""
    kind = kind or (Kind.WAITS if waits_on else Kind.FAILED)
    raise Verdict(message, Fields(kind, cause, todo, waits_on).as_dict())


def verdict_fields(excinfo: pytest.ExceptionInfo | None, passed: bool, skipped: bool) -> dict[str, str]:
    """The structured fields of a test's outcome: the Verdict's, or what a plain outcome says."""
    if passed:
        return Fields(Kind.PASSED).as_dict()
    if skipped:
        return Fields(Kind.SKIPPED).as_dict()
    if excinfo is not None and isinstance(excinfo.value, Verdict):
        return excinfo.value.fields
    return Fields(Kind.FAILED, "unexplained").as_dict()


def describe_mismatch(got: torch.Tensor, want: torch.Tensor, rtol: float = 0.0, atol: float = 0.0) -> str:
    """Where ``got`` is furthest from ``want``, and how many elements are off by more than the tolerance
    (not merely by the last bit, which a different summation order in the reference's matmul can change)."""
    diff = (got.double() - want.double()).abs()
    # The first element as far off as the furthest, to within last-bit noise: where many are off by the same
    # amount (a missing bias, a constant shift), the one named must not depend on the machine's summation order
    # (a CPU's matmul kernels round float64 differently), so the release names the one the course's grader does.
    largest = diff.max()
    furthest = diff.isnan() if bool(largest.isnan()) else diff >= largest * (1 - 1e-9)
    flat = int(furthest.reshape(-1).to(torch.uint8).argmax())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), diff.shape)) if diff.dim() else ()
    bad = int((~torch.isclose(got.double(), want.double(), rtol=rtol, atol=atol)).sum())
    return (
        f"max |difference| {diff.max().item():.3g} at index {index}: got {got.reshape(-1)[flat].item():.6g},"
        f" expected {want.reshape(-1)[flat].item():.6g} ({bad} of {want.numel()} elements differ)"
    )


def is_close(got: torch.Tensor, want: torch.Tensor, rtol: float, atol: float) -> bool:
    if got.shape != want.shape:
        return False
    return bool(torch.allclose(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=False))


def expect_shape(got: Sequence[int], want: Sequence[int], what: str, hint: str = "", cause: str = "unexplained",
                 todo: str = "") -> None:
    if tuple(got) != tuple(want):
        fail(f"{what}: shape {tuple(got)}, expected {tuple(want)}. {hint}".rstrip(), cause=cause, todo=todo)


def expect_close(
    got: torch.Tensor,
    want: torch.Tensor,
    what: str,
    hint: str = "",
    rtol: float = 1e-9,
    atol: float = 1e-10,
    cause: str = "unexplained",
    todo: str = "",
    against: str = "the reference",
) -> None:
    """float64 comparison tight enough that tanh-approximate GELU fails for exact GELU. ``cause``: the
    stable id of what the hint names, ``todo`` where it is made (see fail); ``against``: what ``want`` is,
    in the message (a dropout test compares the block with its own dropout-free output, not the reference)."""
    expect_shape(got.shape, want.shape, what, hint, cause, todo)
    if got.dtype != want.dtype:
        fail(f"{what}: dtype {got.dtype}, expected {want.dtype}. {hint}".rstrip(), cause=cause, todo=todo)
    if not is_close(got, want, rtol, atol):
        # The hint first: it is what a stuck student acts on; the numbers back it up.
        detail = describe_mismatch(got, want, rtol, atol)
        fail(f"{what} differs from {against}: {hint} [{detail}]" if hint
             else f"{what} differs from {against}: {detail}", cause=cause, todo=todo)


# --------------------------------------------------------------------------------- the blocks

@dataclass(frozen=True)
class Block:
    """A block as the helpers below and in ``block_runs``/``block_evidence`` take it: its class in its exercise,
    the TODOs that build and run it, its linear layers (with biases or without), any other parameters (a norm's
    scale vector), its parameter count, and the linear layer whose output is the block's, where there is one. A
    task declares its own beside its suite (the MLP and GLU tasks': ``grader/judge/mlp_blocks.py``)."""
    name: str
    exercise: str
    init_todo: str
    forward_todo: str
    layers: dict[str, tuple[str, str]]  # linear layer -> (in, out) as "hidden" / "intermediate"
    count_formula: str
    count: Callable[[int, int], int]
    # The linear layer that gives the block's output (MLP's Wo): structure_fault judges the output by it. Given
    # always: None where the output is no layer's, and then structure_fault has nothing to judge by and finds no
    # fault, so it cannot tell a placeholder forward (zeros) from a block's: that task's suite must, by its own evidence.
    output_layer: str | None
    # Parameters that are no linear layer's, by their state_dict name: their sizes as "hidden" / "intermediate"
    # ({"weight": ("hidden",)} for an RMSNorm's scale). Matched by name only; drawn about one (random_weights).
    parameters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    biases: bool = True  # whether each linear layer has a bias

    def linear_shapes(self, hidden: int, intermediate: int) -> dict[str, list[int]]:
        size = {"hidden": hidden, "intermediate": intermediate}
        shapes = {}
        for layer, (d_in, d_out) in self.layers.items():
            shapes[f"{layer}.weight"] = [size[d_out], size[d_in]]  # nn.Linear stores (out, in)
            if self.biases:
                shapes[f"{layer}.bias"] = [size[d_out]]
        return shapes

    def parameter_shapes(self, hidden: int, intermediate: int) -> dict[str, list[int]]:
        size = {"hidden": hidden, "intermediate": intermediate}
        return {name: [size[d] for d in dims] for name, dims in self.parameters.items()}

    def layer_shapes(self, hidden: int, intermediate: int) -> dict[str, list[int]]:
        """Every parameter's shape, by its state_dict name: the linear layers', then the others'."""
        return {**self.linear_shapes(hidden, intermediate), **self.parameter_shapes(hidden, intermediate)}


def random_weights(block: Block, hidden: int, intermediate: int, gen: torch.Generator,
                   dtype: torch.dtype = torch.float64) -> dict[str, torch.Tensor]:
    """Weights the test picks (not the student's init), so outputs are comparable to the reference.

    Scaled so pre-activations spread over about [-3, 3], where GELU, its tanh approximation,
    ReLU and SiLU all differ, and biases are large enough that a missing one shows. A parameter that is no
    linear layer's (a scale) is drawn about one, far enough from it that leaving it out shows.
    """
    weights = {}
    for name, shape in block.linear_shapes(hidden, intermediate).items():
        fan_in = shape[-1] if name.endswith("weight") else 1
        scale = 1.5 / math.sqrt(fan_in) if name.endswith("weight") else 0.5
        weights[name] = torch.randn(shape, generator=gen, dtype=dtype) * scale
    for name, shape in block.parameter_shapes(hidden, intermediate).items():
        weights[name] = 1.0 + 0.5 * torch.randn(shape, generator=gen, dtype=dtype)
    return weights


# ---------------------------------------------------------------- what a wrong output looks like

DIAGNOSIS_POSITIONS = 16  # the blocks act on each position alone: a few positions show the mistake


def diagnosis_input(x: torch.Tensor) -> torch.Tensor:
    """The positions a wrong output is diagnosed on: the first few rows of x, as (rows, hidden)."""
    return x.reshape(-1, x.shape[-1])[:DIAGNOSIS_POSITIONS]


def diagnose(reference, block: Block, w: dict, x: torch.Tensor, got: torch.Tensor,
             activation: str | None) -> str:
    """The hint of the known mistake whose output ``got`` is (``reference.mistakes`` computes them)."""
    return diagnosis(reference, block, w, x, got, activation)[1]


def diagnosis(reference, block: Block, w: dict, x: torch.Tensor, got: torch.Tensor,
              activation: str | None) -> tuple[str, str, bool]:
    """(cause, hint, in_init): the known mistake ``got`` is, its cause the same for every test it fails
    (the mistake's own hint, from the reference's list: the suite's data, not the submission's), or
    "unexplained" and a general pointer to forward."""
    named = named_mistake(reference, block, w, x, got, activation)
    if named:
        return named
    return "unexplained", (f"check {block.name}.forward ({block.forward_todo}) against the formula in its docstring"
                           " layer by layer"), False


def named_mistake(reference, block: Block, w: dict, x: torch.Tensor, got: torch.Tensor,
                  activation: str | None) -> tuple[str, str, bool] | None:
    """(cause, hint, in_init) of the known mistake whose output ``got`` is, or None where it is none of them.

    Matched to float32 precision: a mistake computed through float32 casts, or with a constant
    written to 8 digits (tanh GELU's 0.79788456), is still that mistake. The known mistakes differ
    from each other by far more, so no output matches two.
    """
    rows = diagnosis_input(x)
    got = got.reshape(-1, got.shape[-1])[:DIAGNOSIS_POSITIONS]
    for cause, hint, candidate, in_init in reference.mistakes(block.name, w, rows, activation):
        if float32_close(got, candidate):
            return cause, hint, in_init
    return None


def float32_close(got: torch.Tensor, want: torch.Tensor) -> bool:
    """``got`` equals ``want`` to float32 precision (a few float32 roundings of the largest value)."""
    return got.shape == want.shape and is_close(got, want, 1e-5, 1e-5 * want.double().abs().max().item())


def float32_hint(where: str) -> str:
    """For a float64 result right to float32 precision only: the code under test computes in float32."""
    return (f"the result is right to float32 precision only (about 1e-7 relative), so {where} computes in"
            " float32: a .float() or .to(torch.float32) followed by .type_as(x), or a tensor made with a"
            " fixed dtype; keep the input's dtype throughout, float64 in, float64 arithmetic")


# ------------------------------------------------------------ when the code under test raises

ACTIVATION_NOT_BUILT = "activation_fn not called"  # the cause id of a module class stored uncalled, in any block


def error_hints(block: Block) -> list[tuple[str, str]]:
    """(regex on "Type: message", hint) for the exceptions wrong blocks raise, most specific first. None names a
    mistake of its own: the error's own fields say what it is, and the hint what to look at."""
    return [
        (r"values to unpack",
         "forward must accept any number of leading dimensions: don't unpack x.shape into a fixed"
         " count; nn.Linear already acts on the last dimension"),
        (r"same dtype|scalar type",
         "forward mixes dtypes: the tests run the whole block in float64 and bfloat16, so don't cast x"
         " or intermediate tensors with .float() / .to(torch.float32)"),
        (r"shapes cannot be multiplied|size of tensor a|must match the size",
         f"one layer's output size does not fit the next layer's input: test_parameter_shapes names"
         f" the layer; nn.Linear(in_features, out_features) ({block.init_todo})"),
        (r"in-?place operation",
         "forward changes a tensor in place (x += ..., x.copy_(...), .mul_()): compute new tensors"
         " instead; the caller's x must stay unchanged"),
    ]


def error_diagnosis(block: Block, error: dict) -> tuple[str, str]:
    """(hint, cause) for an exception raised by the code under test: the cause "" where the hint names no
    mistake of its own (the error's own fields then say what it is), both empty where no hint fits. The one
    hint with a cause names a mistake of __init__, a module's class stored uncalled (the activation factory),
    read from the block itself (grader/probes/blocks.py): one cause whichever block, activation and test shows it."""
    if error.get("not_implemented"):
        return "", ""  # the stub's own message already names the TODO
    if error.get(UNCALLED):
        names = [f"self.{name.strip()}" for name in error[UNCALLED].split(",")]
        verb = "holds" if len(names) == 1 else "hold"
        return (f"{', '.join(names)} {verb} a module's class, not a module: activation_fn is a factory, not the activation:"
                f" call it once in __init__ ({block.init_todo}), self.act = activation_fn(), then apply self.act(...)"
                " in forward (any module class likewise: build it, nn.Sigmoid(), in __init__)", ACTIVATION_NOT_BUILT)
    text = f"{error.get('type', '')}: {error.get('message', '')}"
    return next(((hint, "") for pattern, hint in error_hints(block) if re.search(pattern, text)), ("", ""))


# ------------------------------------------------- against an exact value, in a rounded dtype

# (explicit mantissa bits, smallest normal exponent) of each floating-point dtype
_FLOAT_FORMATS = {torch.float16: (10, -14), torch.bfloat16: (7, -126), torch.float32: (23, -126),
                  torch.float64: (52, -1022)}


def ulp(exact: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The spacing of ``dtype``'s numbers at |exact| (float64): one unit in the last place."""
    mantissa, min_exponent = _FLOAT_FORMATS[dtype]
    exponent = torch.floor(torch.log2(exact.double().abs())).clamp(min=min_exponent)  # zero: subnormal spacing
    return torch.exp2(exponent - mantissa)


def rounding_errors(got: torch.Tensor, exact: torch.Tensor, roundings: float = 0.5, rtol: float = 0.0,
                    atol: float = 0.0) -> torch.Tensor:
    """Where ``got`` is farther from ``exact`` than ``expect_rounded`` allows (NaN included)."""
    exact = exact.double()
    bound = roundings * ulp(exact, got.dtype) + rtol * exact.abs() + atol
    return ~((got.double() - exact).abs() <= bound)


def expect_rounded(
    got: torch.Tensor,
    exact: torch.Tensor,
    what: str,
    hint: str = "",
    roundings: float = 0.5,
    rtol: float = 0.0,
    atol: float = 0.0,
    cause: str = "unexplained",
) -> None:
    """``got`` within ``roundings`` units in the last place of its own dtype of the float64 ``exact``,
    plus ``rtol * |exact| + atol`` for the arithmetic before that rounding. NaN never passes.

    0.5 ulp is one round-to-nearest; 1 ulp is one truncation.
    """
    expect_shape(got.shape, exact.shape, what)
    exact = exact.double()
    bound = roundings * ulp(exact, got.dtype) + rtol * exact.abs() + atol
    error = (got.double() - exact).abs()
    bad = ~(error <= bound)
    if not bool(bad.any()):
        return
    worst = int(torch.where(bad, torch.nan_to_num(error / bound, nan=math.inf), -1.0).argmax())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(worst), exact.shape)) if exact.dim() else ()
    in_ulps = (error.reshape(-1)[worst] / ulp(exact.reshape(-1)[worst], got.dtype)).item()
    parts = [f"{roundings:g} ulp of {str(got.dtype).removeprefix('torch.')}"] if roundings else []
    parts += [f"{rtol:.2g} * |expected|"] if rtol else []
    parts += [f"{atol:.2g}"] if atol else []
    allowed = " + ".join(parts) or "nothing"
    # The hint first, as expect_close does: it is what a stuck student acts on; the numbers back it up.
    numbers = (f"differs by {error.reshape(-1)[worst].item():.3g} ({in_ulps:.3g} ulp) at index {index}:"
               f" got {got.reshape(-1)[worst].item():.8g}, expected {exact.reshape(-1)[worst].item():.8g};"
               f" {int(bad.sum())} of {exact.numel()} elements are off by more than {allowed}")
    head, newline, drawn = hint.partition("\n")  # a map drawn under the hint stays below the line
    fail(f"{what}: {head} [{numbers}]{newline}{drawn}" if head else f"{what} {numbers}{newline}{drawn}", cause=cause)
