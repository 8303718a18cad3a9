"""The fused SwiGLU suite against known wrong and correct kernels, the stubs and the reference.

Mirrors ``test_mlp_variants.py``: the ``graded`` fixture starts one run of the graded suite per check,
all at once, a few side by side (``selfcheck.harness``); each check then waits for its own run. A run
of ``tests/test_triton_swiglu.py`` takes a few seconds, most of it starting the child process the seam
runs this exercise in. Correct variants get the whole suite; wrong ones only the tests they name,
except those in ``WHOLE_SUITE``, whose point is that every test still reports.
"""

from __future__ import annotations

import functools
import os

import pytest

from selfcheck.harness import (VARIANTS, default_workers, expected_failures, parallel, run_suite, run_variant,
                               verdict)

TRITON_VARIANTS = sorted((VARIANTS / "triton_swiglu").glob("*.py"))
SUITE = "test_triton_swiglu.py"
EXERCISE = "triton_swiglu"
# A kernel writing out of bounds must fail its tests without ending the run: every test must report.
WHOLE_SUITE = {"missing_mask"}
WORKERS = default_workers()
FAST = {"preloaded": True, "threads": max(1, (os.cpu_count() or 1) // WORKERS)}

pytest.importorskip("triton", reason="Triton is not installed (Linux only): the fused SwiGLU suite skips too")


def test_enough_variants():
    wrong = [v for v in TRITON_VARIANTS if expected_failures(v)]
    right = [v for v in TRITON_VARIANTS if not expected_failures(v)]
    assert len(wrong) >= 8 and len(right) >= 2, f"{len(wrong)} wrong, {len(right)} correct variants"


def test_variants_say_what_they_are():
    """First line "Wrong: ..." or "Correct: ...", matching whether the variant expects failures."""
    for variant in TRITON_VARIANTS:
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
        if kind == "variant":
            only = [] if what.stem in WHOLE_SUITE else list(expected_failures(what))
            calls[key] = functools.partial(run_variant, SUITE, EXERCISE, what, only=only, **FAST)
        else:
            calls[key] = functools.partial(run_suite, SUITE, what, **FAST)
    with parallel(calls, WORKERS) as futures:
        yield lambda key: futures[key].result()


@pytest.mark.parametrize("variant", TRITON_VARIANTS, ids=[p.stem for p in TRITON_VARIANTS])
def test_variant_graded_as_declared(variant, graded):
    code, outcomes = graded(("variant", variant))
    problems = verdict(variant, code, outcomes)
    _, reference = graded(("target", "reference"))
    ran = set(reference) if variant.stem in WHOLE_SUITE or not expected_failures(variant) else set(
        expected_failures(variant))
    missing = sorted(ran - set(outcomes))
    if missing:
        problems.append(f"{variant.name}: {len(missing)} tests never reported (did the run crash?): {missing[:5]}")
    assert not problems, "\n".join(problems)


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
