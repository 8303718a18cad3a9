"""``--students FILE``: a batch graded for a group of the class (an honours group, a section) alone.

FILE holds one student a line, by any identifier the batch's CSV shows for them: the row's name
(``submission``), the LMS's name for them (Canvas's ``smithalice``, Moodle's ``Alice Smith``), the LMS's
id (``lms_id``), or the entry of the batch folder; in any case, spaces as they come. Blank lines and
lines starting with ``#`` are none. Only the students listed are graded and get a row, a gradebook cell
and a feedback file; a listed student with no hand-in in the batch is reported by name
(``Group.missing``). A line that stands for two hand-ins (two John Smiths, listed by name) is refused
before anything is graded: the group's file would grade someone outside the group.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from grader.grading import GraderFailure
from grader.probes.safe_text import printable
from instructor.intake import Intake, Submission


def key(text: str) -> str:
    """An identifier as it is compared: case and runs of spaces do not count."""
    return " ".join(text.split()).casefold()


def run_together(text: str) -> set[str]:
    """A name's words run together in any order (``Alice Smith``: ``alicesmith``, ``smithalice``): the form a
    Canvas download names students by, which never holds the name as Moodle shows it."""
    words = key(text).split()
    if not 2 <= len(words) <= 4:
        return set()
    return {"".join(order) for order in itertools.permutations(words)}


def identifiers(sub: Submission) -> set[str]:
    """Every identifier the batch's CSV (and its folder) shows for a submission."""
    return {key(text) for text in (sub.name, sub.student, sub.student_id, sub.source.rstrip("/")) if text}


@dataclass
class Group:
    path: Path
    lines: list[tuple[int, str]]  # (line number, identifier as written)

    @classmethod
    def read(cls, path: Path) -> "Group":
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise GraderFailure(f"--students {path}: cannot be read ({type(exc).__name__}): expected a text file,"
                                " one student a line") from None
        lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)
                 if line.strip() and not line.lstrip().startswith("#")]
        if not lines:
            raise GraderFailure(f"--students {path}: no student in it: expected one student a line (the CSV's"
                                " submission name, the LMS's name or id)")
        return cls(path, lines)

    def select(self, found: Intake) -> tuple[list[Submission], list[str]]:
        """The group's submissions, and the lines of the group that no hand-in answers (as written)."""
        chosen: dict[str, Submission] = {}
        missing = []
        for number, wanted in self.lines:
            matches = [sub for sub in found.submissions if key(wanted) in identifiers(sub)]
            if len(matches) > 1:
                raise GraderFailure(
                    f"--students {self.path} line {number}: {printable(wanted)!r} is {len(matches)} hand-ins"
                    f" ({', '.join(printable(s.name) for s in matches[:4])}): give the LMS id or the CSV's"
                    " submission name instead")
            if matches:
                chosen[matches[0].name] = matches[0]
            else:
                missing.append(wanted)
        return [sub for sub in found.submissions if sub.name in chosen], missing

    def report(self, found: Intake, missing: list[str],
               every: list[Submission]) -> tuple[list[tuple[str, str]], list[str]]:
        """(the skipped entries a batch of the group lists, the listed students with no hand-in at all).
        The entries kept: a listed student's hand-in that cannot be graded, and the entries that are no
        student's; then a line per listed student with no hand-in. ``every``: the batch's hand-ins before the
        group was chosen, for the hint of a line that names one in another form (``near``)."""
        wanted = {key(text) for _, text in self.lines}
        kept = []
        for entry, reason in found.skipped:
            owner = found.owners.get(entry)
            if owner is None or wanted & {key(text) for text in owner if text}:
                kept.append((entry, reason))
        answered = {key(text) for entry, _ in kept for text in found.owners.get(entry, ())}
        absent = [text for text in missing if key(text) not in answered]
        return kept + [(printable(text), f"listed in {self.path.name}; no hand-in of theirs in the batch{self.near(every, text)}")
                       for text in absent], [printable(text) for text in absent]

    @staticmethod
    def near(every: list[Submission], text: str) -> str:
        """For a line no hand-in answers: the batch's hand-ins (``every``) whose name is its words run together
        (Canvas's ``smithalice`` for ``Alice Smith``), named so the line can be fixed; never graded as the group's."""
        names = sorted(sub.name for sub in every if run_together(text) & identifiers(sub))
        if not names:
            return ""
        shown = ", ".join(printable(name) for name in names[:3])
        return (f" (not graded: {shown} may be theirs; a Canvas download names students by their names run"
                f" together: list {printable(names[0])} or its lms_id)")
