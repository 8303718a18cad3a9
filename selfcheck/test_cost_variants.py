"""The cost suite against known wrong and correct answers, the stubs and the reference.

The shared checks come from ``selfcheck.variant_checks`` (the release's grading of each wrong variant among
them); this module adds what is particular to this suite: every expected failure names the function it is
about, called with its arguments, and the TODO.
"""

from __future__ import annotations

import re

import pytest

from selfcheck.harness import expected_failures
from selfcheck.variant_checks import GradedAlikeInTheRelease, VariantChecks

pytestmark = [pytest.mark.cost]  # python -m selfcheck --task: the tasks this checks

FUNCTION = re.compile(r"\b(mlp|glu)_(param_count|forward_flops|backward_flops|intermediate_dim)\(.*\) \(TODO \d ")


def message_names_function(variant, outcomes) -> list[str]:
    """The student reads the message alone: it must say which function, on which arguments, which TODO."""
    problems = []
    for test_id in expected_failures(variant):
        message = outcomes[test_id].message if test_id in outcomes else ""
        if message and not FUNCTION.search(message):
            problems.append(f"{variant.name}: {test_id} does not name the function and its TODO: {message[:200]}")
    return problems


class TestCostVariants(VariantChecks, GradedAlikeInTheRelease):
    suite, exercise, min_wrong, min_correct = "test_cost.py", "mlp_cost", 20, 3
    extra_problems = staticmethod(message_names_function)
