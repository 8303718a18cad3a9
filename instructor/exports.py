"""Autograders made from this checkout: a Gradescope bundle and a Classroom 50 folder.

Both hold what grading needs and nothing a student could use to pass: the grader, the graded
suites, the reference, the pytest config and the requirements (``INCLUDE``), plus the platform's
own entry points, which are files in ``instructor/templates/`` with ``__NAME__`` placeholders filled
in here (the self-checks run ``bash -n``, shellcheck and a Python parse on them, filled in).

``python -m instructor --gradescope-bundle autograder.zip``: Gradescope unpacks the zip into
/autograder/source, runs ``setup.sh`` once when it builds the image, and ``run_autograder`` for each
submission (the student's files are in /autograder/submission; the grade goes to
/autograder/results/results.json).

``python -m instructor --classroom50 DIR``: DIR becomes CLASSROOM/autograders/ASSIGNMENT/ in the
course's classroom50 repository; Classroom 50 runs its ``autograder.py`` for each submission, in the
student's checkout (``instructor/classroom50.py``).

With ``--platform-check`` either command makes a platform check instead (``instructor/platform_check.py``):
the same set-up and limits, but its ``run_autograder`` or ``autograder.py`` grades the bundled reference,
reads nothing of the submission and scores 0. Only these packages hold ``instructor/platform_check.py``.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import shutil
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path

from grader import points
from grader.cli import bonus_option
from grader.grading import GraderFailure, overall_timeout
from grader.paths import REFERENCE, REPO, reference_present
from grader.results import BonusRule
from grader.sandbox import Limits
from grader.tasks import TASK_NAMES, TASK_TITLES, TASKS

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True)
class Platform:
    """A platform's own stop for one grade, and the limits that keep the grader's worst case inside it.

    The grader's time budget is the submission's (``grading``), split evenly over the tasks it grades: however
    many tasks a course grades, a submission hanging in every one is stopped by the same time, and a hang still
    costs only its own task."""

    name: str
    stops_after: float  # seconds the platform gives one grade before it kills it
    grading: float  # seconds of the grader's time budget for one submission, all of its tasks together
    call_timeout: float  # seconds for one probe (or one import)
    startup_timeout: float  # seconds for a sandboxed child to start
    setup: float = 0.0  # seconds of that spent before grading starts (installs), at most

    def limits(self, tasks: int = len(TASK_NAMES)) -> Limits:
        """The grader's limits for a submission graded on ``tasks`` tasks: each its even share of ``grading``,
        to a tenth of a second below it (so the shares never add up to more)."""
        if tasks < 1:
            raise ValueError(f"tasks: expected at least one task to grade, got {tasks}")
        share = math.floor(self.grading / tasks * 10) / 10
        return Limits(call_timeout=self.call_timeout, budget=share, startup_timeout=self.startup_timeout)

    def worst_case(self, tasks: int = len(TASK_NAMES)) -> float:
        """Seconds one submission can take if it hangs in every task: the grader stops it by then."""
        return overall_timeout(self.limits(tasks), tasks) + self.setup


# Gradescope stops an autograder run after 10 minutes unless the assignment says otherwise; Classroom 50
# stops the whole grade job after 15, installs (CPU torch, about 190 MB per submission) included.
# overall_timeout counts every task's share, three child start-ups and two minutes of slack.
PLATFORMS = {
    "gradescope": Platform("Gradescope", 600, grading=250, call_timeout=20, startup_timeout=60),
    "classroom50": Platform("Classroom 50", 900, grading=300, call_timeout=30, startup_timeout=60, setup=240),
    # PrairieLearn stops a grading job at its question's "timeout", 600 s at most: asked for in full.
    "prairielearn": Platform("PrairieLearn", 600, grading=250, call_timeout=20, startup_timeout=60),
}
# The grader's own defaults, and the limits docs/platforms.md suggests for a large batch: per task, as the
# command line gives them (``--budget``), so these grow with the tasks a batch grades.
BATCH_LIMITS = {"`python -m grader`, `python -m instructor --batch` (defaults)": Limits(),
                "a batch with `--budget 50 --call-timeout 20 --startup-timeout 60`":
                    Limits(call_timeout=20, budget=50, startup_timeout=60)}
PLATFORM_WHERE = {"gradescope": "Gradescope bundle, `PLATFORMS[\"gradescope\"]`",
                  "classroom50": "Classroom 50 folder, `PLATFORMS[\"classroom50\"]`",
                  "prairielearn": "PrairieLearn grader, `PLATFORMS[\"prairielearn\"]`"}
LIMITS_DOC = REPO / "docs" / "platforms.md"


def limits_table(tasks: int = len(TASK_NAMES)) -> str:
    """docs/platforms.md's table of worst cases for a submission graded on ``tasks`` tasks, from the limits
    above: the one place its arithmetic is done (written into the document by ``instructor/doc_tables.py``)."""
    rows = ["| where | per call | per task | computed | worst case | the platform stops a grade after |",
            "|---|---|---|---|---|---|"]
    for where, limits in BATCH_LIMITS.items():
        seconds = overall_timeout(limits, tasks)
        rows.append(f"| {where} | {limits.call_timeout:g} s | {limits.budget:g} s (`--budget`) | {limits.budget:g} x"
                    f" {tasks} + 3 x {limits.startup_timeout:g} + 120 = {seconds:g} s | {seconds / 60:.1f} min | (no stop) |")
    for key, platform in PLATFORMS.items():
        limits = platform.limits(tasks)
        seconds = overall_timeout(limits, tasks)
        installs = f", + {platform.setup:g} s of installs" if platform.setup else ""
        rows.append(f"| {PLATFORM_WHERE[key]} | {limits.call_timeout:g} s | {platform.grading:g} s per submission /"
                    f" {tasks} = {limits.budget:g} s | {limits.budget:g} x {tasks} + 3 x {limits.startup_timeout:g} + 120"
                    f" = {seconds:g} s{installs} | {platform.worst_case(tasks) / 60:.1f} min |"
                    f" {platform.stops_after / 60:g} min |")
    return "\n".join(rows)


PRAIRIELEARN_FOLDER = "mlp_block_grader"  # the grader's folder in the course's serverFilesCourse/
PRAIRIELEARN_QUESTION = "mlp_block"  # the question's folder in the course's questions/ (its QID)
PRAIRIELEARN_IMAGE = "YOUR_NAME/mlp-block-grader"  # the image's name, for the instructor to replace with their own


def limit_options(limits: Limits) -> str:
    """The command-line options of ``python -m grader`` that set ``limits``."""
    return (f"--call-timeout {limits.call_timeout:g} --budget {limits.budget:g}"
            f" --startup-timeout {limits.startup_timeout:g}")
CPU_WHEELS = "https://download.pytorch.org/whl/cpu"  # PyTorch's index of CPU-only wheels
INCLUDE = ["grader/**/*.py", "tests/*.py", f"{REFERENCE.relative_to(REPO).as_posix()}/*.py", "pyproject.toml",
           "requirements.txt"]
# Gradescope's run_autograder finds the exercise files in the upload as the batch does (instructor/settle.py).
GRADESCOPE_INCLUDE = ["instructor/__init__.py", "instructor/settle.py", "instructor/hand_in.py", "instructor/unzip.py"]
# The Classroom 50 folder also runs the platform's side of grading (instructor/classroom50.py), with the
# same intake as Gradescope's.
CLASSROOM50_INCLUDE = [*GRADESCOPE_INCLUDE, "instructor/classroom50.py", "instructor/exports.py"]
# A platform check also runs the checks (instructor/platform_check.py): only its packages hold them.
PLATFORM_CHECK_INCLUDE = [*CLASSROOM50_INCLUDE, "instructor/platform_check.py"]
CLASSROOM50_MADE_BY = "made by python -m instructor --classroom50"
PLATFORM_CHECK_MADE_BY = f"{CLASSROOM50_MADE_BY} --platform-check"
PLACEHOLDER = re.compile(r"__[A-Z][A-Z_]*__")


def fill(template: str, **values: object) -> str:
    """``instructor/templates/<template>`` with each ``__KEY__`` replaced: a string as it is, anything else
    (a list, a dict, None) as a Python literal in place of the quoted placeholder ``"__KEY__"``. Every
    placeholder must be filled."""
    text = (TEMPLATES / template).read_text()
    for key, value in values.items():
        mark = f"__{key.upper()}__"
        text = text.replace(mark, value) if isinstance(value, str) else text.replace(f'"{mark}"', repr(value))
    left = sorted(set(PLACEHOLDER.findall(text)))
    if left:
        raise RuntimeError(f"{template}: placeholders not filled: {', '.join(left)}")
    return text


def exercise_files(tasks) -> list[str]:
    """The files a hand-in of ``tasks`` holds, once each, in the registry's order (mlp and glu share one)."""
    return list(dict.fromkeys(f"{task.exercise}.py" for task in TASKS if task.name in tasks))


