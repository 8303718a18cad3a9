"""What ``--batch DIR`` grades: each entry of DIR as one student's hand-in, or skipped with the reason.

Entries come as an LMS exports them:

* a folder per student, the exercise files in it or deeper (``alice/mlp-block-main/exercises/``):
  the shallowest folder that holds an exercise file, or an ``exercises/`` folder holding one (a
  whole checkout), is graded;
* a ``.zip`` per student: hostile input. It is refused whole for an absolute path or ``..``, a
  symbolic link, too many members or too many bytes; only its ``.py`` members are extracted (each at
  most ``MAX_SUBMISSION_FILE_BYTES``), into a private folder, and then it is read like a folder;
* loose files ``<student>_<exercise>.py`` (Canvas: ``smithalice_12345_67890_mlp_block.py``, re-uploads
  ``..._mlp_block-1.py``), grouped by student.

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
import shutil
import stat
import sys
import zipfile
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.grading import GraderFailure
from grader.paths import EXERCISES
from grader.safe_text import file_name, printable
from grader.sandbox import MAX_SUBMISSION_FILE_BYTES

# A zip is refused whole beyond these: the member count and the sizes its directory declares. Only
# .py members are ever decompressed, each read up to MAX_SUBMISSION_FILE_BYTES whatever it declares.
MAX_ZIP_MEMBERS = 4096
MAX_ZIP_BYTES = 256 << 20
MAX_DEPTH = 8  # how deep in a student's folder the exercise files are looked for
NAME_LIMIT = len(file_name("n" * 1000))  # the longest name safe_text.file_name gives

CANVAS = re.compile(r"^(?P<name>[^_]+)(?:_late)?_(?P<id>\d+)_\d+(?:_.*)?$", re.IGNORECASE)
MOODLE = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_[a-z]+_?$")


def exercises() -> list[str]:
    names = sorted(p.stem for p in EXERCISES.glob("*.py") if not p.name.startswith("_"))
    if not names:
        raise GraderFailure(f"no exercise files in {EXERCISES}: the batch cannot tell what to look for")
    return names


@dataclass
class Submission:
    source: str      # what in DIR it came from, as the messages show it
    path: Path       # the folder to grade: a checkout, or the folder holding the exercise files
    name: str = ""   # unique and safe: the CSV row, the feedback file's name
    student: str = ""
    student_id: str = ""  # the LMS's own id for the student, for its gradebook
    lms: str = ""         # "canvas", "moodle" or "" (which export's naming the entry follows)
    note: str = ""        # for the instructor's row: how the files were found (renamed, nested, re-upload chosen)


@dataclass
class Intake:
    submissions: list[Submission] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (entry, one-line reason)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (entry, the name it is graded as, and why)

    def skip(self, entry: str, reason: str) -> None:
        self.skipped.append((printable(entry), printable(reason)))

    def rename(self, entry: str, note: str) -> None:
        """Said at once on stderr, where the batch says what it skipped: the row's name is not the entry's."""
        entry, note = printable(entry), printable(note)
        self.renamed.append((entry, note))
        print(f"renamed {entry}: {note}", file=sys.stderr)


def scan(folder: Path, work: Path, ignore: set[Path] = frozenset()) -> Intake:
    """Every entry of ``folder``, each a submission or skipped; zips and loose files go into ``work``."""
    names = exercises()
    intake = Intake()
    loose: dict[tuple[str, str], dict[str, list[Path]]] = defaultdict(lambda: defaultdict(list))
    loose_file = re.compile(rf"^(?:(?P<student>.+?)[_ -]+)?(?P<exercise>{'|'.join(map(re.escape, names))})(?:-\d+)?\.py$")
    for index, entry in enumerate(sorted(folder.iterdir())):
        label = entry.name + ("/" if entry.is_dir() and not entry.is_symlink() else "")
        if entry.resolve() in ignore:
            continue  # this batch's own reports, written beside the CSV
        if entry.name.startswith("."):
            intake.skip(label, "a hidden entry")
        elif entry.is_symlink():
            intake.skip(label, "a symbolic link: not followed")
        elif entry.is_dir():
            _add_folder(intake, label, entry, entry.name, names)
        elif entry.is_file() and entry.suffix.lower() == ".zip":
            target = work / f"zip-{index}"
            refused = extract_zip(entry, target)
            if refused:
                intake.skip(label, f"zip refused: {refused}")
            else:
                _add_folder(intake, label, target, entry.stem, names)
        elif entry.is_file() and (match := loose_file.match(entry.name)):
            if not match["student"]:
                intake.skip(label, f"a loose exercise file without a student's name: expected <student>_{entry.name}")
            else:
                student, student_id = student_of(match["student"])
                loose[student, student_id][match["exercise"]].append(entry)
        else:
            intake.skip(label, f"not a hand-in: expected a folder, a .zip or loose <student>_<exercise>.py"
                               f" files ({', '.join(names)})")
    for i, ((student, student_id), files) in enumerate(sorted(loose.items())):
        _add_loose(intake, work / f"loose-{i}", student, student_id, files)
    _name_all(intake)
    return intake


def student_of(stem: str) -> tuple[str, str]:
    """The student's name (and id, if the LMS put one in) in a folder, zip or loose file's name."""
    match = CANVAS.match(stem) or MOODLE.match(stem)
    return (match["name"], match["id"]) if match else (stem, "")


def _add_folder(intake: Intake, label: str, root: Path, stem: str, names: list[str]) -> None:
    path, why = find_exercises(root, names)
    if path is None:
        intake.skip(label, why)
    else:
        student, student_id = student_of(stem)
        intake.submissions.append(Submission(label, path, student=student, student_id=student_id))


def _add_loose(intake: Intake, target: Path, student: str, student_id: str, files: dict[str, list[Path]]) -> None:
    label = ", ".join(p.name for paths in files.values() for p in paths)
    for exercise, paths in files.items():
        if len({p.read_bytes() for p in paths}) > 1:
            intake.skip(label, f"{len(paths)} different files for {exercise}.py: hand in one")
            return
    target.mkdir(parents=True)
    for exercise, paths in files.items():
        shutil.copyfile(paths[0], target / f"{exercise}.py")
    intake.submissions.append(Submission(label, target, student=student, student_id=student_id))


def _holds_exercise(folder: Path, names: list[str]) -> bool:
    return any((folder / f"{n}.py").is_file() and not (folder / f"{n}.py").is_symlink() for n in names)


def find_exercises(root: Path, names: list[str]) -> tuple[Path | None, str]:
    """The shallowest folder under ``root`` that holds an exercise file (or a checkout's exercises/)."""
    level, other_py, zips = [root], [], []
    for _ in range(MAX_DEPTH):
        hits = [d for d in level if _holds_exercise(d, names) or _holds_exercise(d / "exercises", names)]
        if len(hits) == 1:
            return hits[0], ""
        if hits:
            where = ", ".join(h.relative_to(root).as_posix() + "/" for h in hits[:3])
            return None, f"exercise files in {len(hits)} folders ({where}): hand in one"
        deeper = []
        for folder in level:
            for child in sorted(folder.iterdir()):
                if child.name.startswith((".", "__")) or child.is_symlink():
                    continue  # .git, __MACOSX, __pycache__; links are never followed
                if child.is_dir():
                    deeper.append(child)
                elif child.suffix == ".py":
                    other_py.append(child.name)
                elif child.suffix.lower() == ".zip":
                    zips.append(child.name)
        level = deeper
    why = f"no exercise file ({', '.join(f'{n}.py' for n in names)}) in it"
    if other_py:
        why += f"; it holds {', '.join(other_py[:3])}"
    if zips:
        why += f"; a zip inside a hand-in ({zips[0]}) is not extracted"
    return None, why


def extract_zip(path: Path, target: Path) -> str:
    """Extract the zip's .py members under ``target``; the reason it was refused, or "" if it was not."""
    def parts(member: zipfile.ZipInfo) -> tuple[str, ...]:
        return PurePosixPath(member.filename.replace("\\", "/")).parts

    def oversize(member: zipfile.ZipInfo) -> str:
        return f"member {printable(member.filename)!r} is over {MAX_SUBMISSION_FILE_BYTES >> 20} MB"

    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                return f"{len(members)} members, more than {MAX_ZIP_MEMBERS}"
            if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                return f"over {MAX_ZIP_BYTES >> 20} MB uncompressed"
            for member in members:
                if member.filename.startswith(("/", "\\")) or ".." in parts(member) or not parts(member):
                    return f"member {printable(member.filename)!r} has an absolute path or '..'"
                if stat.S_ISLNK(member.external_attr >> 16):
                    return f"member {printable(member.filename)!r} is a symbolic link"
            python = [m for m in members if m.filename.endswith(".py") and not m.is_dir()]
            if not python:
                inner = next((m.filename for m in members if m.filename.lower().endswith(".zip")), "")
                return "no .py file in it" + (f"; a zip inside ({printable(inner)!r}) is not extracted" if inner else "")
            big = next((m for m in python if m.file_size > MAX_SUBMISSION_FILE_BYTES), None)
            if big is not None:
                return oversize(big)
            target.mkdir(parents=True)
            for member in python:  # only Python files are graded; nested zips and the rest stay packed
                dest = target.joinpath(*parts(member))
                dest.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as source:
                    data = source.read(MAX_SUBMISSION_FILE_BYTES + 1)  # the size it declared may be a lie
                if len(data) > MAX_SUBMISSION_FILE_BYTES:
                    return oversize(member)
                with open(dest, "xb") as out:  # a name twice in one zip is refused, not overwritten
                    out.write(data)
    except FileExistsError as exc:
        return f"a member's name appears twice ({printable(Path(exc.filename or '').name)!r})"
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, RuntimeError, NotImplementedError, EOFError,
            ValueError, zlib.error) as exc:
        return f"not a readable zip ({printable(str(exc)).splitlines()[0] if str(exc) else type(exc).__name__})"
    return ""


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
            intake.skip(sub.source, "no usable name: letters or digits are needed in its name")
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
