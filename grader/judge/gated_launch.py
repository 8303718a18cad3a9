"""The fused gated-MLP suites' judges of what is built on the kernel: the launch code's verdicts (TODO 2,
judged against the student's own kernel under the given launch code) and the stand-in kernel's check
(whether gated_projection and the block get their result from the kernel at all).
``grader/judge/gated_support.py`` holds the inputs, the formula and the kernel's own verdicts."""

from __future__ import annotations

import math

import pytest
import torch

from grader.probes import stand_in_gated
from grader.judge.checks import describe_mismatch, fail
from grader.judge.gated_support import (bounds_mode, EXERCISE, expect_formula, expect_kernel_responds, FLOAT32_RTOL,
                                        inputs, KERNEL, kernel_verdict, project, WHOLE_K_HIDDEN)
from grader.judge.kernel_target import drawn, session_verdict
from grader.judge.stand_in_log import GATED, served_on, shown



def launch_verdict(target, kernels) -> str:
    """"" when the student's gated_projection gets the right projection from the kernel (float32 with
    biases, on drawn, also with the kernel replaced by the stand-in), else the first line of why
    not: the first part of test_kernel_does_the_work, asked once per session."""
    def judge() -> None:
        check_launch(target, kernels, drawn("gated launch"))

    return session_verdict((EXERCISE, "launch"), judge, "gated_projection failed")


def check_launch(target, kernels, gen: torch.Generator) -> dict:
    """gated_projection returns what the kernel computes (in float32), and its result follows the stand-in
    (TODO 2)."""
    case = inputs(gen, hidden=WHOLE_K_HIDDEN)
    evidence = project(target, case, "gelu", bounds=bounds_mode(kernels))
    expect_from_kernel(evidence["out"], case, "gelu", kernels, "gated_projection (TODO 2)", maps=evidence.get("maps"),
                       grid=launch_grid(evidence))
    expect_follows_stand_in(target, case, "gelu", "gated_projection", "TODO 2", gen)
    return evidence


def launch_grid(evidence: dict) -> tuple[int, ...] | None:
    """The grid the code under test reports for its last launch of the kernel. Untrusted: it only ever sets
    the grid the student's own kernel runs on in the kernels' process (``own_outputs``), so it is taken as
    1-3 positive ints, at most MAX_PROGRAMS programs in all, or not at all."""
    grid = evidence.get("grid")
    if (isinstance(grid, (list, tuple)) and 1 <= len(grid) <= 3
            and all(type(size) is int and size >= 1 for size in grid) and math.prod(grid) <= MAX_PROGRAMS):
        return tuple(grid)
    return None


MAX_PROGRAMS = 1024  # far above any grid of the suites' sizes; a bound on what a reported grid can cost


def own_outputs(kernels, case: dict, activation: str, grid: tuple[int, ...] | None) -> list[torch.Tensor]:
    """What the student's kernel computes under trusted launch code: on the given launch code's grid, and,
    where the launch under test used another grid of no more programs (a kernel written for a grid of its
    own, the given launch edited to match), on that grid too, but only where the kernel computes the
    projection there. A kernel that reads its grid could do anything on a grid of its choosing; on a grid
    where it fails or computes something else, the given grid's output alone stands (a grid too small
    leaves elements unwritten, and is the launch's mistake)."""
    bounds = bounds_mode(kernels)
    given = project(kernels, case, activation, bounds=bounds)
    owns, given_grid = [given["out"]], launch_grid(given)
    if grid is None or given_grid is None or grid == given_grid or math.prod(grid) > math.prod(given_grid):
        return owns
    try:
        on_grid = project(kernels, case, activation, grid=grid, bounds=bounds)["out"]
        expect_formula(on_grid, case, activation, f"{KERNEL} on the launch's own grid", FLOAT32_RTOL, FLOAT32_RTOL)
    except pytest.fail.Exception:
        return owns
    return [*owns, on_grid]


def same_as_own(got: torch.Tensor, own: torch.Tensor) -> bool:
    """The same result, to float32's rounding of another summation order (unwritten elements alike)."""
    return got.shape == own.shape and got.dtype == own.dtype and torch.allclose(
        got.double(), own.double(), rtol=FLOAT32_RTOL, atol=FLOAT32_RTOL * max(own.abs().nan_to_num().max().item(), 1e-30),
        equal_nan=True)


