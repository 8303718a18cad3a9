"""Late penalties as the course's policy: ``--late-penalty 10%/day --late-cap 30% --due 2026-03-01T23:59``.

The policy, stated once (docs/grading.md, "Late hand-ins"): a hand-in submitted after the due date loses
a share of its score (core points and bonus points together, ``Grade.score``) for each period started
after the due date (a day or an hour: one minute late is one period), at most the cap in all. The
penalty is ``score x min(periods x share, cap)``, rounded as every point is (``grader.results.rounded``);
the score after it never drops below 0. The raw score stays what it is; every report shows the penalty
beside it (the CSV's ``late_penalty`` and ``final_score``, the feedback's line), and the gradebook files
take the score after it.

The submission time comes from the LMS (``--submitted FILE``, once per file): Moodle's grading worksheet as Moodle
downloads it (``Identifier``, ``Participant N``, and ``Last modified (submission)``), or a CSV of two
columns, a student (any identifier the batch's CSV shows) and the time, for an LMS whose download carries
no time (Canvas: its ``_late_`` mark says late, not how late). Times without a zone are the local time of
the machine that grades, as Moodle's worksheet writes the downloading user's time; give ``--due`` in that
same time. A hand-in marked late whose time is not known is not penalised: its row says so, and stderr.
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from grader.grading import GraderFailure
from grader.results import rounded
from instructor.batch_store import Record
from instructor.groups import key

PERIODS = {"day": 86400, "hour": 3600}  # seconds in each period a penalty is counted in
PENALTY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%?\s*/\s*(day|hour)\s*$", re.IGNORECASE)
SHARE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%?\s*$")
# How Moodle's worksheet writes a time (userdate's default, English: "Friday, 7 March 2026, 2:05 PM"),
# then ISO forms (this batch's own worksheet, and what an instructor types).
TIME_FORMATS = ("%A, %d %B %Y, %I:%M %p", "%d %B %Y, %I:%M %p", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S",
                "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%d")
MOODLE_ID, MOODLE_SUBMITTED = "Identifier", "Last modified (submission)"
MOODLE_PARTICIPANT = "Participant "


def parse_time(text: str, where: str) -> datetime:
    """A time as Moodle's worksheet or a person writes it; ``where`` names the argument in the error."""
    text = text.strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    for form in TIME_FORMATS if moment is None else ():
        try:
            moment = datetime.strptime(text, form)
            break
        except ValueError:
            continue
    if moment is None:
        raise GraderFailure(f"{where}: {text!r} is no time: expected e.g. 2026-03-01T23:59 or Moodle's"
                            " 'Sunday, 1 March 2026, 11:59 PM'")
    return moment.astimezone().replace(tzinfo=None) if moment.tzinfo else moment  # local time, as --due


def parse_share(text: str, where: str) -> float:
    """'30%' (or '30') as 0.3, within 0-100 %."""
    match = SHARE.match(text)
    if not match or float(match[1]) > 100:
        raise GraderFailure(f"{where} {text!r}: expected a share of the score from 0 to 100 %, e.g. 30%")
    return float(match[1]) / 100


@dataclass(frozen=True)
class Policy:
    share: float            # of the score, per period started after the due date
    period: str             # "day" or "hour" (PERIODS)
    due: datetime
    cap: float | None = None  # the most share in all; None: no cap
    times: dict[str, datetime] = field(default_factory=dict)  # submission times, by identifier (groups.key)

    @classmethod
    def of(cls, penalty: str | None, cap: str | None, due: str | None,
           submitted: list[Path] | None = None) -> "Policy | None":
        """The policy of the options, or None without ``--late-penalty``; a bad or lone option is an error."""
        if penalty is None:
            if cap or due or submitted:
                raise GraderFailure("--late-cap, --due and --submitted go with --late-penalty SHARE/PERIOD")
            return None
        match = PENALTY.match(penalty)
        if not match or float(match[1]) > 100:
            raise GraderFailure(f"--late-penalty {penalty!r}: expected a share of the score per day or hour,"
                                " e.g. 10%/day or 2%/hour")
        if due is None:
            raise GraderFailure("--late-penalty needs --due TIME, the due date (e.g. 2026-03-01T23:59)")
        return cls(float(match[1]) / 100, match[2].lower(), parse_time(due, "--due"),
                   None if cap is None else parse_share(cap, "--late-cap"),
                   {k: v for path in submitted or [] for k, v in read_times(path).items()})

    def said(self) -> str:
        """The policy in words: '10% of the score a day started, at most 30%'."""
        cap = f", at most {percent(self.cap)}" if self.cap is not None else ""
        return f"{percent(self.share)} of the score per {self.period} started after the due date{cap}"

    def submitted(self, record: Record) -> datetime | None:
        ids = [record.lms_id, record.name, record.student]
        return next((self.times[key(i)] for i in ids if i and key(i) in self.times), None)


