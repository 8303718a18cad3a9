"""The MLP/GLU suite against known wrong and correct implementations, the stubs and the reference.

The shared checks come from ``selfcheck.variant_checks``; this module adds what is particular to
this suite: every expected failure names ``MLP.<method>`` or ``GLU.<method>``, and the fast forked
runs grade exactly like a fresh interpreter.
"""

from __future__ import annotations

import pytest

import re

from selfcheck.compare_snapshot import differences
from selfcheck.harness import VARIANTS, expected_failures, run_variant
from selfcheck.variant_checks import FAST, VariantChecks

pytestmark = [pytest.mark.mlp, pytest.mark.glu]  # python -m selfcheck --task: the tasks this checks

SUITE = "test_mlp.py"


def message_names_method(variant, outcomes) -> list[str]:
    """The student reads the message alone: it must say which class and method it is about."""
    problems = []
    for test_id in expected_failures(variant):
        block = re.search(r"\b(MLP|GLU)\]$", test_id).group(1)
        message = outcomes[test_id].message if test_id in outcomes else ""
        if message and not re.search(rf"\b{block}\.\w+", message):
            problems.append(f"{variant.name}: {test_id} does not name {block}.<method>: {message[:200]}")
    return problems


class TestMlpVariants(VariantChecks):
    suite, exercise, min_wrong, min_correct = SUITE, "mlp_block", 18, 5
    extra_problems = staticmethod(message_names_method)
    # Packing the gate and value projections into one layer is a matter of names: the maths is judged.
    only_named = frozenset({"glu_fused_gate_value", "glu_packed_value_first_timm"})


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


def test_release_snapshot_grades_every_variant_as_the_live_reference():
    """The student release grades with the reference's recorded answers: every known mistake must get the
    same outcomes and messages there as against the live reference (``selfcheck/compare_snapshot.py``)."""
    found = differences()
    assert not found, (f"{len(found)} outcomes differ between the live reference and its recorded answers, tests/snapshots/"
                       " (record them again: python -m grader.judge.snapshot):\n" + "\n".join(found[:10]))
