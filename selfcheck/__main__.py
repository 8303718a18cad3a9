"""The maintainer command: ``python -m selfcheck``. Everything here must pass before a change lands.

1. every graded suite on the reference (``pytest tests --target reference``), compared with the
   reference itself and then with its recorded answers, the snapshot the student release uses (a
   failure there: the snapshot has drifted, ``python -m tests.snapshot`` records it again);
2. the checks of the checks (``pytest selfcheck``): wrong implementations fail, correct ones pass,
   the stubs fail with their pointers, the grader cannot be gamed, the notebook's twin is in step;
3. the notebooks, outputs included, under nbval in strict mode.

Each step is its own pytest run (they need different options); the last line adds them up.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

STEPS = [
    ("graded suites on the reference", ["tests", "--target", "reference"]),
    ("graded suites on the reference, against its snapshot", ["tests", "--target", "reference", "--reference", "snapshot"]),
    ("self-checks", ["selfcheck"]),
    ("notebooks (nbval, strict)", ["-p", "nbval", "--nbval", "--nbval-current-env", "notebooks"]),
]


def count(report: Path) -> tuple[int, int, int]:
    """(passed, failed, skipped) from a junit report; errors count as failures."""
    passed = failed = skipped = 0
    for suite in ET.parse(report).getroot().iter("testsuite"):
        total = int(suite.get("tests", 0))
        bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skip = int(suite.get("skipped", 0))
        passed, failed, skipped = passed + total - bad - skip, failed + bad, skipped + skip
    return passed, failed, skipped


def main(argv: list[str]) -> int:
    totals = [0, 0, 0]
    broken = []
    for title, args in STEPS:
        print(f"\n=== {title}: pytest {' '.join(args)} {' '.join(argv)}".rstrip(), flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "report.xml"
            start = time.perf_counter()
            code = subprocess.call([sys.executable, "-m", "pytest", *args, "-q",
                                    f"--junitxml={report}", *argv], cwd=REPO)
            seconds = time.perf_counter() - start
            passed, failed, skipped = count(report) if report.exists() else (0, 0, 0)
        print(f"--- {title}: {passed} passed, {failed} failed, {skipped} skipped in {seconds:.1f}s"
              f" (pytest exit {code})", flush=True)
        # Exit 5 (nothing collected) is a failure too: a step that ran no test checked nothing.
        if code != 0 or passed == 0:
            broken.append(title)
        for i, n in enumerate((passed, failed, skipped)):
            totals[i] += n
    if broken:
        print(f"\nFAILED steps: {', '.join(broken)}")
    print(f"\nselfcheck: {totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
