#!/usr/bin/env python3
"""Classroom 50 autograder for the MLP-block exercises (__MADE_BY__).

Classroom 50 runs this once per submission with the student's checkout as the working directory.
It grades the checkout's exercises/ with the grader, graded suites and reference in this folder
(never anything from the checkout), in the bubblewrap sandbox, and writes ./result.json and
./release-body.md. It exits non-zero, writing no result.json, when it cannot grade: Classroom 50
then reports an infrastructure error instead of a score. Details: instructor/classroom50.py.
"""

import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent
# The tasks this assignment grades, of __ALL_TASKS__ (to change them, make the folder again
# with --tasks).
TASKS = "__TASKS__"
# Of those, the bonus tasks and what each one's full marks are worth in bonus points (None: its own
# points), and the most bonus points in all (None: no cap).
BONUS = "__BONUS__"
BONUS_CAP = "__BONUS_CAP__"
# What grading imports; on a GitHub Actions runner, pip installs what is missing (CPU torch).
REQUIREMENTS = "__REQUIREMENTS__"

sys.path.insert(0, str(FOLDER))  # this folder's grader, whatever the checkout holds
from instructor.classroom50 import main  # noqa: E402

sys.exit(main(FOLDER, TASKS, REQUIREMENTS, BONUS, BONUS_CAP))