def expect_from_kernel(got: torch.Tensor, case: dict, activation: str, kernels, what: str, todo: str = "TODO 2",
                       maps: dict | None = None, grid: tuple[int, ...] | None = None) -> None:
    """The launch code is judged against the student's own kernel under trusted launch code, on the same
    inputs (``grid``: the one the launch under test used, ``launch_grid``): the same result, to float32's
    rounding of another summation order, is a right launch whatever the kernel computes. Where they differ,
    a right kernel makes it the launch's mistake, told against the formula; under a wrong kernel it cannot be
    told whose it is, so the test waits for the kernel's."""
    flat = got.reshape(-1, got.shape[-1]) if got.dim() > 2 else got
    if any(same_as_own(flat, own) for own in own_outputs(kernels, case, activation, grid)):
        return
    verdict = kernel_verdict(kernels)
    if verdict:
        fail(f"{what} differs from what {KERNEL} computes under the grader's launch code, and the kernel is not"
             f" right yet, so whether the launch or the kernel is at fault cannot be told: this counts once"
             f" test_forward_float32 passes (TODO 1); {verdict}", waits_on="test_forward_float32[silu]", todo="TODO 1")
    expect_formula(flat, case, activation, what, FLOAT32_RTOL, FLOAT32_RTOL, maps, todo=todo.split(":")[0])


def check_launch_float64(target, gen: torch.Generator) -> None:
    """In float64, without biases, the launch asks for float64 sums and HAS_BIAS=False (TODO 2)."""
    expect_follows_stand_in(target, inputs(gen, torch.float64, bias=False, hidden=WHOLE_K_HIDDEN), "relu",
                            "gated_projection in float64 without biases", "TODO 2", gen)


def expect_launch_works(target, kernels, what: str) -> None:
    """The premises of the tests built on gated_projection: the kernel computes (TODO 1), and
    gated_projection gets its result from it (TODO 2), on x with WHOLE_K_HIDDEN features. Each failing
    premise is charged by its own test."""
    expect_kernel_responds(kernels, what)
    verdict = launch_verdict(target, kernels)
    if verdict:
        fail(f"{what}: this counts once gated_projection gets the projection from {KERNEL} (TODO 2;"
             f" test_kernel_does_the_work passes); it does not yet: {verdict}", waits_on="test_kernel_does_the_work",
             todo="TODO 2")


def expect_launch_uses_kernel(target, kernels, what: str) -> None:
    """The premise of the tests of what is built on gated_projection (the backward, the block: TODO 4-5),
    which judge it against gated_projection's own result, right or wrong: the kernel computes something
    (TODO 1), and gated_projection's result comes from it, whatever arguments it passes (TODO 2: a launch
    mistake is test_kernel_does_the_work's to charge). A PyTorch-only gated_projection earns them nothing."""
    expect_kernel_responds(kernels, what)
    def judge() -> str:
        case = inputs(drawn("gated launch uses the kernel"), hidden=WHOLE_K_HIDDEN)
        evidence = project(target, case, "silu", bounds=bounds_mode(kernels))
        got = evidence["out"]
        # The kernel's own output, computed where no Python of the student's runs, for the arguments as
        # given and with the gate's and the value's swapped (the one launch mistake that keeps a result),
        # on the given launch code's grid and on the grid the launch under test used.
        swapped = {**case, "gate_weight": case["value_weight"], "value_weight": case["gate_weight"],
                   "gate_bias": case["value_bias"], "value_bias": case["gate_bias"]}
        owns = [own for arranged in (case, swapped)
                for own in own_outputs(kernels, arranged, "silu", launch_grid(evidence))]
        stand_in = project(target, case, "silu", stand_ins=True)
        if got.shape == stand_in["out"].shape and torch.equal(got.nan_to_num(), stand_in["out"].nan_to_num()):
            return (f"gated_projection returns the same with {KERNEL} replaced by a stand-in:"
                    " its result is not the kernel's")  # PyTorch's, however right
        if not torch.isfinite(got).all():  # what is built on it would be judged on NaN
            return "gated_projection's result holds elements never written (NaN, what fresh memory holds in these tests)"
        if not any(same_as_own(got, own) for own in owns):
            return f"gated_projection does not return what {KERNEL} computes"
        return ""

    verdict = session_verdict((EXERCISE, "uses kernel"), judge, "gated_projection failed")
    if verdict:
        fail(f"{what}: this counts once gated_projection gets its result from {KERNEL} (TODO 2;"
             f" test_kernel_does_the_work says what); it does not yet: {verdict}",
             waits_on="test_kernel_does_the_work", todo="TODO 2")


