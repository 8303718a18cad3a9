"""The Classroom 50 autograder folder: made by the grader, run as Classroom 50's runner runs it.

Each run is ``python autograder.py`` with a temporary student checkout as the working directory and
the runner's six variables set; result.json is then held to the contract field by field
(``check_result``). The reference grades all four tasks once; the other runs use a folder made with
``--tasks mlp,cost``, which is how a course grades fewer tasks (and much faster than the Triton task
under Triton's CPU interpreter).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from grader.paths import REFERENCE

from instructor.exports import CLASSROOM50_MADE_BY
from instructor import release
from instructor.classroom50 import NAME_BYTES, SCHEMA, result_json
from selfcheck.harness import REPO, VARIANTS, materialize

EXIT_GRADER_ERROR = 3
RUNNER_ENV = {
    "CLASSROOM": "ml-2026",
    "ASSIGNMENT": "mlp-block",
    "SUBMISSION_TAG": "submit/2026-09-01T12-00-00Z-abc1234",
    "COMMIT_URL": "https://github.com/course/ml-2026-mlp-block-alice/commit/abc1234",
    "RELEASE_URL": "https://github.com/course/ml-2026-mlp-block-alice/releases/tag/submit%2F2026",
    "REVIEW_URL": "https://github.com/course/ml-2026-mlp-block-alice/compare/0000000...abc1234",
}
RESULT_KEYS = {"schema", "classroom", "assignment", "submission", "commit", "release", "review", "datetime",
               "score", "max-score", "tests"}
FIELD_VARS = {"classroom": "CLASSROOM", "assignment": "ASSIGNMENT", "submission": "SUBMISSION_TAG",
              "commit": "COMMIT_URL", "release": "RELEASE_URL", "review": "REVIEW_URL"}


def make_folder(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "instructor", "--classroom50", str(folder), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("classroom50")
    made = {"all": tmp / "all", "mlp,cost": tmp / "mlp-cost"}
    for tasks, folder in made.items():
        proc = make_folder(folder, *([] if tasks == "all" else ["--tasks", tasks]))
        assert proc.returncode == 0, proc.stderr
    return made


def checkout(root: Path, reference: bool = False) -> Path:
    """A student's checkout: this repository's exercises/, or the reference copied in as its files."""
    shutil.copytree(REPO / "exercises", root / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    if reference:
        for file in REFERENCE.glob("reference_*.py"):
            shutil.copyfile(file, root / "exercises" / file.name.removeprefix("reference_"))
    return root


def run_autograder(folder: Path, work: Path, *python_flags: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """As the runner does: this Python, the folder's autograder.py, the checkout as working directory."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "EXERCISE_TARGET", "PYTEST_ADDOPTS", "GITHUB_ACTIONS", "RUNNER_ENVIRONMENT",
                         "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT")}
    return subprocess.run([sys.executable, *python_flags, str(folder / "autograder.py")], cwd=work,
                          capture_output=True, text=True, timeout=300, env={**base, **RUNNER_ENV, **(env or {})})


