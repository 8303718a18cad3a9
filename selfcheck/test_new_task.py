"""``python -m instructor --new-task``, run in a copy of this checkout: the task it writes changes nothing
but its own files, its declaration and the documents' generated tables; the documents' checks pass as
they are; the grader gives its stub 0 and its reference full marks; it ships in the student release,
graded there as here; the platform exports take it with every other task, their limits unchanged; and
its variants pass the shared checks.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.paths import REPO, answer_file
from instructor.doc_tables import GENERATED
from instructor.exports import LIMITS_DOC, PLATFORMS
from instructor.new_task import TASKS_FILE, task_files

NAME, TITLE = "squares", "Squared ReLU"
TIMEOUT = 300
TABLES = sorted({part.doc for part in GENERATED})  # the documents' generated tables
# What the scaffold may write: the task's own files, its stub, its answers, its declaration, the docs' generated table.
ITS_OWN = {path.relative_to(REPO).as_posix() for path in [*task_files(NAME), REPO / "exercises" / f"{NAME}.py",
                                                           answer_file(NAME), TASKS_FILE, *TABLES]}
TABLE_OF_TASKS = (REPO / "docs" / "exercises.md").relative_to(REPO).as_posix()


def tracked_files(root: Path) -> list[str]:
    """The checkout's files as a clone (or this working tree, uncommitted changes included) holds them."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root, capture_output=True,
                            check=True).stdout.decode().split("\0")
    return [name for name in listed if name and (root / name).is_file()]


def digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts and ".pytest_cache" not in p.parts}


def python(folder: Path, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> tuple[Path, dict[str, str], subprocess.CompletedProcess]:
    """A copy of this checkout with the new task made in it: (its folder, its files before, the command's run)."""
    folder = tmp_path_factory.mktemp("new_task") / "course"
    for name in tracked_files(REPO):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, folder / name)
    before = digests(folder)
    made = python(folder, "-m", "instructor", "--new-task", NAME, "--title", TITLE)
    return folder, before, made


def grade(folder: Path, submission: Path, tasks: str, cwd: Path | None = None) -> dict:
    report = submission.parent / f"{submission.name}.json"
    proc = python(cwd or folder, "-m", "grader", str(submission), "--tasks", tasks, "--json", str(report))
    assert report.is_file(), proc.stdout + proc.stderr
    return json.loads(report.read_text())


def test_the_task_is_its_own_files_its_declaration_and_the_docs_tables(copy):
    folder, before, made = copy
    assert made.returncode == 0, made.stdout + made.stderr
    after = digests(folder)
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    limits_table = LIMITS_DOC.relative_to(REPO).as_posix()  # its batch rows change (per-task budgets), not the platforms'
    assert len(ITS_OWN) == 9 and changed <= ITS_OWN and ITS_OWN - {limits_table} <= changed, sorted(changed ^ ITS_OWN)
    assert f"| {TITLE} | `{NAME}` | `exercises/{NAME}.py` | TODO 1 | `tests/test_{NAME}.py` | 3 |" in \
        (folder / TABLE_OF_TASKS).read_text()
    assert f'Task("{NAME}", "{TITLE}", "{NAME}", ("test_{NAME}.py",), (1,)),' in (folder / "grader/tasks.py").read_text()
    again = python(folder, "-m", "instructor", "--new-task", NAME)
    assert again.returncode == 3 and "taken" in again.stderr, again.stderr  # never over a task of that name


def test_the_grader_gives_the_stub_nothing_and_the_reference_everything(copy, tmp_path):
    folder, _, made = copy
    assert made.returncode == 0, made.stderr
    stub = grade(folder, folder / "exercises", NAME)
    assert (stub["score"], stub["max_score"]) == (0, 3), stub
    assert all(t["message"].startswith("not implemented yet:") for t in stub["tests"]), stub["tests"]
    answer = tmp_path / "reference"
    answer.mkdir()
    shutil.copy2(folder / f"solution/hidden/reference_{NAME}.py", answer / f"{NAME}.py")
    full = grade(folder, answer, NAME)
    assert full["score"] == full["max_score"] == 3, full
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    (wrong / f"{NAME}.py").write_text((answer / f"{NAME}.py").read_text().replace("x * x", "x"))
    lost = grade(folder, wrong, NAME)
    causes = {t["name"].split("::")[-1]: (t["cause"], t.get("waits_on", "")) for t in lost["tests"]}
    assert lost["score"] == 0 and causes["test_values"][0] == "not squared", lost


