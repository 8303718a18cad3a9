"""Graded tests for exercises/triton_gated_mlp.py: the gated projection as one kernel (TODO 1-3), its
backward (TODO 4) and the FusedGatedMLP block (TODO 5).

Run: ``pytest tests/test_triton_gated_mlp.py`` (``-m gated``). Longer than 400 lines because it is one
task's graded suite, which a student runs as one file. Without a GPU the kernel runs in
Triton's interpreter, whose loads and stores the suite checks, and whose bfloat16 ``tl.dot`` multiplies
as a GPU does (``grader/probes/``). Every expected value is computed here, in float64, from the
formula ``act(x Wg^T + bg) * (x Wv^T + bv)`` on the very inputs the code under test got; a wrong value
is compared with the mistakes students make (bias after the activation, gate and value swapped, the
K remainder dropped, the combined weight's halves swapped) to say which it is.

Two targets, so that the points for a working kernel come from the kernel alone (tests/kernel_target.py):

* ``kernels``: ``_gated_projection_kernel`` (and the ``@triton.jit`` helpers it calls) read out of the
  file without running it and launched by the reference's launch code in a process of its own. The
  kernel tests (TODO 1) run on this.
* ``target``: the student's file as it is. The launch code (TODO 2-3), the backward (TODO 4) and the block
  (TODO 5) run on this, and count once the kernel computes the projection on ``kernels``. Whether they
  use the kernel is decided by replacing it with a stand-in that computes something else
  (``grader/probes/stand_ins.py``): what they return must follow.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

pytest.importorskip(
    "triton", reason="Triton is not installed: it ships for Linux only, so the fused gated-MLP exercise"
                     " cannot run on macOS or Windows (the other suites do)")

from grader.probes.activations import ACTIVATIONS as BY_NAME  # noqa: E402
from grader.kernels import maps as kernel_map  # noqa: E402
from grader.kernels.source import GATED  # noqa: E402
from grader.paths import reference_file  # noqa: E402
from grader.probes import stand_in_gated  # noqa: E402
from tests.checks import describe_mismatch, fail  # noqa: E402
from tests.kernel_target import rests_on, start_side_by_side, student_kernels, verdict_data  # noqa: E402
from tests.seam import Target, error_fields, format_error  # noqa: E402

pytestmark = pytest.mark.gated

EXERCISE = "triton_gated_mlp"
TOKENS, HIDDEN, INTERMEDIATE = 37, 45, 29  # no multiple of the 16-wide tiles: every edge is masked
ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "relu", "sigmoid")
KERNEL = "_gated_projection_kernel"
FLOAT32_RTOL = 2.0**-16  # float32 accumulation over 45 products: a few ulp of the largest sum
WIDE_HIDDEN = 509  # 16 bits: 32 steps of the K loop, so that summing in 16 bits shows against eager's 4 roundings


@pytest.fixture(scope="session")
def kernels(pytestconfig, target, tmp_path_factory) -> Target:
    """The student's kernel alone, under the reference's launch code; in the student release, which has
    no reference, the student's own file (tests/kernel_target.py)."""
    launch_code = reference_file(EXERCISE)
    if not launch_code.is_file():
        return target
    return student_kernels(pytestconfig, target, tmp_path_factory.mktemp("gated_kernels"), GATED, launch_code,
                           lambda kwargs: [KERNEL])


@pytest.fixture(scope="module", autouse=True)
def _start_both_processes(target, kernels) -> None:
    start_side_by_side([target, kernels] if kernels is not target else [target], EXERCISE, "gated")


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


def formula(case: dict, activation: str, *, k: int | None = None, swap: bool = False,
            bias_after: bool = False) -> torch.Tensor:
    """The right answer in float64 (or a named mistake's): ``k`` sums only the first k of the hidden
    products; ``swap`` puts the activation on the value; ``bias_after`` adds the gate's bias after it."""
    x, wg, wv = (case[n].double() for n in ("x", "gate_weight", "value_weight"))
    bg = case["gate_bias"].double() if case.get("gate_bias") is not None else torch.zeros(wg.shape[0], dtype=x.dtype)
    bv = case["value_bias"].double() if case.get("value_bias") is not None else torch.zeros(wv.shape[0], dtype=x.dtype)
    if k is not None:
        x, wg, wv = x[:, :k], wg[:, :k], wv[:, :k]
    if swap:
        wg, wv, bg, bv = wv, wg, bv, bg
    act = torch_activation(activation)
    gate = act(x @ wg.T) + bg if bias_after else act(x @ wg.T + bg)
    return gate * (x @ wv.T + bv)


