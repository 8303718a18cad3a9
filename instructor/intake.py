"""What ``--batch DIR`` grades: each student's hand-in, whole, or skipped whole with the reason.

DIR is a folder, or the LMS's "download all submissions" zip itself (``instructor/unzip.py``: hostile
input, like a student's zip). Its entries come as an LMS exports them:

* a folder per student, the exercise files in it or deeper (``alice/mlp-block-main/exercises/``);
  a zip in it is the student's zip;
* a ``.zip`` per student (hostile input, ``instructor/unzip.py``; a zip inside it stays packed);
* loose files: ``<student>_<exercise>.py``, or in an LMS's form whatever the file (Canvas:
  ``smithalice_12345_67890_mlp_block.py``, ``..._hw3.zip``; Moodle:
  ``Alice Smith_12345_assignsubmission_file_mlp_block.py``), grouped by student.

Entries that carry one LMS student's id (Canvas' loose files, Moodle's folder per plugin) are one
hand-in. The student and the id come from the LMS's own prefix of a name (``CANVAS``, ``MOODLE``), never
from the file's own name after it, which the student chose; one id under two names is skipped, each of
its entries with the reason (``_claimed_twice``), and neither graded as the other. Which file answers
which exercise, and which one is graded where several do (re-uploads, misnamed or nested files), is
``instructor/hand_in.py``'s; each hand-in is graded from a folder of its own that holds its exercise
files under their own names, and its note says what was chosen.

Anything else is skipped, never silently: each skipped entry comes back with a one-line reason. The
exercises are the stems of the files in this checkout's ``exercises/``. Every submission gets a name
that is unique and safe as a file name and a CSV cell (``safe_text.file_name``): the folder's or
zip's name, or the loose files' student; with the ids of Canvas (``name_userid_fileid_...``) and
Moodle (``Full Name_12345_assignsubmission_file_``) left out unless two students would share it.
Names that still come out the same (``-=2+3`` and ``2_3`` are both ``2_3``) never cost a hand-in:
each gets a suffix from its entry's own name, and a line on stderr says which entry is graded as what.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from grader.grading import GraderFailure
from grader.paths import EXERCISES
from grader.probes.safe_text import file_name, printable
from instructor.hand_in import HandIn, exercise_of
from instructor.unzip import Unpacker

NAME_LIMIT = len(file_name("n" * 1000))  # the longest name safe_text.file_name gives

# An LMS's names: the LMS's own prefix (the student, the LMS's id for them), then the file's own name, if
# any, which the student chose. Neither LMS puts an underscore into the student's part (Canvas leaves
# letters and digits of the sortable name; Moodle turns a full name's "_" into spaces), so the prefix
# ends at the first "_<id>_": a name the student gave a file (``x_1002_assignsubmission_file_mlp.py``)
# never decides whose hand-in it is.
CANVAS = re.compile(r"^(?P<name>[^_]+)(?P<late>_late)?_(?P<id>\d+)_(?P<file>\d+)(?:_(?P<given>[^.].*))?$", re.IGNORECASE)
MOODLE = re.compile(r"^(?P<name>[^_]+)_(?P<id>\d+)_assignsubmission_[a-z]+(?:_(?P<given>[^.].*)|_)?$")
SEPARATOR = re.compile(r"[_ -]+")


def exercises() -> list[str]:
    names = sorted(p.stem for p in EXERCISES.glob("*.py") if not p.name.startswith("_"))
    if not names:
        raise GraderFailure(f"no exercise files in {EXERCISES}: the batch cannot tell what to look for")
    return names


@dataclass
class Submission:
    source: str      # what in DIR it came from, as the messages show it
    path: Path       # the folder to grade: the exercise files under their own names, and the files beside them
    name: str = ""   # unique and safe: the CSV row, the feedback file's name
    student: str = ""
    student_id: str = ""  # the LMS's own id for the student, for its gradebook
    lms: str = ""         # "canvas", "moodle" or "" (which export's naming the entry follows)
    note: str = ""        # for the instructor's row: how the files were found (renamed, nested, re-upload chosen)
    late: bool = False    # the LMS marked the hand-in late (Canvas: "_late_" in its download's names)
    lms_prefix: str = ""  # Canvas: how its download's names start, for the feedback files it takes back
    lms_shown: str = ""   # Canvas: the student's file that name is of, whose name its comment shows the feedback under


@dataclass
class Intake:
    submissions: list[Submission] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (entry, one-line reason)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (entry, the name it is graded as, and why)
    # A skipped entry that is one student's hand-in: (the student, the LMS's id), for a group's batch
    # (instructor/groups.py), which lists its own students' skipped hand-ins and no one else's.
    owners: dict[str, tuple[str, str]] = field(default_factory=dict)

    def skip(self, entry: str, reason: str, owner: tuple[str, str] | None = None) -> None:
        self.skipped.append((printable(entry), printable(reason)))
        if owner is not None:
            self.owners[printable(entry)] = owner

    def rename(self, entry: str, note: str) -> None:
        """Said at once on stderr, where the batch says what it skipped: the row's name is not the entry's."""
        entry, note = printable(entry), printable(note)
        self.renamed.append((entry, note))
        print(f"renamed {entry}: {note}", file=sys.stderr)


@dataclass
class Student:
    """The entries of DIR that are one student's hand-in."""
    name: str
    student_id: str = ""
    lms: str = ""
    entries: list[tuple[Path, str, str]] = field(default_factory=list)  # (path, label, the file's own name)
    late: bool = False  # any of its entries marked late by the LMS
    canvas_names: list[str] = field(default_factory=list)  # its entries' names in Canvas's form

    @property
    def source(self) -> str:
        """Its entries, as the messages show them."""
        return ", ".join(sorted(label for _, label, _ in self.entries))


