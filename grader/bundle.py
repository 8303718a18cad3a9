"""Autograders made from this checkout: a Gradescope bundle and a Classroom 50 folder.

Both hold what grading needs and nothing a student could use to pass: the grader, the graded
suites, the reference, the pytest config and the requirements (``INCLUDE``), plus the platform's
own entry points.

``python -m grader --gradescope-bundle autograder.zip``: Gradescope unpacks the zip into
/autograder/source, runs ``setup.sh`` once when it builds the image, and ``run_autograder`` for each
submission (the student's files are in /autograder/submission; the grade goes to
/autograder/results/results.json).

``python -m grader --classroom50 DIR``: DIR becomes CLASSROOM/autograders/ASSIGNMENT/ in the course's
classroom50 repository; Classroom 50 runs its ``autograder.py`` for each submission, in the
student's checkout (``grader/classroom50.py``).
"""

from __future__ import annotations

import re
import shlex
import shutil
import zipfile
from pathlib import Path

from grader.grading import TASK_TITLES, GraderFailure
from grader.sandbox import REPO

CPU_WHEELS = "https://download.pytorch.org/whl/cpu"  # PyTorch's index of CPU-only wheels
INCLUDE = ["grader/*.py", "tests/*.py", "solution/hidden/*.py", "pyproject.toml", "requirements.txt"]

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
#
# Base image: Ubuntu 22.04 or later (Configure Autograder > Base Image). torch 2.13.0 has wheels for
# Python 3.10 to 3.14, built for glibc 2.28 or later. Ubuntu's python3 is 3.10 on 22.04 (pip then
# takes Triton 3.8: Triton 3.9 needs Python 3.11) and 3.12 on 24.04. Ubuntu 20.04's python3 is 3.8,
# too old for torch 2.13: on an older image this script stops with the reason instead of building an
# autograder that cannot grade.
set -euo pipefail
. "${{OS_RELEASE:-/etc/os-release}}"  # OS_RELEASE: another file, to try this check elsewhere
if [ "${{ID:-}}" != ubuntu ] || ! dpkg --compare-versions "${{VERSION_ID:-0}}" ge 22.04; then
  echo "setup.sh: this autograder needs an Ubuntu 22.04 or later base image, not ${{PRETTY_NAME:-this one}}:" \\
       "choose Ubuntu 22.04 or 24.04 under Configure Autograder > Base Image" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# bubblewrap sandboxes the student's code; where the container refuses it, nothing is graded.
apt-get install -y -qq python3 python3-venv python3-pip bubblewrap
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "setup.sh: torch 2.13 needs Python 3.10 or later; python3 here is $(python3 -V 2>&1)" >&2
  exit 1
fi
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q --upgrade pip
# The CPU build of torch: Gradescope has no GPU, and the default wheel pulls in several GB of CUDA.
/autograder/venv/bin/pip install -q --extra-index-url {cpu_wheels} \\
    {requirements}
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission; the student's files are in /autograder/submission.
# (AUTOGRADER_ROOT and AUTOGRADER_PYTHON exist for the self-check, which runs it outside Gradescope.)
set -u
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PYTHON="${AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}"
cd "$ROOT/source"
chmod -R go-rwx "$ROOT/source"  # the reference and the tests: the grader's alone
mkdir -p "$ROOT/results"
if ! find "$ROOT/submission" -name '*.py' | grep -q .; then
  # Nothing to grade: the student uploaded no exercise file. That is a 0 with the reason.
  "$PYTHON" - "$ROOT/results/results.json" <<'EOF'
import json, pathlib, sys
pathlib.Path(sys.argv[1]).write_text(json.dumps({
    "score": 0, "tests": [],
    "output": "No exercise file was uploaded. Upload the exercise files themselves"
              " (mlp_block.py, mlp_cost.py, triton_swiglu.py), not an archive."}))
EOF
  exit 0
fi
# Grading for credit: the sandbox is required. If it cannot start, the grader exits 3 and writes no
# results, and this script fails, so Gradescope shows an autograder failure rather than a grade.
"$PYTHON" -m grader "$ROOT/submission" --sandbox bwrap --gradescope "$ROOT/results/results.json"
"""


def grading_requirements() -> list[str]:
    """torch (pinned as the project pins it), pytest and triton: what grading imports."""
    wanted = []
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if re.match(r"^(torch|pytest|triton)\b", line):
            wanted.append(line.split(";")[0].strip())
    return wanted


def grading_files() -> list[tuple[Path, str]]:
    """Each file grading needs, with its path inside an autograder."""
    from grader.grading import GraderFailure
    from tests.seam import reference_present

    if not reference_present():
        raise GraderFailure("an autograder needs the reference (solution/hidden/): make it from the instructor's"
                            " repository, not from the student release")
    return [(file, file.relative_to(REPO).as_posix()) for pattern in INCLUDE for file in sorted(REPO.glob(pattern))]


def make_bundle(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    setup = SETUP_SH.format(cpu_wheels=CPU_WHEELS, requirements=" ".join(map(shlex.quote, grading_requirements())))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bundle:
        for file, name in grading_files():
            bundle.write(file, name)
        for name, text in (("setup.sh", setup), ("run_autograder", RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16  # executable, as Gradescope expects
            info.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(info, text)


CLASSROOM50_MADE_BY = "made by python -m grader --classroom50"

CLASSROOM50_AUTOGRADER = '''#!/usr/bin/env python3
"""Classroom 50 autograder for the MLP-block exercises ({made_by}).

Classroom 50 runs this once per submission with the student's checkout as the working directory.
It grades the checkout's exercises/ with the grader, graded suites and reference in this folder
(never anything from the checkout), in the bubblewrap sandbox, and writes ./result.json and
./release-body.md. It exits non-zero, writing no result.json, when it cannot grade: Classroom 50
then reports an infrastructure error instead of a score. Details: grader/classroom50.py.
"""

import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent
# The tasks this assignment grades, of {all_tasks} (to change them, make the folder again
# with --tasks).
TASKS = {tasks!r}
# What grading imports; on a GitHub Actions runner, pip installs what is missing (CPU torch).
REQUIREMENTS = {requirements!r}

sys.path.insert(0, str(FOLDER))  # this folder's grader, whatever the checkout holds
from grader.classroom50 import main  # noqa: E402

sys.exit(main(FOLDER, TASKS, REQUIREMENTS))
'''


def make_classroom50(folder: Path, tasks: list[str] | None) -> None:
    """Write (or bring up to date) a Classroom 50 autograder folder grading ``tasks`` (None: all)."""
    script = folder / "autograder.py"
    ours = script.is_file() and CLASSROOM50_MADE_BY in script.read_text(errors="replace")
    if folder.is_dir() and any(folder.iterdir()) and not ours:
        raise GraderFailure(f"{folder} is not empty and holds no autograder made by --classroom50:"
                            " give a new or empty folder")
    if folder.exists() and not folder.is_dir():
        raise GraderFailure(f"{folder} is a file; give a folder")
    for made in ("grader", "tests", "solution"):  # what an earlier run wrote: nothing stale stays
        shutil.rmtree(folder / made, ignore_errors=True)
    for file, name in grading_files():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, folder / name)
    script.write_text(CLASSROOM50_AUTOGRADER.format(
        made_by=CLASSROOM50_MADE_BY, all_tasks=", ".join(TASK_TITLES), tasks=list(tasks or TASK_TITLES),
        requirements=grading_requirements()))
    script.chmod(0o755)