def grading_requirements() -> list[str]:
    """torch (pinned as the project pins it), pytest and triton: what grading imports."""
    wanted = []
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if re.match(r"^(torch|pytest|triton)\b", line):
            wanted.append(line.split(";")[0].strip())
    return wanted


def grading_files(extra: list[str] = ()) -> list[tuple[Path, str]]:
    """Each file grading needs (and ``extra`` globs), with its path inside an autograder."""
    if not reference_present():
        raise GraderFailure("an autograder needs the reference (solution/hidden/): make it from the instructor's"
                            " repository, not from the student release")
    return [(file, file.relative_to(REPO).as_posix())
            for pattern in [*INCLUDE, *extra] for file in sorted(REPO.glob(pattern))]


def gradescope_scripts(tasks: list[str] | None, bonus: BonusRule | None = None,
                       check: bool = False) -> dict[str, str]:
    """setup.sh and run_autograder (with ``check``: the platform check's), filled in."""
    setup = fill("setup.sh", cpu_wheels=CPU_WHEELS, requirements=" ".join(map(shlex.quote, grading_requirements())))
    script = check_script if check else grading_script
    return {"setup.sh": setup, "run_autograder": script("gradescope", tasks, bonus)}


# Where each platform puts things, for the one grading script (instructor/templates/run_grading).
GRADING_LAYOUTS = {
    "gradescope": dict(platform="Gradescope", root="/autograder", python="$ROOT/venv/bin/python", source="source",
                       upload="submission", results="results/results.json"),
    "prairielearn": dict(platform="PrairieLearn", root="/grade", python="python3",
                         source=f"serverFilesCourse/{PRAIRIELEARN_FOLDER}", upload="student",
                         results="results/results.json"),
}