def has_control(text: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cf") for ch in text)


def check_result(result: dict) -> None:
    """result.json as Classroom 50 takes it: exact keys and types, integer points that add up."""
    assert set(result) == RESULT_KEYS, sorted(result)
    assert result["schema"] == SCHEMA
    for field, var in FIELD_VARS.items():
        assert result[field] == RUNNER_ENV[var], field
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", result["datetime"]), result["datetime"]
    assert isinstance(result["tests"], list) and result["tests"]
    names = []
    for test in result["tests"]:
        keys = {"test-name", "passed", "score", "max-score"}
        assert set(test) == (keys if test["passed"] is True else keys | {"message"}), test
        assert type(test["passed"]) is bool and type(test["score"]) is int and type(test["max-score"]) is int, test
        assert test["score"] == (test["max-score"] if test["passed"] else 0) and test["max-score"] > 0, test
        name = test["test-name"]
        assert isinstance(name, str) and name and len(name.encode("utf-8")) <= NAME_BYTES and not has_control(name)
        if "message" in test:
            assert isinstance(test["message"], str) and test["message"] and not has_control(test["message"])
        names.append(name)
    assert len(set(names)) == len(names), "test names must be unique"
    for key in ("score", "max-score"):
        assert type(result[key]) is int and result[key] >= 0
    assert result["score"] == sum(t["score"] for t in result["tests"] if t["passed"])
    assert result["max-score"] == sum(t["max-score"] for t in result["tests"])


def graded(work: Path, proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    result = json.loads((work / "result.json").read_text(encoding="utf-8"))
    check_result(result)
    return result


def by_task(result: dict) -> dict[str, list[dict]]:
    tasks: dict[str, list[dict]] = {}
    for test in result["tests"]:
        tasks.setdefault(test["test-name"].split(":", 1)[0], []).append(test)
    return tasks


# ------------------------------------------------------------------------------- the folder

def test_folder_holds_the_grader_and_no_exercise(folders, tmp_path):
    folder = folders["all"]
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert {"autograder.py", "instructor/classroom50.py", "grader/cli.py", "tests/conftest.py", "tests/test_mlp.py",
            "tests/test_triton_swiglu.py", "solution/hidden/reference_mlp_block.py", "pyproject.toml",
            "requirements.txt"} <= files
    assert not any(f.startswith(("exercises/", "selfcheck/", "notebooks/")) for f in files)
    assert os.access(folder / "autograder.py", os.X_OK)
    assert "TASKS = ['mlp', 'cost']" in (folders["mlp,cost"] / "autograder.py").read_text()
    # Made again in place it is brought up to date; a folder it did not make is left alone.
    (folder / "grader" / "stale.py").write_text("")
    assert make_folder(folder).returncode == 0 and not (folder / "grader" / "stale.py").exists()
    (tmp_path / "notes.txt").write_text("a course's own files")
    refused = make_folder(tmp_path)
    assert refused.returncode == EXIT_GRADER_ERROR and "not empty" in refused.stderr
    assert CLASSROOM50_MADE_BY in (folder / "autograder.py").read_text()


def test_names_cut_to_100_bytes_unique_and_messages_escaped():
    stem = "test_mlp.py::test_parity_with_reference[" + "é" * 40  # 2-byte characters across the cut
    tests = [{"name": stem + tail, "task": "mlp", "points": 0, "max": 2, "status": "failed",
              "message": "expected 1.0\x1b[2J\r\u202egot 2.0"} for tail in ("a]", "b]", "c]")]
    tests.append({"name": "test_mlp.py::test_gradients[MLP]", "task": "mlp", "points": 2, "max": 2,
                  "status": "passed", "message": ""})
    result = result_json({"tests": tests}, {field: RUNNER_ENV[var] for field, var in FIELD_VARS.items()})
    check_result(result)
    names = [t["test-name"] for t in result["tests"]]
    assert names[0] == ("MLP: " + stem).encode()[:NAME_BYTES].decode("utf-8", "ignore")
    assert names[1].endswith(" ~2") and names[2].endswith(" ~3")
    assert names[3] == "MLP: test_mlp.py::test_gradients[MLP]"
    assert "\\x1b[2J" in result["tests"][0]["message"] and result["score"] == 2 and result["max-score"] == 8


# ------------------------------------------------------------------------------- grading runs

def test_reference_gets_full_marks_on_every_task(folders, tmp_path):
    work = checkout(tmp_path / "alice", reference=True)
    result = graded(work, run_autograder(folders["all"], work))
    assert set(by_task(result)) == {"MLP", "GLU", "SwiGLU", "Cost", "Fused gated MLP"}
    assert result["score"] == result["max-score"] > 0
    body = (work / "release-body.md").read_text(encoding="utf-8")
    assert body.startswith(f"### Grade: {result['score']}/{result['max-score']} points") and "Sandboxed: yes" in body


def test_stubs_score_zero_and_the_checkout_cannot_stand_in(folders, tmp_path):
    """A checkout that brings a result.json, a grader/ package and a conftest.py: none of them counts."""
    work = checkout(tmp_path / "bob")
    (work / "result.json").write_text(json.dumps({"schema": SCHEMA, "score": 38, "max-score": 38, "tests": []}))
    fake = "import pathlib, sys\npathlib.Path('result.json').write_text('{\"score\": 38}')\nsys.exit(0)\n"
    for name in ("grader/__init__.py", "instructor/classroom50.py", "tests/conftest.py", "conftest.py"):
        (work / name).parent.mkdir(exist_ok=True)
        (work / name).write_text(fake)
    result = graded(work, run_autograder(folders["mlp,cost"], work))
    assert set(by_task(result)) == {"MLP", "Cost"}
    assert result["score"] == 0 and result["max-score"] > 0
    assert all(not t["passed"] and "not implemented yet" in t["message"] for t in result["tests"]), result["tests"][:3]
    assert "not implemented yet" in (work / "release-body.md").read_text(encoding="utf-8")


def test_syntax_error_is_a_graded_zero_for_its_task_only(folders, tmp_path):
    work = checkout(tmp_path / "carol", reference=True)
    (work / "exercises" / "mlp_cost.py").write_text("def mlp_param_count(hidden_dim, intermediate_dim:\n    pass\n")
    result = graded(work, run_autograder(folders["mlp,cost"], work))
    tasks = by_task(result)
    assert all(t["passed"] for t in tasks["MLP"])
    assert all(not t["passed"] and "SyntaxError" in t["message"] for t in tasks["Cost"]), tasks["Cost"][:2]


def test_the_checkout_is_taken_as_the_batch_takes_a_hand_in(folders, tmp_path):
    """The intake of the batch and of Gradescope (instructor/settle.py): a file named in another case and one
    moved into a folder of exercises/ are graded, a link is refused, and the Release says what was found
    and not graded, first."""
    work = checkout(tmp_path / "erin", reference=True)
    exercises = work / "exercises"
    (exercises / "mlp_block.py").rename(exercises / "MLP_Block.py")
    (exercises / "src").mkdir()
    (exercises / "mlp_cost.py").rename(exercises / "src" / "mlp_cost.py")
    (exercises / "notes.py").symlink_to(REFERENCE / "reference_mlp_block.py")
    result = graded(work, run_autograder(folders["mlp,cost"], work))
    assert result["score"] == result["max-score"] > 0, [t for t in result["tests"] if not t["passed"]][:2]
    body = (work / "release-body.md").read_text(encoding="utf-8")
    assert body.startswith("**Your hand-in:**") and "notes.py" in body.split("\n", 1)[0], body[:400]


def test_a_checkout_with_nothing_to_grade_is_a_zero_that_says_why(folders, tmp_path):
    work = tmp_path / "frank"
    (work / "exercises").mkdir(parents=True)
    (work / "exercises" / "answers.txt").write_text("see my notebook\n")
    result = graded(work, run_autograder(folders["mlp,cost"], work))
    assert result["score"] == 0 and result["max-score"] > 0
    body = (work / "release-body.md").read_text(encoding="utf-8")
    assert body.startswith("**Your hand-in:** Nothing was graded: no exercise file"), body[:400]


def test_the_job_leaves_nothing_of_the_reference_where_the_student_sees_it(folders, tmp_path):
    """What a student can read of the grade job: its log (stdout, stderr), result.json, release-body.md
    and their own checkout. None of it may hold a statement of the reference, and the job writes
    nothing else into the checkout. (Whether a student can read the autograder folder itself depends on
    Classroom 50's runner: docs/security.md.)"""
    work = checkout(tmp_path / "dave")
    (work / "exercises" / "mlp_block.py").write_text(materialize(VARIANTS / "mlp_block" / "missing_biases.py",
                                                                 "mlp_block"))
    before = {p.relative_to(work) for p in work.rglob("*")}
    proc = run_autograder(folders["all"], work)
    graded(work, proc)
    after = {p.relative_to(work) for p in work.rglob("*") if "__pycache__" not in p.parts}
    assert after - before == {Path("result.json"), Path("release-body.md")}, sorted(after - before)
    seen = proc.stdout + proc.stderr + (work / "result.json").read_text() + (work / "release-body.md").read_text()
    reference = set().union(*release.reference_functions().values())  # its own code, not the stubs' scaffolding
    leaked = sorted(s for s in reference if s in seen)
    assert not leaked, leaked[:5]


# ------------------------------------------------------------------------- infrastructure errors

def no_grade(work: Path, proc: subprocess.CompletedProcess, says: str) -> None:
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert not (work / "result.json").exists() and not (work / "release-body.md").exists()
    reason = proc.stderr.strip().splitlines()[-1]
    assert reason.startswith("::error::autograder could not grade") and says in reason, proc.stderr[-2000:]


def test_no_sandbox_is_an_infrastructure_error_with_no_result(folders, tmp_path):
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    work = checkout(tmp_path / "dave", reference=True)
    (work / "result.json").write_text(json.dumps({"schema": SCHEMA, "score": 38, "max-score": 38, "tests": []}))
    proc = run_autograder(folders["mlp,cost"], work, env={"PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"})
    no_grade(work, proc, "bubblewrap")


def test_missing_requirements_and_runner_variables_fail_before_grading(folders, tmp_path):
    work = checkout(tmp_path / "erin", reference=True)
    # -S: a Python without its site-packages, so without torch and pytest.
    no_grade(work, run_autograder(folders["mlp,cost"], work, "-S"), "torch")
    no_grade(work, run_autograder(folders["mlp,cost"], work, env={"CLASSROOM": ""}), "CLASSROOM not set")