def likely_mistake(got: torch.Tensor, case: dict, activation: str) -> tuple[str, str]:
    """(cause, hint): the named mistake ``got`` matches to float32 precision, or a general pointer."""
    named = [("activation_on_value", "the activation is on the value: act(x Wv^T + bv) * (x Wg^T + bg); the gate"
              " gets it", formula(case, activation, swap=True)),
             ("gate_bias_after_activation", "the gate's bias is added after the activation; it belongs inside:"
              " act(x Wg^T + bg)", formula(case, activation, bias_after=True)),
             ("k_remainder_dropped", "the last, partial step of the K loop is missing: loop over range(0, K, BLOCK_K)"
              " and mask the ks past K (loading 0 there), so the remainder still counts",
              formula(case, activation, k=(case["x"].shape[-1] // 16) * 16))]
    for cause, hint, candidate in named:
        if torch.allclose(got.double(), candidate, rtol=1e-4, atol=1e-4 * candidate.abs().max().item()):
            return cause, hint
    if torch.isnan(got).any():
        return "never_written", ("some elements were never written (NaN, what fresh memory holds in these tests): does every"
                " program store its whole tile? The kernel tests launch it as TODO 2 says: a grid of (cdiv(M, BLOCK_M),"
                " cdiv(N, BLOCK_N)) programs, program (tl.program_id(0), tl.program_id(1)) computing tile (pid_m, pid_n)")
    return "unexplained", ("check the K loop, the tiles' offsets and strides, and the epilogue (bias, activation,"
                           " product) in TODO 1")


def project(target, case: dict, activation: str = "silu", **options) -> dict:
    evidence = target.evidence(EXERCISE, "gated_projection_run", activation=activation, **{**case, **options})
    if "error" in evidence:
        message = format_error(evidence["error"])
        if "Expected dtype [" in message and ("got fp16" in message or "got bf16" in message):
            message += (" (the activation ran on 16-bit values: keep the sums in COMPUTE_DTYPE, float32, and apply"
                        " bias, activation and product there; convert only in tl.store: TODO 1)")
        # after an out-of-bounds access: where it went
        fail(message + kernel_map.for_error(evidence["error"]), **error_fields(evidence["error"]))
    return evidence


KERNEL_INPUTS = ["x_ptr", "gate_weight_ptr", "value_weight_ptr"]


def expect_formula(got: torch.Tensor, case: dict, activation: str, what: str, rtol: float, atol: float,
                   maps: dict | None = None, waits_on: str = "") -> None:
    """``maps``: what the kernel loaded and stored (the probe's record), drawn where it explains a failure;
    ``waits_on``: the test whose property this is, where the formula is this test's premise only."""
    want = formula(case, activation)
    if got.shape != want.shape:
        fail(f"{what}: shape {tuple(got.shape)}, expected {tuple(want.shape)} (..., intermediate): TODO 2's"
             " output allocation and final reshape")
    if got.dtype != case["x"].dtype:
        fail(f"{what}: dtype {got.dtype}, expected x's {case['x'].dtype}: allocate the output in x's dtype and"
             " convert in tl.store")
    if not torch.allclose(got.double(), want, rtol=rtol, atol=atol * want.abs().max().item(), equal_nan=False):
        drawn = kernel_map.explain(maps, "out_ptr", KERNEL_INPUTS)  # what the kernel touched
        cause, hint = likely_mistake(got, case, activation)
        fail(f"{what} differs from act(x Wg^T + bg) * (x Wv^T + bv): {hint}"
             f" [{describe_mismatch(got, want, rtol, atol * want.abs().max().item())}]{drawn}", cause=cause,
             waits_on=waits_on)


_kernel_verdict: dict[str, str] = {}


def kernel_verdict(kernels) -> str:
    """"" when the student's kernel computes the projection under trusted launch code (float32, silu, on
    verdict_data), else the first line of why not. Asked once per session."""
    if "verdict" not in _kernel_verdict:
        case = inputs(verdict_data("gated kernel"))
        try:
            evidence = project(kernels, case, "silu")
            expect_formula(evidence["out"], case, "silu", f"{KERNEL} (TODO 1)", FLOAT32_RTOL, FLOAT32_RTOL)
            _kernel_verdict["verdict"] = ""
        except pytest.fail.Exception as failure:
            _kernel_verdict["verdict"] = str(failure).splitlines()[0] if str(failure) else "the kernel failed"
    return _kernel_verdict["verdict"]


def expect_kernel_computes(kernels, what: str) -> None:
    """What the student's own process computed counts only once the kernel computes the projection where
    no Python of the student's runs: in the student's process, any code of the file could make a launch
    "compute" whatever it likes."""
    verdict = kernel_verdict(kernels)
    if verdict:
        fail(f"{what}: this counts once {KERNEL} computes the projection on its own (TODO 1; test_forward_float32"
             f" passes); it does not yet: {verdict}", waits_on="test_forward_float32[silu]", todo="TODO 1")


_launch_verdict: dict[str, str] = {}


def launch_verdict(target) -> str:
    """"" when the student's gated_projection gets the right projection from the kernel (float32 with
    biases, on verdict_data, also with the kernel replaced by the stand-in), else the first line of why
    not: the first part of test_kernel_does_the_work, asked once per session."""
    if "verdict" not in _launch_verdict:
        try:
            check_launch(target, verdict_data("gated launch"))
            _launch_verdict["verdict"] = ""
        except pytest.fail.Exception as failure:
            _launch_verdict["verdict"] = str(failure).splitlines()[0] if str(failure) else "gated_projection failed"
    return _launch_verdict["verdict"]


def check_launch(target, gen: torch.Generator) -> dict:
    """gated_projection computes the formula in float32, and its result follows the stand-in (TODO 2)."""
    case = inputs(gen)
    evidence = project(target, case, "gelu")
    expect_formula(evidence["out"], case, "gelu", "gated_projection (TODO 2)", FLOAT32_RTOL, FLOAT32_RTOL,
                   evidence.get("maps"))
    expect_follows_stand_in(target, case, "gelu", "gated_projection", "TODO 2", gen)
    return evidence


def check_launch_float64(target, gen: torch.Generator) -> None:
    """In float64, without biases, the launch asks for float64 sums and HAS_BIAS=False (TODO 2)."""
    expect_follows_stand_in(target, inputs(gen, torch.float64, bias=False), "relu",
                            "gated_projection in float64 without biases", "TODO 2", gen)


def expect_launch_works(target, kernels, what: str) -> None:
    """The premises of the tests built on gated_projection: the kernel computes (TODO 1), and
    gated_projection gets its result from it (TODO 2). Each failing premise is charged by its own test."""
    expect_kernel_computes(kernels, what)
    verdict = launch_verdict(target)
    if verdict:
        fail(f"{what}: this counts once gated_projection gets the projection from {KERNEL} (TODO 2;"
             f" test_kernel_does_the_work passes); it does not yet: {verdict}", waits_on="test_kernel_does_the_work",
             todo="TODO 2")


def stand_in_coefficients(gen: torch.Generator) -> dict:
    """Drawn per test: no fixed answer to hard-code."""
    a, b, c = (0.5 + torch.rand(3, generator=gen, dtype=torch.float64)).tolist()
    return {"gated": [a, -b, c / 2]}


def expect_follows_stand_in(target, case: dict, activation: str, what: str, todo: str, gen: torch.Generator,
                            **options) -> None:
    """Run the same call with the kernel replaced by the grader's stand-in: the result must be the
    stand-in's, computed here from the test's own inputs (in float64: a float64 launch that asks for
    float32 sums shows)."""
    coefficients = stand_in_coefficients(gen)
    plain = project(target, case, activation, **options)["out"]
    got = project(target, case, activation, stand_ins=coefficients, **options)["out"]
    x = case["x"].reshape(-1, case["x"].shape[-1])
    want = stand_in_gated(x, case["gate_weight"], case["value_weight"], case.get("gate_bias"), case.get("value_bias"),
                          activation, coefficients["gated"]).reshape(*case["x"].shape[:-1], -1)
    rtol = 1e-12 if case["x"].dtype == torch.float64 else FLOAT32_RTOL
    if got.shape == want.shape and torch.allclose(got.double(), want, rtol=rtol, atol=rtol * want.abs().max().item()):
        return
    a, b, c = coefficients["gated"]
    if got.shape == want.shape and case["x"].dtype == torch.float64 and torch.allclose(
            got, want, rtol=1e-5, atol=1e-5 * want.abs().max().item()):
        fail(f"{what}: the launch asks {KERNEL} for float32 sums on float64 x (right to float32 precision only):"
             f" pass COMPUTE_DTYPE=COMPUTE_DTYPES.get(x.dtype, tl.float32) ({todo})", cause="float32 sums for float64",
             todo=todo.split(":")[0])
    stand_in = (f"with {KERNEL} replaced by a stand-in that writes {a:.3f} * (x Wg^T + bg) {b:+.3f} * (x Wv^T + bv)"
                f" {c:+.3f} * (1 + the activation's place in ACTIVATIONS)")
    if got.shape == plain.shape and torch.equal(got.nan_to_num(), plain.nan_to_num()):
        fail(f"{what} does not get its result from {KERNEL}: {stand_in}, it returned the same as before. The"
             f" projection must be computed by the kernel, launched once, not by PyTorch ({todo})",
             cause="projection not from the kernel", todo=todo.split(":")[0])
    detail = describe_mismatch(got, want, rtol, rtol * want.abs().max().item()) if got.shape == want.shape else (
        f"shape {tuple(got.shape)}, expected {tuple(want.shape)}")
    fail(f"{what}: {stand_in}, it returned something else [{detail}]: launch {KERNEL} with x's rows and strides,"
         " both weights with their own strides, HAS_BIAS, the activation and COMPUTE_DTYPES.get(x.dtype,"
         f" tl.float32), and return what it wrote ({todo})", cause="launch arguments", todo=todo.split(":")[0])


# ------------------------------------------------------------------------------- the kernel

@pytest.mark.points(1)
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_forward_float32(kernels, gen, activation):
    case = inputs(gen)
    evidence = project(kernels, case, activation)
    expect_formula(evidence["out"], case, activation, f"gated_projection(activation={activation!r}) in float32"
                   " (TODO 1-2)", FLOAT32_RTOL, FLOAT32_RTOL, evidence.get("maps"))


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "gated_projection in float64"), counts_once=False)
def test_forward_float64(kernels, gen):
    case = inputs(gen, torch.float64)
    got = project(kernels, case, "gelu")["out"]
    want = formula(case, "gelu")
    if got.dtype == torch.float64 and not torch.allclose(got, want, rtol=1e-12, atol=1e-12 * want.abs().max().item()):
        if torch.allclose(got, want, rtol=1e-5, atol=1e-5 * want.abs().max().item()):
            fail("gated_projection in float64 is right to float32 precision only: accumulate in COMPUTE_DTYPE"
                 " (float64 here: COMPUTE_DTYPES maps it), not in tl.float32 (TODO 1)")
    expect_formula(got, case, "gelu", "gated_projection in float64 (TODO 1-2)", 1e-12, 1e-12)


@pytest.mark.points(1)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bfloat16", "float16"])
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "gated_projection in 16 bits"), counts_once=False)
def test_forward_16bit(kernels, gen, dtype):
    case = inputs(gen, dtype, hidden=WIDE_HIDDEN)
    got = project(kernels, case, "silu")["out"]
    want = formula(case, "silu")
    x, wg, wv, bg, bv = (case[n] for n in ("x", "gate_weight", "value_weight", "gate_bias", "value_bias"))
    eager = F.silu(F.linear(x, wg, bg)) * F.linear(x, wv, bv)  # PyTorch in 16 bits: four roundings
    if got.dtype != dtype:
        fail(f"gated_projection in {dtype}: returned {got.dtype}; allocate the output in x's dtype")
    # The mean error, not the largest: where a sum nearly cancels, float32 accumulation itself is off by
    # more than a 16-bit ulp of the tiny result, in the fused kernel as in eager. Summing in float32 and
    # rounding once gives at most 0.56 of eager's mean error, summing in 16 bits at least 1.86 times it
    # (30 seeds, bfloat16 and float16: the maintainers' self-check of this rule).
    error, allowed = (got.double() - want).abs().mean().item(), (eager.double() - want).abs().mean().item()
    if not error <= allowed:
        fail(f"gated_projection in {dtype} errs by {error:.3g} on average, PyTorch eager by {allowed:.3g}: is it"
             f" accumulating in 16 bits? Keep both sums in COMPUTE_DTYPE (tl.zeros(..., dtype=COMPUTE_DTYPE),"
             " tl.dot into them), apply bias, activation and product there, and convert only in tl.store (TODO 1)")


