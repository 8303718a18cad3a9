"""A batch folder as an LMS exports it: what is graded, what is skipped and why, what is written beside the CSV.

One batch (``--tasks mlp,glu``, sandboxed) grades a mixed folder: a Moodle-style nested folder with a
correct ``mlp_block.py``, a GitHub-style zip of the stubs, loose Canvas files (one correct, one with a
known mistake), and entries that must be skipped with a reason (a PDF, an empty folder, hostile
zips, a nested zip, two different files of one name). Then ``--only`` grades the mistake again,
fixed. Each run's outputs are read once into a dict the checks share. The naming rules are checked
on ``intake.scan`` alone, without grading. The store and the gradebook files are checked in
``test_batch_store.py``.
"""

from __future__ import annotations

import csv
import os
import re

import shutil
import statistics
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.paths import reference_file
from grader.probes.safe_text import markdown_cell

from selfcheck.harness import REPO, VARIANTS, materialize, cli

REFERENCE = reference_file("mlp_block")
STUBS = REPO / "exercises" / "mlp_block.py"
MISTAKE = VARIANTS / "mlp_block" / "glu_sigmoid_gate.py"  # MLP right, GLU gate wrong
MOODLE = "Alice Smith_12345_assignsubmission_file_"
CANVAS_ASSIGNMENT = ["--canvas-assignment", "Homework 3 (12345)"]  # the Canvas hand-ins' gradebook column
# The entries of the batch folder that must be skipped, and a phrase of each one's reason.
SKIPPED = {
    "report.pdf": "not a hand-in",
    "empty/": "no exercise file",
    "dotdot.zip": "absolute path or '..'",
    "absolute.zip": "absolute path or '..'",
    "link.zip": "symbolic link",
    "oversize.zip": "over 2 MB",
    "nested.zip": "a zip inside",
    "empty.zip": "no exercise file",
    "daviddan_555_666_mlp_block (1).py, daviddan_555_666_mlp_block.py": "2 different files for mlp_block.py",
}


