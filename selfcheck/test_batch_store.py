"""A batch's one store and what is made from it, and the gradebook files the LMSs import.

Each submission's record (``.grades_results/NAME.json``, an error included) is written whole when it
finishes; the CSV, the feedback, the reports and the gradebook files are written once, from the
records, at the end of the run; ``--resume`` grades the errors again and nothing else; ``--only``
replaces one record. Grading is stood in for here (``grade`` returns a fixed grade per student, or
fails for one), so these checks take seconds: the batches graded for real, in the sandbox, are
``test_batch_intake.py``'s, and Ctrl-C is ``test_grader_attacks.py``'s.

The gradebook files are checked against the columns their LMSs document: Canvas's gradebook
import reads the columns of its own export (``Student, ID, SIS User ID, SIS Login ID, Section``, then
one column per assignment headed ``Title (id)``; a second row ``Points Possible``) and matches a student
on ``ID``; Moodle's assignment grading worksheet reads ``Identifier`` (``Participant N``), ``Grade`` and
``Last modified (grade)``.
"""

from __future__ import annotations

import csv
import datetime
import json
import re
import shutil
from pathlib import Path

import pytest

from grader import report
from grader.grading import GraderFailure
from grader.paths import reference_file
from grader import results
from grader.results import Grade
from instructor import batch, gradebooks, intake
from instructor.batch_reports import Outputs
from instructor.batch_store import Record

ASSIGNMENT = "Homework 3 (12345)"
CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ASSIGNMENT]
HAND_INS = {  # the entry in the batch folder: the student it grades as, and their LMS id
    "smithbob_111_222_mlp_block.py": ("smithbob", "111"),
    "joneseve_333_444_mlp_block.py": ("joneseve", "333"),
    "Alice Smith_12345_assignsubmission_file_mlp_block.py": ("Alice Smith", "12345"),
    "carol/mlp_block.py": ("carol", ""),
}
POINTS = {"smithbob": 10, "joneseve": 4, "Alice Smith": 7, "carol": 0}  # of 10, and 3 bonus points each but carol


def fake_grade(name: str) -> Grade:
    """Two MLP tests of 5 points and a bonus task of 3: the score counts the bonus, the maximum does not."""
    earned = POINTS[name]
    tests = [results.TestResult("test_mlp.py::test_a", "mlp", min(earned, 5), 5, "passed" if earned >= 5 else "failed",
                        "" if earned >= 5 else "wrong", kind="passed" if earned >= 5 else "failed", cause="x"),
             results.TestResult("test_mlp.py::test_b", "mlp", max(earned - 5, 0), 5, "passed" if earned == 10 else "failed",
                        "" if earned == 10 else "off by one", kind="passed" if earned == 10 else "failed", cause="y"),
             results.TestResult("test_cost.py::test_c", "cost", 0 if name == "carol" else 3, 3,
                        "failed" if name == "carol" else "passed", kind="failed" if name == "carol" else "passed")]
    return Grade(name, seed=7, tests=tests, isolation="stood in", sandboxed=True, seconds=1.25, bonus={"cost": None})


