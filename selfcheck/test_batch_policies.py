"""A batch's policies beyond the grade itself: a group graded alone (``--students``), blank cells for students
who handed in nothing (``--not-handed-in blank``), late penalties (``--late-penalty``, ``--due``, ``--late-cap``,
``--submitted``), the feedback a regrade returns, and the items report. Grading is stood in for as in
``test_batch_store.py``, whose batch of fake hand-ins these checks share, so they take seconds.
"""

from __future__ import annotations

import re

import pytest

from grader import results
from grader.grading import GraderFailure
from instructor import batch, batch_reports
from instructor.batch_reports import Outputs
from instructor.batch_store import Record
from selfcheck.test_batch_store import ASSIGNMENT, Batch, POINTS, fake_grade


@pytest.fixture
def lms_batch(tmp_path, monkeypatch) -> Batch:
    return Batch(tmp_path, monkeypatch)

def run_with(lms_batch, **options) -> int:
    lms_batch.writes.clear()
    lms_batch.graded.clear()
    return batch.run_batch(lms_batch.folder, lms_batch.csv, jobs=2, resume=False, limits=None, sandbox_mode="auto",
                           **options)


def test_a_group_file_grades_the_group_alone_and_names_who_handed_in_nothing(lms_batch, tmp_path, capsys):
    """Listed by the LMS's name (Canvas's smithbob), by the LMS's id (Moodle's 12345), and one not in the batch."""
    from instructor.groups import Group

    listed = tmp_path / "honours.txt"
    listed.write_text("# the honours group\nSmithBob\n12345\n\nDana Nobody\nEve Jones\n")
    assert run_with(lms_batch, group=Group.read(listed), reporting=batch_reports.Reporting(ASSIGNMENT)) == 0
    assert sorted(lms_batch.graded) == ["Alice Smith", "smithbob"]
    assert [row["submission"] for row in lms_batch.rows()] == ["Alice Smith", "smithbob"]
    assert sorted(p.name for p in (lms_batch.csv.parent / "grades_feedback").iterdir()) == ["Alice Smith.md", "smithbob.md"]
    assert [row[1] for row in lms_batch.table("grades_canvas.csv")[2:]] == ["111"]
    assert [row["Identifier"] for row in lms_batch.rows("grades_moodle.csv")] == ["Participant 12345"]
    skipped = {row["entry"]: row["reason"] for row in lms_batch.rows("grades_skipped.csv")}
    # Eve Jones as Moodle would show her: her Canvas hand-in (joneseve) is named, never graded as the group's.
    assert skipped == {"Dana Nobody": "listed in honours.txt; no hand-in of theirs in the batch",
                       "Eve Jones": "listed in honours.txt; no hand-in of theirs in the batch (not graded: joneseve may"
                                    " be theirs; a Canvas download names students by their names run together: list"
                                    " joneseve or its lms_id)"}, skipped
    assert "no hand-in in the batch (2): Dana Nobody, Eve Jones" in capsys.readouterr().err


def test_a_group_line_that_stands_for_two_hand_ins_is_refused(tmp_path):
    from instructor.groups import Group
    from instructor.intake import Intake, Submission

    found = Intake([Submission("a/", tmp_path, name=f"John Smith_{i}", student="John Smith", student_id=i, lms="moodle")
                    for i in ("111", "222")])
    listed = tmp_path / "group.txt"
    listed.write_text("john smith\n")
    with pytest.raises(GraderFailure, match=r"line 1: 'john smith' is 2 hand-ins .*give the LMS id"):
        Group.read(listed).select(found)
    listed.write_text("222\n")
    assert [sub.name for sub in Group.read(listed).select(found)[0]] == ["John Smith_222"]


