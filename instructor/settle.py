"""``python -m instructor.settle HAND_IN OUT``: one hand-in, found as the batch finds it, for a platform
that hands the grader one student's upload (Gradescope's ``/autograder/submission``).

The same intake as ``--batch`` (``instructor/hand_in.py``): exercise files found in folders and zips
down to its depth, whatever their case and separators (``hw3/src/MLP_Block.py``), the one graded chosen
where several answer, links never followed, and anything else named in the note. OUT receives the
exercise files under their own names. Prints one JSON object: ``note`` (what was found, graded or not
and why, for the student's feedback) and ``skipped`` (why nothing can be graded, else ""); exits 0 when
OUT holds a hand-in to grade, 2 when it does not.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from grader.probes.safe_text import printable
from grader.tasks import TASKS
from instructor.hand_in import HandIn
from instructor.unzip import Unpacker

EXERCISES = sorted({task.exercise for task in TASKS})  # what a hand-in's files may answer


def settle(hand_in: Path, out: Path, work: Path) -> tuple[str, str]:
    """(the note, why it is skipped or ""): ``out`` holds the files graded when nothing was skipped."""
    found = HandIn(EXERCISES, Unpacker(work))
    found.add_folder(hand_in, "", 0)
    note, why = found.settle(out)
    return printable(note), printable(why)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    hand_in, out = map(Path, argv)
    with tempfile.TemporaryDirectory(prefix="settle-") as work:
        note, why = settle(hand_in, out, Path(work))
    print(json.dumps({"note": note, "skipped": why}))
    return 2 if why else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