def test_the_release_ships_it_and_grades_it_as_the_course_does(copy, tmp_path):
    folder, _, made = copy
    assert made.returncode == 0, made.stderr
    release = tmp_path / "student"
    proc = python(folder, "-c", "import sys; from pathlib import Path; from instructor.release import make_release;"
                                " make_release(Path(sys.argv[1]), execute_notebooks=False)", str(release))
    assert proc.returncode == 0, proc.stderr
    for name in (f"exercises/{NAME}.py", f"tests/test_{NAME}.py", f"tests/snapshots/{NAME}.json"):
        assert (release / name).is_file(), name
    assert not (release / "solution").exists()
    shutil.copy2(folder / f"solution/hidden/reference_{NAME}.py", release / "exercises" / f"{NAME}.py")
    graded = grade(release, release / "exercises", NAME, cwd=release)
    assert graded["score"] == graded["max_score"] == 3, graded


def test_the_platform_exports_take_it_with_every_task_and_unchanged_limits(copy, tmp_path):
    folder, _, made = copy
    assert made.returncode == 0, made.stderr
    bundle = tmp_path / "autograder.zip"
    proc = python(folder, "-m", "instructor", "--gradescope-bundle", str(bundle))
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(bundle) as opened:
        script = opened.read("run_autograder").decode()
        assert f"tests/test_{NAME}.py" in opened.namelist()
    assert f",{NAME}" in script and "--budget 41.6 " in script, script  # 250 s split over six tasks
    worst = f"{PLATFORMS['gradescope'].worst_case(5) / 60:.1f} min"  # the five tasks' worst case, as before
    assert worst in proc.stdout, proc.stdout
    classroom = python(folder, "-m", "instructor", "--classroom50", str(tmp_path / "classroom50"))
    assert classroom.returncode == 0 and f"{PLATFORMS['classroom50'].worst_case(5) / 60:.1f} min" in classroom.stdout, \
        classroom.stdout + classroom.stderr


def test_its_variants_pass_the_shared_checks(copy):
    folder, _, made = copy
    assert made.returncode == 0, made.stderr
    proc = python(folder, "-m", "pytest", "-v", "-p", "no:cacheprovider", "selfcheck/test_task_variants.py", "-m", NAME)
    assert proc.returncode == 0, proc.stdout[-3000:]
    for check in ("test_variant_graded_as_declared[not_squared]", "test_variant_graded_as_declared[correct_clamp_square]",
                  "test_stubs_fail_with_not_implemented_pointers", "test_the_release_grades_every_variant_alike"):
        assert f"{check} PASSED" in proc.stdout, f"{check} did not pass:\n{proc.stdout[-3000:]}"


def test_the_documents_checks_pass_with_no_hand_edit(copy):
    """The prose never lists the tasks: the table of tasks is generated, so the documents' checks of the task
    lists, the exercise files, the full marks and the worst cases pass on the copy as --new-task left it."""
    folder, _, made = copy
    assert made.returncode == 0, made.stderr
    proc = python(folder, "-m", "pytest", "-q", "-p", "no:cacheprovider", "selfcheck/test_docs.py", "selfcheck/test_stubs.py",
                  "-k", "not help_without_running and not cheap_commands and not collect_tests")
    assert proc.returncode == 0, proc.stdout[-3000:]


ASKS_ON_FAILURE = '''

@pytest.mark.points(1)
def test_asks_more_when_wrong(target, reference, gen):
    x = torch.randn(4, generator=gen, dtype=torch.float64)
    if "error" in target.evidence(EXERCISE, "function_value", function="squared_relu", args=[x]):
        squared_relu(reference, x + 1)  # a question only a failing submission asks: the release has no answer
'''


def test_recording_refuses_a_test_that_asks_other_questions_of_a_failing_submission(copy):
    """Last in this module: it adds a test to the copy's suite, then takes it out again."""
    folder, _, made = copy
    assert made.returncode == 0, made.stderr
    suite = folder / "tests" / f"test_{NAME}.py"
    kept, answers = suite.read_text(), (folder / "tests" / "snapshots" / f"{NAME}.json").read_bytes()
    suite.write_text(kept + ASKS_ON_FAILURE)
    try:
        proc = python(folder, "-m", "grader.judge.snapshot", "--task", NAME)
    finally:
        suite.write_text(kept)
    assert proc.returncode != 0 and "refused" in proc.stderr and "test_asks_more_when_wrong" in proc.stderr, \
        proc.stdout[-2000:] + proc.stderr
    assert "test_values" not in proc.stderr.split("refused", 1)[1], proc.stderr  # the others are not named
    assert (folder / "tests" / "snapshots" / f"{NAME}.json").read_bytes() == answers  # nothing was written
