"""A test's points are read by one function (``grader/points.py``): one value, one per task, or a fraction;
anything else refused by name; every reader (the grader's plugin, the documents' source reader, the Classroom
50 export) gets the same value from it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader import points
from grader.grading import GraderFailure
from grader.paths import REPO
from instructor import exports


def test_one_value_one_per_task_or_a_fraction():
    assert points.worth((2,), {}, "glu") == 2
    assert points.worth((), {"mlp": 1, "glu": 2}, "glu") == 2
    assert points.worth((0.5,), {}, "cost") == 0.5 and points.worth((2.0,), {}, "cost") == 2
    assert isinstance(points.worth((2.0,), {}, "cost"), int)  # shown as 2, not 2.0


@pytest.mark.parametrize("args, kwargs, says", [
    ((), {}, "without a value"),
    ((0,), {}, "no number of points"),
    ((-1,), {}, "no number of points"),
    ((True,), {}, "no number of points"),
    (("2",), {}, "no number of points"),
    ((float("nan"),), {}, "no number of points"),
    ((0.333,), {}, "to a hundredth"),
    ((1000,), {}, "at most"),
    ((1, 2), {}, "give one value"),
    ((1,), {"glu": 2}, "give one value"),
    ((), {"mlp": 1}, "no value for its task 'glu'"),
])
def test_a_marker_that_says_no_worth_is_refused_by_name(args, kwargs, says):
    with pytest.raises(points.PointsError, match=says):
        points.worth(args, kwargs, "glu")


SUITE = '''
import pytest

@pytest.mark.mlp
@pytest.mark.points(mlp=2, glu=0.5)
def test_shared():
    pass

@pytest.mark.glu
@pytest.mark.points(mlp=2, glu=0.5)
def test_shared_too():
    pass

@pytest.mark.cost
@pytest.mark.points(1.25)
def test_fraction():
    pass
'''


def test_the_plugin_and_the_source_reader_give_the_same_worth(tmp_path: Path):
    suite = tmp_path / "test_suite.py"
    suite.write_text(textwrap.dedent(SUITE))
    (tmp_path / "conftest.py").write_text("from grader.tasks import register_markers\n\n\n"
                                          "def pytest_configure(config):\n    register_markers(config)\n")
    records = tmp_path / "records.jsonl"
    subprocess.run([sys.executable, "-m", "pytest", str(suite), "--collect-only", "-q", "-p", "grader.plugin",
                    "--grader-results", str(records), "-p", "no:cacheprovider", f"--rootdir={tmp_path}"],
                   cwd=REPO, capture_output=True, text=True, timeout=120, env={**__import__("os").environ,
                                                                                "PYTHONPATH": str(REPO)})
    collected = {r["nodeid"].split("::")[1]: r["points"] for r in map(json.loads, records.read_text().splitlines())
                 if r["kind"] == "collected"}
    assert collected == {"test_shared": 2, "test_shared_too": 0.5, "test_fraction": 1.25}
    assert points.declared(suite, "glu") == {"test_shared_too": 0.5}
    assert points.declared(suite, "mlp") == {"test_shared": 2}
    assert points.declared(suite, "cost") == {"test_fraction": 1.25}


def test_classroom50_refuses_a_fraction_by_the_tests_name(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(exports.points, "declared", lambda suite, task: {"test_parity": 0.5} if task == "glu" else {})
    with pytest.raises(GraderFailure, match=r"test_mlp.py::test_parity \(0.5 in glu\).*Gradescope or PrairieLearn"):
        exports.make_classroom50(tmp_path / "c50", ["mlp", "glu"])
    assert not (tmp_path / "c50").exists()  # refused before anything is written
    exports.make_classroom50(tmp_path / "c50", ["mlp"])  # a task without fractions is exported
    assert (tmp_path / "c50" / "autograder.py").is_file()


def test_every_suites_points_are_read_by_the_one_reader():
    """Every graded suite's markers are ones ``worth`` reads (the conftest refuses any other at collection)."""
    from grader.tasks import TASKS

    for task in TASKS:
        for suite in task.suites:
            assert points.declared(REPO / "tests" / suite, task.name), f"{suite}: no points read for {task.name}"