@pytest.mark.points(1)
@pytest.mark.parametrize("layout", ["transposed", "strided"])
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "gated_projection on a strided x"), counts_once=False)
def test_forward_noncontiguous_x(kernels, gen, layout):
    case = inputs(gen)
    got = project(kernels, case, "silu", layout=layout)["out"]
    expect_formula(got, case, "silu", f"gated_projection on a {layout} x (TODO 1-2: pass x's strides as they are,"
                   " never assume a row is HIDDEN elements apart)", FLOAT32_RTOL, FLOAT32_RTOL)


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "gated_projection without biases"), counts_once=False)
def test_forward_without_bias(kernels, gen):
    case = inputs(gen, bias=False)
    evidence = project(kernels, case, "relu")
    expect_formula(evidence["out"], case, "relu", "gated_projection without biases (HAS_BIAS=False, TODO 1-2)",
                   FLOAT32_RTOL, FLOAT32_RTOL, evidence.get("maps"))


@pytest.mark.points(1)
def test_input_unmodified(kernels, gen):
    case = inputs(gen)
    evidence = project(kernels, case, "silu")
    expect_formula(evidence["out"], case, "silu", "gated_projection (this test counts once its output is right)",
                   FLOAT32_RTOL, FLOAT32_RTOL, waits_on="test_forward_float32[silu]")
    if evidence["input_changed"]:
        fail(f"{KERNEL} changed x: the kernel may only store into the output (TODO 1)")


