"""The cost suite against known wrong and correct answers, the stubs and the reference.

The shared checks come from ``selfcheck.variant_checks``; this module adds what is particular to this
suite: every expected failure names the function it is about, called with its arguments, and the TODO.
"""

from __future__ import annotations

import functools
import re

import pytest

from selfcheck.compare_snapshot import TEMP_FOLDER
from selfcheck.harness import expected_failures, parallel, run_variant
from selfcheck.variant_checks import FAST, WORKERS, VariantChecks

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


class TestCostVariants(VariantChecks):
    suite, exercise, min_wrong, min_correct = "test_cost.py", "mlp_cost", 20, 3
    extra_problems = staticmethod(message_names_function)

    @pytest.fixture(scope="class")
    @classmethod
    def graded_by_snapshot(cls):
        """Each wrong variant's failing tests, judged by the reference's recorded answers (the release's way)."""
        wrong = [v for v in cls.variants() if expected_failures(v)]
        calls = {v: functools.partial(run_variant, "test_cost.py", "mlp_cost", v, "--reference=snapshot",
                                      only=list(expected_failures(v)), **FAST) for v in wrong}
        with parallel(calls, WORKERS) as futures:
            return {v: future.result() for v, future in futures.items()}

    def test_the_release_gives_every_hint(self, graded, graded_by_snapshot):
        """A student with the release (no solution/, answers from tests/snapshots/cost.json) must get the
        instructor checkout's message for every known mistake, word for word."""
        differ = []
        for variant, (_, by_snapshot) in graded_by_snapshot.items():
            _, live = graded(("variant", variant))
            for test_id in expected_failures(variant):
                seen = [TEMP_FOLDER.sub("TMP", run[test_id].message) if test_id in run else "(did not run)"
                        for run in (live, by_snapshot)]
                if seen[0] != seen[1]:
                    differ.append(f"{variant.stem} {test_id}\n  live:     {seen[0]}\n  snapshot: {seen[1]}")
        assert not differ, "\n".join(differ)