def grader(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", cli(args), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})


def zip_with(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16  # a symbolic link, as zip -y stores one
            archive.writestr(info, target)


def lms_export(folder: Path, outside: Path) -> None:
    """The mixed folder; hostile zips aim at files in ``outside``, which must never appear."""
    nested = folder / MOODLE / "mlp-block-main" / "exercises"
    nested.mkdir(parents=True)
    shutil.copy(REFERENCE, nested / "mlp_block.py")
    zip_with(folder / "carol.zip", {"mlp-block-main/exercises/mlp_block.py": STUBS.read_bytes(),
                                    "mlp-block-main/README.md": b"# my checkout\n"})
    shutil.copy(REFERENCE, folder / "smithbob_111_222_mlp_block.py")
    # a re-upload, handed in late
    (folder / "joneseve_LATE_333_444_mlp_block-1.py").write_text(materialize(MISTAKE, "mlp_block"))
    shutil.copy(REFERENCE, folder / "daviddan_555_666_mlp_block.py")
    shutil.copy(STUBS, folder / "daviddan_555_666_mlp_block (1).py")  # one name twice, different: skipped whole
    (folder / "report.pdf").write_bytes(b"%PDF-1.4\n")
    (folder / "empty").mkdir()
    zip_with(folder / "dotdot.zip", {"../" * 30 + str(outside / "dotdot.py").lstrip("/"): b"pwned = 1\n"})
    zip_with(folder / "absolute.zip", {str(outside / "absolute.py"): b"pwned = 1\n"})
    zip_with(folder / "link.zip", {}, links={"mlp_block.py": str(REFERENCE)})
    zip_with(folder / "oversize.zip", {"mlp_block.py": b"#" * (3 << 20)})
    inner = folder / "inner.zip"
    zip_with(inner, {"mlp_block.py": REFERENCE.read_bytes()})
    zip_with(folder / "nested.zip", {"inner.zip": inner.read_bytes()})
    inner.unlink()
    zip_with(folder / "empty.zip", {})


def snapshot(proc: subprocess.CompletedProcess, out: Path) -> dict:
    """Everything a run left beside its CSV, read at once (a later run rewrites it)."""
    def rows(name: str) -> list[dict]:
        with open(out / name, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    grades = rows("grades.csv")
    return {"proc": proc, "rows": grades, "by_name": {r["submission"]: r for r in grades},
            "items": {r["test"]: r for r in rows("grades_items.csv")}, "skipped": rows("grades_skipped.csv"),
            "feedback": {p.stem: p.read_text(encoding="utf-8") for p in (out / "grades_feedback").glob("*.md")},
            "histogram": (out / "grades_histogram.png").read_bytes(), "files": sorted(os.listdir(out))}


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("lms")
    folder, out, outside = tmp / "export", tmp / "out", tmp / "outside"
    folder.mkdir()
    outside.mkdir()
    lms_export(folder, outside)
    before = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
    proc = grader("--batch", str(folder), "--csv", str(out / "grades.csv"), "--tasks", "mlp,glu", "--jobs", "2",
                  *CANVAS_ASSIGNMENT, cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    first = snapshot(proc, out)
    first.update(tmp=tmp, folder=folder, out=out, outside=outside, before=before)
    # --only: the mistake, fixed, graded again into the same CSV.
    shutil.copy(REFERENCE, folder / "joneseve_LATE_333_444_mlp_block-1.py")
    again = grader("--batch", str(folder), "--csv", str(out / "grades.csv"), "--tasks", "mlp,glu",
                   "--only", "joneseve", *CANVAS_ASSIGNMENT, cwd=tmp)
    assert again.returncode == 0, again.stderr[-3000:]
    first["only"] = snapshot(again, out)
    return first


def gradebook_files(rows: list[dict]) -> list[str]:
    """The LMS gradebook files a batch writes: one per LMS its rows came from."""
    files = [f"grades_{lms}.csv" for lms in ("canvas", "moodle") if any(r["lms"] == lms for r in rows)]
    return files + ["grades_canvas_feedback.zip"] * any(r["lms"] == "canvas" for r in rows)


def full(row: dict) -> bool:
    return row["status"] == "graded" and int(row["score"]) == int(row["max_score"]) > 0


def test_each_kind_of_hand_in_is_graded_under_its_name(batch):
    names = [row["submission"] for row in batch["rows"]]
    assert names == sorted(names, key=str.casefold), names  # by student, not in finishing order
    rows = batch["by_name"]
    assert sorted(rows) == ["Alice Smith", "carol", "joneseve", "smithbob"], sorted(rows)
    assert full(rows["Alice Smith"]) and full(rows["smithbob"]), rows
    carol, eve = rows["carol"], rows["joneseve"]
    assert carol["status"] == "graded" and carol["score"] == "0" and "not implemented yet" in carol["first_failure"]
    assert 0 < int(eve["score"]) < int(eve["max_score"]), eve
    assert eve["mlp"] == eve["mlp_max"] and int(eve["glu"]) < int(eve["glu_max"]), eve
    assert all(r["sandboxed"] == "true" for r in batch["rows"]), batch["rows"]
    # Canvas's mark of a late hand-in, kept as the LMS set it (joneseve_LATE_...), and nobody else's.
    assert {r["submission"]: r["late"] for r in batch["rows"]} == {
        "Alice Smith": "", "carol": "", "joneseve": "late", "smithbob": ""}, batch["rows"]


def test_every_skipped_entry_is_listed_with_its_reason(batch):
    listed = {r["entry"]: r["reason"] for r in batch["skipped"]}
    assert set(listed) == set(SKIPPED), listed
    stderr = batch["proc"].stderr
    for entry, phrase in SKIPPED.items():
        assert phrase in listed[entry], (entry, listed[entry])
        assert f"skipped {entry}: {listed[entry]}" in stderr, stderr[-2000:]


def test_hostile_zips_write_nothing_outside(batch):
    assert list(batch["outside"].iterdir()) == []
    assert not list(batch["tmp"].rglob("dotdot.py")) and not list(batch["tmp"].rglob("absolute.py"))
    assert sorted(str(p.relative_to(batch["folder"])) for p in batch["folder"].rglob("*")) == batch["before"]
    assert batch["files"] == sorted([".grades_results", "grades.csv", "grades_feedback", "grades_histogram.png",
                                     "grades_items.csv", "grades_skipped.csv", *gradebook_files(batch["rows"])]), batch["files"]


def test_feedback_per_submission_grouped_and_readable(batch):
    assert sorted(batch["feedback"]) == sorted(batch["by_name"])
    eve = batch["feedback"]["joneseve"]
    row = batch["by_name"]["joneseve"]
    assert f"Score: {row['score']} of {row['max_score']} (MLP {row['mlp']}/{row['mlp_max']}, GLU {row['glu']}/" in eve
    assert f"Graded in the sandbox; data seed {row['seed']}." in eve
    # The known mistake is the cause shown first, its message as Markdown shows it literally.
    line = next(x for x in eve.splitlines() if x.startswith("- Fix first: "))
    assert "the gate uses sigmoid" in line and "`test_parity_with_reference[relu-GLU]`" in line, line
    assert "Every test passed." in batch["feedback"]["smithbob"]
    assert "marked this hand-in late" in eve and "marked this hand-in late" not in batch["feedback"]["smithbob"]
    # What the intake found is the student's to read too: which file was graded, which not and why.
    noted = [name for name, row in batch["by_name"].items() if row["note"]]
    assert noted, batch["rows"]
    for name in noted:
        shown = markdown_cell(batch["by_name"][name]["note"])[:30]
        assert f"Your hand-in: {shown}" in batch["feedback"][name], batch["feedback"][name]
    carol = batch["feedback"]["carol"]
    assert "## MLP: not started (0 of 25)" in carol and "## GLU: not started (0 of 25)" in carol, carol
    assert sum(line.startswith("- ") for line in carol.splitlines()) == 0, carol


def test_item_analysis_shares(batch):
    """Of 4 graded: the stubs fail every test, the mistake some GLU tests, the correct two none."""
    items = batch["items"]
    assert items and all(i["graded"] == "4" for i in items.values())
    for item in items.values():
        if item["task"] == "mlp":
            assert item["share_failing"] == "0.250" and "not implemented yet" in item["most_common_message"], item
        else:
            assert item["share_failing"] in ("0.250", "0.500"), item
        assert int(item["points"]) > 0 and int(item["message_count"]) >= 1, item
    for test in ("test_mlp.py::test_parity_with_reference[default-GLU]", "test_mlp.py::test_parity_with_reference[silu-GLU]"):
        assert items[test]["failing"] == "2" and items[test]["share_failing"] == "0.500", items[test]


def test_histogram_is_a_png(batch):
    assert batch["histogram"].startswith(b"\x89PNG\r\n\x1a\n") and len(batch["histogram"]) > 1000


def test_summary_line(batch):
    scores = [int(r["score"]) for r in batch["rows"]]
    top = max(int(r["max_score"]) for r in batch["rows"])
    out = batch["out"]
    assert batch["proc"].stdout.strip() == (
        f"graded 4 of {4 + len(SKIPPED)} entries: 0 errors, {len(SKIPPED)} skipped;"
        f" median {statistics.median(scores):g}/{top}, mean {statistics.mean(scores):.1f};"
        f" {out / 'grades.csv'}, grades_items.csv, grades_histogram.png, grades_feedback/, grades_skipped.csv"
        + "".join(f", {name}" for name in gradebook_files(batch["rows"])))


def test_only_replaces_one_row_and_rewrites_the_reports(batch):
    only = batch["only"]
    assert [r["submission"] for r in only["rows"]] == [r["submission"] for r in batch["rows"]]  # same order
    for name, row in only["by_name"].items():
        if name != "joneseve":
            assert row == batch["by_name"][name], name  # kept as they were
    assert full(only["by_name"]["joneseve"])
    assert "[1/1] joneseve" in only["proc"].stderr
    assert "Every test passed." in only["feedback"]["joneseve"]
    glu_parity = only["items"]["test_mlp.py::test_parity_with_reference[default-GLU]"]
    assert glu_parity["failing"] == "1" and glu_parity["share_failing"] == "0.250", glu_parity


# ------------------------------------------------------------------- naming, without grading

def scan(folder: Path, tmp: Path, ignore=frozenset()):
    from instructor.intake import scan as scan_

    work = tmp / "work"
    work.mkdir(exist_ok=True)
    return scan_(folder, work, ignore)


def test_names_unique_and_safe(tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    for loose in ("leeann_10_20_mlp_block.py", "leeann_11_21_mlp_block.py",  # two students, one name
                  "kimjo_30_40_mlp_block.py", "kimjo_30_41_mlp_cost.py",      # one student, two files
                  "=cmd_mlp_block.py"):
        shutil.copy(REFERENCE, folder / loose)
    for sub in ("zed", "=weird\x1b[2J name"):  # a formula, a terminal escape
        (folder / sub).mkdir()
        shutil.copy(REFERENCE, folder / sub / "mlp_block.py")
    shutil.copy(REFERENCE, folder / "zed_mlp_block.py")  # a folder and loose files for one name
    (folder / ".DS_Store").write_bytes(b"")
    os.symlink(reference_file("mlp_block").parent, folder / "linked")
    found = scan(folder, tmp_path)
    names = {s.name: s for s in found.submissions}
    zeds = sorted(name for name in names if name.startswith("zed-"))  # both kept, told apart
    assert sorted(names) == ["cmd", "kimjo", "leeann_10", "leeann_11", "weird_x1b_2J name", *zeds], sorted(names)
    assert sorted(names[z].source for z in zeds) == ["zed/", "zed_mlp_block.py"]
    assert sorted(p.name for p in names["kimjo"].path.iterdir()) == ["mlp_block.py", "mlp_cost.py"]
    skipped = dict(found.skipped)
    assert sorted(skipped) == [".DS_Store", "linked"], skipped
    assert "hidden" in skipped[".DS_Store"] and "symbolic link" in skipped["linked"]


def test_hand_ins_whose_names_come_out_the_same_are_both_kept_and_told_apart(tmp_path, capsys):
    """``-=2+3`` and ``2_3`` are both ``2_3`` as a safe name (and ``Kim`` and ``kim`` one feedback file on
    a case-insensitive disk): neither is lost. Each gets a suffix from its own entry's name, the same in
    every run (``--resume`` and ``--only`` find its row), and stderr says which entry is graded as what."""
    folder = tmp_path / "export"
    for entry in ("-=2+3", "2_3", "Kim", "kim", "lone"):
        (folder / entry).mkdir(parents=True)
        shutil.copy(REFERENCE, folder / entry / "mlp_block.py")
    found = scan(folder, tmp_path)
    names = {s.source: s.name for s in found.submissions}
    assert found.skipped == [] and sorted(names) == ["-=2+3/", "2_3/", "Kim/", "kim/", "lone/"], found.skipped
    assert len({name.casefold() for name in names.values()}) == 5, names
    assert names["lone/"] == "lone" and names["-=2+3/"] != names["2_3/"], names
    assert all(re.fullmatch(r"2_3-[0-9a-f]{8}", names[e]) for e in ("-=2+3/", "2_3/")), names
    assert all(re.fullmatch(r"[Kk]im-[0-9a-f]{8}", names[e]) for e in ("Kim/", "kim/")), names
    told = capsys.readouterr().err
    for entry in ("-=2+3/", "2_3/"):
        assert (f"renamed {entry}: graded as {names[entry]!r}: 2 hand-ins' names come out as '2_3' (-=2+3/, 2_3/)"
                in told), told
    assert dict(found.renamed).keys() == {"-=2+3/", "2_3/", "Kim/", "kim/"}
    (tmp_path / "again").mkdir()
    assert {s.source: s.name for s in scan(folder, tmp_path / "again").submissions} == names
    # An entry named as another's suffixed name keeps it; the other is told apart further, not lost.
    squatter = folder / names["2_3/"]
    squatter.mkdir()
    shutil.copy(REFERENCE, squatter / "mlp_block.py")
    (tmp_path / "third").mkdir()
    third = {s.source: s.name for s in scan(folder, tmp_path / "third").submissions}
    assert third[f"{names['2_3/']}/"] == names["2_3/"] and third["2_3/"] == f"{names['2_3/']}-2", third
    assert len({name.casefold() for name in third.values()}) == len(third) == 6, third


def test_reports_beside_a_csv_inside_the_batch_folder_are_not_entries(tmp_path):
    from instructor.batch_reports import Outputs

    folder = tmp_path / "export"
    (folder / "alice").mkdir(parents=True)
    shutil.copy(REFERENCE, folder / "alice" / "mlp_block.py")
    outputs = Outputs.beside(folder / "grades.csv")
    for path in (outputs.csv, outputs.items, outputs.skipped, outputs.histogram, outputs.gradebook("canvas"),
                 outputs.gradebook("moodle")):
        path.write_text("x")
    outputs.feedback.mkdir()
    outputs.store.folder.mkdir()
    found = scan(folder, tmp_path, outputs.all())
    assert [s.name for s in found.submissions] == ["alice"] and found.skipped == []