def is_class_zip(batch: Path) -> bool:
    return batch.is_file() and batch.suffix.lower() == ".zip"


# Canvas shows a re-uploaded feedback file under the name of the student's file whose ids its name
# carries: the feedback is written in the form of that file, so an exercise file is the one to take.
CANVAS_SHOWN_FIRST = (".py", ".ipynb", ".zip", ".md", ".txt")


def canvas_attachment(names: list[str], exercises: list[str] = ()) -> tuple[str, str]:
    """Of a student's entries' names in Canvas's form, the one the feedback file goes back under: (its
    start, ``smithalice_12345_67890``; the file Canvas shows the feedback as, ``mlp_block.py``). An exercise
    file (of ``exercises``, by stem) first, then by ``CANVAS_SHOWN_FIRST``, then the first upload (the
    smallest file id); ("", "") for none."""
    def rank(match: re.Match) -> tuple:
        given = match["given"] or ""
        suffix = Path(given).suffix.lower()
        return (Path(given).stem not in exercises,
                CANVAS_SHOWN_FIRST.index(suffix) if suffix in CANVAS_SHOWN_FIRST else len(CANVAS_SHOWN_FIRST),
                int(match["file"]))
    matches = [match for name in names if (match := CANVAS.match(name))]
    if not matches:
        return "", ""
    best = min(matches, key=rank)
    return best.string[:best.end("file")], best["given"] or ""


def marked_late(name: str) -> bool:
    """Whether an entry's name carries its LMS's mark of a late hand-in (Canvas: ``name_late_id_...``)."""
    match = CANVAS.match(name)
    return bool(match and match["late"])


def lms_name(name: str) -> tuple[str, str, str, str]:
    """(the LMS, the student, the LMS's id, the rest: a loose file's own name) of a name in an LMS's
    form; ("", name, "", "") for any other name."""
    for lms, form in (("moodle", MOODLE), ("canvas", CANVAS)):
        if match := form.match(name):
            return lms, match["name"], match["id"], match["given"] or ""
    return "", name, "", ""


def scan(batch: Path, work: Path, ignore: set[Path] = frozenset()) -> Intake:
    """Every student in ``batch`` (a folder, or the class's zip), each a submission or skipped; what is
    unpacked or put together to be graded goes into ``work``."""
    names = exercises()
    intake = Intake()
    unpacker = Unpacker(work)
    folder = batch
    if is_class_zip(batch):
        folder, why = unpacker.open(batch, whole_class=True)
        if folder is None:
            intake.skip(batch.name, f"zip refused: {why}")
            return intake
    students: dict[tuple[str, ...], Student] = {}
    for entry in sorted(folder.iterdir()):
        label = entry.name + ("/" if entry.is_dir() and not entry.is_symlink() else "")
        if entry.resolve() in ignore:
            continue  # this batch's own reports, written beside the CSV
        if entry.name.startswith(".") or entry.name == "__MACOSX":
            intake.skip(label, "a hidden entry")
        elif entry.is_symlink():
            intake.skip(label, "a symbolic link: not followed")
        elif entry.is_dir() or entry.is_file():
            key, student, given = _whose(entry, label, names)
            if key is None:
                intake.skip(label, given)
            else:
                kept = students.setdefault(key, student)
                kept.entries.append((entry, label, given))
                kept.late |= marked_late(entry.name)
                if kept.lms == "canvas":
                    kept.canvas_names.append(entry.name)
        else:
            intake.skip(label, "not a file or a folder")
    for i, student in enumerate(students.values()):
        if why := _claimed_twice(student, students.values()):
            intake.skip(student.source, why, (student.name, student.student_id))
        else:
            _settle(intake, student, HandIn(names, unpacker), work / f"graded-{i}")
    _name_all(intake)
    return intake


