"""``python -m instructor --release DIR``: the repository students get, without the reference.

It holds the stubs (made from the reference's marked regions, ``instructor/stubs.py``: the release
refuses stubs that are not what the reference makes), the graded suites with the reference's recorded answers
(``tests/snapshots/<task>.json``, see ``grader/judge/snapshot.py``), the notebooks (run again there, so
their stored outputs show what a student with the stubs sees), the tutor prompt, the requirements, the
"check my work" workflow and a student README: this README without its instructor-only parts. It
holds no reference: before anything is written, every file is checked for the reference's code and
for its stub markers (``leaks``), and the release is refused if one holds any.

The instructor's side keeps what makes grades count: the reference itself and fresh data per
submission (``python -m grader``, the Gradescope and Classroom 50 autograders).
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.kernels.source import KERNEL_EXERCISES, stub_launch_code
from grader.paths import REFERENCE, REPO, display_path, launch_code_file
from instructor import stubs

# What the student repository holds, as globs relative to the repository root.
RELEASE_FILES = [
    "exercises/*.py", "tests/*.py", "tests/snapshots/*.json", "grader/**/*.py",
    "notebooks/*.ipynb", "notebooks/*.py", "notebooks/*.json",
    "docs/exercises.md", "pyproject.toml", "requirements.txt", "socratic_prompt.md", ".gitignore", ".github/workflows/check.yml",
    ".devcontainer/devcontainer.json",  # Linux with the requirements, for students on macOS and Windows
]
REFERENCE_FILES = f"{REFERENCE.relative_to(REPO).as_posix()}/*.py"
STUBS = "exercises/*.py"

# README.md marks what only instructors need; the release drops it (the markers are HTML comments,
# invisible where the README is rendered).
INSTRUCTOR_ONLY, END_INSTRUCTOR_ONLY = "<!-- instructor-only -->", "<!-- /instructor-only -->"

# Statements shorter than this are idioms anyone writes (`return out`, `x = x.float()`), not code
# taken from the reference.
MIN_STATEMENT_CHARS = 24


class ReleaseError(Exception):
    """The release cannot be written as asked; the message says why."""


# ------------------------------------------------------------------------ the reference's code

def _code_of_notebook(text: str) -> str:
    cells = json.loads(text).get("cells", [])
    lines = []
    for cell in cells:
        if cell.get("cell_type") == "code":
            source = "".join(cell.get("source", []))
            # IPython magics are not Python: leave them out of the parse.
            lines += [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    return "\n".join(lines)


def _simple_statements(node: ast.AST) -> set[str]:
    """Every simple statement under ``node``, normalised (comments, spacing and quotes do not matter)."""
    found = set()
    for child in ast.walk(node):
        if not isinstance(child, ast.stmt) or hasattr(child, "body"):
            continue  # compound statements count through the statements inside them
        if isinstance(child, (ast.Import, ast.ImportFrom, ast.Pass)):
            continue
        if isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant):
            continue  # a docstring says what, not how
        text = ast.unparse(child)
        if len(text) >= MIN_STATEMENT_CHARS:
            found.add(text)
    return found


def statements(source: str) -> set[str]:
    try:
        return _simple_statements(ast.parse(source))
    except SyntaxError:
        return set()


def reference_functions(root: Path = REPO) -> dict[str, set[str]]:
    """Each function of the reference, by name, with the statements that are its own: not in the stubs
    (which share the reference's scaffolding: argument checks, launch code)."""
    stubs = set().union(*(statements(p.read_text()) for p in sorted(root.glob(STUBS))))
    functions = {}
    for path in sorted(root.glob(REFERENCE_FILES)):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                own = _simple_statements(node) - stubs
                if own:
                    functions[f"{path.name}:{node.name} (line {node.lineno})"] = own
    return functions


def leaks(folder: Path, functions: dict[str, set[str]]) -> list[str]:
    """'file holds function (k of n statements)' for each reference function of which a file under
    ``folder`` holds at least half the statements. Half, not one: a test may well compute one line
    the way the reference does (a width from a parameter budget); a copy holds most of the function.
    And 'file:line holds a stub marker' for each line of a marked region's edges (``instructor/stubs.py``):
    only the reference has them, whatever is between them."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        raw = path.read_bytes()
        if b"\0" in raw:
            continue  # binary (the snapshot holds numbers, not code)
        text = raw.decode(errors="replace")
        if path.suffix == ".py":
            held = statements(text)
            found += [f"{path.relative_to(folder)}:{line} holds a stub marker of the reference"
                      for line in stubs.marker_lines(text)]
        elif path.suffix == ".ipynb":
            held = statements(_code_of_notebook(text))
        else:  # Markdown, YAML, JSON: the statement written out anywhere in the text
            held = {s for own in functions.values() for s in own if s in text}
        for name, own in functions.items():
            hits = own & held
            if hits and 2 * len(hits) >= len(own):
                found.append(f"{path.relative_to(folder)} holds the reference's {name}"
                             f" ({len(hits)} of its {len(own)} statements, e.g. {sorted(hits)[0]!r})")
    return found


# ------------------------------------------------------------------------------ the release

def student_readme(text: str) -> str:
    """README.md without its instructor-only blocks."""
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        marker = line.strip()
        if marker == INSTRUCTOR_ONLY:
            if skipping:
                raise ReleaseError(f"README.md: {INSTRUCTOR_ONLY} inside another instructor-only block")
            skipping = True
        elif marker == END_INSTRUCTOR_ONLY:
            if not skipping:
                raise ReleaseError(f"README.md: {END_INSTRUCTOR_ONLY} without its opening marker")
            skipping = False
        elif not skipping:
            out.append(line)
    if skipping:
        raise ReleaseError(f"README.md: an instructor-only block is not closed with {END_INSTRUCTOR_ONLY}")
    return "".join(out)


def release_files(root: Path = REPO) -> list[Path]:
    files = []
    for pattern in RELEASE_FILES:
        matched = sorted(p for p in root.glob(pattern) if p.is_file())
        if not matched:
            raise ReleaseError(f"nothing matches {pattern} in {root}: is this the instructor's repository?")
        files += matched
    return files


# Notebooks whose stored outputs the release keeps: kernel_maps shows the maps of right kernels, drawn
# from the reference's kernels, before a student has written any (its outputs are maps of counts and
# program numbers, never the kernels' code). Run on the stubs, every section would say "not run yet".
KEEPS_OUTPUTS = {"kernel_maps.ipynb"}


def run_notebooks(folder: Path) -> None:
    """Run the release's notebooks in place: their outputs then show the stubs, as a student sees them
    (but those of ``KEEPS_OUTPUTS``)."""
    for notebook in sorted((folder / "notebooks").glob("*.ipynb")):
        if notebook.name in KEEPS_OUTPUTS:
            continue
        proc = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                               "--inplace", "--ExecutePreprocessor.record_timing=False", notebook.name],
                              cwd=notebook.parent, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            tail = " ".join(proc.stderr.strip().splitlines()[-3:])
            raise ReleaseError(f"{notebook.relative_to(folder)} does not run without the reference: {tail}")


def make_release(out: Path, *, execute_notebooks: bool = True) -> list[Path]:
    """Write the student repository into ``out`` (new or empty); returns the files written."""
    if not REFERENCE.is_dir():
        raise ReleaseError("the release is made from the instructor's repository, which has solution/hidden/")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ReleaseError(f"{out} exists and is not an empty folder: give a new folder")
    stale = stubs.stale()
    if stale:
        raise ReleaseError(f"the stubs are not what the reference makes ({', '.join(display_path(p) for p in stale)}):"
                           f" write them with `{stubs.REGENERATE}`, review the difference and commit it")
    functions = reference_functions()
    with tempfile.TemporaryDirectory() as tmp:
        staging = Path(tmp) / "release"
        for path in release_files():
            target = staging / path.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        (staging / "README.md").write_text(student_readme((REPO / "README.md").read_text()))
        # The Triton kernel tests' trusted launch code: the stub's, as handed out (grader/judge/snapshot.py).
        for exercise, spec in KERNEL_EXERCISES.items():
            launch = staging / launch_code_file(exercise).relative_to(REPO)
            launch.write_text(stub_launch_code((REPO / "exercises" / f"{exercise}.py").read_text(), spec))
        if execute_notebooks:
            run_notebooks(staging)
        found = leaks(staging, functions)
        if found:
            raise ReleaseError("the release would hold the reference's code: " + "; ".join(found[:5]))
        out.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staging, out, dirs_exist_ok=True)
    return sorted(p for p in out.rglob("*") if p.is_file())