# ------------------------------------------------------------------------- the stand-in kernel

def stand_in_words(coefficients: list[float] | None) -> str:
    """The stand-in a message names: ``coefficients``, its first launch's (None: never launched)."""
    if coefficients is None:
        return f"with {KERNEL} replaced by a stand-in (never launched)"
    a, b, c = coefficients
    return (f"with {KERNEL} replaced by a stand-in that writes {a:.3f} * (x Wg^T + bg) {b:+.3f} * (x Wv^T + bv)"
            f" {c:+.3f} * (1 + the activation's place in ACTIVATIONS)")


def expect_follows_stand_in(target, case: dict, activation: str, what: str, todo: str, gen: torch.Generator,
                            **options) -> None:
    """Run the same call with the kernel replaced by the grader's stand-in: the result must be what a launch
    on the test's own inputs was served (``grader/judge/stand_in_log.py``), computed here (in float64: a
    float64 launch that asks for float32 sums shows)."""
    evidence = project(target, case, activation, stand_ins=True, **options)
    got = evidence["out"]
    x = case["x"].reshape(-1, case["x"].shape[-1])
    served = served_on(evidence, GATED, x=x, gate_weight=case["gate_weight"], value_weight=case["value_weight"],
                       gate_bias=case.get("gate_bias"), value_bias=case.get("value_bias"))
    coefficients = served[0] if served else shown(evidence, GATED)

    def want_with(c: list[float]) -> torch.Tensor:
        return stand_in_gated(x, case["gate_weight"], case["value_weight"], case.get("gate_bias"),
                              case.get("value_bias"), activation, c).reshape(*case["x"].shape[:-1], -1)

    rtol = 1e-12 if case["x"].dtype == torch.float64 else FLOAT32_RTOL
    for c in served:
        want = want_with(c)
        if got.shape == want.shape and torch.allclose(got.double(), want, rtol=rtol, atol=rtol * want.abs().max().item()):
            return
    want = want_with(coefficients or [1.0, -1.0, 0.5])  # for the message alone, where nothing was launched
    if got.dtype != case["x"].dtype:
        fail(f"{what}: returned {got.dtype} where x is {case['x'].dtype}: allocate the output in x's dtype"
             f" (torch.empty(..., dtype=x.dtype)) and let the kernel store into it ({todo})", cause="output dtype",
             todo=todo.split(":")[0])
    if served and got.shape == want.shape and case["x"].dtype == torch.float64 and torch.allclose(
            got, want, rtol=1e-5, atol=1e-5 * want.abs().max().item()):
        fail(f"{what}: the launch asks {KERNEL} for float32 sums on float64 x (right to float32 precision only):"
             f" pass COMPUTE_DTYPE=COMPUTE_DTYPES.get(x.dtype, tl.float32) ({todo})", cause="float32 sums for float64",
             todo=todo.split(":")[0])
    stand_in = stand_in_words(coefficients)
    try:  # the launch without the stand-in, to tell "not from the kernel"; the kernel's own failure there is not this test's
        plain = project(target, case, activation, **options)["out"]
    except pytest.fail.Exception:
        plain = None
    if plain is not None and got.shape == plain.shape and torch.equal(got.nan_to_num(), plain.nan_to_num()):
        fail(f"{what} does not get its result from {KERNEL}: {stand_in}, it returned the same as before. The"
             f" projection must be computed by the kernel, launched once, not by PyTorch ({todo})",
             cause="projection not from the kernel", todo=todo.split(":")[0])
    detail = describe_mismatch(got, want, rtol, rtol * want.abs().max().item()) if got.shape == want.shape else (
        f"shape {tuple(got.shape)}, expected {tuple(want.shape)}")
    fail(f"{what}: {stand_in}, it returned something else [{detail}]: launch {KERNEL} with x's rows and strides,"
         " both weights with their own strides, HAS_BIAS, the activation and COMPUTE_DTYPES.get(x.dtype,"
         f" tl.float32), and return what it wrote ({todo})", cause="launch arguments", todo=todo.split(":")[0])