def grading_script(platform: str, tasks: list[str] | None, bonus: BonusRule | None) -> str:
    """The script a platform runs per submission: find the files, grade them sandboxed, write its results."""
    bonus_tasks, bonus_cap = bonus_option(bonus)
    return fill("run_grading", **GRADING_LAYOUTS[platform], format=platform, tasks=",".join(tasks or TASK_NAMES),
                bonus=bonus_tasks, bonus_cap=bonus_cap, files=", ".join(exercise_files(tasks or TASK_NAMES)),
                limits=limit_options(PLATFORMS[platform].limits(len(tasks or TASK_NAMES))))


def check_script(platform: str, tasks: list[str] | None, bonus: BonusRule | None = None) -> str:
    """The platform check's script in the grading script's place: it grades the package's reference, never
    the submission (``bonus`` plays no part in it)."""
    return fill("run_platform_check", **GRADING_LAYOUTS[platform], format=platform, tasks=",".join(tasks or TASK_NAMES))


def make_bundle(path: Path, tasks: list[str] | None = None, bonus: BonusRule | None = None,
                check: bool = False) -> None:
    """Write the Gradescope autograder zip grading ``tasks`` (None: all), ``bonus`` among them counting
    as bonus points; with ``check``, the platform check of those tasks instead. Nothing is left at
    ``path`` if it cannot be made."""
    scripts = gradescope_scripts(tasks, bonus, check)
    files = grading_files(PLATFORM_CHECK_INCLUDE if check else GRADESCOPE_INCLUDE)
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
        for file, name in files:
            bundle.write(file, name)
        for name, text in scripts.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16  # executable, as Gradescope expects
            info.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(info, text)


def prairielearn_question(tasks: list[str], bonus: BonusRule | None, check: bool) -> dict[str, str]:
    """The question's ``info.json`` and ``question.html`` (``instructor/templates/question.html``): a v3
    question graded externally by this grader, whose file upload asks for the exercise files of ``tasks``
    (those only bonus tasks need, optional). Its uuid is new: the question keeps it when the grader is
    made again, since only serverFilesCourse/ is copied again (docs/platforms.md)."""
    titles = ", ".join(TASK_TITLES[task] for task in tasks)
    bonus_only = [name for name in exercise_files(tasks)
                  if all(t.name in (bonus.weights if bonus else {}) for t in TASKS if t.name in tasks
                         and f"{t.exercise}.py" == name)]
    files = [name for name in exercise_files(tasks) if name not in bonus_only]
    if check:  # the check reads no file: any of them may be uploaded, none is needed
        files, bonus_only = [], exercise_files(tasks)
    options = {"enabled": True, "image": PRAIRIELEARN_IMAGE, "serverFilesCourse": [f"{PRAIRIELEARN_FOLDER}/"],
               "entrypoint": f"/grade/serverFilesCourse/{PRAIRIELEARN_FOLDER}/run.sh",
               "timeout": int(PLATFORMS["prairielearn"].stops_after)}
    info = {"uuid": str(uuid.uuid4()),
            "title": f"Platform check (not graded): {titles}" if check else f"Transformer MLP block: {titles}",
            "topic": "Transformer MLP block", "tags": ["platform-check" if check else "autograded"], "type": "v3",
            "singleVariant": True, "gradingMethod": "External", "externalGradingOptions": options}
    prompt = ("A platform check: upload any of these files once and read the result; it grades nothing." if check
              else f"Upload your exercise files ({', '.join(files + bonus_only)}), as they are in exercises/;"
                   + (f" {', '.join(bonus_only)} for the bonus, if you did it." if bonus_only else ""))
    made_by = "made by python -m instructor --prairielearn-grader" + " --platform-check" * check
    html = fill("question.html", made_by=made_by, prompt=prompt, files=", ".join(files),
                optional_files=", ".join(bonus_only))
    return {"info.json": json.dumps(info, indent=2) + "\n", "question.html": html}


