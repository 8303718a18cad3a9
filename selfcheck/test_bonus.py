"""Bonus tasks (``--bonus swiglu=5,gated=5``, ``--bonus-cap N``): a bonus task's full marks are worth the
points the instructor sets, a part of them that part; bonus points count in the score, never in the
maximum, and every report and export calls them bonus, reading one computation (``grader/results.py``)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from grader import report
from grader.cli import bonus_of, bonus_option, build_parser
from grader.grading import GraderFailure
from grader.results import BonusRule, Grade
from grader.results import TestResult as Result
from grader.paths import REPO, reference_file
from instructor import exports
from instructor.classroom50 import result_json
from instructor.feedback import feedback


def a_grade(bonus: dict[str, float | None], cap: float | None = None, gated_points: int = 0) -> Grade:
    """MLP 2 of 2 (core); SwiGLU 1 of 2 and Fused gated MLP ``gated_points`` of 4 (bonus where named)."""
    tests = [Result("test_mlp.py::test_gradients[MLP]", "mlp", 2, 2, "passed"),
             Result("test_triton_swiglu.py::test_gradcheck_float64", "swiglu", 1, 1, "passed"),
             Result("test_triton_swiglu.py::test_forward_empty", "swiglu", 0, 1, "failed", "not implemented yet",
                    kind="not_implemented", cause="not implemented: _swiglu_forward_kernel"),
             Result("test_triton_gated_mlp.py::test_forward_float64", "gated", gated_points, 4,
                    "passed" if gated_points else "failed", "" if gated_points else "wrong")]
    return Grade(submission="alice", seed=1, tests=tests, bonus=bonus, bonus_cap=cap, sandboxed=True)


def test_a_bonus_task_is_worth_its_weight_scaled_by_its_share_of_points():
    plain = a_grade({})
    assert (plain.score, plain.max_score, plain.bonus_score) == (3, 8, 0)
    weighted = a_grade({"swiglu": 5, "gated": 5}, gated_points=4)
    assert weighted.task_bonus("swiglu") == 2.5 and weighted.task_bonus("gated") == 5
    assert (weighted.core_score, weighted.max_score, weighted.bonus_score, weighted.bonus_max) == (2, 2, 7.5, 10)
    assert weighted.score == 9.5
    # Without a weight a bonus task's full marks are worth its own points (--bonus swiglu).
    own = a_grade({"swiglu": None})
    assert (own.score, own.max_score, own.bonus_score, own.bonus_max) == (3, 6, 1, 2)


def test_the_cap_bounds_the_bonus_in_all_and_says_so():
    capped = a_grade({"swiglu": 5, "gated": 5}, cap=6, gated_points=4)
    assert (capped.bonus_score, capped.bonus_max, capped.score) == (6, 6, 8) and capped.bonus_capped()
    assert report.text(capped).endswith("Total: 2/2 points + bonus 6/6 (at most 6 in all) = 8")
    loose = a_grade({"swiglu": 5, "gated": 5}, cap=20)
    assert loose.bonus_max == 10 and not loose.bonus_capped()


def test_every_report_calls_it_bonus_and_reads_the_same_grade():
    grade = a_grade({"swiglu": 5, "gated": 5})
    shown = report.text(grade)
    assert "Total: 2/2 points + bonus 2.5/10 = 4.5" in shown, shown
    assert "SwiGLU (bonus)" in shown and "2.5/5" in shown and "0/5" in shown, shown
    assert report.markdown(grade).startswith("### Grade: 2/2 points + bonus 2.5/10 = 4.5\n")
    data = report.as_json(grade)
    assert (data["score"], data["max_score"], data["core_score"]) == (4.5, 2, 2)
    assert (data["bonus"], data["bonus_weights"], data["bonus_cap"]) == (["swiglu", "gated"], {"swiglu": 5, "gated": 5}, None)
    assert (data["bonus_score"], data["bonus_max"]) == (2.5, 10)
    tasks = {t["task"]: t for t in data["tasks"]}
    assert (tasks["swiglu"]["bonus_points"], tasks["swiglu"]["bonus_max"], tasks["mlp"]["bonus_points"]) == (2.5, 5, None)
    again = report.from_json(json.loads(json.dumps(data)))
    assert (again.score, again.max_score, again.bonus_score, again.bonus_max) == (4.5, 2, 2.5, 10)
    text = feedback("alice", grade)
    assert text.startswith("# Feedback for alice\n\nScore: 2 of 2, bonus 2.5 of 10 (MLP 2/2, SwiGLU (bonus) 1/2 for"
                           " 2.5 bonus points, Fused gated MLP (bonus) 0/4 for 0 bonus points)."), text
    assert "## SwiGLU (bonus): 1 of 2, bonus 2.5 of 5" in text, text


def test_a_report_of_the_earlier_version_reads_with_unweighted_bonus_tasks():
    data = report.as_json(a_grade({}))
    data.update(bonus=["swiglu"])
    for key in ("bonus_weights", "bonus_cap", "isolation_summary"):
        del data[key]
    grade = report.from_json(data)
    assert (grade.score, grade.max_score, grade.bonus_max) == (3, 6, 2)


def test_gradescope_counts_core_plus_bonus_over_the_core_maximum():
    data = report.gradescope(a_grade({"swiglu": 5, "gated": 5}, gated_points=4))
    assert data["score"] == 9.5 and data["extra_data"]["max_score"] == 2, data["extra_data"]
    names = [t["name"] for t in data["tests"]]
    assert names[0] == "MLP: test_mlp.py::test_gradients[MLP]"
    assert names[1] == "SwiGLU (bonus): test_triton_swiglu.py::test_gradcheck_float64"
    assert "bonus 7.5/10" in data["output"]
    # The tests' maxima add up to the assignment's; a bonus test earns its share of its task's bonus points.
    assert sum(t["max_score"] for t in data["tests"]) == 2, data["tests"]
    assert sum(t["score"] for t in data["tests"]) == data["score"], data["tests"]


def test_gradescope_shows_a_bonus_task_not_handed_in_as_one_line():
    grade = a_grade({"swiglu": 5, "gated": 5})
    for t in grade.tests:
        if t.task in ("swiglu", "gated"):
            t.status, t.points, t.kind = "failed", 0, "not_handed_in"
    data = report.gradescope(grade)
    lines = [t for t in data["tests"] if "(bonus)" in t["name"]]
    assert [t["name"] for t in lines] == ["SwiGLU (bonus): not handed in (optional)",
                                          "Fused gated MLP (bonus): not handed in (optional)"], lines
    assert all(t["score"] == t["max_score"] == 0 and t["status"] == "passed" for t in lines), lines


def test_classroom50_counts_whole_bonus_points_and_never_past_its_maximum():
    fields = {"classroom": "c", "assignment": "a", "submission": "submit/x", "commit": "u", "release": "u",
              "review": "u"}
    some = result_json(report.as_json(a_grade({"swiglu": 5, "gated": 5})), fields)
    assert (some["score"], some["max-score"]) == (2, 2)  # 2 core points and 2.5 bonus points: 2 at most
    core_short = a_grade({"swiglu": 5, "gated": 5}, gated_points=4)
    core_short.tests[0] = Result("test_mlp.py::test_gradients[MLP]", "mlp", 0, 2, "failed", "wrong")
    result = result_json(report.as_json(core_short), fields)
    assert (result["score"], result["max-score"]) == (2, 2)  # 0 core points and 7.5 bonus points, at most 2
    half = result_json(report.as_json(a_grade({"gated": 0.5}, gated_points=4)), fields)
    assert (half["score"], half["max-score"]) == (3, 4)  # 3 core points and 0.5 bonus points, in whole points
    assert half["tests"][-1]["test-name"] == "Fused gated MLP (bonus): test_triton_gated_mlp.py::test_forward_float64"


def parsed(*argv: str) -> BonusRule | None:
    args = build_parser().parse_args(list(argv))
    return bonus_of(args, args.tasks and args.tasks.split(","))


def test_bonus_weights_and_cap_are_read_and_written_back():
    rule = parsed("--tasks", "mlp,swiglu,gated", "--bonus", "swiglu=5, GATED=2.5", "--bonus-cap", "6")
    assert rule == BonusRule({"swiglu": 5.0, "gated": 2.5}, 6.0)
    assert bonus_option(rule) == ("swiglu=5,gated=2.5", "6")
    assert parsed("--bonus", "swiglu").weights == {"swiglu": None} and parsed() is None


@pytest.mark.parametrize("argv, says", [
    (["--bonus", "swiglu=five"], "--bonus swiglu=five: swiglu=five is not a number of points above 0; expected"
                                 " TASK=POINTS or TASK"),
    (["--bonus", "swiglu=-1"], "swiglu=-1 is not a number of points above 0"),
    (["--bonus", "swiglu=nan"], "swiglu=nan is not a number of points above 0"),
    (["--bonus", "=5"], "'=5' names no task"),
    (["--bonus", "swiglu,swiglu=2"], "swiglu is named twice"),
    (["--bonus", "attention=5"], "--bonus: unknown task attention"),
    (["--tasks", "mlp", "--bonus", "glu=5"], "a bonus task must be one of the tasks graded (mlp)"),
    (["--tasks", "mlp,glu", "--bonus", "glu=5,mlp"], "every task graded is a bonus, so the grade has no maximum"),
    (["--bonus-cap", "3"], "--bonus-cap 3: a cap needs bonus tasks"),
    (["--bonus", "swiglu=5", "--bonus-cap", "lots"], "--bonus-cap lots: expected a number of points above 0"),
])
def test_bad_bonus_options_name_the_option_and_what_was_expected(argv, says):
    with pytest.raises(GraderFailure) as error:
        parsed(*argv)
    assert says in str(error.value), str(error.value)


def grader(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


def test_a_bad_bonus_is_a_grader_error_exit_3():
    proc = grader("--tasks", "mlp", "--bonus", "mlp=x")
    assert proc.returncode == 3 and "grader error: --bonus mlp=x: mlp=x is not a number" in proc.stderr, proc.stderr


def test_a_graded_run_reports_the_bonus(tmp_path):
    (tmp_path / "mlp_block.py").write_text(reference_file("mlp_block").read_text())
    proc = grader(str(tmp_path), "--tasks", "mlp,glu", "--bonus", "glu=5", "--json", str(tmp_path / "g.json"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "g.json").read_text())
    assert (data["score"], data["max_score"], data["bonus_score"], data["bonus_max"]) == (30, 25, 5, 5), data
    assert "Total: 25/25 points + bonus 5/5 = 30" in proc.stdout, proc.stdout


def test_the_gradescope_script_passes_the_bonus_on():
    script = exports.gradescope_scripts(["mlp", "glu", "swiglu"], BonusRule({"swiglu": 5.0}, 4.0))["run_autograder"]
    assert 'BONUS="swiglu=5"' in script and 'BONUS_CAP="4"' in script
    assert '${BONUS:+--bonus "$BONUS"}' in script and '${BONUS_CAP:+--bonus-cap "$BONUS_CAP"}' in script
    plain = exports.gradescope_scripts(None)["run_autograder"]
    assert 'BONUS=""' in plain and 'BONUS_CAP=""' in plain
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0


def test_the_classroom50_folder_passes_the_bonus_on(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "instructor", "--classroom50", str(tmp_path / "c"), "--tasks",
                           "mlp,swiglu", "--bonus", "swiglu=5", "--bonus-cap", "4"], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    script = (tmp_path / "c" / "autograder.py").read_text()
    assert "BONUS = {'swiglu': 5.0}" in script and "BONUS_CAP = 4.0" in script, script
    assert "main(FOLDER, TASKS, REQUIREMENTS, BONUS, BONUS_CAP)" in script
    ast.parse(script)
    assert "BONUS = {}" in exports.classroom50_script(["mlp"]) and "BONUS_CAP = None" in exports.classroom50_script(["mlp"])


def test_a_bonus_task_not_handed_in_is_no_failure_to_fix():
    missing = [Result(f"test_triton_swiglu.py::test_forward_float32[{d}d]", "swiglu", 0, 1, "failed",
                      "could not import triton_swiglu.py: FileNotFoundError", kind="not_handed_in",
                      cause="not handed in: triton_swiglu.py") for d in range(2)]
    grade = Grade(submission="alice", seed=1, bonus={"swiglu": 5},
                  tests=[Result("test_mlp.py::test_gradients[MLP]", "mlp", 2, 2, "passed"), *missing])
    shown = report.text(grade)
    assert grade.first_failure() is None and "First failure" not in shown, shown
    assert "Not handed in (optional, bonus): SwiGLU" in shown, shown


def test_bonus_files_not_handed_in_are_one_line_in_a_real_run(tmp_path):
    """Graded by the suites themselves: the kernel tests read the file apart from the import, and others
    wait on them; every test of a task whose file is missing still says "not handed in"."""
    (tmp_path / "mlp_block.py").write_text(reference_file("mlp_block").read_text())
    proc = grader(str(tmp_path), "--tasks", "mlp,swiglu,gated", "--bonus", "swiglu=5,gated=5", "--json",
                  str(tmp_path / "g.json"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "g.json").read_text())
    kinds = {(t["task"], t["kind"], t["cause"]) for t in data["tests"] if t["task"] != "mlp"}
    assert kinds == {("swiglu", "not_handed_in", "not handed in: triton_swiglu.py"),
                     ("gated", "not_handed_in", "not handed in: triton_gated_mlp.py")}, kinds
    assert "Not handed in (optional, bonus): SwiGLU, Fused gated MLP" in proc.stdout, proc.stdout
    assert "First failure" not in proc.stdout, proc.stdout
    # and each test's message says so, not what a kernel test's premise made of the missing file
    messages = {(t["task"], t["message"]) for t in data["tests"] if t["task"] != "mlp"}
    assert messages == {("swiglu", "not handed in: no file triton_swiglu.py in the submission"),
                        ("gated", "not handed in: no file triton_gated_mlp.py in the submission")}, messages