# ------------------------------------------------------------------------------- the launch code

@pytest.mark.points(1)
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], "gated_projection on a 3-d x"))
def test_forward_3d_input(target, kernels, gen):
    case = inputs(gen, tokens=2 * 3 * 5)
    case["x"] = case["x"].reshape(2, 15, HIDDEN)
    flat = {**case, "x": case["x"].reshape(-1, HIDDEN)}
    got = project(target, case, "silu")["out"]
    if tuple(got.shape) != (2, 15, INTERMEDIATE):
        fail(f"gated_projection on x of shape (2, 15, {HIDDEN}): shape {tuple(got.shape)}, expected"
             f" (2, 15, {INTERMEDIATE}): reshape the (M, N) result to x.shape[:-1] + (N,) (TODO 2)")
    expect_formula(got.reshape(-1, INTERMEDIATE), flat, "silu", "gated_projection on a 3-d x (TODO 2)",
                   FLOAT32_RTOL, FLOAT32_RTOL)
    expect_follows_stand_in(target, case, "silu", "gated_projection on a 3-d x", "TODO 2", gen)


@pytest.mark.points(2)
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], "gated_projection_combined runs"))
def test_combined_weight(target, kernels, gen):
    case = inputs(gen)
    got = project(target, case, "silu", combined=True)["out"]
    swapped = formula({**case, "gate_weight": case["value_weight"], "value_weight": case["gate_weight"],
                       "gate_bias": case["value_bias"], "value_bias": case["gate_bias"]}, "silu")
    if got.shape == swapped.shape and torch.allclose(got.double(), swapped, rtol=1e-4,
                                                     atol=1e-4 * swapped.abs().max().item()):
        fail("gated_projection_combined: the halves are swapped: rows [0, intermediate) are the gate's,"
             " [intermediate, 2 * intermediate) the value's (TODO 3)")
    expect_formula(got, case, "silu", "gated_projection_combined on one (2 * intermediate, hidden) weight (TODO 3)",
                   FLOAT32_RTOL, FLOAT32_RTOL)
    expect_follows_stand_in(target, case, "silu", "gated_projection_combined", "TODO 3: views of weight and bias,"
                            " then gated_projection", gen, combined=True)