def make_prairielearn(folder: Path, tasks: list[str] | None, bonus: BonusRule | None = None,
                      check: bool = False) -> None:
    """Write a PrairieLearn external grader and its question into ``folder`` (new or empty):
    ``serverFilesCourse/`` (the grader and its entry point ``run.sh``, for the course's own serverFilesCourse),
    ``questions/mlp_block/`` (``info.json``, with the grader's externalGradingOptions, and ``question.html``,
    for the course's questions/) and ``Dockerfile.prairielearn`` (its image); with ``check``, the platform
    check in the same layout instead."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise GraderFailure(f"{folder} is not a new or empty folder")
    grader = folder / "serverFilesCourse" / PRAIRIELEARN_FOLDER
    for file, name in grading_files(PLATFORM_CHECK_INCLUDE if check else GRADESCOPE_INCLUDE):
        (grader / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, grader / name)
    (grader / "run.sh").write_text((check_script if check else grading_script)("prairielearn", tasks, bonus))
    (grader / "run.sh").chmod(0o755)
    (folder / "Dockerfile.prairielearn").write_text(
        fill("Dockerfile.prairielearn", cpu_wheels=CPU_WHEELS, requirements=" ".join(map(shlex.quote, grading_requirements()))))
    question = folder / "questions" / PRAIRIELEARN_QUESTION
    question.mkdir(parents=True)
    for name, text in prairielearn_question(list(tasks or TASK_NAMES), bonus, check).items():
        (question / name).write_text(text)


def classroom50_script(tasks: list[str] | None, bonus: BonusRule | None = None, check: bool = False) -> str:
    """autograder.py (with ``check``: the platform check's), filled in."""
    if check:
        return fill("platform_check.py", made_by=PLATFORM_CHECK_MADE_BY, tasks=list(tasks or TASK_NAMES),
                    requirements=grading_requirements())
    return fill("autograder.py", made_by=CLASSROOM50_MADE_BY, all_tasks=", ".join(TASK_NAMES),
                tasks=list(tasks or TASK_NAMES), requirements=grading_requirements(),
                bonus=dict(bonus.weights) if bonus else {}, bonus_cap=bonus.cap if bonus else None)


def make_classroom50(folder: Path, tasks: list[str] | None, bonus: BonusRule | None = None,
                     check: bool = False) -> None:
    """Write (or bring up to date) a Classroom 50 autograder folder grading ``tasks`` (None: all),
    ``bonus`` among them counting as bonus points; with ``check``, the platform check of those tasks."""
    script = folder / "autograder.py"
    made_by = re.compile(r"made by python -m (grader|instructor) --classroom50")  # this version or the one before
    ours = script.is_file() and made_by.search(script.read_text(errors="replace"))
    if folder.is_dir() and any(folder.iterdir()) and not ours:
        raise GraderFailure(f"{folder} is not empty and holds no autograder made by --classroom50:"
                            " give a new or empty folder")
    if folder.exists() and not folder.is_dir():
        raise GraderFailure(f"{folder} is a file; give a folder")
    fractional = [f"{suite}::{name} ({value} in {task.name})" for task in TASKS if task.name in (tasks or TASK_NAMES)
                  for suite in task.suites for name, value in points.declared(REPO / "tests" / suite, task.name).items()
                  if not points.whole(value)]
    if fractional:
        raise GraderFailure("Classroom 50 scores each test in whole points, and these tests are worth a fraction"
                            f" (grader/points.py): {', '.join(fractional)}; give them whole points, or grade on"
                            " Gradescope or PrairieLearn, which take fractions")
    files = grading_files(PLATFORM_CHECK_INCLUDE if check else CLASSROOM50_INCLUDE)
    text = classroom50_script(tasks, bonus, check)
    for made in ("grader", "instructor", "tests", "solution"):  # what an earlier run wrote: nothing stale stays
        shutil.rmtree(folder / made, ignore_errors=True)
    for file, name in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, folder / name)
    script.write_text(text)
    script.chmod(0o755)
