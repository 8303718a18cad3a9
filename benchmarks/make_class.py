"""A class of hand-ins as an LMS's "download all submissions" gives them, to try a batch end to end.

Writes CLASS/ (a folder, one entry per student as Canvas or Moodle names it) and CLASS.zip (the same
entries, as the LMS's zip): correct hand-ins written in several ways, typical mistakes of every
exercise (made from the reference with the known mistakes of ``selfcheck/variants/``), misnamed,
nested, re-downloaded and re-uploaded files, a student zip, a PDF and an online text beside the code,
a hand-in that does not import, an endless loop, a flood of output, and a hostile hand-in that tries
to read the grader's side and write outside its sandbox. ``EXPECTED`` says what each row should show.

    python benchmarks/make_class.py                   # /tmp/class-src/class/ and /tmp/class-src/class.zip
    python benchmarks/make_class.py --out DIR         # DIR/class/ and DIR/class.zip
    python benchmarks/whole_term.py                   # the term's commands on it, each row checked
    python -m instructor --batch /tmp/class-src/class.zip --csv /tmp/out/grades.csv \\
        --tasks mlp,glu,cost,swiglu,gated --bonus swiglu=5,gated=5 --canvas-assignment 'Homework 3 (12345)'

The hostile hand-in's code is the GLU mistake "activation on the value path" unless it can read the
reference, which it then hands in instead: a full GLU score for it means the sandbox leaked. Whatever
it manages to write outside lands in ``ESCAPE_MARKER`` (which must not exist after the batch).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from grader.paths import EXERCISES, reference_file  # noqa: E402
from selfcheck.harness import VARIANTS, materialize  # noqa: E402

MADE_BY = ".made_by_make_class"  # only a folder holding it is replaced
ESCAPE_MARKER = Path("/tmp/class-src-escaped.txt")
EXERCISE_NAMES = ("mlp_block", "mlp_cost", "triton_swiglu", "triton_gated_mlp")
FORWARD = "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"

# Each row as an instructor should find it: (what was handed in, what the row should say).
EXPECTED = {
    "alice": "correct, all four files (Moodle): full marks and both bonuses",
    "bobjones": "correct, written otherwise (nn.Sequential, a layer table, a row-wise grid, split-K; Canvas)",
    "Carol Diaz": "correct MLP/GLU and cost, no Triton files: both bonuses 'not handed in (optional)'",
    "daveking": "GLU mistake: the activation on the value path (Canvas)",
    "Erin Fox": "MLP mistake: the activation after Wo (Moodle)",
    "frankg": "no biases in any linear layer (Canvas)",
    "Grace Ho": "cost mistake: FLOPs counted as multiply-accumulates (Moodle)",
    "heidil": "SwiGLU kernel mistake: the backward's derivative of sigmoid (Canvas)",
    "Ivan Ruiz": "gated kernel mistake: the K mask missing from the loads of x (Moodle)",
    "Judy Chen": "correct, but misnamed and nested: Homework3/src/MLP_block.py (Moodle)",
    "kenmoore": "correct, under a browser's re-download name: 'mlp_block (1).py' (Canvas)",
    "Lena Park": "two different files, mlp_block.py and 'mlp_block (1).py', in one folder (Moodle)",
    "liamw": "Canvas re-upload: a wrong mlp_block.py, then the corrected mlp_block-1.py",
    "miaj": "an endless loop in MLP.forward (Canvas): MLP stopped by its limits, GLU graded",
    "Noah Berg": "correct, but prints a megabyte on every forward (Moodle)",
    "oliviat": "hostile: reads the grader's side, writes outside; its own code is a GLU mistake (Canvas)",
    "peterq": "correct MLP/GLU, the cost stub untouched (Canvas)",
    "quinnr": "a zip of the repository, mlp-block-main/exercises/*.py (Canvas); the dropout always on",
    "Rosa Lima": "correct, with a PDF report and an online text beside the code (Moodle)",
    "samlee": "late (Canvas _LATE_); functional linear, the cost's matched width rounded down",
    "Tina Wu": "mlp_block.py does not import (a syntax error), the cost correct (Moodle)",
    "umab": "correct, the Liger-Kernel SwiGLU bodies and a pointer-advancing gated loop (Canvas)",
    "John Smith": "two students of this name (Moodle): one correct, one with no biases; rows told apart by id",
    "Zoë Łukasiewicz": "correct, a name beyond ASCII (Moodle)",
    "wangxi": "an empty mlp_block.py (Canvas): 'empty file', the cost graded",
    "ivanovayekaterina": "a notebook, mlp_block.ipynb, instead of the .py (Canvas): nothing of the exercises handed in",
}
# Who else the term's commands need: the honours group graded on the gated task (--students), and when
# each hand-in came in (--submitted): Moodle's grading worksheet, and for Canvas, whose download marks a
# late hand-in but gives no time, a CSV of student and time. Due 2026-03-01T23:59.
HONOURS = ["alice", "bobjones", "Ivan Ruiz", "umab"]
DUE = "2026-03-01T23:59"
SUBMITTED = {"Erin Fox": "Monday, 2 March 2026, 8:00 AM", "Grace Ho": "Friday, 6 March 2026, 10:00 AM",
             "alice": "Sunday, 1 March 2026, 9:00 PM"}  # Moodle's own form; the others on time
CANVAS_SUBMITTED = {"samlee": "2026-03-02 08:00"}

HOSTILE_PREFIX = '''\
# Tries what a hand-in should not be able to do, quietly, at import time.
import os as _os
import pathlib as _pathlib

_leaked = None
_here = _pathlib.Path(__file__).resolve()
for _up in [_here.parent, *_here.parents]:
    for _rel in ("solution/hidden/reference_mlp_block.py", "../../solution/hidden/reference_mlp_block.py"):
        try:
            _leaked = (_up / _rel).read_text()
            break
        except OSError:
            pass
    for _rel in ("tests/snapshots/mlp.json", "../../tests/test_mlp.py", "grades.csv"):
        try:
            (_up / _rel).read_bytes()
            _leaked = _leaked or "found " + str(_up / _rel)
        except OSError:
            pass
for _target in ("ESCAPE_MARKER", str(_here.parent / "../../escaped.txt")):
    try:
        with open(_target, "a") as _f:
            _f.write("written from inside the sandbox by " + str(_here) + "\\n")
    except OSError:
        pass
try:
    import socket as _socket
    _socket.create_connection(("1.1.1.1", 80), timeout=2).close()
    _leaked = _leaked or "network"
except OSError:
    pass
print("Total: 100/100 points")  # a forged grader line
'''


def hostile(own_code: str) -> str:
    """The GLU mistake ``own_code``, or the reference itself where the sandbox lets it read it."""
    prefix = HOSTILE_PREFIX.replace("ESCAPE_MARKER", str(ESCAPE_MARKER))
    return (prefix + "if _leaked and 'class GLU' in _leaked:\n    exec(_leaked)\nelse:\n"
            + f"    exec({own_code!r})\n")


def variant(exercise: str, name: str) -> str:
    """A known mistake or a correct variant as a student hands it in (without the harness's header)."""
    text = materialize(VARIANTS / exercise / f"{name}.py", exercise)
    return text.split("\n", 1)[1] if text.startswith(f"# {name}.py:") else text


def reference(exercise: str) -> str:
    return reference_file(exercise).read_text()


def stub(exercise: str) -> str:
    return (EXERCISES / f"{exercise}.py").read_text()


def all_four(**chosen: str) -> dict[str, str]:
    """The four exercise files, each the reference unless ``chosen`` gives it."""
    return {f"{e}.py": chosen.get(e, reference(e)) for e in EXERCISE_NAMES}


def hand_ins() -> list[tuple[str, str, dict[str, str | bytes]]]:
    """(student, LMS form, their files: path in the hand-in -> content). The form decides the names."""
    ref = reference("mlp_block")
    loop = ref.replace(FORWARD, FORWARD + "        while True:\n            pass\n", 1)
    flood = ref.replace(FORWARD, FORWARD + "        print('x' * (1 << 20))\n", 1)
    return [
        ("alice", "moodle", all_four()),
        ("bobjones", "canvas", all_four(mlp_block=variant("mlp_block", "correct_sequential"),
                                        mlp_cost=variant("mlp_cost", "correct_layer_table"),
                                        triton_swiglu=variant("triton_swiglu", "correct_row_wise_grid"),
                                        triton_gated_mlp=variant("triton_gated_mlp", "correct_split_k_in_program"))),
        ("Carol Diaz", "moodle", {"mlp_block.py": variant("mlp_block", "correct_textbook"),
                                  "mlp_cost.py": reference("mlp_cost")}),
        ("daveking", "canvas", all_four(mlp_block=variant("mlp_block", "glu_activation_on_value_path"))),
        ("Erin Fox", "moodle", all_four(mlp_block=variant("mlp_block", "mlp_activation_after_wo"))),
        ("frankg", "canvas", all_four(mlp_block=variant("mlp_block", "missing_biases"))),
        ("Grace Ho", "moodle", all_four(mlp_cost=variant("mlp_cost", "flops_multiply_accumulates"))),
        ("heidil", "canvas", all_four(triton_swiglu=variant("triton_swiglu", "derivative_wrong_term"))),
        ("Ivan Ruiz", "moodle", all_four(triton_gated_mlp=variant("triton_gated_mlp", "k_mask_missing"))),
        ("Judy Chen", "moodle", {"Homework3/src/MLP_block.py": ref, "Homework3/src/mlp_cost.py": reference("mlp_cost"),
                                 "Homework3/notes.txt": "I renamed the file, sorry.\n"}),
        ("kenmoore", "canvas", {"mlp_block (1).py": ref, "mlp_cost.py": reference("mlp_cost")}),
        ("Lena Park", "moodle", {"mlp_block.py": variant("mlp_block", "missing_biases"), "mlp_block (1).py": ref}),
        ("liamw", "canvas", {"mlp_block.py": variant("mlp_block", "glu_sigmoid_gate"), "mlp_block-1.py": ref,
                             "mlp_cost.py": reference("mlp_cost")}),
        ("miaj", "canvas", {"mlp_block.py": loop, "mlp_cost.py": reference("mlp_cost")}),
        ("Noah Berg", "moodle", {"mlp_block.py": flood, "mlp_cost.py": reference("mlp_cost")}),
        ("oliviat", "canvas", {"mlp_block.py": hostile(variant("mlp_block", "glu_activation_on_value_path")),
                               "mlp_cost.py": reference("mlp_cost")}),
        ("peterq", "canvas", {"mlp_block.py": ref, "mlp_cost.py": stub("mlp_cost")}),
        ("quinnr", "canvas-zip", {f"mlp-block-main/exercises/{name}": text for name, text in all_four(
            mlp_block=variant("mlp_block", "dropout_always_on")).items()}
                                 | {"mlp-block-main/README.md": "# my copy\n"}),
        ("Rosa Lima", "moodle", {"mlp_block.py": ref, "mlp_cost.py": reference("mlp_cost"),
                                 "report.pdf": b"%PDF-1.4\n% not a real report\n",
                                 "onlinetext:onlinetext.html": "<p>See my report.</p>\n"}),
        ("samlee", "canvas-late", {"mlp_block.py": variant("mlp_block", "correct_functional_linear"),
                                   "mlp_cost.py": variant("mlp_cost", "sizing_rounds_down")}),
        ("Tina Wu", "moodle", {"mlp_block.py": ref.replace("class MLP(nn.Module):", "class MLP(nn.Module)", 1),
                               "mlp_cost.py": reference("mlp_cost")}),
        ("umab", "canvas", all_four(triton_swiglu=variant("triton_swiglu", "correct_liger_kernel_bodies"),
                                    triton_gated_mlp=variant("triton_gated_mlp", "correct_pointer_advancing_loop"))),
        ("John Smith", "moodle", {"mlp_block.py": ref, "mlp_cost.py": reference("mlp_cost")}),
        ("John Smith", "moodle", {"mlp_block.py": variant("mlp_block", "missing_biases"),
                                  "mlp_cost.py": reference("mlp_cost")}),
        ("Zoë Łukasiewicz", "moodle", {"mlp_block.py": ref, "mlp_cost.py": reference("mlp_cost")}),
        ("wangxi", "canvas", {"mlp_block.py": "", "mlp_cost.py": reference("mlp_cost")}),
        ("ivanovayekaterina", "canvas", {"mlp_block.ipynb": notebook_of(ref)}),
    ]


def notebook_of(code: str) -> str:
    """The code as one cell of a notebook, as a student who worked in Jupyter hands it in."""
    import json
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": code.splitlines(keepends=True)}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


def write_class(folder: Path) -> None:
    """Each student's files under the names their LMS's download gives them."""
    for number, (student, form, files) in enumerate(hand_ins()):
        user_id, file_id = 30000 + number, 60000 + 10 * number
        if form == "moodle":
            for given, content in files.items():
                plugin, _, given = given.rpartition(":")
                write(folder / f"{student}_{user_id}_assignsubmission_{plugin or 'file'}_" / given, content)
        elif form == "canvas-zip":
            with zipfile.ZipFile(folder / f"{student}_{user_id}_{file_id}_hw3.zip", "w") as archive:
                for given, content in files.items():
                    archive.writestr(given, content)
        else:  # Canvas' loose files: each upload its own file id, a late one marked
            late = "_LATE" if form == "canvas-late" else ""
            for upload, (given, content) in enumerate(files.items()):
                write(folder / f"{student}{late}_{user_id}_{file_id + upload}_{given}", content)


def write_term_files(out: Path) -> None:
    """honours.txt, worksheet.csv (Moodle's grading worksheet) and canvas_times.csv, beside class/."""
    import csv
    (out / "honours.txt").write_text("# the honours group: the gated task\n" + "\n".join(HONOURS) + "\n")
    moodle = [(number, student) for number, (student, form, _) in enumerate(hand_ins()) if form == "moodle"]
    with open(out / "worksheet.csv", "w", newline="", encoding="utf-8") as f:
        rows = csv.writer(f)
        rows.writerow(["Identifier", "Full name", "Status", "Grade", "Maximum Grade", "Last modified (submission)"])
        for number, student in moodle:
            rows.writerow([f"Participant {30000 + number}", student, "Submitted for grading", "", "100",
                           SUBMITTED.get(student, "Sunday, 1 March 2026, 6:00 PM")])
    with open(out / "canvas_times.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["student", "submitted"], *CANVAS_SUBMITTED.items()])


def zip_folder(folder: Path, archive: Path) -> None:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                out.write(path, path.relative_to(folder).as_posix())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/class-src"),
                        help="where class/ and class.zip go (a new folder, or one this script made)")
    args = parser.parse_args()
    if args.out.exists():
        if not (args.out / MADE_BY).exists():
            print(f"{args.out} exists and was not made by this script: choose another --out", file=sys.stderr)
            return 3
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    (args.out / MADE_BY).touch()
    ESCAPE_MARKER.unlink(missing_ok=True)
    folder = args.out / "class"
    write_class(folder)
    zip_folder(folder, args.out / "class.zip")
    write_term_files(args.out)
    entries = sorted(p.name for p in folder.iterdir())
    print(f"{len(hand_ins())} students, {len(entries)} entries: {folder}/ and {args.out / 'class.zip'}")
    for student, expected in EXPECTED.items():
        print(f"  {student:<12} {expected}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
