"""What the fused SwiGLU suite takes out of a student's file for its kernel tests (grader/kernel_source.py):
the two kernels and the @triton.jit helpers they call, Triton language only, with the stub's parameters,
in the reference's launch code and nothing else of it."""

from __future__ import annotations

import pytest

pytest.importorskip("triton", reason="Triton is not installed (Linux only)")

from grader.kernel_source import assemble  # noqa: E402
from selfcheck.harness import REPO  # noqa: E402

REFERENCE = (REPO / "solution" / "hidden" / "reference_triton_swiglu.py").read_text()
FORWARD_BODY = "    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n"


def with_forward_line(line: str, prelude: str = "") -> str:
    """The reference as a student's file, one line of its forward kernel changed."""
    return prelude + REFERENCE.replace(FORWARD_BODY, line)


def forward_problem(student: str) -> str:
    problems = assemble(student, REFERENCE, "triton_swiglu.py").problems
    assert "_swiglu_backward_kernel" not in problems, problems
    return str(problems.get("_swiglu_forward_kernel", ""))


def test_reference_kernels_taken_and_only_the_launch_code_around_them():
    assembled = assemble(REFERENCE, REFERENCE, "triton_swiglu.py")
    assert not assembled.problems
    for absent in ("class FusedSwiGLU", "class SwiGLUFunction", "def swiglu(", "Reference fused SwiGLU"):
        assert absent not in assembled.source
    for present in ("def swiglu_forward(", "def swiglu_backward(", "def _swiglu_forward_kernel("):
        assert present in assembled.source
    compile(assembled.source, "triton_swiglu.py", "exec")


def test_kernel_keeps_its_line_numbers():
    source = assemble(REFERENCE, REFERENCE, "triton_swiglu.py").source.splitlines()
    reference = REFERENCE.splitlines()
    line = reference.index(FORWARD_BODY.rstrip("\n"))
    assert source[line] == reference[line]


@pytest.mark.parametrize("line,said", [
    ("    out = torch.sigmoid(gate) * value\n", "uses the name torch, defined outside it"),
    ("    out = gate.handle * value\n", "uses .handle, which is not part of Triton's language"),
    ("    out = [g for g in gate]\n", "uses ListComp, which is not Triton language"),
    ("    out = open('x') * value\n", "uses Python's open"),
    ("    out = SCALE * gate * value\n", "uses the name SCALE, defined outside it"),
])
def test_python_in_a_kernel_refused_with_its_line(line, said):
    problem = forward_problem(with_forward_line(line))
    assert said in problem and "_swiglu_forward_kernel (triton_swiglu.py:" in problem, problem


def test_jit_helper_taken_and_checked_too():
    helper = "@triton.jit\ndef gated(g, v):\n    return g * tl.sigmoid(g) * v\n\n\n"
    ok = assemble(with_forward_line("    out = gated(gate, value)\n", helper), REFERENCE, "triton_swiglu.py")
    assert not ok.problems and "def gated(" in ok.source
    bad = "@triton.jit\ndef gated(g, v):\n    import os\n    return g * v\n\n\n"
    assert "uses Import" in forward_problem(with_forward_line("    out = gated(gate, value)\n", bad))


def test_other_signature_named_in_one_line():
    student = REFERENCE.replace("    n_cols,  # elements per row; the last block of a row runs past it and is masked\n",
                                "    n_elements,\n", 1)
    problem = forward_problem(student)
    assert "takes (gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride, n_elements," in problem
    assert "expected (gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride, n_cols," in problem
    assert "keep the signature the stub gives (TODO 1)" in problem and "\n" not in problem


def test_autotune_refused():
    student = REFERENCE.replace("@triton.jit\ndef _swiglu_forward_kernel(", "@triton.autotune([], key=[])\n"
                                "@triton.jit\ndef _swiglu_forward_kernel(", 1)
    assert "@triton.autotune" in forward_problem(student)


def test_stub_is_not_implemented_and_missing_kernel_named():
    stub = (REPO / "exercises" / "triton_swiglu.py").read_text()
    problems = assemble(stub, REFERENCE, "exercises/triton_swiglu.py").problems
    assert problems["_swiglu_forward_kernel"].not_implemented
    assert str(problems["_swiglu_backward_kernel"]) == ("_swiglu_backward_kernel: TODO 2 in exercises/triton_swiglu.py"
                                                        " (its body is still empty)")
    missing = assemble("import torch\n", REFERENCE, "triton_swiglu.py").problems
    assert "defines no @triton.jit function _swiglu_forward_kernel" in str(missing["_swiglu_forward_kernel"])
    assert assemble("def f(:\n", REFERENCE, "x.py").problems["_swiglu_forward_kernel"].args[0].startswith(
        "could not import x.py: SyntaxError")