def test_blank_leaves_the_gradebook_cell_empty_for_a_student_who_handed_in_nothing(lms_batch, monkeypatch):
    stand_in = batch.grade

    def nothing_from_joneseve(path, *, display, files, **rest):
        grade = stand_in(path, display=display, files=files, **rest)
        if display == "joneseve":  # as a student outside the group a task is for: no file of it
            grade.tests = [results.TestResult(t.name, t.task, 0, t.max_points, "failed", "not handed in",
                                              kind="not_handed_in", cause="not handed in: x") for t in grade.tests]
        return grade

    monkeypatch.setattr(batch, "grade", nothing_from_joneseve)
    assert run_with(lms_batch, reporting=batch_reports.Reporting(ASSIGNMENT, blank_not_handed_in=True)) == 0
    rows = {row["submission"]: row for row in lms_batch.rows()}
    assert (rows["joneseve"]["score"], rows["joneseve"]["handed_in"]) == ("0", "false")
    assert rows["smithbob"]["handed_in"] == "true"
    assert {row[1]: row[5] for row in lms_batch.table("grades_canvas.csv")[2:]} == {"111": "13", "333": ""}
    assert not (lms_batch.csv.parent / "grades_feedback" / "joneseve.md").exists()
    import zipfile
    with zipfile.ZipFile(lms_batch.csv.parent / "grades_canvas_feedback.zip") as z:
        assert z.namelist() == ["smithbob_111_222_feedback.py"]


def test_a_late_penalty_of_ten_percent_a_day_capped_gives_the_figures_computed_by_hand(lms_batch, tmp_path):
    """10% of the score per day started after 2026-03-01 23:59, at most 25%. By hand:
    smithbob, 13 points (10 + 3 bonus), submitted 2026-03-02 08:00 (8 h late: 1 day): -1.3, 11.7;
    Alice Smith, 10 points (7 + 3), submitted Wednesday 4 March 10:00 (2 days 10 h: 3 days, 30%, capped
    at 25%): -2.5, 7.5; joneseve, marked late by Canvas, time not known: no penalty, said."""
    from instructor.late import Policy

    os_name = lms_batch.folder / "joneseve_333_444_mlp_block.py"
    os_name.rename(lms_batch.folder / "joneseve_late_333_444_mlp_block.py")
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text("Identifier,Full name,Status,Grade,Last modified (submission)\n"
                         'Participant 12345,Alice Smith,Submitted,,"Wednesday, 4 March 2026, 10:00 AM"\n'
                         "Participant 999,Someone Else,No submission,,-\n")
    canvas_times = tmp_path / "canvas_times.csv"
    canvas_times.write_text("student,submitted\n111,2026-03-02 08:00\n")
    policy = Policy.of("10%/day", "25%", "2026-03-01T23:59", [worksheet, canvas_times])
    assert run_with(lms_batch, reporting=batch_reports.Reporting(ASSIGNMENT, policy)) == 0
    rows = {row["submission"]: row for row in lms_batch.rows()}
    figures = {name: (rows[name]["score"], rows[name]["late_penalty"], rows[name]["final_score"]) for name in rows}
    assert figures == {"smithbob": ("13", "1.3", "11.7"), "Alice Smith": ("10", "2.5", "7.5"),
                       "joneseve": ("7", "", "7"), "carol": ("0", "", "0")}, figures
    assert "submission time not known" in rows["joneseve"]["note"]
    assert {row[1]: row[5] for row in lms_batch.table("grades_canvas.csv")[2:]} == {"111": "11.7", "333": "7"}
    assert [row["Grade"] for row in lms_batch.rows("grades_moodle.csv")] == ["7.5"]
    page = (lms_batch.csv.parent / "grades_feedback" / "Alice Smith.md").read_text()
    assert "Score: 7 of 10, bonus 3 of 3" in page and "3 days late, 25% of the score off" in page, page
    assert "-2.5 points, score 7.5 after the penalty" in page, page
    assert "its submission time was not known" in (lms_batch.csv.parent / "grades_feedback" / "joneseve.md").read_text()


@pytest.mark.parametrize("options, said", [
    (("10%/week", None, "2026-03-01", None), "--late-penalty '10%/week': expected a share of the score per day or hour"),
    (("10%/day", None, None, None), "--late-penalty needs --due"),
    (("10%/day", "120%", "2026-03-01", None), "--late-cap '120%': expected a share"),
    (("10%/day", None, "March 1st", None), "--due: 'March 1st' is no time"),
    ((None, "30%", None, None), "--late-cap, --due and --submitted go with --late-penalty")])
def test_a_bad_late_policy_is_refused_naming_the_option(options, said):
    from instructor.late import Policy

    with pytest.raises(GraderFailure, match=re.escape(said)):
        Policy.of(*options)


