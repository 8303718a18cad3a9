"""The MLP/GLU suite against known wrong and correct implementations, the stubs and the reference."""

from __future__ import annotations

import pytest

from selfcheck.harness import REPO, VARIANTS, run_suite, run_variant, verdict

MLP_VARIANTS = sorted((VARIANTS / "mlp_block").glob("*.py"))


@pytest.mark.parametrize("variant", MLP_VARIANTS, ids=[p.stem for p in MLP_VARIANTS])
def test_variant_graded_as_declared(variant):
    code, outcomes = run_variant("test_mlp.py", "mlp_block", variant)
    assert not verdict(variant, code, outcomes), "\n".join(verdict(variant, code, outcomes))


def test_enough_variants():
    from selfcheck.harness import expected_failures

    wrong = [v for v in MLP_VARIANTS if expected_failures(v)]
    right = [v for v in MLP_VARIANTS if not expected_failures(v)]
    assert len(wrong) >= 15 and len(right) >= 3, f"{len(wrong)} wrong, {len(right)} correct variants"


def test_reference_passes():
    code, outcomes = run_suite("test_mlp.py", "reference")
    failed = {k: v.message for k, v in outcomes.items() if v.status != "passed"}
    assert code == 0 and outcomes and not failed, failed


def test_stubs_fail_with_not_implemented_pointers():
    code, outcomes = run_suite("test_mlp.py", "exercises")
    assert code != 0 and outcomes
    for test_id, outcome in outcomes.items():
        assert outcome.status == "failed", f"{test_id} {outcome.status} on the stubs"
        assert outcome.message.startswith("not implemented yet:") and "TODO" in outcome.message, outcome.message
        assert "\n" not in outcome.message.strip(), f"{test_id}: more than one line: {outcome.message}"
