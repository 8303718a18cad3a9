"""One student's feedback from a batch: what an instructor can send as it is.

The score line gives the core tasks' points and the bonus points apart ("Score: 58 of 63, bonus 4 of
10"), as the grade's model computes them; a bonus task not handed in is one line, with nothing to fix.
Per task: the points, then the failures grouped by cause (one line per cause, however many tests it
fails, with their points and names), causes before the tests that only wait for them, and a task not
started (every test still meets a stub) in one line: all from the fields the tests set
(``grader/results.py``), never from their messages' words. A long message is cut where a reader would
stop (``grader/probes/safe_text.py``'s ``shorten``). Nothing of the sandbox's inner workings (its uid, its
cgroups, its paths) is shown: the grade's ``isolation`` is the instructor's.
Markdown (``.md``) for LMS comment boxes that render it, plain text (``.txt``) for those that do not.
Test names are the suites' own; everything else (the submission's messages, the names in its hand-in,
the intake's note that names them) is untrusted, and goes out through its format's one function
(``grader/probes/safe_text.py``): in Markdown ``markdown_cell``, which shows it literally; in plain text
``printable``.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.results import Grade, TestResult, after_a_hang, rounded, shown, task_title, waits_for_another
from grader.probes.safe_text import markdown_cell, printable, shorten

FORMATS = ("md", "txt")
MESSAGE_CHARS = 400  # one cause's message, shown whole up to this


@dataclass
class Cause:
    message: str  # the first of its tests' messages, as the student's suite printed it
    tests: list[TestResult]

    @property
    def points(self) -> int:
        return rounded(sum(t.max_points for t in self.tests))


def causes(failing: list[TestResult]) -> tuple[list[Cause], list[TestResult]]:
    """The failing tests grouped by the cause their tests named (``TestResult.cause``; a failure no test
    could explain is a cause of its own), largest first, and apart: those that wait for another test."""
    groups: dict[str, Cause] = {}
    waiting = []
    for test in failing:
        if waits_for_another(test):
            waiting.append(test)
            continue
        key = test.name if test.cause in ("", "unexplained") else f"{test.kind}:{test.cause}"
        groups.setdefault(key, Cause(test.message or test.status, [])).tests.append(test)
    return sorted(groups.values(), key=lambda c: (after_a_hang(c.tests[0]), -c.points)), waiting


def short_name(test: TestResult) -> str:
    return test.name.split("::", 1)[-1]


class Writer:
    """The few pieces of markup the two formats differ in."""

    def __init__(self, fmt: str) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"feedback format {fmt!r}: expected one of {', '.join(FORMATS)}")
        self.md = fmt == "md"

    def heading(self, text: str, level: int) -> list[str]:
        return [f"{'#' * level} {text}", ""] if self.md else [text, "=" * len(text) if level == 1 else "-" * len(text), ""]

    def text(self, untrusted: str) -> str:
        """Untrusted text on one line, shown as it is."""
        return markdown_cell(untrusted) if self.md else printable(" ".join(untrusted.split()))

    def quoted(self, untrusted: str) -> str:
        """A message: ``text``, cut where a reader would stop."""
        return self.text(shorten(printable(" ".join(untrusted.split())), MESSAGE_CHARS))

    def names(self, tests: list[TestResult]) -> str:
        shown = [short_name(t) for t in tests[:6]]
        more = f" and {len(tests) - 6} more" if len(tests) > 6 else ""
        return ", ".join(f"`{n}`" if self.md else n for n in shown) + more


def feedback(name: str, grade: Grade, fmt: str = "md", late: bool = False, hand_in: str = "",
             penalty: str = "") -> str:
    """One student's feedback file, headed with ``name`` (the student's name as the LMS gives it); ``late``:
    the LMS marked the hand-in late; ``penalty``: the batch's late-penalty line (``instructor/late.py``),
    beside the score, where its policy takes points off (without one, a late hand-in is said to be late and
    nothing is taken off here); ``hand_in``: what the batch's intake said of the files (which were graded,
    which not and why)."""
    w = Writer(fmt)
    tasks = grade.tasks()

    def title(task: str) -> str:
        return f"{task_title(task)} (bonus)" if task in grade.bonus else task_title(task)

    def points(task: str) -> str:
        earned, possible = grade.task_points(task)
        if task not in grade.bonus:
            return f"{earned} of {possible}"
        return f"{earned} of {possible}, bonus {shown(grade.task_bonus(task))} of {shown(grade.bonus_worth(task))}"

    def in_short(task: str) -> str:
        earned, possible = grade.task_points(task)
        extra = f" for {shown(grade.task_bonus(task))} bonus points" if task in grade.bonus else ""
        return f"{title(task)} {earned}/{possible}{extra}"

    lines = w.heading(f"Feedback for {w.text(name)}", 1)
    capped = f" Bonus points count up to {shown(grade.bonus_max)} in all." if grade.bonus_capped() else ""
    lines += [f"Score: {score_text(grade)} ({', '.join(map(in_short, tasks))}).{capped}", ""]
    if penalty:
        lines += [penalty, ""]
    elif late:
        lines += ["Your LMS marked this hand-in late; any late penalty is your course's, not in this score.", ""]
    if hand_in:
        lines += [f"Your hand-in: {w.quoted(hand_in)}", ""]
    for task in tasks:
        tests = grade.task_tests(task)
        worth = grade.task_points(task)[1]
        failing = grade.failures(task)
        if not failing:
            lines += w.heading(f"{title(task)}: {points(task)}", 2) + ["Every test passed.", ""]
            continue
        if grade.optional_not_handed_in(task):
            lines += w.heading(f"{title(task)}: not handed in (optional)", 2)
            continue
        if len(failing) == len(tests) and all(t.kind == "not_implemented" for t in failing):
            lines += w.heading(f"{title(task)}: not started (0 of {worth})", 2)
            lines += [f"All {len(tests)} tests say, for example: {w.quoted(failing[0].message)}", ""]
            continue
        lines += w.heading(f"{title(task)}: {points(task)}", 2)
        found, waiting = causes(failing)
        bullet = "- " if w.md else "* "
        for number, cause in enumerate(found, 1):
            lead = "Fix first: " if number == 1 else ""
            count = f"{len(cause.tests)} test{'s' * (len(cause.tests) != 1)}, {cause.points} point{'s' * (cause.points != 1)}"
            lines.append(f"{bullet}{lead}{w.quoted(cause.message)} ({count}: {w.names(cause.tests)})")
        if waiting:
            waiting_points = rounded(sum(t.max_points for t in waiting))
            many = len(waiting) != 1
            lines.append(f"{bullet}{len(waiting)} more test{'s' * many} ({waiting_points} point{'s' * (waiting_points != 1)})"
                         f" count{'' if many else 's'} once the output is right: {w.names(waiting)}")
        lines.append("")
    notes = [f"Graded {'in the sandbox' if grade.sandboxed else 'WITHOUT the sandbox'}; data seed {grade.seed}."]
    notes += [f"Not read from your hand-in (graded as not handed in): {w.text(r)}" for r in grade.refused]
    notes += [f"Not graded on the grading machine: {w.text(n)}" for n in grade.not_graded]
    return "\n".join(lines + notes) + "\n"


def score_text(grade: Grade) -> str:
    """'58 of 63', and with bonus tasks '58 of 63, bonus 4 of 10'."""
    core = f"{grade.core_score} of {grade.max_score}"
    return f"{core}, bonus {shown(grade.bonus_score)} of {shown(grade.bonus_max)}" if grade.bonus else core