@pytest.mark.points(1)
@rests_on(lambda a: expect_kernel_computes(a["kernels"], "gated_projection runs"))
def test_kernel_does_the_work(target, kernels, gen):
    evidence = check_launch(target, gen)
    check_launch_float64(target, gen)
    # What the process reports of its launches can only cost a point: the stand-in above decided the rest.
    if evidence["kernels"] != [KERNEL] or evidence["foreign_kernels"]:
        fail(f"gated_projection launched {evidence['kernels'] or 'none'} of this file's kernels and"
             f" {evidence['foreign_kernels'] or 'no'} others: the whole projection is one launch of {KERNEL}"
             " (TODO 2), with no PyTorch matmul around it")


@pytest.mark.points(1)
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], "gated_projection runs"))
def test_no_tokens(target, kernels, gen):
    case = inputs(gen, tokens=0)
    got = project(target, case, "silu")["out"]
    if tuple(got.shape) != (0, INTERMEDIATE):
        fail(f"gated_projection on 0 tokens: shape {tuple(got.shape)}, expected (0, {INTERMEDIATE}); launch"
             " nothing when M or N is 0 (TODO 2)")


# ------------------------------------------------------------------------------- the block

def glu_weights(gen: torch.Generator, dtype=torch.float64) -> dict:
    def draw(*shape):
        return (torch.randn(*shape, generator=gen, dtype=torch.float64) * 0.3).to(dtype)

    return {"Wv.weight": draw(INTERMEDIATE, HIDDEN), "Wv.bias": draw(INTERMEDIATE),
            "Wg.weight": draw(INTERMEDIATE, HIDDEN), "Wg.bias": draw(INTERMEDIATE),
            "Wo.weight": draw(HIDDEN, INTERMEDIATE), "Wo.bias": draw(HIDDEN)}


