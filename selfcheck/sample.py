"""What one push grades in full where grading all of it in full does not fit CI's minutes.

Some self-checks repeat one expensive run for each case of a list: the Triton pools' wrong variants graded
on the whole suite (that one mistake costs its own tests and no others, and the points the policy table in
``docs/grading.md`` says), the Triton seed panels (the same points under another seed), and the Triton
attacks graded in the sandbox beside their controls. Under Triton's interpreter a whole run takes seconds
of CPU; all of them on every push took CI minutes past its eight. So a push grades every variant on the
tests it names, every correct variant and the reference on the whole suite, every attack on the core tasks,
and of the rest a share drawn from the commit being checked: each push draws others, and pushes add up, as
the seeds do. A pool and its panel draw the same share, so their runs are shared
(``selfcheck.harness.run_variant``).

``python -m selfcheck --full`` (``SELFCHECK_FULL=1``) grades every one of them in full: before a term,
and after a change to the suites' points, the policy table or a judge's verdicts (docs/instructors.md).
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from typing import Iterable

from grader.paths import REPO
from grader.tasks import TRITON_EXERCISES

FULL_ENV = "SELFCHECK_FULL"


def full() -> bool:
    """Whether this run grades everything in full (``python -m selfcheck --full``)."""
    return os.environ.get(FULL_ENV, "") not in ("", "0")


@functools.lru_cache(maxsize=None)
def commit() -> str:
    """The checked-out commit (what each draw is drawn from); "no commit" outside a git checkout."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    return head or "no commit"


def drawn(names: Iterable[str], count: int, salt: str) -> frozenset[str]:
    """``count`` of ``names`` drawn from the commit (``salt`` keeps draws for different pools apart); all of
    them under ``--full``."""
    names = sorted(set(names))
    if full() or count >= len(names):
        return frozenset(names)
    return frozenset(sorted(names, key=lambda name: hashlib.sha256(f"{commit()}:{salt}:{name}".encode()).digest())[:count])


# How many of a Triton task's policy panel one push grades in full (``selfcheck/panels.py``): under Triton's
# interpreter a whole run takes tens of CPU seconds. Every other panel is graded whole every push (its runs take a
# fraction of a second). The variant pool and the seed panels read it, so their shares are the same runs.
TRITON_PANEL_PER_PUSH = 3
# How many of that share a push grades again under its drawn seed (``selfcheck/test_seed_stability.py``): the
# share's runs at seed 0 are the pool's, free; each under another seed is a new run of tens of CPU seconds.
TRITON_SEED_PER_PUSH = 1


def panel_share(exercise: str, names: Iterable[str]) -> list[str]:
    """The variants of ``exercise``'s panel (``names``) this push grades in full, in the panel's order: all of
    them unless the exercise is a Triton task's (``grader/tasks.py``)."""
    names = list(names)
    if exercise not in TRITON_EXERCISES:
        return names
    chosen = drawn(names, TRITON_PANEL_PER_PUSH, exercise)
    return [name for name in names if name in chosen]


def seed_share(exercise: str, names: Iterable[str]) -> list[str]:
    """The variants of ``exercise``'s panel share (``panel_share``) this push grades under its drawn seed too: all
    of them unless the exercise is a Triton task's, whose share is cut to ``TRITON_SEED_PER_PUSH``, drawn apart."""
    share = panel_share(exercise, names)
    if exercise not in TRITON_EXERCISES:
        return share
    chosen = drawn(share, TRITON_SEED_PER_PUSH, f"{exercise}:seed")
    return [name for name in share if name in chosen]
