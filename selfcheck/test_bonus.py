"""Bonus tasks (``--bonus``): their points count in the score, not in the maximum, in every report and
export that can say so; an export that cannot (Classroom 50) refuses with the way round it."""

from __future__ import annotations

import json
import subprocess
import sys

from grader import report
from grader.results import Grade
from grader.results import TestResult as Result
from grader.paths import REPO, reference_file
from instructor import exports


def a_grade(bonus: list[str]) -> Grade:
    tests = [Result("test_mlp.py::test_gradients[MLP]", "mlp", 2, 2, "passed"),
             Result("test_triton_swiglu.py::test_gradcheck_float64", "swiglu", 1, 1, "passed"),
             Result("test_triton_swiglu.py::test_forward_empty", "swiglu", 0, 1, "failed", "not implemented yet")]
    return Grade(submission="alice", seed=1, tests=tests, bonus=bonus)


def test_a_bonus_task_counts_in_the_score_not_in_the_maximum():
    plain, with_bonus = a_grade([]), a_grade(["swiglu"])
    assert (plain.score, plain.max_score) == (3, 4)
    assert (with_bonus.score, with_bonus.max_score) == (3, 2)
    assert "Total: 3/2 points (SwiGLU: bonus" in report.text(with_bonus)
    data = report.as_json(with_bonus)
    assert data["bonus"] == ["swiglu"] and [t["bonus"] for t in data["tasks"]] == [False, True]
    assert report.from_json(json.loads(json.dumps(data))).max_score == 2


def grader(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


def test_bonus_tasks_must_be_graded_and_not_all_of_them():
    outside = grader("--tasks", "mlp", "--bonus", "glu")
    assert outside.returncode == 3 and "a bonus task must be one of the tasks graded (mlp)" in outside.stderr
    everything = grader("--tasks", "mlp,glu", "--bonus", "glu,mlp")
    assert everything.returncode == 3 and "the grade has no maximum" in everything.stderr


def test_a_graded_run_reports_the_bonus(tmp_path):
    (tmp_path / "mlp_block.py").write_text(reference_file("mlp_block").read_text())
    proc = grader(str(tmp_path), "--tasks", "mlp,glu", "--bonus", "glu", "--json", str(tmp_path / "g.json"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "g.json").read_text())
    assert (data["score"], data["max_score"], data["bonus"]) == (50, 25, ["glu"]), data


def test_the_gradescope_script_passes_the_bonus_on():
    script = exports.gradescope_scripts(["mlp", "glu", "swiglu"], ["swiglu"])["run_autograder"]
    assert 'BONUS="swiglu"' in script and '${BONUS:+--bonus "$BONUS"}' in script
    assert 'BONUS=""' in exports.gradescope_scripts(None)["run_autograder"]


def test_classroom50_refuses_a_bonus_and_says_how(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "instructor", "--classroom50", str(tmp_path / "c"), "--tasks",
                           "mlp,swiglu", "--bonus", "swiglu"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3 and "--classroom50 DIR --tasks swiglu" in proc.stderr, proc.stderr
    assert not (tmp_path / "c").exists()


def test_a_bonus_task_not_handed_in_is_no_failure_to_fix():
    missing = [Result(f"test_triton_swiglu.py::test_forward_float32[{d}d]", "swiglu", 0, 1, "failed",
                      "could not import triton_swiglu.py: FileNotFoundError", kind="not_handed_in",
                      cause="not handed in: triton_swiglu.py") for d in range(2)]
    grade = Grade(submission="alice", seed=1, bonus=["swiglu"],
                  tests=[Result("test_mlp.py::test_gradients[MLP]", "mlp", 2, 2, "passed"), *missing])
    shown = report.text(grade)
    assert grade.first_failure() is None and "First failure" not in shown, shown
    assert "Not handed in (optional, bonus): SwiGLU" in shown, shown
