"""The same files get the same points under any seed, and the points the grading policy says.

The reference gets full marks on every suite under each seed (a right kernel's float32 rounding judged
against a tiny result once failed it under one grade's seed). Every exercise's policy panel (its variants
that declare ``POLICY_TODOS``: ``selfcheck/panels.py``; for MLP/GLU a hard-coded activation, tanh GELU with
either constant, float32 casts, missing biases, a residual added, ...) is graded in full under each seed: each
variant must fail the same tests every time, and lose the points per task that the table in
``docs/grading.md`` says. The seed only draws the tests' data, and every verdict is an exact comparison or a
statistic far from its bound, so nothing may change (the cost suite draws no data: its second seed, 13 runs
of a fraction of a second, must change nothing either).

Which seeds: seed 0 (the default) always, and one more drawn from the commit being checked (``seeds``), so
each push tries a seed no push tried before while one run stays within the maintainer command's minutes (one
seed of the MLP panel is 18 runs of the suite); a failure names its seed, and ``SELFCHECK_SEEDS=3,17`` replays
it. A Triton panel's runs take tens of CPU seconds each under Triton's interpreter: a push grades the share of
it that its variant pool grades in full (``panel_this_push``, drawn from the commit as the seed is:
``selfcheck/sample.py``), and of that share, ``seed_share`` under the drawn seed too (its runs at seed 0 are the
pool's; each under another seed is a new one); ``python -m selfcheck --full`` grades every panel whole.
"""

from __future__ import annotations

import functools
import hashlib
import os

import pytest

from grader.tasks import SUITES, TRITON_EXERCISES, exercise_suites
from selfcheck.grading_policy import graded_points, panel_this_push, points_lost, written_rows, written_todos
from selfcheck.panels import declaration_problems, exercises, marks_of, panel, todo_column
from selfcheck.harness import VARIANTS, parallel, run_suite, run_variant, start_preloaded
from selfcheck.sample import commit, panel_share, seed_share
from selfcheck.variant_checks import FAST, WORKERS


def seeds(drawn: int) -> list[int]:
    """Seed 0 (the suites' default, the policy table's, and the variant pools': their runs are reused), and
    ``drawn`` seeds in 2..10**6 from the checked-out commit (``SELFCHECK_SEEDS``, a comma list, replaces them
    all)."""
    if os.environ.get("SELFCHECK_SEEDS"):
        return [int(s) for s in os.environ["SELFCHECK_SEEDS"].split(",")]
    digest = hashlib.sha256(commit().encode()).digest()
    return [0] + [2 + int.from_bytes(digest[4 * i:4 * i + 4], "big") % 999_999 for i in range(drawn)]


SEEDS = seeds(1)  # 18 runs of the MLP suite per seed: each push tries a new seed, and pushes add up (two a push
# no longer fit CI's minutes on a 2-core machine once the Triton tasks' bounds ran on every dtype)


def under_seeds(exercise: str, seeds, names, again) -> dict:
    """(variant, seed) -> its run: ``names`` of ``exercise``'s panel under the first seed, and those of ``again``
    under every other seed too."""
    calls = {(name, seed): (lambda name=name, seed=seed: run_variant(
        exercise_suites(exercise), exercise, VARIANTS / exercise / f"{name}.py", *seed_argument(seed), **FAST))
        for name in names for seed in seeds if seed == seeds[0] or name in again}
    with parallel(calls, WORKERS) as futures:
        return {key: future.result() for key, future in futures.items()}


def seed_argument(seed: int) -> tuple[str, ...]:
    """The suites' own default (seed 0) is passed as no argument, as the pools and the policy table pass it."""
    return () if seed == 0 else (f"--seed={seed}",)


def panel_cases(share=panel_share) -> list:
    """(exercise, variant) for this push's ``share`` of every panel, marked with its exercise's tasks
    (``python -m selfcheck --task NAME`` selects them)."""
    return [pytest.param(exercise, name, id=f"{exercise}/{name}", marks=marks_of(exercise))
            for exercise in exercises() for name in share(exercise, panel(exercise))]


@functools.lru_cache(maxsize=None)
def panel_runs(exercise: str) -> dict:
    """This push's share of ``exercise``'s panel under every seed, all started at once on its first test."""
    if exercise in TRITON_EXERCISES:
        pytest.importorskip("triton", reason="Triton is not installed (Linux only): its suites skip too")
    start_preloaded()  # from this, the main thread: the server lives as long as the thread that starts it
    return under_seeds(exercise, SEEDS, panel_this_push(exercise), seed_share(exercise, panel(exercise)))


@pytest.mark.parametrize("exercise, name", panel_cases(seed_share))
def test_one_verdict_per_mistake_whatever_the_seed(exercise, name):
    seen = {}
    for seed in SEEDS:
        _, outcomes = panel_runs(exercise)[(name, seed)]
        failing = tuple(sorted(t for t, o in outcomes.items() if o.status != "passed"))
        seen.setdefault(failing, []).append(seed)
    assert len(seen) == 1, f"{name}: the failing tests depend on the seed: " + "; ".join(
        f"seeds {seeds}: {list(failing)}" for failing, seeds in seen.items())
    assert next(iter(seen)), f"{name} fails no test"


@pytest.mark.parametrize("exercise, name", panel_cases())
def test_points_lost_as_the_policy_table_says(exercise, name):
    points, runs = graded_points(exercise), panel_runs(exercise)
    want = written_rows(exercise).get(name)
    assert want is not None, f"{name} has no row in docs/grading.md: python -m selfcheck.grading_policy --write"
    for seed in (seed for seed in SEEDS if (name, seed) in runs):  # the first seed's at least (seed 0's: the pool's)
        got = points_lost(points, runs[(name, seed)][1])
        assert got == want, (f"{name} under --seed {seed} loses {got}, docs/grading.md says {want}:"
                             " python -m selfcheck.grading_policy --write, and check the change is meant")


@pytest.mark.parametrize("exercise", [pytest.param(exercise, marks=marks_of(exercise)) for exercise in exercises()])
def test_every_row_of_the_table_is_a_declared_variant(exercise):
    """The table has no row of a variant that no longer declares POLICY_TODOS (or no longer exists), its TODO
    column is each variant's declaration, and each declaration names a wrong variant and TODOs of its exercise."""
    problems = declaration_problems(exercise)
    written = written_todos(exercise)
    problems += [f"docs/grading.md has a row for {name}, which declares no POLICY_TODOS in"
                 f" selfcheck/variants/{exercise}/: python -m selfcheck.grading_policy --write"
                 for name in sorted(set(written) - set(panel(exercise)))]
    problems += [f"docs/grading.md gives {name} TODO {written[name]}, its file declares POLICY_TODOS ="
                 f" {todo_column(exercise, name)!r}: python -m selfcheck.grading_policy --write"
                 for name in panel(exercise) if name in written and written[name] != todo_column(exercise, name)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("seed", SEEDS[1:])
def test_the_reference_gets_full_marks_under_every_seed(seed):
    code, outcomes = run_suite(SUITES, "reference", *seed_argument(seed), **FAST)
    failed = {test: outcome.message[:300] for test, outcome in outcomes.items() if outcome.status != "passed"}
    assert outcomes and not failed and code == 0, f"the reference under --seed {seed}: {failed}"