def test_fractional_points_add_up_to_the_hundredth_in_every_report():
    """Three tests of 0.1 make 0.3 (not 0.30000000000000004) in the task's row, the total and each platform's
    file; the reports read them back as written."""
    import xml.etree.ElementTree as ET

    from grader import report
    from grader.results import Grade, TestResult

    tests = [TestResult(name=f"test_cost.py::test_{i}", task="cost", points=0.1 if i else 0, max_points=0.1,
                        status="passed" if i else "failed", message="" if i else "wrong", kind="passed" if i else "failed",
                        cause="" if i else "unexplained") for i in range(4)]
    grade = Grade(submission="s", seed=0, tests=tests)
    assert grade.task_points("cost") == (0.3, 0.4)
    assert "0.3/0.4" in report.text(grade).replace(" ", "")
    assert report.as_json(grade)["score"] == 0.3
    assert report.gradescope(grade)["score"] == 0.3 and report.prairielearn(grade)["score"] == 0.75
    assert ET.tostring(report.junit(grade).getroot(), encoding="unicode").count('value="0.3"') == 1
    assert report.from_json(report.as_json(grade)).task_points("cost") == (0.3, 0.4)


def test_a_test_outside_its_tasks_suites_is_refused_by_name(tmp_path: Path):
    """The grader collects only the suites ``grader/tasks.py`` gives the tasks it grades: a test marked for a task
    in another file would count in a grade of every task and not in one of that task alone, so collection refuses
    it, naming the test, its task and where it may go."""
    import shutil

    tests = tmp_path / "tests"
    shutil.copytree(REPO / "tests", tests, ignore=shutil.ignore_patterns("__pycache__", "snapshots"))
    (tests / "test_misplaced.py").write_text("import pytest\n\n\n@pytest.mark.mlp\n@pytest.mark.points(1)\n"
                                              "def test_placed_elsewhere():\n    pass\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", str(tests / "test_misplaced.py"), str(tests / "test_cost.py"),
                           "--collect-only", "-q", "-p", "no:cacheprovider", "-c", str(REPO / "pyproject.toml"),
                           f"--rootdir={tmp_path}"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert ("test_misplaced.py::test_placed_elsewhere: marked mlp, whose suites in grader/tasks.py are test_mlp.py"
            in proc.stdout + proc.stderr), (proc.stdout + proc.stderr)[-2000:]
    assert "test_cost.py" not in (proc.stdout + proc.stderr).split("graded tests the grader cannot count", 1)[-1]


def test_the_policy_table_reads_back_the_fractions_it_writes(tmp_path: Path, monkeypatch):
    """A fractional cost (a test worth 0.5, or points(mlp=1, glu=2.5)) is written into docs/grading.md's policy
    table as the reports show points, and read back as that number (it was read with int(): ValueError)."""
    from grader.results import shown
    from selfcheck import grading_policy

    rows = [f"| a mistake | 2 | `{name}` | -{shown(mlp)} | {'-' + shown(glu) if glu else '0'} |"
            for name, mlp, glu in (("half_lost", 0.5, 2.5), ("whole_lost", 3, 0))]
    table = "\n".join(["`tests/test_mlp.py` (`exercises/mlp_block.py`)", "",
                       f"| mistake | TODO | variant | mlp (of {shown(12.5)}) | glu (of {shown(13)}) |",
                       "|---|---|---|---:|---:|", *rows])
    policy = tmp_path / "grading.md"
    policy.write_text(f"{grading_policy.START}\n{table}\n{grading_policy.END}\n")
    monkeypatch.setattr(grading_policy, "POLICY_FILE", policy)
    assert "(of 12.5)" in table and "(of 13)" in table
    assert grading_policy.written_rows("mlp_block") == {"half_lost": {"mlp": 0.5, "glu": 2.5},
                                                         "whole_lost": {"mlp": 3, "glu": 0}}
