"""A term's grading end to end, by the documented commands alone, on the class ``make_class.py`` writes.

Both LMS forms in one download (Canvas's loose files and Moodle's folders), then, as docs/platforms.md
walks through them:

1. the core tasks for credit, with a late policy of 10 % a day capped at 30 % (Moodle's grading
   worksheet and a CSV of Canvas times give the submission times);
2. the gated task for the honours group alone (``--students``);
3. a regrade from a second download in which one student handed in again (``--resume``), first given
   without the late policy: it stops before grading, naming the options;
4. then as it should be: only that student is graded again, and only their feedback goes back.

Each step's outcome is checked: full marks for every correct hand-in and less for every mistake, the
penalty arithmetic an instructor does by hand, who gets rows and feedback, what a regrade changes. The
script prints each row and each check, and exits 1 if any check failed. Two to four minutes on a
2-core machine.

    python benchmarks/whole_term.py [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import make_class  # noqa: E402

CORE, CORE_MAX = "mlp,glu,cost", 63
LIMITS = ["--jobs", "2", "--call-timeout", "10", "--budget", "20"]
LATE = ["--late-penalty", "10%/day", "--late-cap", "30%", "--due", make_class.DUE]
FULL = ["alice", "bobjones", "Carol Diaz", "Judy Chen", "kenmoore", "liamw", "Noah Berg", "Rosa Lima", "umab",
        "heidil", "Ivan Ruiz", "Zoë Łukasiewicz"]  # the core full: heidil's and Ivan's mistakes are in Triton
SHORT = ["daveking", "Erin Fox", "frankg", "Grace Ho", "miaj", "oliviat", "peterq", "quinnr", "samlee", "Tina Wu",
         "wangxi"]
SKIPPED = ["Lena Park", "ivanovayekaterina"]  # two different files of one name; a notebook, no exercise file
# By hand: days started after the due date, 10 % of the score each, at most 30 %: Erin Fox 8 h late (1 day),
# Grace Ho 4 days 10 h (5 days, 50 %, capped), samlee (Canvas) 8 h.
LATE_SHARE = {"Erin Fox": 0.1, "Grace Ho": 0.3, "samlee": 0.1}


def instructor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "instructor", *args], cwd=REPO, capture_output=True, text=True)


def rows(csv_path: Path) -> list[dict]:
    with open(csv_path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def by_student(table: list[dict]) -> dict[str, list[dict]]:
    """The rows by student; two students of one name are rows of their own (``John Smith_30022``)."""
    found: dict[str, list[dict]] = {}
    for row in table:
        student = row["submission"].split("_")[0] if row["lms"] == "moodle" else row["submission"]
        found.setdefault(student, []).append(row)
    return found


class Checks:
    def __init__(self) -> None:
        self.failed = 0

    def expect(self, ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
        self.failed += not ok


def core_step(out: Path, checks: Checks) -> None:
    csv_path = out / "core" / "grades.csv"
    started = time.monotonic()
    proc = instructor("--batch", str(out / "class.zip"), "--csv", str(csv_path), "--tasks", CORE,
                      "--canvas-assignment", "Homework 3 (12345)", *LATE, "--submitted", str(out / "worksheet.csv"),
                      "--submitted", str(out / "canvas_times.csv"), *LIMITS)
    print(f"1. core tasks, late policy: exit {proc.returncode}, {time.monotonic() - started:.0f} s;"
          f" {proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-400:]}")
    table = by_student(rows(csv_path))
    for student, found in sorted(table.items()):
        for row in found:
            print(f"     {student:<18} {row['score']:>5} -{row['late_penalty'] or '0':<5} = {row['final_score']:<6}"
                  f" {row['first_failure'][:90]}")
    checks.expect(proc.returncode == 0, "the batch finished")
    checks.expect(all(r["score"] == str(CORE_MAX) for s in FULL for r in table.get(s, [{"score": "absent"}])),
                  f"full marks ({CORE_MAX}) for every correct core: {', '.join(FULL)}")
    checks.expect(all(float(r["score"]) < CORE_MAX for s in SHORT for r in table.get(s, [{"score": CORE_MAX}])),
                  f"less for every mistake: {', '.join(SHORT)}")
    smiths = sorted(float(r["score"]) for r in table.get("John Smith", []))
    checks.expect(len(smiths) == 2 and smiths[0] < smiths[1] == CORE_MAX, f"the two John Smiths apart: {smiths}")
    skipped = {r["entry"]: r["reason"] for r in rows(out / "core" / "grades_skipped.csv")}
    checks.expect(sorted({e.split("_")[0] for e in skipped}) == sorted(SKIPPED), f"skipped, each with why: {SKIPPED}")
    for student, share in LATE_SHARE.items():
        row = table[student][0]
        want = round(float(row["score"]) * (1 - share), 2)
        checks.expect(abs(float(row["final_score"]) - want) < 0.01,
                      f"{student}: {row['score']} less {share:.0%} is {want} (the CSV: {row['final_score']})")
    moodle = {r["Full name"]: r["Grade"] for r in rows(out / "core" / "grades_moodle.csv")}
    with open(out / "core" / "grades_canvas.csv", newline="", encoding="utf-8") as f:
        canvas = {row[0]: row[5] for row in list(csv.reader(f))[2:]}
    checks.expect(moodle["Grace Ho"] == table["Grace Ho"][0]["final_score"] and canvas["samlee"] == table["samlee"][0]
                  ["final_score"], "the gradebooks take the score after the penalty (Moodle's Grace Ho, Canvas's samlee)")
    page = (out / "core" / "grades_feedback" / "Grace Ho.md").read_text(encoding="utf-8")
    checks.expect("5 days late, 30% of the score off" in page, "Grace Ho's feedback gives the days late and the cap")
    on_time = [s for s in FULL if s not in LATE_SHARE]
    checks.expect(all(table[s][0]["final_score"] == table[s][0]["score"] for s in on_time), "no penalty on time")
    with zipfile.ZipFile(out / "core" / "grades_canvas_feedback.zip") as z:
        names = z.namelist()
        page = z.read(next(n for n in names if n.startswith("daveking_"))).decode()
    checks.expect(page.startswith("# -*- coding: utf-8 -*-\n# Feedback on your hand-in: Canvas shows it under the name")
                  and "# (Your file: mlp_block.py)\n" in page,
                  f"Canvas's feedback in the form of the file it is shown as ({len(names)} files)")
    checks.expect(not make_class.ESCAPE_MARKER.exists(), "nothing written outside the sandbox")


def honours_step(out: Path, checks: Checks) -> None:
    csv_path = out / "honours" / "grades.csv"
    started = time.monotonic()
    proc = instructor("--batch", str(out / "class.zip"), "--csv", str(csv_path), "--tasks", "gated",
                      "--students", str(out / "honours.txt"), "--canvas-assignment", "Honours task (12346)", *LIMITS)
    print(f"2. the gated task, honours group: exit {proc.returncode}, {time.monotonic() - started:.0f} s")
    table = rows(csv_path)
    for row in table:
        print(f"     {row['submission']:<18} {row['score']:>5}/{row['max_score']} {row['first_failure'][:90]}")
    checks.expect(sorted(by_student(table)) == sorted(make_class.HONOURS), "rows for the group alone")
    feedback = sorted(p.stem for p in (out / "honours" / "grades_feedback").glob("*.md"))
    checks.expect(feedback == sorted(r["submission"] for r in table), "feedback for the group alone")
    scores = {student: float(found[0]["score"] or 0) for student, found in by_student(table).items()}
    others = [v for s, v in scores.items() if s != "Ivan Ruiz"]
    checks.expect(bool(others) and scores.get("Ivan Ruiz", 99) < min(others) == max(others) == float(table[0]["max_score"]),
                  "the K mask missing costs Ivan Ruiz points; the correct kernels get full marks")


def regrade_step(out: Path, checks: Checks) -> None:
    second = out / "second"
    shutil.copytree(out / "class", second)
    fixed = next(second.glob("daveking_*_mlp_block.py"))
    fixed.write_text(make_class.reference("mlp_block"))
    make_class.zip_folder(second, out / "second.zip")
    core = out / "core" / "grades.csv"
    before = {r["submission"]: r for r in rows(core)}
    common = ["--batch", str(out / "second.zip"), "--csv", str(core), "--tasks", CORE, "--resume",
              "--canvas-assignment", "Homework 3 (12345)", *LIMITS]
    forgot = instructor(*common)
    print(f"3. the regrade without the late policy: exit {forgot.returncode}: {forgot.stderr.strip()[-300:]}")
    checks.expect(forgot.returncode == 3 and "--late-penalty 10%/day in the batch" in forgot.stderr,
                  "stopped before grading, naming --late-penalty")
    proc = instructor(*common, *LATE, "--submitted", str(out / "worksheet.csv"),
                      "--submitted", str(out / "canvas_times.csv"))
    print(f"4. the regrade from a second download: exit {proc.returncode}; {proc.stderr.strip().splitlines()[:2]}")
    after = {r["submission"]: r for r in rows(core)}
    changed = sorted(name for name in after if after[name] != before.get(name))
    checks.expect(changed == ["daveking"] and after["daveking"]["score"] == str(CORE_MAX),
                  f"only daveking's row changed, to full marks ({changed})")
    with zipfile.ZipFile(out / "core" / "grades_canvas_feedback.zip") as z:
        checks.expect([n.split("_")[0] for n in z.namelist()] == ["daveking"], f"the feedback zip: {z.namelist()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/whole-term"),
                        help="where the class and the grades go (a new folder, or one this script made)")
    args = parser.parse_args()
    made = subprocess.run([sys.executable, str(REPO / "benchmarks" / "make_class.py"), "--out", str(args.out)],
                          capture_output=True, text=True)
    if made.returncode:
        print(made.stderr, file=sys.stderr)
        return made.returncode
    print(made.stdout.splitlines()[0])
    checks = Checks()
    core_step(args.out, checks)
    honours_step(args.out, checks)
    regrade_step(args.out, checks)
    print(f"{checks.failed} expectation(s) failed" if checks.failed else "every expectation held")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
