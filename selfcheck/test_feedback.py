"""A student's feedback file (``instructor/feedback.py``): one line per cause, causes first, an untouched
task in one line, untrusted text shown literally and cut where a reader would stop, nothing of the
sandbox's insides, in Markdown and in plain text. What each output makes of a hostile name is
``test_hostile_names.py``'s."""

from __future__ import annotations

import pytest

from grader import report
from grader.results import Grade
from grader.results import TestResult as Result
from grader.probes.safe_text import markdown_cell, shorten
from instructor.feedback import FORMATS, MESSAGE_CHARS, feedback

NO_BIAS = "MLP.__init__ (TODO 1 in exercises/mlp_block.py): the block has no {layer}.bias; every layer needs one"
WAITING = ("MLP: the output shape is right, but the output is not the block's output yet: no biases."
           " This test counts once the output is right")
STUB = "not implemented yet: triton_swiglu.py: TODO 1 in exercises/triton_swiglu.py"


def grade_with(tests: list[Result]) -> Grade:
    return Grade(submission="alice", seed=7, tests=tests, sandboxed=True)


def failed(name: str, task: str, message: str, worth: int = 1, kind: str = "failed", cause: str = "unexplained",
           waits_on: str = "") -> Result:
    """A failed result with the fields its test would set (grader/judge/checks.py's fail)."""
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
    assert causes[0].startswith(f"- Fix first: {markdown_cell('MLP.__init__')}") and "(3 tests, 6 points:" in causes[0], causes[0]
    assert "`test_parity_with_reference[relu-MLP]`" in causes[0]
    assert causes[1].startswith("- 2 more tests (2 points) count once the output is right"), causes[1]


def test_a_task_not_started_is_one_line(one_slip):
    text = feedback("alice", one_slip)
    assert "## SwiGLU: not started (0 of 5)" in text
    assert text.count("not implemented yet") == 1, text


def test_untrusted_text_is_shown_literally_on_one_line():
    hostile = "boom `rm -rf` [click](http://x) <b>bold</b> # heading\nsecond line"
    text = feedback("alice", grade_with([failed("test_mlp.py::test_gradients[MLP]", "mlp", hostile, 2)]))
    line = next(line for line in text.splitlines() if line.startswith("- Fix first:"))
    assert f"- Fix first: {markdown_cell(hostile)} (1 test" in line and "heading second line" in line, line


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
    grade = Grade(submission="alice", seed=7, tests=tests, sandboxed=True, bonus={"swiglu": 5, "gated": 5}, bonus_cap=4)
    text = feedback("alice", grade)
    assert ("Score: 2 of 2, bonus 4 of 4 (MLP 2/2, SwiGLU (bonus) 0/3 for 0 bonus points, Fused gated MLP (bonus)"
            " 1/1 for 5 bonus points). Bonus points count up to 4 in all.") in text, text
    assert "## SwiGLU (bonus): not handed in (optional)" in text and "Fix first" not in text, text
    assert "FileNotFoundError" not in text, text


def test_one_triton_mask_mistake_is_one_bullet_whatever_its_numbers_and_tensors():
    """The same missing mask seen from several programs and tensors: one cause, so one line."""
    said = "swiglu_forward raised OutOfBoundsAccess: _swiglu_forward_kernel (program {p} of {n}) tried to tl.load" \
           " {k} element(s) outside the tensors it was given, up to {k} element(s) past the end of {t}'s tensor"
    tests = [failed(f"test_triton_swiglu.py::test_forward_float32[{i}d]", "swiglu", said.format(p=i, n=i + 1, k=3 * i + 1,
                    t=("gate_ptr", "value_ptr", "out_ptr")[i % 3]), cause="OutOfBoundsAccess in swiglu_forward")
             for i in range(5)]
    text = feedback("alice", grade_with(tests))
    bullets = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(bullets) == 1 and "(5 tests, 5 points:" in bullets[0], text
    assert "(program 0 of 1)" in bullets[0] and "program 1 of 2" not in bullets[0], bullets[0]


INSTRUCTOR_ONLY = ("uid", "cgroup", "/grader-child/", "its own;")


def test_students_read_no_uid_cgroup_or_sandbox_path_the_instructor_keeps_them():
    grade = grade_with([failed("test_mlp.py::test_gradients[MLP]", "mlp", "MLP.forward raised ValueError", 2)])
    grade.isolation_summary = "sandboxed with bubblewrap (no network, no access to the grader's files)"
    grade.isolation = (grade.isolation_summary + "; as uid 1900002295, its own; memory limit over all its processes"
                       " (cgroup v1); CPU limit 1 core over all its processes (cgroup v1)")
    for fmt in FORMATS:
        read = feedback("alice", grade, fmt)
        assert not [word for word in INSTRUCTOR_ONLY if word in read], read
    for shown in (report.text(grade), report.markdown(grade), report.gradescope(grade)["output"]):
        assert "sandboxed with bubblewrap" in shown and not [w for w in INSTRUCTOR_ONLY if w in shown], shown
    assert report.as_json(grade)["isolation"] == grade.isolation
    assert report.gradescope(grade)["extra_data"]["isolation"] == grade.isolation  # stored, not shown


def test_no_grader_frame_is_where_to_look():
    """A failure raised inside the grader's own package (in the sandbox: /grader-child/grader/...) points
    at the caller's line, not at the grader's."""
    from grader.probes.core import describe_exception
    from grader.probes.safe_text import shorten

    try:
        shorten(None, 1)  # raises inside grader/probes/safe_text.py
    except TypeError as exc:
        where = describe_exception("a stage", exc)["where"]
    assert where.startswith("selfcheck") and "test_no_grader_frame_is_where_to_look" in where, where
    assert "grader/" not in where.replace("selfcheck", ""), where


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_long_message_is_cut_at_a_word_never_in_a_code_span_or_a_number(fmt):
    words = "word " * 75  # 375 characters: the cut falls in what comes next
    message = words + "got 1.2345678e-06 where `tl.load(ptr + offsets, mask=offsets < n_cols)` was expected today"
    text = feedback("alice", grade_with([failed("test_mlp.py::test_gradients[MLP]", "mlp", message, 2)]), fmt)
    line = next(line for line in text.splitlines() if "Fix first:" in line)
    shown = line.split("Fix first: ", 1)[1].rsplit(" (1 test", 1)[0]
    assert shown.endswith(" …") and len(shown) <= MESSAGE_CHARS, shown
    kept = shown.removesuffix(" …")
    assert message.startswith(kept) and message[len(kept)] == " ", kept[-40:]  # a whole word, a whole number
    assert "tl.load" not in kept and "1.2345678e-06" in kept, kept[-60:]


def test_shorten_keeps_short_text_and_never_splits_a_long_word_inside_a_number():
    assert shorten("short enough", 40) == "short enough"
    assert shorten("x=1.25e-06,y=2", 10) == "x= …"
    assert shorten("see `a b c d e f` and more after it", 14) == "see …"  # the span would be cut
    assert shorten("see `a b c d e f` and more after it", 20) == "see `a b c d e f` …"  # it is kept whole
