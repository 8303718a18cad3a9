"""A student's feedback file (``instructor/feedback.py``): one line per cause, causes first, an untouched
task in one line, untrusted text shown literally, in Markdown and in plain text."""

from __future__ import annotations

import pytest

from grader.results import Grade
from grader.results import TestResult as Result
from instructor.feedback import feedback

NO_BIAS = "MLP.__init__ (TODO 1 in exercises/mlp_block.py): the block has no {layer}.bias; every layer needs one"
WAITING = ("MLP: the output shape is right, but the output is not the block's output yet: no biases."
           " This test counts once the output is right")
STUB = "not implemented yet: triton_swiglu.py: TODO 1 in exercises/triton_swiglu.py"


def grade_with(tests: list[Result]) -> Grade:
    return Grade(submission="alice", seed=7, tests=tests, sandboxed=True)


def failed(name: str, task: str, message: str, worth: int = 1, kind: str = "failed", cause: str = "unexplained",
           waits_on: str = "") -> Result:
    """A failed result with the fields its test would set (tests/checks.py's fail)."""
    return Result(name=name, task=task, points=0, max_points=worth, status="failed", message=message, kind=kind,
                  cause=cause, waits_on=waits_on)


@pytest.fixture
def one_slip() -> Grade:
    """No biases: one cause behind many tests, tests that wait for it, and a task never started."""
    tests = [failed(f"test_mlp.py::test_parity_with_reference[{case}-MLP]", "mlp", NO_BIAS.format(layer=layer), 2,
                    cause="MLP: no biases") for case, layer in (("default", "Wi"), ("relu", "Wi"), ("silu", "Wo"))]
    tests += [failed(f"test_mlp.py::test_output_shape[{d}-MLP]", "mlp", WAITING, kind="waits",
                     waits_on="test_parity_with_reference[default-MLP]") for d in ("2d", "3d")]
    tests += [Result("test_mlp.py::test_layer_names[MLP]", "mlp", 1, 1, "passed")]
    tests += [failed(f"test_triton_swiglu.py::test_forward_float32[{d}d]", "swiglu", STUB, kind="not_implemented",
                     cause="not implemented: _swiglu_forward_kernel") for d in range(5)]
    return grade_with(tests)


def test_one_cause_is_one_line_with_its_tests_and_points(one_slip):
    text = feedback("alice", one_slip)
    causes = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(causes) == 2, text
    assert causes[0].startswith("- Fix first: `MLP.__init__") and "(3 tests, 6 points:" in causes[0], causes[0]
    assert "`test_parity_with_reference[relu-MLP]`" in causes[0]
    assert causes[1].startswith("- 2 more tests (2 points) count once the output is right"), causes[1]


def test_a_task_not_started_is_one_line(one_slip):
    text = feedback("alice", one_slip)
    assert "## SwiGLU: not started (0 of 5)" in text
    assert text.count("not implemented yet") == 1, text


def test_untrusted_text_is_shown_literally_without_backslashes():
    hostile = "boom `rm -rf` [click](http://x) <b>bold</b> # heading\nsecond line"
    text = feedback("alice", grade_with([failed("test_mlp.py::test_gradients[MLP]", "mlp", hostile, 2)]))
    line = next(line for line in text.splitlines() if line.startswith("- Fix first:"))
    assert "`boom 'rm -rf' [click](http://x) <b>bold</b> # heading second line`" in line, line
    assert "\\" not in text


def test_plain_text_has_no_markup(one_slip):
    text = feedback("alice", one_slip, "txt")
    assert "`" not in text and "#" not in text and "SwiGLU: not started (0 of 5)\n---" in text
    assert "* Fix first: MLP.__init__" in text


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="feedback format 'html'"):
        feedback("alice", grade_with([]), "html")


def test_a_hang_is_the_cause_not_the_tests_it_left_without_time():
    hang = "MLP.forward did not finish within 60 s and was stopped: an endless loop, or far too much work?"
    starved = ("your mlp_block.py was not run: the grader's time budget for task mlp (300 s) was used up by"
               " earlier calls that hung or were slow")
    tests = [failed("test_mlp.py::test_layer_names[MLP]", "mlp", hang, cause="Timeout in MLP.forward")]
    tests += [failed(f"test_mlp.py::test_output_shape[{d}-MLP]", "mlp", starved, kind="out_of_time",
                     cause="out of time") for d in ("2d", "3d", "4d")]
    grade = grade_with(tests)
    assert grade.first_failure("mlp").message == hang
    line = next(line for line in feedback("alice", grade).splitlines() if line.startswith("- Fix first:"))
    assert "did not finish within 60 s" in line, line
    assert "run_block" not in feedback("alice", grade)


def test_a_bonus_task_not_handed_in_is_one_line_and_its_points_are_told_apart():
    missing = "could not import triton_swiglu.py: FileNotFoundError: no file triton_swiglu.py in the submission"
    tests = [Result("test_mlp.py::test_gradients[MLP]", "mlp", 2, 2, "passed")]
    tests += [failed(f"test_triton_swiglu.py::test_forward_float32[{d}d]", "swiglu", missing, kind="not_handed_in",
                     cause="not handed in: triton_swiglu.py") for d in range(3)]
    tests += [Result("test_triton_gated_mlp.py::test_forward_float64", "gated", 1, 1, "passed")]
    grade = Grade(submission="alice", seed=7, tests=tests, sandboxed=True, bonus=["swiglu", "gated"])
    text = feedback("alice", grade)
    assert "Score: 2 of 2, plus 1 bonus point (MLP 2/2, SwiGLU (bonus) 0/3, Fused gated MLP (bonus) 1/1)." in text, text
    assert "## SwiGLU (bonus): not handed in (optional)" in text and "Fix first" not in text, text
    assert "FileNotFoundError" not in text, text