def glu_formula(w: dict, x: torch.Tensor, activation: str) -> torch.Tensor:
    hidden = torch_activation(activation)(F.linear(x, w["Wg.weight"], w["Wg.bias"])) * F.linear(
        x, w["Wv.weight"], w["Wv.bias"])
    return F.linear(hidden, w["Wo.weight"], w["Wo.bias"])


def module_run(target, gen, activation: str = "gelu", **options) -> tuple[dict, dict, torch.Tensor, torch.Tensor]:
    weights = glu_weights(gen)
    x = torch.randn(3, 5, HIDDEN, generator=gen, dtype=torch.float64)
    grad_out = torch.randn(3, 5, HIDDEN, generator=gen, dtype=torch.float64)
    return module_evidence(target, weights, x, grad_out, activation, **options), weights, x, grad_out


def module_evidence(target, weights: dict, x: torch.Tensor, grad_out: torch.Tensor, activation: str,
                    **options) -> dict:
    evidence = target.evidence(EXERCISE, "gated_module_run", hidden=HIDDEN, intermediate=INTERMEDIATE,
                               activation=activation, weights=weights, x=x, grad_out=grad_out, **options)
    if "error" in evidence:
        fail(format_error(evidence["error"]), **error_fields(evidence["error"]))
    return evidence


@pytest.mark.points(1)
def test_block_has_glus_layers(target, gen):
    evidence, *_ = module_run(target, gen, run=False)  # the layers alone: the kernel is other tests' to judge
    want = sorted(glu_weights(gen))
    if evidence["names"] != want:
        fail(f"FusedGatedMLP.__init__ (TODO 5): state_dict keys {evidence['names']}, expected {want}: GLU's"
             " layers Wv, Wg and Wo with biases, so that a GLU's weights load into it")


def own_projection(target, weights: dict, x: torch.Tensor, activation: str) -> torch.Tensor:
    """What the code under test's own gated_projection gives on the block's inputs: the block is judged on
    what it does with it (its wiring), so a kernel mistake is charged by the kernel's tests alone."""
    evidence = target.evidence(EXERCISE, "gated_projection_run", x=x, gate_weight=weights["Wg.weight"],
                               value_weight=weights["Wv.weight"], gate_bias=weights["Wg.bias"],
                               value_bias=weights["Wv.bias"], activation=activation)
    if "error" in evidence:
        fail("FusedGatedMLP counts once gated_projection runs on its inputs (TODO 1-2): "
             + format_error(evidence["error"]), waits_on="test_kernel_does_the_work", todo="TODO 2")
    return evidence["out"]


