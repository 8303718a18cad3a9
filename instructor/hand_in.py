"""One student's hand-in: which of their files answers which exercise, the one graded where several do,
and the folder graded, each exercise file in it under its own name.

A file answers an exercise whatever its case and separators (``MLP_block.py``, ``mlp-block.py``), with
a browser's `` (1)`` for a second download (the same name) and an upload number (``mlp_block-2.py``:
Canvas numbers a later upload of a name it already holds). It is looked for in the student's folders
and zips, down to ``MAX_DEPTH`` folders; a zip inside a zip stays packed. Of several for one exercise
the shallowest is graded; of several at one depth in one folder, the newest upload; copies with the
same bytes count as one. Where nothing tells which one is meant (different files in two folders at
one depth, or two different files of one name and upload), the student is skipped whole, as when one
of their zips is refused: grading some of their exercises and not others would read as a grade.
What was chosen, found under another name or deeper, or left out, is said in a one-line note.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath

from grader.submission_files import LINK_REFUSED, Refusal
from instructor.unzip import Unpacker

MAX_DEPTH = 8  # how deep in a student's folders and zips exercise files are looked for
NAMED = 3  # files not graded that a note names (a whole repository holds dozens)
REDOWNLOAD = re.compile(r"\s*\(\d+\)$")  # "mlp_block (1)": a browser's second download of mlp_block.py
UPLOAD = re.compile(r"-(\d+)$")  # "mlp_block-2": Canvas' later upload of a name already handed in


def squashed(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def exercise_of(given: str, names: list[str]) -> tuple[str, int]:
    """The exercise a file name answers ("" for none) and its upload number (0 for the first upload)."""
    stem, dot, ext = given.rpartition(".")
    if not dot or ext.lower() != "py":
        return "", 0
    stem = REDOWNLOAD.sub("", stem)
    wanted = {squashed(n): n for n in names}
    if squashed(stem) in wanted:
        return wanted[squashed(stem)], 0
    upload = UPLOAD.search(stem)
    if upload and squashed(stem[:upload.start()]) in wanted:
        return wanted[squashed(stem[:upload.start()])], int(upload[1])
    return "", 0


@dataclass
class Found:
    """A .py file of the hand-in."""
    path: Path
    shown: str  # where it lies in the hand-in ("Homework3/src/MLP_block.py"), as notes and reasons show it
    depth: int  # the folders and zips between the hand-in's top and the file
    exercise: str = ""  # the exercise its name answers, or ""
    upload: int = 0

    @property
    def given(self) -> str:
        return PurePosixPath(self.shown).name

    @property
    def folder(self) -> str:
        return PurePosixPath(self.shown).parent.as_posix()

    @cached_property
    def digest(self) -> str:
        with open(self.path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()


@dataclass
class HandIn:
    """Everything one student handed in, found; ``settle`` chooses and writes the folder graded."""
    names: list[str]  # the exercises
    unpacker: Unpacker
    files: list[Found] = field(default_factory=list)
    other: list[str] = field(default_factory=list)  # loose files that are not Python: named in the note
    refused: list[tuple[str, str]] = field(default_factory=list)  # (zip, why it was not opened)
    unopened: list[str] = field(default_factory=list)  # zips inside zips
    links: list[str] = field(default_factory=list)  # symbolic links, never followed: named in the note

    def add_file(self, path: Path, shown: str, depth: int) -> None:
        """One loose file (``shown``: its name without the LMS's prefix) or a file of a folder."""
        if shown.lower().endswith(".py"):
            self.files.append(Found(path, shown, depth, *exercise_of(PurePosixPath(shown).name, self.names)))
        elif shown.lower().endswith(".zip"):
            self.add_zip(path, shown, depth + 1)
        else:
            self.other.append(shown)

    def add_zip(self, path: Path, shown: str, depth: int, inside_zip: bool = False) -> None:
        """A zip of the student's, its contents at ``depth`` (``shown`` "": the zip is the whole hand-in)."""
        if inside_zip:
            self.unopened.append(shown)
            return
        folder, why = self.unpacker.open(path)
        if folder is None:
            self.refused.append((shown, why))
        else:
            self.add_folder(folder, f"{shown}/" if shown else "", depth, inside_zip=True)

    def add_folder(self, root: Path, prefix: str, depth: int, inside_zip: bool = False) -> None:
        level = [(root, prefix)]
        for at in range(depth, depth + MAX_DEPTH):
            deeper = []
            for folder, shown in level:
                for child in sorted(folder.iterdir()):
                    if child.name.startswith((".", "__")):
                        continue  # .git, __MACOSX, __pycache__
                    if child.is_symlink():  # never followed, and said: a link named like an exercise is no hand-in
                        self.links.append(str(Refusal(shown + child.name, LINK_REFUSED)))
                        continue
                    if child.is_dir():
                        deeper.append((child, f"{shown}{child.name}/"))
                    elif child.suffix.lower() == ".zip":
                        self.add_zip(child, shown + child.name, at + 1, inside_zip)
                    elif child.suffix.lower() == ".py":
                        self.add_file(child, shown + child.name, at)
                    else:  # a PDF, a notebook, an online text: named in the note, never dropped unsaid
                        self.other.append(shown + child.name)
            level = deeper

    def settle(self, target: Path) -> tuple[str, str]:
        """Write the folder graded into ``target``: (the note, ""); or ("", why the student is skipped whole)."""
        if self.refused:
            shown, why = self.refused[0]
            return "", (f"{shown} refused, so nothing of this student is graded: {why}" if shown
                        else f"zip refused: {why}")
        by_exercise = defaultdict(list)
        for found in self.files:
            if found.exercise:
                by_exercise[found.exercise].append(found)
        if not by_exercise:
            why = f"no exercise file ({', '.join(f'{n}.py' for n in self.names)}) in it"
            held = [f.shown for f in self.files] + self.other
            if held:
                why += f"; it holds {', '.join(held[:3])}"
            if self.unopened:
                why += f"; a zip inside a zip ({self.unopened[0]}) is not extracted"
            if self.links:
                why += f"; not read: {'; '.join(self.links[:3])}"
            return "", why
        chosen, notes = {}, []
        for exercise, found in sorted(by_exercise.items()):
            pick, said = choose(exercise, found)
            if pick is None:
                return "", said
            chosen[exercise] = pick
            notes += said
        folders = {pick.folder for pick in chosen.values()}
        helpers = {}  # Python files beside the exercise files, which they may import, as the sandbox copies them
        for found in sorted(self.files, key=lambda f: (f.depth, f.shown)):
            if not found.exercise and found.folder in folders:
                helpers.setdefault(found.given, found)
        if helpers:
            notes.append(f"copied beside them: {', '.join(sorted(helpers))} (not an exercise's name)")
        # Python files of no exercise's name away from the exercise files (a test of the student's own, a
        # copy in another folder of a zip): named too, so that a misnamed answer is never dropped unsaid.
        stray = [f.shown for f in self.files if not f.exercise and helpers.get(f.given) is not f]
        if stray:
            more = f" and {len(stray) - NAMED} more" if len(stray) > NAMED else ""
            notes.append(f"not graded: {', '.join(stray[:NAMED])}{more} (no exercise's name:"
                         f" {', '.join(f'{n}.py' for n in self.names)})")
        if self.other:
            more = f" and {len(self.other) - NAMED} more" if len(self.other) > NAMED else ""
            notes.append(f"not graded: {', '.join(self.other[:NAMED])}{more} (only .py files are)")
        if self.unopened:
            notes.append(f"not extracted: {', '.join(self.unopened)} (a zip inside a zip)")
        notes += [f"not read: {link}" for link in self.links]
        target.mkdir(parents=True)
        for name, found in helpers.items():
            shutil.copyfile(found.path, target / name)
        for exercise, found in chosen.items():
            shutil.copyfile(found.path, target / f"{exercise}.py")
        return "; ".join(notes), ""


def choose(exercise: str, found: list[Found]) -> tuple[Found | None, list[str]]:
    """The file graded for ``exercise`` and what the note says of it; or None and why none can be."""
    top = min(f.depth for f in found)
    first = [f for f in found if f.depth == top]
    listed = ", ".join(f.shown for f in first[:4])
    if len({f.folder for f in first}) > 1 and len({f.digest for f in first}) > 1:
        return None, f"{len(first)} different files for {exercise}.py in different folders ({listed}) and nothing" \
                     " tells which to grade: remove the others, then grade this student again with --only"
    newest = max(f.upload for f in first)
    latest = [f for f in first if f.upload == newest]
    if len({f.digest for f in latest}) > 1:
        return None, f"{len(latest)} different files for {exercise}.py ({listed}) and no upload number tells" \
                     " which is newer: remove the others, then grade this student again with --only"
    pick = min(latest, key=lambda f: f.shown)
    older = [f.shown for f in first if f.digest != pick.digest]
    deeper = [f.shown for f in found if f.depth > top and f.digest != pick.digest]
    notes = []
    if older:
        notes.append(f"re-upload: {pick.shown} chosen over {', '.join(older)} (newest)")
    elif pick.given != f"{exercise}.py" or (pick.depth > 1 and PurePosixPath(pick.folder).name != "exercises"):
        # A name of the student's own making (MLP_Block.py) is told how to be found next time; an LMS's
        # or a browser's number (mlp_block-2.py, "mlp_block (1).py") is no mistake of theirs.
        own = PurePosixPath(pick.given).stem != exercise and not pick.upload and not REDOWNLOAD.search(
            PurePosixPath(pick.given).stem)
        notes.append(f"{exercise}.py found as {pick.shown}" + (f" (rename it {exercise}.py)" if own else ""))
    if deeper:
        notes.append(f"not graded: {', '.join(deeper[:3])} (deeper than {pick.shown})")
    return pick, notes