def _whose(entry: Path, label: str, names: list[str]) -> tuple[tuple[str, ...] | None, Student | None, str]:
    """The student an entry belongs to (a key, the same for each entry of theirs) and, for a loose file,
    its own name ("" for a folder or a zip that is the student's whole hand-in); or None and why the
    entry is skipped."""
    lms, name, student_id, given = lms_name(entry.name)
    if entry.is_file() and lms and given:  # a loose file in an LMS's form, whatever it is
        return (lms, name, student_id), Student(name, student_id, lms), given
    if entry.is_dir() or entry.suffix.lower() == ".zip":
        lms, name, student_id, _ = lms_name(entry.name if entry.is_dir() else entry.name[:-len(".zip")])
        return (lms, name, student_id) if lms else ("entry", label), Student(name, student_id, lms), ""
    for separator in SEPARATOR.finditer(entry.name):
        if separator.start() and exercise_of(entry.name[separator.end():], names)[0]:
            student = entry.name[:separator.start()]
            return ("loose", student), Student(student), entry.name[separator.end():]
    if exercise_of(entry.name, names)[0]:
        return None, None, f"a loose exercise file without a student's name: expected <student>_{entry.name}"
    return None, None, (f"not a hand-in: expected a folder, a .zip or loose <student>_<exercise>.py files"
                        f" ({', '.join(names)})")


def _claimed_twice(student: Student, everyone) -> str:
    """Why ``student`` is skipped where their LMS id is also in entries under another name ("" where not):
    one id is one student in the LMS's gradebook, so no row can say whose grade it would hold; each is
    skipped, with the other's entries named, rather than one given the other's grade."""
    if not student.student_id:
        return ""
    others = sorted(label for other in everyone if other is not student and other.lms == student.lms
                    and other.student_id == student.student_id for _, label, _ in other.entries)
    if not others:
        return ""
    return (f"{student.lms} id {student.student_id} is also in the names of {', '.join(others[:3])}, under"
            f" another student's name: whose hand-in it is cannot be told, so neither is graded")


def _settle(intake: Intake, student: Student, hand_in: HandIn, target: Path) -> None:
    """One student's entries: a submission graded from ``target``, or skipped whole."""
    whole = len(student.entries) == 1  # else each folder's or zip's files are shown under its name
    givens = defaultdict(int)
    for _, _, given in student.entries:
        givens[given] += 1
    for path, label, given in student.entries:
        if given:  # by its own name, unless the student has two loose files of that name
            hand_in.add_file(path, given if givens[given] == 1 else label, 0)
        elif path.is_dir():  # Moodle's folders, one per submission plugin, are its packaging, not the student's
            hand_in.add_folder(path, "" if whole or student.lms == "moodle" else label, 0)
        else:
            hand_in.add_zip(path, "" if whole else label, 0)
    note, why = hand_in.settle(target)
    prefix, shown = canvas_attachment(student.canvas_names, hand_in.names)
    if why:
        intake.skip(student.source, why, (student.name, student.student_id))
    else:
        intake.submissions.append(Submission(student.source, target, student=student.name, student_id=student.student_id,
                                             lms=student.lms, note=printable(note), late=student.late,
                                             lms_prefix=prefix, lms_shown=shown))


def _name_all(intake: Intake) -> None:
    """Unique, safe names: the student's; with the LMS's id where two share it; and where names still
    clash, each of the clashing ones told apart (``_tell_apart``). Only a name with no letter or digit at
    all is skipped."""
    plain = defaultdict(int)
    for sub in intake.submissions:
        plain[file_name(sub.student).casefold()] += 1
    named = []
    for sub in intake.submissions:
        shared = plain[file_name(sub.student).casefold()] > 1 and sub.student_id
        sub.name = file_name(f"{sub.student}_{sub.student_id}" if shared else sub.student)
        if sub.name:
            named.append(sub)
        else:
            intake.skip(sub.source, "no usable name: letters or digits are needed in its name",
                        (sub.student, sub.student_id))
    by_name = defaultdict(list)
    for sub in named:
        by_name[sub.name.casefold()].append(sub)  # case-insensitive: feedback files on any file system
    taken = {key for key, clash in by_name.items() if len(clash) == 1}
    for clash in by_name.values():
        if len(clash) > 1:
            for sub in clash:
                _tell_apart(intake, sub, clash, taken)
    intake.submissions = named


def _tell_apart(intake: Intake, sub: Submission, clash: list[Submission], taken: set[str]) -> None:
    """Name ``sub``, one of ``clash`` (hand-ins whose names came out the same: ``-=2+3`` and ``2_3``), by
    that name and a suffix from a hash of its entry's own name, and say so: skipping them all would lose
    every one of them, and a number in order of arrival would change when an entry comes or goes, where a
    hash keeps each entry's row from run to run (``--resume``, ``--only``). ``taken``: the names
    (casefolded) already given, which no suffixed name may repeat."""
    suffix = hashlib.sha256(sub.source.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    clashing, n = sub.name, 1
    while True:  # another entry may have a name that looks like a suffixed one: count on until free
        tail = suffix if n == 1 else f"{suffix}-{n}"
        name = clashing[:NAME_LIMIT - len(tail) - 1].rstrip(" ._-") + "-" + tail
        if name.casefold() not in taken:
            break
        n += 1
    taken.add(name.casefold())
    sub.name = name
    intake.rename(sub.source, f"graded as {name!r}: {len(clash)} hand-ins' names come out as {clashing!r}"
                              f" ({', '.join(s.source for s in clash)}), so each has a suffix from its own entry's name")
