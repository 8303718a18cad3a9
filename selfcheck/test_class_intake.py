"""A class's hand-ins as Canvas and Moodle export them, read by the intake alone (nothing is graded).

One class (``CLASS``: a correct hand-in, a known mistake, misnamed and nested files, re-uploads, a
browser's re-download names, Canvas' loose files and zips, Moodle's folders per plugin, and entries
that must be skipped) is given as a folder and as the LMS's "download all submissions" zip; both must
come to the same verdict, entry by entry: who is graded from which files, who is skipped whole and
why, and the note on each row. A student is graded whole or skipped whole, never in part.
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.paths import reference_file
from grader.tasks import TASKS
from selfcheck.harness import REPO, VARIANTS, cli, materialize

REFERENCE = reference_file("mlp_block").read_bytes()
STUBS = (REPO / "exercises" / "mlp_block.py").read_bytes()
COST_STUBS = (REPO / "exercises" / "mlp_cost.py").read_bytes()
MISTAKE = materialize(VARIANTS / "mlp_block" / "glu_sigmoid_gate.py", "mlp_block").encode()
HELPER = b"SCALE = 2\n"
# What each file graded is, by its bytes.
KNOWN = {hashlib.sha256(data).hexdigest(): name for name, data in
         (("reference", REFERENCE), ("stubs", STUBS), ("cost stubs", COST_STUBS), ("mistake", MISTAKE),
          ("helper", HELPER))}
MOODLE_FILES, MOODLE_TEXT = "_assignsubmission_file_", "_assignsubmission_onlinetext_"


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# The class: each path in the export and its bytes.
CLASS = {
    # Canvas: loose files <name>_<user id>_<file id>_<the file's own name>.
    "smithalice_1001_5001_mlp_block.py": REFERENCE,
    "jonesbob_1002_5002_mlp_block.py": MISTAKE,
    "leecarol_1003_5003_MLP_Block.py": REFERENCE,
    "kimdan_1004_5004_hw3.zip": zipped({"Homework3/src/MLP_block.py": REFERENCE,
                                        "Homework3/src/mlp_cost.py": COST_STUBS,
                                        "Homework3/src/utils.py": HELPER, "Homework3/README.md": b"# hw3\n"}),
    "parkeve_1005_5005_mlp_block (1).py": REFERENCE,  # a browser's second download of mlp_block.py
    "parkeve_1005_5006_mlp_cost.py": COST_STUBS,
    "wufay_1006_5007_mlp_block.py": STUBS,  # uploaded three times: Canvas numbers the later ones
    "wufay_1006_5008_mlp_block-1.py": MISTAKE,
    "wufay_1006_5009_mlp_block-2.py": REFERENCE,
    "ngogus_LATE_1007_5010_mlp_block.py": REFERENCE,
    "ohhal_1008_5011_mlp_block.py": REFERENCE,  # two different files of one name: which is meant?
    "ohhal_1008_5012_mlp_block (1).py": STUBS,
    "quinn_1009_5013_mlp_block.py": REFERENCE,  # and a zip that must be refused: skipped whole
    "quinn_1009_5014_hw.zip": zipped({"../../mlp_cost.py": COST_STUBS}),
    "roy_1010_5015_report.pdf": b"%PDF-1.4\n",
    "sato_1011_5016_mlp_block.py": REFERENCE,
    "sato_1011_5017_notes.pdf": b"%PDF-1.4\n",
    "tan_1012_5018_mlp.py": REFERENCE,
    "eli_1013_5019_hw.zip": zipped({"mlp_block.py": REFERENCE, "inner.zip": zipped({"mlp_cost.py": COST_STUBS})}),
    # Moodle: a folder per student and plugin, or loose files with that prefix.
    f"Uma Vance_2001{MOODLE_FILES}/mlp-block-main/exercises/mlp_block.py": REFERENCE,
    f"Uma Vance_2001{MOODLE_FILES}/mlp-block-main/exercises/mlp_cost.py": COST_STUBS,
    f"Uma Vance_2001{MOODLE_TEXT}/onlinetext.html": b"<p>done</p>",
    f"Wen Xu_2002{MOODLE_FILES}/hw3.zip": zipped({"hw3/Mlp-Block.py": MISTAKE}),
    f"Yara Zed_2003{MOODLE_FILES}/a/mlp_block.py": REFERENCE,  # two folders, two different files
    f"Yara Zed_2003{MOODLE_FILES}/b/mlp_block.py": STUBS,
    f"Abe Cole_2004{MOODLE_FILES}/mlp_block.py": REFERENCE,
    f"Abe Cole_2004{MOODLE_FILES}/old/mlp_block.py": STUBS,
    f"Bea Dunn_2005{MOODLE_FILES}mlp_block.py": REFERENCE,
    f"Cy Dee_2006{MOODLE_FILES}/mlp_block.py": REFERENCE,  # and a whole notebook's worth of other files
    **{f"Cy Dee_2006{MOODLE_FILES}/plots/{n}.png": b"" for n in range(5)},
    # Neither: a student's own zip, a stray file, macOS' metadata.
    "carol.zip": zipped({"mlp-block-main/exercises/mlp_block.py": STUBS, "mlp-block-main/README.md": b"#\n"}),
    "report.pdf": b"%PDF-1.4\n",
    "__MACOSX/._carol.zip": b"\0",
}

# source -> (name, LMS id, LMS, the files graded and what they are, the note)
GRADED = {
    "smithalice_1001_5001_mlp_block.py": ("smithalice", "1001", "canvas", {"mlp_block.py": "reference"}, ""),
    "jonesbob_1002_5002_mlp_block.py": ("jonesbob", "1002", "canvas", {"mlp_block.py": "mistake"}, ""),
    "leecarol_1003_5003_MLP_Block.py": ("leecarol", "1003", "canvas", {"mlp_block.py": "reference"},
                                        "mlp_block.py found as MLP_Block.py (rename it mlp_block.py)"),
    "kimdan_1004_5004_hw3.zip": (
        "kimdan", "1004", "canvas", {"mlp_block.py": "reference", "mlp_cost.py": "cost stubs", "utils.py": "helper"},
        "mlp_block.py found as hw3.zip/Homework3/src/MLP_block.py (rename it mlp_block.py);"
        " mlp_cost.py found as hw3.zip/Homework3/src/mlp_cost.py;"
        " copied beside them: utils.py (not an exercise's name); not graded: hw3.zip/Homework3/README.md (only .py"
        " files are)"),
    "parkeve_1005_5005_mlp_block (1).py, parkeve_1005_5006_mlp_cost.py": (
        "parkeve", "1005", "canvas", {"mlp_block.py": "reference", "mlp_cost.py": "cost stubs"},
        "mlp_block.py found as mlp_block (1).py"),
    "wufay_1006_5007_mlp_block.py, wufay_1006_5008_mlp_block-1.py, wufay_1006_5009_mlp_block-2.py": (
        "wufay", "1006", "canvas", {"mlp_block.py": "reference"},
        "re-upload: mlp_block-2.py chosen over mlp_block.py, mlp_block-1.py (newest)"),
    "ngogus_LATE_1007_5010_mlp_block.py": ("ngogus", "1007", "canvas", {"mlp_block.py": "reference"}, ""),
    "sato_1011_5016_mlp_block.py, sato_1011_5017_notes.pdf": (
        "sato", "1011", "canvas", {"mlp_block.py": "reference"}, "not graded: notes.pdf (only .py files are)"),
    "eli_1013_5019_hw.zip": ("eli", "1013", "canvas", {"mlp_block.py": "reference"},
                             "not extracted: hw.zip/inner.zip (a zip inside a zip)"),
    f"Uma Vance_2001{MOODLE_FILES}/, Uma Vance_2001{MOODLE_TEXT}/": (
        "Uma Vance", "2001", "moodle", {"mlp_block.py": "reference", "mlp_cost.py": "cost stubs"},
        "not graded: onlinetext.html (only .py files are)"),  # Moodle's plugin folders are its packaging, unnamed
    f"Wen Xu_2002{MOODLE_FILES}/": ("Wen Xu", "2002", "moodle", {"mlp_block.py": "mistake"},
                                    "mlp_block.py found as hw3.zip/hw3/Mlp-Block.py (rename it mlp_block.py)"),
    f"Abe Cole_2004{MOODLE_FILES}/": ("Abe Cole", "2004", "moodle", {"mlp_block.py": "reference"},
                                      "not graded: old/mlp_block.py (deeper than mlp_block.py)"),
    f"Bea Dunn_2005{MOODLE_FILES}mlp_block.py": ("Bea Dunn", "2005", "moodle", {"mlp_block.py": "reference"}, ""),
    f"Cy Dee_2006{MOODLE_FILES}/": ("Cy Dee", "2006", "moodle", {"mlp_block.py": "reference"},
                                    "not graded: plots/0.png, plots/1.png, plots/2.png and 2 more (only .py files are)"),
    "carol.zip": ("carol", "", "", {"mlp_block.py": "stubs"}, "not graded: mlp-block-main/README.md (only .py files are)"),
}
EXERCISE_STEMS = sorted({task.exercise for task in TASKS})  # the registry's, as the intake names them
EXERCISE_FILES = ", ".join(f"{stem}.py" for stem in EXERCISE_STEMS)
SKIPPED = {
    "ohhal_1008_5011_mlp_block.py, ohhal_1008_5012_mlp_block (1).py":
        "2 different files for mlp_block.py (mlp_block.py, mlp_block (1).py) and no upload number tells which is"
        " newer: remove the others, then grade this student again with --only",
    "quinn_1009_5013_mlp_block.py, quinn_1009_5014_hw.zip":
        "hw.zip refused, so nothing of this student is graded: member '../../mlp_cost.py' has an absolute path or '..'",
    "roy_1010_5015_report.pdf": f"no exercise file ({EXERCISE_FILES}) in it; it holds report.pdf",
    "tan_1012_5018_mlp.py": f"no exercise file ({EXERCISE_FILES}) in it; it holds mlp.py",
    f"Yara Zed_2003{MOODLE_FILES}/":
        "2 different files for mlp_block.py in different folders (a/mlp_block.py, b/mlp_block.py) and nothing tells"
        " which to grade: remove the others, then grade this student again with --only",
    "report.pdf": "not a hand-in: expected a folder, a .zip or loose <student>_<exercise>.py files"
                  f" ({', '.join(EXERCISE_STEMS)})",
    "__MACOSX/": "a hidden entry",
}


def write_folder(folder: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)


def scan(batch: Path, work: Path):
    from instructor.intake import scan as scan_

    work.mkdir()
    return scan_(batch, work)


def verdict(found) -> tuple[dict, dict]:
    """What the intake decided, in the terms of GRADED and SKIPPED."""
    graded = {}
    for sub in found.submissions:
        files = {p.name: KNOWN.get(hashlib.sha256(p.read_bytes()).hexdigest(), "unknown") for p in sub.path.iterdir()}
        graded[sub.source] = (sub.name, sub.student_id, sub.lms, files, sub.note)
    return graded, dict(found.skipped)


@pytest.fixture(scope="module")
def class_export(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("class")
    write_folder(tmp / "export", CLASS)
    (tmp / "class.zip").write_bytes(zipped(CLASS))
    return tmp


@pytest.mark.parametrize("form", ["export", "class.zip"])
def test_each_student_graded_whole_or_skipped_whole(class_export, form, tmp_path):
    graded, skipped = verdict(scan(class_export / form, tmp_path / "work"))
    for source, expected in GRADED.items():
        assert graded.get(source) == expected, (source, graded.get(source), skipped.get(source))
    for entry, reason in SKIPPED.items():
        assert skipped.get(entry) == reason, (entry, skipped.get(entry))
    assert sorted(graded) == sorted(GRADED) and sorted(skipped) == sorted(SKIPPED), (graded, skipped)


def test_a_class_zip_refused_whole_and_a_student_zip_in_it_refused_alone(tmp_path):
    hostile = tmp_path / "hostile.zip"
    hostile.write_bytes(zipped({"smithalice_1001_5001_mlp_block.py": REFERENCE, "../escape.py": b"pwned = 1\n"}))
    found = scan(hostile, tmp_path / "work")
    assert found.submissions == [] and found.skipped == [
        ("hostile.zip", "zip refused: member '../escape.py' has an absolute path or '..'")], found.skipped
    assert not list(tmp_path.rglob("escape.py"))
    mixed = tmp_path / "mixed.zip"
    mixed.write_bytes(zipped({"smithalice_1001_5001_mlp_block.py": REFERENCE,
                              "jonesbob_1002_5002_hw.zip": zipped({"/etc/mlp_block.py": REFERENCE})}))
    graded, skipped = verdict(scan(mixed, tmp_path / "work2"))
    assert list(graded) == ["smithalice_1001_5001_mlp_block.py"], graded
    assert skipped == {"jonesbob_1002_5002_hw.zip": "hw.zip refused, so nothing of this student is graded: member"
                                                    " '/etc/mlp_block.py' has an absolute path or '..'"}, skipped


def test_batch_takes_the_class_zip(tmp_path):
    """``--batch class.zip`` reads the zip as the batch (here one with nothing to grade: no grading runs)."""
    (tmp_path / "class.zip").write_bytes(zipped({"report.pdf": b"%PDF-1.4\n"}))
    proc = subprocess.run([sys.executable, "-m", cli(["--batch"]), "--batch", "class.zip", "--csv", "grades.csv"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert f"skipped report.pdf: {SKIPPED['report.pdf']}" in proc.stderr, proc.stderr[-2000:]
    assert "--batch class.zip: no submission in it (1 entries skipped)" in proc.stderr, proc.stderr[-2000:]


# Attack: a student names a file with another student's LMS id in that LMS's form. Moodle's download of
# participant 1001's upload x_1002_assignsubmission_file_mlp_block.py is the entry below; Canvas's of user
# 1001's is the one after it (in Moodle's form, for a batch that holds both). Control: the same class
# without that file. Each participant's gradebook row must hold their own grade, whether the student whose
# id is named handed in or not.
POINTS_OF = {"reference": 25, "mistake": 12, "stubs": 0}  # a stand-in grade, by what the file graded is
ATTACKS = {
    "moodle": (f"Mallory Evil_1001{MOODLE_FILES}mlp_block.py", f"Mallory Evil_1001{MOODLE_FILES}x_1002{MOODLE_FILES}mlp_block.py",
               f"Victor Good_1002{MOODLE_FILES}mlp_block.py"),
    "canvas": ("evilmallory_1001_5001_mlp_block.py", f"evilmallory_1001_5002_x_1002{MOODLE_FILES}mlp_block.py",
               "goodvictor_1002_5003_mlp_block.py"),
}


def gradebook_rows(found) -> dict[tuple[str, str], int]:
    """(LMS, id) -> the score its gradebook file would import, each hand-in graded by a stand-in."""
    from grader.results import Grade, TestResult
    from instructor import gradebooks
    from instructor.batch_store import Record

    records = []
    for sub in found.submissions:
        graded = KNOWN.get(hashlib.sha256((sub.path / "mlp_block.py").read_bytes()).hexdigest())
        test = TestResult("test_mlp.py::test_parity", "mlp", POINTS_OF[graded], 25, "passed")
        records.append(Record.of(sub, Grade(sub.name, seed=7, tests=[test], sandboxed=True)))
    return {(lms, r.lms_id): r.grade.score for lms in ("canvas", "moodle") for r in gradebooks.students(records, lms)[0]}


@pytest.mark.parametrize("lms", sorted(ATTACKS))
@pytest.mark.parametrize("victim_handed_in", [True, False], ids=["victim handed in", "victim did not"])
def test_an_id_in_a_file_name_grades_nobody_else(tmp_path, lms, victim_handed_in):
    own, trick, victim = ATTACKS[lms]
    control = {own: STUBS, **({victim: MISTAKE} if victim_handed_in else {})}
    rows = {}
    for run, export in (("control", control), ("attack", {**control, trick: REFERENCE})):
        write_folder(tmp_path / run, export)
        rows[run] = gradebook_rows(scan(tmp_path / run, tmp_path / f"{run}-work"))
    expected = {(lms, "1001"): 0, **({(lms, "1002"): 12} if victim_handed_in else {})}
    assert rows == {"control": expected, "attack": expected}, rows


def test_one_id_under_two_names_is_skipped_with_its_reason_and_grades_nobody(tmp_path):
    """Two entries that name one participant number for two students (no download of one class does):
    neither is graded as the other; each is skipped, naming the other."""
    write_folder(tmp_path / "export", {f"Ann Lee_3001{MOODLE_FILES}mlp_block.py": REFERENCE,
                                       f"Ann Leigh_3001{MOODLE_FILES}/mlp_block.py": STUBS,
                                       f"Bo Ng_3002{MOODLE_FILES}mlp_block.py": MISTAKE})
    found = scan(tmp_path / "export", tmp_path / "work")
    assert gradebook_rows(found) == {("moodle", "3002"): 12}
    reason = "moodle id 3001 is also in the names of {}, under another student's name: whose hand-in it is" \
             " cannot be told, so neither is graded"
    assert dict(found.skipped) == {
        f"Ann Lee_3001{MOODLE_FILES}mlp_block.py": reason.format(f"Ann Leigh_3001{MOODLE_FILES}/"),
        f"Ann Leigh_3001{MOODLE_FILES}/": reason.format(f"Ann Lee_3001{MOODLE_FILES}mlp_block.py")}, found.skipped


def test_a_misnamed_file_is_told_to_be_renamed_and_every_file_of_a_zip_not_graded_is_named(tmp_path):
    """A whole repository zipped: the exercise file found under another name (rename it), a test of the
    student's own in another folder and a notebook named, each with its path inside the zip."""
    from instructor.settle import settle

    hand_in = tmp_path / "upload"
    hand_in.mkdir()
    (hand_in / "hw3.zip").write_bytes(zipped({"hw3/src/MLP-Block.py": b"x = 1\n", "hw3/tests/test_mine.py": b"\n",
                                              "hw3/notes.ipynb": b"{}"}))
    note, why = settle(hand_in, tmp_path / "out", tmp_path / "work")
    assert not why
    assert note.startswith("mlp_block.py found as hw3.zip/hw3/src/MLP-Block.py (rename it mlp_block.py); "), note
    assert "not graded: hw3.zip/hw3/tests/test_mine.py (no exercise's name: mlp_block.py," in note, note
    assert "not graded: hw3.zip/hw3/notes.ipynb (only .py files are)" in note, note
