"""Where everything lives: the one place that knows the repository's layout.

Imports nothing but the standard library, so the grader's own process, the sandboxed child and the
suites can all use it before torch is imported.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXERCISES = REPO / "exercises"
TESTS = REPO / "tests"
NOTEBOOKS = REPO / "notebooks"
REFERENCE = REPO / "solution" / "hidden"  # the instructor's code: absent from the student release
KNOWN_MISTAKES = REFERENCE / "known_mistakes.py"
SNAPSHOTS = TESTS / "snapshots"  # the reference's recorded answers, a file per task, for the release
SNAPSHOT_SEED = 0  # the only seed the recorded answers are for (grader/judge/snapshot.py)
# The Triton kernel tests launch the student's kernels with trusted launch code (grader/kernels/source.py):
# the reference's where it is present; in the release, the stub's as handed out, which the release
# writes here (the student edits the exercise file, the given launch code included).
# A failing Triton kernel test saves a picture of what the kernel touched here (grader/kernels/maps.py),
# unless this environment variable is "0": the grader's and the self-checks' runs, where nobody opens it.
KERNEL_MAPS = REPO / "kernel_maps"
KERNEL_MAPS_ENV = "KERNEL_MAP_PICTURES"


def reference_file(exercise: str) -> Path:
    """The reference for ``exercise`` (``mlp_block`` -> solution/hidden/reference_mlp_block.py)."""
    return REFERENCE / f"reference_{exercise}.py"


def launch_code_file(exercise: str) -> Path:
    """Where the release keeps ``exercise``'s trusted launch code (the stub's, as handed out)."""
    return SNAPSHOTS / f"{exercise}_launch.py"


# The known mistakes' hints, once for every task's answer file (grader/judge/snapshot.py): a hint reworded in
# solution/hidden/known_mistakes.py is its lines of this file. No task may take its name.
HINTS_NAME = "hints"


def answer_file(task: str, folder: Path = SNAPSHOTS) -> Path:
    """Where the reference's recorded answers to ``task``'s tests are kept (grader/judge/answer_files.py)."""
    if task == HINTS_NAME:
        raise ValueError(f"a task may not be named {HINTS_NAME!r}: tests/snapshots/{HINTS_NAME}.json holds the hints")
    return folder / f"{task}.json"


def hints_file(folder: Path = SNAPSHOTS) -> Path:
    """Where the recorded answers' hints are kept, beside the task files."""
    return folder / f"{HINTS_NAME}.json"


def reference_present() -> bool:
    """Whether this checkout has the reference (the instructor's repository), not only its snapshot."""
    return reference_file("mlp_block").is_file()


def display_path(path: Path) -> str:
    """``path`` relative to the repository where it is inside it (what messages show)."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)
