"""The cost suite against known wrong and correct answers, the stubs and the reference.

The shared checks come from ``selfcheck.variant_checks``; this module adds what is particular to this
suite: every expected failure names the function it is about, called with its arguments, and the TODO.
"""

from __future__ import annotations

import re

from selfcheck.harness import expected_failures
from selfcheck.variant_checks import variant_checks

FUNCTION = re.compile(r"\b(mlp|glu)_(param_count|forward_flops|backward_flops|intermediate_dim)\(.*\) \(TODO \d ")


def message_names_function(variant, outcomes) -> list[str]:
    """The student reads the message alone: it must say which function, on which arguments, which TODO."""
    problems = []
    for test_id in expected_failures(variant):
        message = outcomes[test_id].message if test_id in outcomes else ""
        if message and not FUNCTION.search(message):
            problems.append(f"{variant.name}: {test_id} does not name the function and its TODO: {message[:200]}")
    return problems


globals().update(variant_checks("test_cost.py", "mlp_cost", min_wrong=20, min_correct=3,
                                extra_problems=message_names_function))