@pytest.mark.points(2)
@pytest.mark.parametrize("activation", ["silu", "gelu"])
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], f"FusedGatedMLP(activation={a['activation']!r}) runs"))
def test_block_matches_glu(target, kernels, gen, activation):
    evidence, weights, x, grad_out = module_run(target, gen, activation)
    hidden = own_projection(target, weights, x, activation)
    want = F.linear(hidden, weights["Wo.weight"], weights["Wo.bias"])
    got = evidence["out"]
    if got.shape != want.shape or not torch.allclose(got, want, rtol=1e-10, atol=1e-10):
        detail = describe_mismatch(got, want, 1e-10, 1e-10) if got.shape == want.shape else f"shape {tuple(got.shape)}"
        fail(f"FusedGatedMLP(activation={activation!r}).forward (TODO 5) is not Wo(gated_projection(x, Wg, Wv))"
             f" with GLU's weights: the gate's and the value's layers, then Wo, then dropout [{detail}]")
    # Does the block's projection come from the kernel? The same call with the kernel replaced by a stand-in.
    coefficients = stand_in_coefficients(gen)
    swapped = module_evidence(target, weights, x, grad_out, activation, stand_ins=coefficients, train=False)["out"]
    flat = x.reshape(-1, HIDDEN)
    projected = stand_in_gated(flat, weights["Wg.weight"], weights["Wv.weight"], weights["Wg.bias"],
                               weights["Wv.bias"], activation, coefficients["gated"])
    want = F.linear(projected, weights["Wo.weight"], weights["Wo.bias"]).reshape(x.shape)
    if swapped.shape != want.shape or not torch.allclose(swapped, want, rtol=1e-9, atol=1e-9 * want.abs().max().item()):
        try:  # the block is float64: a float64 launch that asks for float32 sums is test_kernel_does_the_work's
            check_launch_float64(target, gen)
        except pytest.fail.Exception as failure:
            fail(f"FusedGatedMLP(activation={activation!r}) runs in float64: this counts once gated_projection"
                 f" gets the projection from {KERNEL} in float64 (TODO 2; test_kernel_does_the_work passes); it"
                 f" does not yet: {str(failure).splitlines()[0]}", waits_on="test_kernel_does_the_work", todo="TODO 2")
        a, b, c = coefficients["gated"]
        fail(f"FusedGatedMLP(activation={activation!r}).forward does not get its projection from {KERNEL}: with the"
             f" kernel replaced by a stand-in that writes {a:.3f} * (x Wg^T + bg) {b:+.3f} * (x Wv^T + bv)"
             f" {c:+.3f} * (1 + the activation's place in ACTIVATIONS), its output did not follow. The projection"
             f" must go through GatedProjectionFunction, one launch of {KERNEL} (TODO 5)")


@pytest.mark.points(2)
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], "FusedGatedMLP's backward runs"))
def test_block_gradients(target, kernels, gen):
    evidence, weights, x, grad_out = module_run(target, gen, "gelu")
    leaves = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
    xs = x.clone().requires_grad_(True)
    glu_formula(leaves, xs, "gelu").backward(grad_out)
    want = {name: p.grad for name, p in leaves.items()}
    # Wo's gradient is grad_out^T times what the forward computed: the code under test's own projection,
    # so that a forward mistake is the forward tests' to charge. The rest is the backward's (TODO 4).
    hidden = own_projection(target, weights, x, "gelu")
    want["Wo.weight"] = grad_out.reshape(-1, HIDDEN).T @ hidden.reshape(-1, INTERMEDIATE)

    def close(got, expected) -> bool:
        return got is not None and got.shape == expected.shape and torch.allclose(
            got, expected, rtol=1e-8, atol=1e-8 * expected.abs().nan_to_num().max().item())

    wrong = [name for name in want if not close(evidence["grads"].get(name), want[name])]
    if not close(evidence["grad_x"], xs.grad):
        wrong.insert(0, "x")
    if wrong:
        fail(f"GatedProjectionFunction.backward (TODO 4): the gradients of {', '.join(wrong)} are wrong: with"
             " g = x Wg^T + bg and v = x Wv^T + bv, d/dv = grad * act(g), d/dg = grad * v * act'(g), then"
             " through the two linear maps (the biases' gradients sum over the tokens)")


@pytest.mark.points(1)
@rests_on(lambda a: expect_launch_works(a["target"], a["kernels"], "FusedGatedMLP runs in training"))
def test_block_dropout(target, kernels, gen):
    evidence, *_ = module_run(target, gen, "silu", dropout=0.5, train=True)
    zeros = (evidence["out"] == 0).double().mean().item()
    # 225 outputs, share 0.5: six standard deviations are 0.2 either side.
    if not 0.3 <= zeros <= 0.7:
        fail(f"FusedGatedMLP in training with dropout=0.5: {zeros:.0%} of the outputs are zero, expected about"
             " half: the dropout goes after Wo, and only in training (TODO 5)")
