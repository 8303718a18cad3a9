#!/usr/bin/env python3
"""A PLATFORM CHECK for Classroom 50, not an autograder (__MADE_BY__).

Make it an assignment of its own (a practice one: never the folder of a graded assignment), with the
runtime of the assignment it checks, and submit anything to it once. It reads nothing of the checkout
it runs in: it checks that the sandbox starts on this runner, grades this folder's own reference with
the limits the real autograder uses, and reports in the job's log, in result.json (0 of 0, one test per
check: the submission's status is success only when every check passed) and in the Release. Run
anywhere else as ``python autograder.py`` it writes no result.json and exits 1 when a check failed.
Details: instructor/platform_check.py.
"""

import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent
# The tasks the reference is graded on: those the real autograder grades (make both with the same
# --tasks).
TASKS = "__TASKS__"
# What grading imports; on a GitHub Actions runner, pip installs what is missing (CPU torch).
REQUIREMENTS = "__REQUIREMENTS__"

sys.path.insert(0, str(FOLDER))  # this folder's grader, whatever the checkout holds
from instructor.platform_check import classroom50_main  # noqa: E402

sys.exit(classroom50_main(TASKS, REQUIREMENTS))