def test_a_regrade_returns_the_feedback_of_the_changed_hand_ins_alone(lms_batch):
    """A new download, one hand-in changed: --resume grades it again, and its feedback alone goes back."""
    import zipfile

    lms_batch.run()
    (lms_batch.folder / "joneseve_333_444_mlp_block.py").write_text("# joneseve handed in again\n")
    assert lms_batch.run(resume=True) == 0 and lms_batch.graded == ["joneseve"]
    assert [p for p in lms_batch.writes if p.startswith("grades_feedback/")] == ["grades_feedback/joneseve.md"]
    with zipfile.ZipFile(lms_batch.csv.parent / "grades_canvas_feedback.zip") as z:
        assert z.namelist() == ["joneseve_333_444_feedback.py"]
    assert len(lms_batch.rows()) == len(POINTS) and len(lms_batch.table("grades_canvas.csv")) == 4  # all grades


def test_a_moved_due_date_returns_the_feedback_it_changed_and_a_student_who_left_has_none(lms_batch, tmp_path):
    """Feedback goes back when what it says changed, not only when the grade did: a due date moved (with
    --new-reporting) changes smithbob's penalty and returns his page alone; the folder then holds no one else's,
    and a student no longer in the download leaves no page behind."""
    import zipfile

    from instructor.late import Policy

    times = tmp_path / "canvas_times.csv"
    times.write_text("student,submitted\n111,2026-03-02 08:00\n")  # smithbob: 8 h after the first due date
    due = {day: batch_reports.Reporting(ASSIGNMENT, Policy.of("10%/day", None, day, [times])) for day in
           ("2026-03-01T23:59", "2026-03-02T23:59")}
    assert run_with(lms_batch, reporting=due["2026-03-01T23:59"]) == 0
    feedback = lms_batch.csv.parent / "grades_feedback"
    assert "-1.3 points, score 11.7" in (feedback / "smithbob.md").read_text()
    def resume(reporting) -> int:
        lms_batch.writes.clear()
        lms_batch.graded.clear()
        return batch.run_batch(lms_batch.folder, lms_batch.csv, jobs=2, resume=True, limits=None, sandbox_mode="auto",
                               reporting=reporting)

    assert resume(due["2026-03-02T23:59"]) == 0 and lms_batch.graded == []
    assert sorted(p.name for p in feedback.iterdir()) == ["smithbob.md"], sorted(feedback.iterdir())
    assert "late" not in (feedback / "smithbob.md").read_text().split("## ", 1)[0].lower()
    with zipfile.ZipFile(lms_batch.csv.parent / "grades_canvas_feedback.zip") as z:
        assert z.namelist() == ["smithbob_111_222_feedback.py"]
    (lms_batch.folder / "smithbob_111_222_mlp_block.py").unlink()  # he left the course
    assert resume(due["2026-03-02T23:59"]) == 0
    assert not (feedback / "smithbob.md").exists() and "smithbob" not in {r["submission"] for r in lms_batch.rows()}


def test_items_leave_out_a_bonus_not_handed_in_and_headings_name_the_student(tmp_path):
    from instructor.batch_reports import items, write_all

    handed = fake_grade("smithbob")
    missing = fake_grade("carol")
    missing.tests[2] = results.TestResult("test_cost.py::test_c", "cost", 0, 3, "failed", "not handed in",
                                          kind="not_handed_in", cause="not handed in: mlp_cost.py")
    by_test = {row["test"]: row for row in items([handed, missing])}
    assert (by_test["test_cost.py::test_c"]["graded"], by_test["test_cost.py::test_c"]["failing"]) == (1, 0)
    assert by_test["test_mlp.py::test_a"]["graded"] == 2
    outputs = Outputs.beside(tmp_path / "grades.csv")
    write_all(outputs, [Record("David Cohen_3140206", handed, student="David Cohen", lms="moodle", lms_id="3140206")], [])
    assert outputs.page("David Cohen_3140206").read_text().startswith("# Feedback for David Cohen\n")


