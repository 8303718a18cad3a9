"""The platform check (``--platform-check``): made as each platform takes it, run as each platform runs it.

The Gradescope check bundle runs its own run_autograder in a tree laid out as Gradescope's /autograder;
the Classroom 50 check folder runs its autograder.py as the runner does, and as a command. Here
bubblewrap starts, so the sandbox check passes and the reference gets full marks; a bubblewrap that
refuses to start must turn both into failures. Whatever was submitted, a check scores 0, and no real
autograder holds the check.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from grader import results
from instructor.exports import PLATFORMS
from grader.sandbox import Limits
from instructor.platform_check import HEADROOM, ReferenceRun, halved, reference_check, time_check
from selfcheck.harness import REPO, parallel, reference_sources
from selfcheck.test_classroom50 import RUNNER_ENV, checkout, make_folder, run_autograder

CHECK_NAMES = {"the sandbox starts", "the reference gets full marks", "grading fits the platform's limits"}


def instructor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "instructor", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})


def refusing_bwrap(folder: Path) -> dict[str, str]:
    """An environment whose bwrap refuses to start, as a container without user namespaces does."""
    fake = folder / "bwrap"
    folder.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def test_gradescope_check_bundle_says_the_sandbox_starts_and_the_reference_gets_full_marks(tmp_path):
    bundle = tmp_path / "platform-check.zip"
    made = instructor("--gradescope-bundle", str(bundle), "--tasks", "mlp,cost", "--platform-check")
    assert made.returncode == 0 and "PLATFORM CHECK" in made.stdout, made.stderr
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as z:
        assert {"setup.sh", "run_autograder", "instructor/platform_check.py",
                "solution/hidden/reference_mlp_block.py"} <= set(z.namelist())
        z.extractall(root / "source")
    # The reference itself, submitted: the check reads none of it and scores 0 all the same.
    (root / "submission").mkdir()
    for name, text in reference_sources().items():
        (root / "submission" / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                          timeout=600, env={**env, "GRADING_ROOT": str(root), "GRADING_PYTHON": sys.executable})
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["extra_data"]["platform_check"] is True
    assert all(t["score"] == 0 and t["max_score"] == 0 and t["visibility"] == "hidden" for t in results["tests"])
    assert results["output"].startswith("Platform check, not a grade")
    found = {t["name"].removeprefix("Platform check: "): t for t in results["tests"]}
    assert CHECK_NAMES <= set(found)
    assert found["the sandbox starts"]["status"] == "passed", found["the sandbox starts"]["output"]
    assert found["the sandbox starts"]["output"].startswith("sandboxed with bubblewrap")
    assert found["the reference gets full marks"]["status"] == "passed", found["the reference gets full marks"]
    assert found["the reference gets full marks"]["output"].startswith("full marks, 38/38: MLP 25/25; Cost 13/13")
    times = found["grading fits the platform's limits"]["output"]  # passing it depends on this machine's load
    assert times.startswith("the reference's grade took") and "Gradescope stops a run at 10 min" in times
    assert results["extra_data"]["checks"]["sandbox"] is results["extra_data"]["checks"]["reference"] is True


def test_prairielearn_check_grader_laid_out_as_grade(tmp_path):
    """The PrairieLearn check, made in the external grader's own layout and run as /grade: its results.json
    scores 0 whatever was submitted, and its tests are the checks, each 0 of 0."""
    made = tmp_path / "made"
    proc = instructor("--prairielearn-grader", str(made), "--tasks", "mlp,cost", "--platform-check")
    assert proc.returncode == 0 and "PLATFORM CHECK" in proc.stdout, proc.stderr
    grader = made / "serverFilesCourse" / "mlp_block_grader"
    assert (grader / "instructor" / "platform_check.py").is_file() and "platform_check" in (grader / "run.sh").read_text()
    root = tmp_path / "grade"
    shutil.copytree(made / "serverFilesCourse", root / "serverFilesCourse")
    (root / "student").mkdir()
    (root / "student" / "mlp_block.py").write_text(reference_sources()["mlp_block.py"])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run(["bash", str(root / "serverFilesCourse" / "mlp_block_grader" / "run.sh")],
                         capture_output=True, text=True, timeout=600,
                         env={**env, "GRADING_ROOT": str(root), "GRADING_PYTHON": sys.executable})
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["gradable"] is True and results["score"] == 0.0
    assert results["message"].startswith("Platform check, not a grade")
    found = {t["name"].removeprefix("Platform check: "): t for t in results["tests"]}
    assert set(found) == CHECK_NAMES and all(t["points"] == t["max_points"] == 0 for t in found.values())
    assert found["the sandbox starts"]["message"] == "PASS", found["the sandbox starts"]["output"]
    assert found["the reference gets full marks"]["message"] == "PASS", found["the reference gets full marks"]
    assert "PrairieLearn" in found["grading fits the platform's limits"]["output"]


def test_classroom50_check_folder_under_the_runner_and_as_a_command(tmp_path):
    folder = tmp_path / "check"
    made = make_folder(folder, "--tasks", "mlp", "--platform-check")
    assert made.returncode == 0, made.stderr
    assert "platform_check" in (folder / "autograder.py").read_text()
    runner_work = checkout(tmp_path / "runner", reference=True)
    command_work, refused_work = checkout(tmp_path / "command"), checkout(tmp_path / "refused")
    refused_env = refusing_bwrap(tmp_path / "bin")
    no_runner = {var: "" for var in RUNNER_ENV}
    with parallel({"runner": lambda: run_autograder(folder, runner_work),
                   "command": lambda: run_autograder(folder, command_work, env=no_runner),
                   "refused": lambda: run_autograder(folder, refused_work, env={**no_runner, **refused_env})},
                  workers=2) as runs:
        runner, command, refused = (runs[k].result() for k in ("runner", "command", "refused"))
    # Under the runner: result.json of 0 of 0, one test per check, each worth 0; the Release says so.
    assert runner.returncode == 0, runner.stderr[-2000:]
    result = json.loads((runner_work / "result.json").read_text())
    assert result["schema"] == "classroom50/result/v1" and result["submission"] == RUNNER_ENV["SUBMISSION_TAG"]
    assert result["score"] == result["max-score"] == 0
    tests = {t["test-name"].removeprefix("Platform check: "): t for t in result["tests"]}
    assert set(tests) == CHECK_NAMES and all(t["score"] == t["max-score"] == 0 for t in tests.values())
    assert tests["the sandbox starts"]["passed"] is True and "bubblewrap" in tests["the sandbox starts"]["message"]
    assert tests["the reference gets full marks"]["passed"] is True, tests["the reference gets full marks"]
    assert (runner_work / "release-body.md").read_text().startswith("### Platform check on Classroom 50: not a grade")
    # As a command: the report on stdout, no result.json, exit 0 when every check passed...
    assert command.returncode in (0, 1) and not (command_work / "result.json").exists(), command.stderr[-2000:]
    assert "PASS  the sandbox starts" in command.stdout and "PASS  the reference gets full marks" in command.stdout
    assert command.returncode == (0 if "FAIL" not in command.stdout else 1), command.stdout
    # ... and 1 when bubblewrap refuses: nothing graded, bubblewrap's own reason on the sandbox's line.
    assert refused.returncode == 1 and not (refused_work / "result.json").exists(), refused.stderr[-2000:]
    lines = {line.split(":")[0]: line for line in refused.stdout.splitlines()}
    assert "uid map: Permission denied" in lines["FAIL  the sandbox starts"], refused.stdout
    assert "not graded" in lines["FAIL  the reference gets full marks"], refused.stdout


def test_no_autograder_holds_the_check(tmp_path):
    bundle, folder = tmp_path / "autograder.zip", tmp_path / "hw"
    assert instructor("--gradescope-bundle", str(bundle)).returncode == 0
    assert make_folder(folder).returncode == 0
    with zipfile.ZipFile(bundle) as z:
        assert "instructor/platform_check.py" not in z.namelist()
        assert "platform_check" not in z.read("run_autograder").decode()
    assert not (folder / "instructor" / "platform_check.py").exists()
    assert "platform_check" not in (folder / "autograder.py").read_text()
    refused = instructor("--release", str(tmp_path / "release"), "--platform-check")
    assert refused.returncode == 3 and "--platform-check goes with" in refused.stderr


def reference_run(points: dict[str, int], limits: Limits, seconds: float = 10.0, most: int = 4) -> ReferenceRun:
    """A grade of the reference, one test worth ``most`` per task, with ``points[task]`` of it earned."""
    tests = [results.TestResult(name=f"test_{task}.py::test_it", task=task, points=got, max_points=most,
                                status="passed" if got == most else "failed",
                                message="" if got == most else "expected 1.0, got 2.0",
                                kind="passed" if got == most else "failed", cause="" if got == most else "wrong_value")
             for task, got in points.items()]
    return ReferenceRun(limits, seconds, results.Grade(submission="the reference", seed=1, tests=tests, sandboxed=True))


def test_a_reference_that_loses_points_or_has_no_time_to_spare_fails_its_check():
    gradescope, classroom50 = PLATFORMS["gradescope"], PLATFORMS["classroom50"]
    real = gradescope.limits(2)  # the two tasks of the runs below
    half = halved(real)
    assert half.budget * HEADROOM == real.budget and half.call_timeout * HEADROOM == real.call_timeout
    lost = reference_check(reference_run({"mlp": 4, "cost": 0}, real), ["mlp", "cost"])
    assert not lost.passed and "NOT full marks, 4/8" in lost.found and "expected 1.0, got 2.0" in lost.found
    assert reference_check(reference_run({"mlp": 4}, real), ["mlp"]).passed

    def timed(tight: ReferenceRun | None, seconds: float = 10.0, installs: float = 0.0, platform=gradescope):
        return time_check(platform, ["mlp", "swiglu"], reference_run({"mlp": 4, "swiglu": 4}, real, seconds), tight,
                          start_seconds=2, installs=installs)

    assert timed(reference_run({"mlp": 4, "swiglu": 4}, half)).passed
    slow = timed(reference_run({"mlp": 4, "swiglu": 1}, half))
    assert not slow.passed and "SwiGLU 1/4" in slow.found and f"{HEADROOM} times slower" in slow.found
    assert not timed(None).passed  # no time left for the second grade: not known, so not passed
    long = timed(reference_run({"mlp": 4, "swiglu": 4}, half), seconds=gradescope.stops_after / HEADROOM)
    assert not long.passed and f"over 1/{HEADROOM} of Gradescope's 10 min" in long.found
    installs = timed(reference_run({"mlp": 4, "swiglu": 4}, half), installs=classroom50.setup + 60,
                     platform=classroom50)
    assert not installs.passed and "installs took" in installs.found
