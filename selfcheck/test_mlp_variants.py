"""The MLP/GLU suite against known wrong and correct implementations, the stubs and the reference.

Each check needs one run of the graded suite in its own pytest process. The ``graded`` fixture
starts the runs of every selected check at once, a few side by side, each forked from a process that
has already imported torch (``selfcheck.harness``); a check then waits for its own run only.
"""

from __future__ import annotations

import functools
import os
import re

import pytest

from selfcheck.harness import (VARIANTS, default_workers, expected_failures, parallel, run_suite, run_variant,
                               verdict)

MLP_VARIANTS = sorted((VARIANTS / "mlp_block").glob("*.py"))
SUITE = "test_mlp.py"
WORKERS = default_workers()
FAST = {"preloaded": True, "threads": max(1, (os.cpu_count() or 1) // WORKERS)}


def test_enough_variants():
    wrong = [v for v in MLP_VARIANTS if expected_failures(v)]
    right = [v for v in MLP_VARIANTS if not expected_failures(v)]
    assert len(wrong) >= 18 and len(right) >= 5, f"{len(wrong)} wrong, {len(right)} correct variants"


def test_variants_say_what_they_are():
    """First line "Wrong: ..." or "Correct: ...", matching whether the variant expects failures."""
    for variant in MLP_VARIANTS:
        first = variant.read_text().splitlines()[0]
        kind = "Wrong: " if expected_failures(variant) else "Correct: "
        assert first.startswith(f'"""{kind}') and first.endswith('"""'), f"{variant.name}: {first}"


def run_for(item: pytest.Item) -> tuple[str, object] | None:
    """Which suite run a selected check needs, or None for checks that need none."""
    if item.originalname == "test_variant_graded_as_declared":
        return ("variant", item.callspec.params["variant"])
    return {"test_reference_passes": ("target", "reference"),
            "test_stubs_fail_with_not_implemented_pointers": ("target", "exercises")}.get(item.originalname)


@pytest.fixture(scope="module")
def graded(request):
    """Suite runs by key, all started before the first check waits on one."""
    keys = [run_for(item) for item in request.session.items if item.module is request.module]
    keys.append(("target", "reference"))  # every variant's run is compared with it: no test may go missing
    calls = {}
    for key in dict.fromkeys(k for k in keys if k is not None):
        kind, what = key
        calls[key] = (functools.partial(run_variant, SUITE, "mlp_block", what, **FAST) if kind == "variant"
                      else functools.partial(run_suite, SUITE, what, **FAST))
    with parallel(calls, WORKERS) as futures:
        yield lambda key: futures[key].result()


@pytest.mark.parametrize("variant", MLP_VARIANTS, ids=[p.stem for p in MLP_VARIANTS])
def test_variant_graded_as_declared(variant, graded):
    code, outcomes = graded(("variant", variant))
    problems = verdict(variant, code, outcomes)
    # A variant that ends the run early (os._exit, a crash) must not pass for the tests it skipped.
    _, reference = graded(("target", "reference"))
    missing = sorted(set(reference) - set(outcomes))
    if missing:
        problems.append(f"{variant.name}: {len(missing)} tests never reported (did the run crash?):"
                        f" {missing[:5]}")
    # The student reads the message alone: it must say which class and method it is about.
    for test_id in expected_failures(variant):
        block = re.search(r"\b(MLP|GLU)\]$", test_id).group(1)
        message = outcomes[test_id].message if test_id in outcomes else ""
        if message and not re.search(rf"\b{block}\.\w+", message):
            problems.append(f"{variant.name}: {test_id} does not name {block}.<method>: {message[:200]}")
    assert not problems, "\n".join(problems)


def test_forked_run_grades_like_a_fresh_interpreter():
    """The fast path (forked from a preloaded process, one thread) against plain `python -m pytest`."""
    variant = VARIANTS / "mlp_block" / "dropout_rate_ignored.py"  # random draws, failures and passes
    fast = run_variant(SUITE, "mlp_block", variant, **FAST)
    plain = run_variant(SUITE, "mlp_block", variant)

    def seen(run):
        code, outcomes = run
        # the variant's temporary folder differs between the two runs; nothing else may
        return code, {test_id: (outcome.status, re.sub(r"\S*mlp_block\.py", "mlp_block.py", outcome.message))
                      for test_id, outcome in outcomes.items()}

    assert seen(fast) == seen(plain)


def test_reference_passes(graded):
    code, outcomes = graded(("target", "reference"))
    failed = {k: v.message for k, v in outcomes.items() if v.status != "passed"}
    assert code == 0 and outcomes and not failed, failed


def test_stubs_fail_with_not_implemented_pointers(graded):
    code, outcomes = graded(("target", "exercises"))
    assert code != 0 and outcomes
    for test_id, outcome in outcomes.items():
        assert outcome.status == "failed", f"{test_id} {outcome.status} on the stubs"
        assert outcome.message.startswith("not implemented yet:") and "TODO" in outcome.message, outcome.message
        assert "\n" not in outcome.message.strip(), f"{test_id}: more than one line: {outcome.message}"