def test_a_later_run_with_other_options_stops_before_grading_and_names_them(lms_batch, tmp_path, capsys):
    """The batch keeps its first run's options: a regrade that forgot the late policy, or graded other tasks,
    would otherwise write a gradebook without the penalty, or rows graded otherwise than the class."""
    from instructor import batch_options
    from instructor.cli import build_parser

    def options(*extra):
        argv = ["--batch", str(lms_batch.folder), "--csv", str(lms_batch.csv), *extra]
        return batch_options.of(build_parser().parse_args(argv))

    late = ("--late-penalty", "10%/day", "--due", "2026-03-01T23:59")
    assert run_with(lms_batch, canvas_assignment=ASSIGNMENT, options=options(*late)) == 0
    kept = batch_options.kept(Outputs.beside(lms_batch.csv).store.folder)
    assert kept["--late-penalty"] == "10%/day" and kept["--tasks"] == batch_options.NOT_GIVEN, kept
    with pytest.raises(GraderFailure) as stopped:
        run_with(lms_batch, canvas_assignment=ASSIGNMENT, only=["carol"], options=options())
    said = str(stopped.value)
    assert said.startswith("--only: this run's reporting options are not the batch's") and lms_batch.graded == [], said
    assert said.endswith("or add --new-reporting to write every file with this run's"), said
    assert "--late-penalty 10%/day in the batch, (not given) in this run" in said, said
    assert "--due 2026-03-01T23:59 in the batch, (not given) in this run" in said and "--tasks" not in said, said
    with pytest.raises(GraderFailure, match=r"grading options .*--tasks \(not given\) in the batch, mlp in this run"):
        run_with(lms_batch, canvas_assignment=ASSIGNMENT, only=["carol"], options=options(*late, "--tasks", "mlp"))
    with pytest.raises(GraderFailure, match=r"grading options"):  # grading options never change within a batch
        run_with(lms_batch, canvas_assignment=ASSIGNMENT, only=["carol"], options=options(*late, "--tasks", "mlp"),
                 new_reporting=True)
    # Options kept as they mean: no --sandbox is a batch's bwrap, and tasks in any order are the same tasks.
    assert options("--sandbox", "bwrap", "--tasks", "glu,mlp") == options("--tasks", "mlp, GLU")
    # The same options: the run goes on; the files they name may change between runs (a group grows).
    assert run_with(lms_batch, canvas_assignment=ASSIGNMENT, only=["carol"], options=options(*late)) == 0
    assert lms_batch.graded == ["carol"]
    # A due date moved on purpose: --new-reporting writes the files with it, says so, and the batch keeps it.
    moved = ("--late-penalty", "10%/day", "--due", "2026-03-02T23:59")
    assert run_with(lms_batch, canvas_assignment=ASSIGNMENT, only=["carol"], options=options(*moved),
                    new_reporting=True) == 0
    assert "--due 2026-03-01T23:59 in the batch, 2026-03-02T23:59 in this run" in capsys.readouterr().err
    assert batch_options.kept(Outputs.beside(lms_batch.csv).store.folder)["--due"] == "2026-03-02T23:59"
    # Every kept option is one the instructor's command line has.
    parsed = vars(build_parser().parse_args(["--batch", "x", "--csv", "y"]))
    assert all(dest in parsed for _, dest in batch_options.GRADING + batch_options.REPORTING)


def test_shards_graded_otherwise_are_not_merged(tmp_path):
    from instructor import batch_options

    one, two, merged = tmp_path / "one", tmp_path / "two", tmp_path / "merged"
    same = {"--tasks": "mlp", "--late-penalty": "10%/day"}
    batch_options.keep(one, same)
    batch_options.keep(two, {**same, "--tasks": "glu"})
    with pytest.raises(GraderFailure, match=r"--merge: shards a.csv and b.csv were not graded .*--tasks mlp in a.csv, glu in b"):
        batch_options.check_merge({"a.csv": one, "b.csv": two}, same, merged)
    batch_options.keep(two, same)
    with pytest.raises(GraderFailure, match=r"--late-penalty 10%/day in the shards, \(not given\) in this run"):
        batch_options.check_merge({"a.csv": one, "b.csv": two}, {"--tasks": "mlp"}, merged)
    batch_options.check_merge({"a.csv": one, "b.csv": two}, same, merged)
    assert {flag: batch_options.kept(merged)[flag] for flag in same} == same
    batch_options.check_merge({"a.csv": one, "b.csv": two}, {"--tasks": "mlp"}, merged, new_reporting=True)
    assert batch_options.kept(merged)["--late-penalty"] == batch_options.NOT_GIVEN  # the merge's own, kept