class Batch:
    """A batch folder, the grading stand-in, and every file write counted by path."""

    def __init__(self, tmp: Path, monkeypatch) -> None:
        self.folder, self.csv = tmp / "export", tmp / "out" / "grades.csv"
        for entry in HAND_INS:
            (self.folder / entry).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(reference_file("mlp_block"), self.folder / entry)
        self.failing: set[str] = set()  # students whose grading fails (a grader error)
        self.graded: list[str] = []
        self.writes: dict[str, int] = {}
        write_bytes = report.write_bytes

        def counted(path: Path, data: bytes) -> None:
            key = path.relative_to(self.csv.parent).as_posix()
            self.writes[key] = self.writes.get(key, 0) + 1
            write_bytes(path, data)

        def stand_in(path, *, display, files, **_):
            self.graded.append(display)
            if display in self.failing:
                raise GraderFailure("the grading run wrote no results: not graded")
            grade = fake_grade(display)
            grade.files_digest = files.digest()  # as grade() does: what --resume compares
            return grade

        scan = intake.scan

        def scan_with_lms(folder, work, ignore=frozenset()):
            found = scan(folder, work, ignore)
            for sub in found.submissions:  # where the intake does not say which LMS, the names do
                if not sub.lms and sub.student_id:
                    sub.lms = "moodle" if "_assignsubmission_" in sub.source else "canvas"
            return found

        monkeypatch.setattr(report, "write_bytes", counted)
        monkeypatch.setattr(batch, "grade", stand_in)
        monkeypatch.setattr(batch, "make_runner", lambda: type("Runner", (), {"abort": lambda self: None})())
        monkeypatch.setattr(intake, "scan", scan_with_lms)

    def run(self, *, resume=False, only=None, canvas=ASSIGNMENT) -> int:
        self.writes.clear()
        self.graded.clear()
        return batch.run_batch(self.folder, self.csv, jobs=2, resume=resume, only=only, limits=None,
                               sandbox_mode="auto", canvas_assignment=canvas)

    def rows(self, name: str = "grades.csv") -> list[dict]:
        with open(self.csv.parent / name, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    def table(self, name: str) -> list[list[str]]:
        with open(self.csv.parent / name, newline="", encoding="utf-8") as f:
            return list(csv.reader(f))


@pytest.fixture
def lms_batch(tmp_path, monkeypatch) -> Batch:
    return Batch(tmp_path, monkeypatch)


REPORTS = ["grades.csv", "grades_items.csv", "grades_skipped.csv", "grades_histogram.png", "grades_canvas.csv",
           "grades_canvas_feedback.zip", "grades_moodle.csv"]


def test_each_record_and_each_file_is_written_once(lms_batch):
    lms_batch.failing = {"joneseve"}
    assert lms_batch.run() == 0
    records = [f".grades_results/{name}.json" for name in POINTS]
    pages = [f"grades_feedback/{name}.md" for name in POINTS if name != "joneseve"]  # an error has no feedback
    returned = [".grades_results/.returned"]  # whose feedback this finished run returned
    assert lms_batch.writes == dict.fromkeys(records + pages + REPORTS + returned, 1), lms_batch.writes
    rows = {row["submission"]: row for row in lms_batch.rows()}
    assert list(rows) == sorted(POINTS, key=str.casefold)
    assert rows["joneseve"]["status"] == "error" and "wrote no results" in rows["joneseve"]["first_failure"]
    assert (rows["smithbob"]["score"], rows["smithbob"]["max_score"]) == ("13", "10")  # the bonus counts in the score
    assert [rows["smithbob"][c] for c in ("core_score", "bonus_score", "bonus_max")] == ["10", "3", "3"], rows
    for student, lms_id in HAND_INS.values():
        assert rows[student]["lms_id"] == lms_id, rows[student]
    assert rows["smithbob"]["lms"] == "canvas" and rows["Alice Smith"]["lms"] == "moodle" and rows["carol"]["lms"] == ""
    error = lms_batch.csv.parent / ".grades_results" / "joneseve.json"
    assert '"status": "error"' in error.read_text() and "wrote no results" in error.read_text()


def test_resume_grades_the_errors_again_and_nothing_else(lms_batch):
    lms_batch.failing = {"joneseve"}
    lms_batch.run()
    before = {row["submission"]: row for row in lms_batch.rows()}
    with pytest.raises(GraderFailure, match="--resume"):
        lms_batch.run()  # never over an earlier batch
    lms_batch.failing = set()
    assert lms_batch.run(resume=True) == 0
    assert lms_batch.graded == ["joneseve"]
    assert lms_batch.writes[".grades_results/joneseve.json"] == 1
    assert not [path for path in lms_batch.writes if path.startswith(".grades_results/") and path.endswith(".json")
                and "joneseve" not in path]
    assert all(lms_batch.writes[name] == 1 for name in REPORTS), lms_batch.writes
    after = {row["submission"]: row for row in lms_batch.rows()}
    assert after["joneseve"]["status"] == "graded" and after["joneseve"]["score"] == "7", after["joneseve"]
    assert all(after[name] == before[name] for name in before if name != "joneseve")


def test_resume_grades_a_changed_hand_in_again_and_drops_a_student_who_left(lms_batch, capsys):
    lms_batch.run()
    (lms_batch.folder / "carol" / "mlp_block.py").write_text("# carol handed in again\n")
    (lms_batch.folder / "smithbob_111_222_mlp_block.py").unlink()
    assert lms_batch.run(resume=True) == 0
    assert lms_batch.graded == ["carol"]
    said = capsys.readouterr().err
    assert "graded again, changed since their grade: carol" in said, said
    assert "dropped 1 record(s) of submissions no longer in" in said and "smithbob" in said, said
    assert "smithbob" not in {row["submission"] for row in lms_batch.rows()}
    assert (lms_batch.csv.parent / ".grades_results" / "dropped" / "smithbob.json").exists()


def test_resume_grades_again_a_name_that_now_stands_for_another_student(lms_batch):
    """A record is kept by the row's name: where the name now stands for another LMS id (a class whose
    names came out otherwise, the same bytes handed in), the record is no grade of this student's."""
    lms_batch.run()
    kept = lms_batch.csv.parent / ".grades_results" / "smithbob.json"
    record = json.loads(kept.read_text(encoding="utf-8"))
    record["batch"]["lms_id"] = "999"
    kept.write_text(json.dumps(record), encoding="utf-8")
    assert lms_batch.run(resume=True) == 0
    assert lms_batch.graded == ["smithbob"]
    assert {row["submission"]: row["lms_id"] for row in lms_batch.rows()}["smithbob"] == "111"


def test_a_second_batch_on_the_same_output_stops_before_grading(lms_batch):
    """The lock is held for the whole run, by a process; when that process dies (killed, not ended
    cleanly) nothing is left held."""
    import signal
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from instructor.batch import BatchLock;"
         " from instructor.batch_reports import Outputs; lock = BatchLock(Outputs.beside(Path(sys.argv[1])));"
         " lock.__enter__(); print('held', flush=True); time.sleep(600)", str(lms_batch.csv)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(GraderFailure, match=rf"being written by another batch \(process {holder.pid} on "):
            lms_batch.run()
        assert lms_batch.graded == [] and not lms_batch.csv.exists()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert lms_batch.run() == 0 and len(lms_batch.graded) == len(POINTS)


def test_only_replaces_one_record(lms_batch, monkeypatch):
    lms_batch.run()
    before = {row["submission"]: row for row in lms_batch.rows()}
    monkeypatch.setitem(POINTS, "carol", 10)  # carol handed in again, all right now
    assert lms_batch.run(only="carol") == 0
    assert lms_batch.graded == ["carol"]
    assert [path for path in lms_batch.writes if path.startswith(".grades_results/") and path.endswith(".json")] \
        == [".grades_results/carol.json"]
    # Her feedback alone: no one else is commented on again, and the folder holds no one else's page.
    assert [path for path in lms_batch.writes if path.startswith("grades_feedback/")] == ["grades_feedback/carol.md"]
    assert sorted(p.name for p in (lms_batch.csv.parent / "grades_feedback").iterdir()) == ["carol.md"]
    assert "grades_canvas_feedback.zip" not in lms_batch.writes  # carol's hand-in is no Canvas one
    after = {row["submission"]: row for row in lms_batch.rows()}
    assert list(after) == list(before) and after["carol"]["score"] == "10"
    assert all(after[name] == before[name] for name in before if name != "carol")


def test_a_new_batch_refuses_an_earlier_batchs_records(lms_batch):
    lms_batch.run()
    lms_batch.csv.unlink()  # the records are still there: they are the batch, the CSV is made from them
    with pytest.raises(GraderFailure, match="--resume"):
        lms_batch.run()
    assert lms_batch.run(resume=True) == 0 and lms_batch.graded == []
    assert len(lms_batch.rows()) == len(POINTS)


def test_canvas_hand_ins_need_the_assignments_column_before_anything_is_graded(lms_batch):
    with pytest.raises(GraderFailure, match="--canvas-assignment: 2 hand-in"):
        lms_batch.run(canvas=None)
    with pytest.raises(GraderFailure, match="--canvas-assignment 'Homework 3': .*id in parentheses"):
        lms_batch.run(canvas="Homework 3")
    assert lms_batch.graded == [] and not lms_batch.csv.exists()


def test_canvas_file_has_the_columns_canvas_imports(lms_batch):
    lms_batch.run()
    header, points, *students = lms_batch.table("grades_canvas.csv")
    assert header == CANVAS_HEADER
    # As Canvas's importer reads it: "Student" then "ID" first, "Section" the last student column, then
    # each assignment as "Title (id)"; a row whose first cell says "Points Possible" is no student.
    assert re.fullmatch(r".+ \((\d+)\)", header[5])[1] == "12345"
    assert points == ["Points Possible", "", "", "", "", "10"]
    assert sorted(students) == [["joneseve", "333", "", "", "", "7"], ["smithbob", "111", "", "", "", "13"]]


def test_moodle_file_has_the_columns_its_grading_worksheet_reads(lms_batch, capsys, monkeypatch):
    monkeypatch.setitem(POINTS, "Alice Smith", 10)  # and 3 bonus points: above the maximum of 10
    lms_batch.run()
    header, *students = lms_batch.table("grades_moodle.csv")
    assert {"Identifier", "Grade", "Last modified (grade)"} <= set(header), header
    row = dict(zip(header, students[0]))
    assert len(students) == 1 and row["Identifier"] == "Participant 12345" and row["Grade"] == "13", students
    modified = datetime.datetime.strptime(row["Last modified (grade)"], "%Y-%m-%d %H:%M:%S")
    assert abs((datetime.datetime.now() - modified).total_seconds()) < 600
    # The worksheet skips a grade above the assignment's maximum: said, with the maximum it needs.
    err = capsys.readouterr().err
    assert "grades_moodle.csv: 1 grade(s) above the maximum" in err and "maximum grade is at least 13" in err, err
    assert "Alice Smith: 10 of 10, bonus 3 of 3 (" in err, err  # the progress line: never "13/10"


def test_feedback_goes_back_through_each_lms(lms_batch):
    """Moodle: the worksheet's Feedback comments column, the feedback as HTML. Canvas: a zip for its re-upload
    of submissions, one file per student named as its download named theirs."""
    import zipfile

    assert lms_batch.run() == 0
    moodle = {row["Full name"]: row for row in lms_batch.rows("grades_moodle.csv")}
    comment = moodle["Alice Smith"]["Feedback comments"]
    assert comment.startswith("Feedback for Alice Smith<br>") and "Score: 7 of 10" in comment, comment
    with zipfile.ZipFile(lms_batch.csv.parent / "grades_canvas_feedback.zip") as z:
        # Canvas shows each under the name of the student's file (mlp_block.py): a Python file of comments.
        assert sorted(z.namelist()) == ["joneseve_333_444_feedback.py", "smithbob_111_222_feedback.py"], z.namelist()
        raw = z.read("smithbob_111_222_feedback.py")
        page = raw.decode()
        assert page.startswith("# -*- coding: utf-8 -*-\n# Feedback on your hand-in: Canvas shows it under the name"), page
        assert "# (Your file: mlp_block.py)\n" in page and "\n# # Feedback for smithbob\n" in page, page
        compile(raw, "smithbob_111_222_feedback.py", "exec")  # opens as Python, as bytes: nothing but comments


def test_canvas_feedback_takes_the_form_of_the_file_canvas_shows_it_as():
    """Canvas's re-upload shows a feedback file under the name of the student's file whose ids its name
    carries: the exercise file is chosen where there is one, and the feedback written in that file's form."""
    import io
    import json
    import zipfile

    from instructor.intake import canvas_attachment
    names = ["doeann_5_71_hw3.zip", "doeann_5_72_notes.txt", "doeann_5_100_helper.py", "doeann_5_99_mlp_block.py"]
    exercises = ["mlp_block", "mlp_cost"]
    assert canvas_attachment(names, exercises) == ("doeann_5_99", "mlp_block.py")  # the exercise file first
    assert canvas_attachment(names[:3], exercises) == ("doeann_5_100", "helper.py")  # then a Python file
    assert canvas_attachment(names[:2], exercises) == ("doeann_5_71", "hw3.zip")
    assert canvas_attachment(["doeann_5_100_a.txt", "doeann_5_99_b.txt"]) == ("doeann_5_99", "b.txt")  # file ids as numbers
    assert canvas_attachment(["notes.txt"]) == ("", "")
    text = "# Feedback for doeann\n\nScore: 3 of 10\n"
    shown = {name: Record("doeann", fake_grade("carol"), lms="canvas", lms_prefix="doeann_5_71", lms_shown=name)
             for name in ("hw3.zip", "run.ipynb", "notes.txt")}
    files = {name: gradebooks.canvas_feedback([record], {"doeann": text}, "md") for name, record in shown.items()}
    with zipfile.ZipFile(io.BytesIO(files["hw3.zip"]["doeann_5_71_feedback.zip"])) as inner:
        assert inner.read("feedback.md").decode() == text
    cell = json.loads(files["run.ipynb"]["doeann_5_71_feedback.ipynb"])["cells"][0]
    assert cell["cell_type"] == "markdown" and "".join(cell["source"]).endswith(text), cell
    assert files["notes.txt"] == {"doeann_5_71_feedback.md": text.encode()}
    # A name the student chose: no encoding declaration read from it, no line of code, no markup.
    hostile = {"coding=utf-7;x.py": "+AAo-print('PWNED')\rprint('PWNED')\x0bprint(1)",
               "[grade](https://x) <img src=x>.ipynb": text}
    for name, body in hostile.items():
        record = Record("doeann", fake_grade("carol"), lms="canvas", lms_prefix="doeann_5_71", lms_shown=name)
        (page,) = gradebooks.canvas_feedback([record], {"doeann": body}, "md").values()
        if name.endswith(".py"):
            code = compile(page, name, "exec")  # the bytes, as Python reads the file
            assert not code.co_names, code.co_names  # nothing but comments: no name is ever looked up
        else:
            source = "".join(json.loads(page)["cells"][0]["source"])
            assert "\\[grade\\](https://x) \\<img" in source, source  # shown as text: escaped, no link, no image


def test_a_student_twice_is_left_out_of_the_gradebook(lms_batch):
    shutil.copy(reference_file("mlp_block"), lms_batch.folder / "bobby_111_999_mlp_block.py")  # smithbob's id
    lms_batch.run()
    ids = [row[1] for row in lms_batch.table("grades_canvas.csv")[2:]]
    assert ids == ["333"], ids  # 111 is two students': whose grade it is, is the instructor's call
    skipped = {row["entry"]: row["reason"] for row in lms_batch.rows("grades_skipped.csv")}
    assert sorted(skipped) == ["bobby_111_999_mlp_block.py", "smithbob_111_222_mlp_block.py"], skipped
    assert skipped["bobby_111_999_mlp_block.py"].startswith("canvas id 111 is also in the names of"
                                                            " smithbob_111_222_mlp_block.py"), skipped
    # Records with one id that the intake did not meet together (a store kept from an earlier folder):
    # both left out of the gradebook file too, and said.
    twice = [Record(name, fake_grade(name), lms="canvas", lms_id="111") for name in ("smithbob", "joneseve")]
    assert gradebooks.students(twice, "canvas") == ([], [f"{name}: canvas id 111 is also another hand-in's"
                                                         for name in ("smithbob", "joneseve")])


def test_the_option_goes_with_a_batch(capsys):
    from instructor.cli import main

    assert main(["--canvas-assignment", ASSIGNMENT, "--release", "/nonexistent/x"]) == 3
    assert "--canvas-assignment go with --batch" in capsys.readouterr().err


def test_an_unreadable_record_is_an_error_row_and_is_graded_again(lms_batch):
    lms_batch.run()
    (lms_batch.csv.parent / ".grades_results" / "carol.json").write_text("{ half a file")
    outputs = Outputs.beside(lms_batch.csv)
    carol = next(r for r in outputs.store.records() if r.name == "carol")
    assert carol.grade is None and "cannot be read" in carol.error and "--only carol" in carol.error
    assert lms_batch.run(resume=True) == 0 and lms_batch.graded == ["carol"]


def test_the_histogram_draws_scores_above_the_maximum():
    """Bonus points take a score past the maximum; numpy's histogram leaves out what lies past its range."""
    from instructor.batch_reports import histogram_range

    scores = [7, 10, 13.5, 12.25]
    top, bins = histogram_range(scores, 10)
    assert all(0 <= s <= top for s in scores) and isinstance(bins, int) and 1 <= bins <= 25, (top, bins)
    assert histogram_range([], 63) == (63, 25) and histogram_range([0.5], 0) == (1, 1)


def test_a_class_graded_as_four_merged_shards_is_the_class_graded_at_once(lms_batch, monkeypatch):
    """--shard K/4 grades every fourth hand-in; --merge gathers the four stores into one and writes every file
    from it: byte for byte what one batch of the whole class writes (Moodle's worksheet dated alike)."""
    import time

    monkeypatch.setattr(gradebooks.time, "localtime", lambda _=None: time.gmtime(0))
    assert lms_batch.run() == 0
    whole = lms_batch.csv.parent
    shards = []
    for k in range(1, 5):
        shard_csv = whole / f"shard{k}" / "grades.csv"
        assert batch.run_batch(lms_batch.folder, shard_csv, jobs=2, resume=False, limits=None, sandbox_mode="auto",
                               canvas_assignment=ASSIGNMENT, shard=(k, 4)) == 0
        shards.append(shard_csv)
    graded = lms_batch.graded[len(POINTS):]
    assert sorted(graded) == sorted(POINTS), graded  # each hand-in graded by exactly one shard
    merged = whole / "merged" / "grades.csv"
    assert batch.merge_shards(lms_batch.folder, merged, shards, canvas_assignment=ASSIGNMENT) == 0

    def files(folder: Path) -> dict[str, bytes]:
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
                if p.is_file() and not p.relative_to(folder).as_posix().startswith(("shard", "merged"))
                and p.name != ".lock"}

    once, gathered = files(whole), files(merged.parent)
    assert sorted(once) == sorted(gathered)
    assert [name for name in once if once[name] != gathered[name]] == []
    with pytest.raises(GraderFailure, match="no shard has a record of 1 submission"):
        batch.merge_shards(lms_batch.folder, whole / "again" / "grades.csv", shards[1:], canvas_assignment=ASSIGNMENT)


# ------------------------------------------------------------------ groups, missing hand-ins, late penalties