def percent(share: float) -> str:
    return f"{rounded(share * 100):g}%"


@dataclass(frozen=True)
class Late:
    """One graded record under the policy: the figures every report shows."""

    submitted: datetime | None  # None: not known
    periods: int = 0            # periods started after the due date (0: on time)
    share: float = 0.0          # of the score taken off
    points: int | float = 0     # taken off
    final: int | float = 0      # the score after the penalty
    unknown: bool = False       # marked late by the LMS, its time not known: not penalised

    def line(self, policy: Policy) -> str:
        """The feedback's line, for a hand-in with a penalty or one whose time is not known."""
        if self.unknown:
            return ("Your LMS marked this hand-in late; its submission time was not known to the grading, so no"
                    f" late penalty is in this score (the course's policy: {policy.said()}).")
        when = self.submitted.strftime("%Y-%m-%d %H:%M")
        if not self.periods:
            return f"Submitted {when}, by the due date ({policy.due.strftime('%Y-%m-%d %H:%M')}): no late penalty."
        periods = f"{self.periods} {policy.period}{'s' * (self.periods != 1)}"
        return (f"Late: submitted {when}, due {policy.due.strftime('%Y-%m-%d %H:%M')}: {periods} late,"
                f" {percent(self.share)} of the score off ({policy.said()}): -{self.points:g} points, score"
                f" {self.final:g} after the penalty.")


def assess(policy: Policy | None, record: Record) -> Late | None:
    """The record's standing under ``policy`` (None: no policy, or no grade)."""
    if policy is None or record.grade is None:
        return None
    score = record.grade.score
    submitted = policy.submitted(record)
    if submitted is None:
        return Late(None, final=score, unknown=bool(record.late))
    seconds = (submitted - policy.due).total_seconds()
    periods = math.ceil(seconds / PERIODS[policy.period]) if seconds > 0 else 0
    share = min(periods * policy.share, policy.cap if policy.cap is not None else 1.0)
    points = rounded(score * share)
    return Late(submitted, periods, share, points, rounded(max(score - points, 0)))


def read_times(path: Path) -> dict[str, datetime]:
    """Submission times by identifier: Moodle's grading worksheet, or a two-column CSV (student, time)."""
    where = f"--submitted {path}"
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GraderFailure(f"{where}: cannot be read ({type(exc).__name__}): expected Moodle's grading worksheet"
                            " or a CSV of student, time") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    times = {}
    if rows and MOODLE_ID in rows[0] and MOODLE_SUBMITTED in rows[0]:
        ident, when = rows[0].index(MOODLE_ID), rows[0].index(MOODLE_SUBMITTED)
        for n, row in enumerate(rows[1:], 2):
            stamp = row[when].strip() if len(row) > when else ""
            if stamp and stamp != "-":  # "-": no submission
                times[key(row[ident].removeprefix(MOODLE_PARTICIPANT))] = parse_time(stamp, f"{where} line {n}")
        return times
    for n, row in enumerate(rows, 1):
        if len(row) < 2 or not row[0].strip():
            raise GraderFailure(f"{where} line {n}: expected two columns, a student and the time they submitted")
        try:
            times[key(row[0])] = parse_time(row[1], f"{where} line {n}")
        except GraderFailure:
            if n == 1:
                continue  # a header line
            raise
    return times
