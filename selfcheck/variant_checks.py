"""The checks every exercise's variants get, written once; each ``test_*_variants.py`` inherits them.

For one graded suite and exercise: enough wrong and correct variants exist and say which they are;
each variant is graded as it declares (``selfcheck.harness.verdict``) and no test goes missing from
its run; the reference passes everything; the stubs fail everything with a one-line
not-implemented pointer. Each check needs one run of the suite in its own pytest process: the
``graded`` fixture starts the runs of every selected check at once, a few side by side, each forked
from a process that has already imported torch; a check then waits for its own run only.
"""

from __future__ import annotations

import ast
import functools
import os
from typing import Callable, Iterable

import pytest

from selfcheck.harness import (VARIANTS, EditDoesNotApply, default_workers, edits, expected_failures, materialize,
                               parallel, run_suite, run_variant, start_preloaded, verdict)
from selfcheck.panels import panel as policy_panel
from selfcheck.sample import drawn, panel_share

WORKERS = default_workers()
FAST = {"preloaded": True, "threads": max(1, (os.cpu_count() or 1) // WORKERS)}


class VariantChecks:
    """The checks, for a test class to inherit with its suite's settings::

        class TestMlpVariants(VariantChecks):
            suite, exercise, min_wrong, min_correct = "test_mlp.py", "mlp_block", 18, 5

    ``whole_suite``: wrong variants that get every test rather than only those they name (``None``:
    all of them). ``only_named``: wrong variants that must fail nothing but the tests they name (one
    mistake, one charge). ``extra_problems(variant, outcomes)``: exercise-specific demands on the messages.
    The exercise's policy panel (its variants that declare ``POLICY_TODOS``: ``selfcheck/panels.py``) is
    graded in full as well. ``others_per_push``: where the whole suite is too slow to run on all of
    ``whole_suite`` every push, how many of the others a push grades in full beside the panel's share;
    ``named_per_push``: how many of the remaining wrong variants a push grades on their named tests
    (``selfcheck/sample.py``; None: all).
    """

    suite: str
    exercise: str
    min_wrong: int
    min_correct: int
    whole_suite: Iterable[str] | None = None
    only_named: frozenset[str] = frozenset()  # mistakes of one property: they may fail their named tests only
    extra_problems: Callable[[object, dict], list[str]] | None = None
    others_per_push: int | None = None
    named_per_push: int | None = None

    @classmethod
    def variants(cls) -> list:
        return sorted((VARIANTS / cls.exercise).glob("*.py"))

    @classmethod
    def whole_this_push(cls) -> frozenset[str]:
        """The wrong variants of ``whole_suite`` and the policy panel this push grades in full: the panel's share
        (``panel_share``) and ``others_per_push`` of the rest, drawn from the commit; all under --full."""
        panel = frozenset(policy_panel(cls.exercise))
        whole = frozenset(cls.whole_suite or ()) | panel
        if cls.others_per_push is None:
            return whole
        return frozenset(panel_share(cls.exercise, policy_panel(cls.exercise))) | drawn(
            whole - panel, cls.others_per_push, f"{cls.exercise}:others")

    @classmethod
    def graded_this_push(cls) -> list:
        """The variants this push grades: every correct one, those graded in full, and ``named_per_push`` of
        the other wrong ones, drawn from the commit (all of them where it is None, or under --full)."""
        rest = [v.stem for v in cls.variants() if not cls.runs_whole_suite(v)]
        chosen = set(rest) if cls.named_per_push is None else drawn(rest, cls.named_per_push, f"{cls.exercise}:named")
        return [v for v in cls.variants() if cls.runs_whole_suite(v) or v.stem in chosen]

    @classmethod
    def runs_whole_suite(cls, variant) -> bool:
        return cls.whole_suite is None or not expected_failures(variant) or variant.stem in cls.whole_this_push()

    @classmethod
    def pytest_generate_tests(cls, metafunc: pytest.Metafunc) -> None:
        if "variant" in metafunc.fixturenames:
            variants = cls.graded_this_push()
            metafunc.parametrize("variant", variants, ids=[p.stem for p in variants])

    def test_enough_variants(self):
        wrong = [v for v in self.variants() if expected_failures(v)]
        correct = [v for v in self.variants() if not expected_failures(v)]
        assert len(wrong) >= self.min_wrong and len(correct) >= self.min_correct, \
            f"{len(wrong)} wrong, {len(correct)} correct variants"

    def test_variants_say_what_they_are(self):
        """First line "Wrong: ..." or "Correct: ...", matching whether the variant expects failures."""
        for variant in self.variants():
            first = variant.read_text().splitlines()[0]
            kind = "Wrong: " if expected_failures(variant) else "Correct: "
            assert first.startswith(f'"""{kind}') and first.endswith('"""'), f"{variant.name}: {first}"

    def test_variant_edits_apply(self):
        """A variant written as edits of the reference still applies to it and makes valid Python."""
        problems = []
        for variant in self.variants():
            if edits(variant) is None:
                continue
            try:
                ast.parse(materialize(variant, self.exercise))
            except EditDoesNotApply as exc:
                problems.append(str(exc))
            except SyntaxError as exc:
                problems.append(f"{variant.name}: the reference with its edits is not valid Python: {exc}")
        assert not problems, "\n".join(problems)

    @staticmethod
    def run_for(item: pytest.Item):
        if item.originalname == "test_variant_graded_as_declared":
            return ("variant", item.callspec.params["variant"])
        return {"test_reference_passes": ("target", "reference"),
                "test_stubs_fail_with_not_implemented_pointers": ("target", "exercises")}.get(item.originalname)

    @pytest.fixture(scope="class")
    @classmethod
    def graded(cls, request):
        """Suite runs by key, all started before the first check waits on one."""
        start_preloaded()  # from this, the main thread: the server lives as long as the thread that starts it
        keys = [cls.run_for(item) for item in request.session.items if item.cls is request.cls]
        keys.append(("target", "reference"))  # every variant's run is compared with it
        calls = {}
        for key in dict.fromkeys(k for k in keys if k is not None):
            kind, what = key
            if kind == "variant":
                only = [] if cls.runs_whole_suite(what) else list(expected_failures(what))
                calls[key] = functools.partial(run_variant, cls.suite, cls.exercise, what, only=only, **FAST)
            else:
                calls[key] = functools.partial(run_suite, cls.suite, what, **FAST)
        with parallel(calls, WORKERS) as futures:
            yield lambda key: futures[key].result()

    def test_variant_graded_as_declared(self, variant, graded):
        code, outcomes = graded(("variant", variant))
        problems = verdict(variant, code, outcomes)
        # A variant that ends the run early (os._exit, a crash) must not pass for the tests it skipped.
        _, reference = graded(("target", "reference"))
        ran = set(reference) if self.runs_whole_suite(variant) else set(expected_failures(variant))
        missing = sorted(ran - set(outcomes))
        if missing:
            problems.append(f"{variant.name}: {len(missing)} tests never reported (did the run crash?):"
                            f" {missing[:5]}")
        if variant.stem in self.only_named and self.runs_whole_suite(variant):  # judged on the pushes that run it whole
            named = expected_failures(variant)
            problems += [f"{variant.name}: {test_id} {outcome.status} as well: {outcome.message[:200]}"
                         for test_id, outcome in outcomes.items() if outcome.status != "passed" and test_id not in named]
        if self.extra_problems is not None:
            problems += type(self).extra_problems(variant, outcomes)
        assert not problems, "\n".join(problems)

    def test_reference_passes(self, graded):
        code, outcomes = graded(("target", "reference"))
        failed = {k: v.message for k, v in outcomes.items() if v.status != "passed"}
        assert code == 0 and outcomes and not failed, failed

    def test_stubs_fail_with_not_implemented_pointers(self, graded):
        code, outcomes = graded(("target", "exercises"))
        assert code != 0 and outcomes
        for test_id, outcome in outcomes.items():
            assert outcome.status == "failed", f"{test_id} {outcome.status} on the stubs"
            assert outcome.message.startswith("not implemented yet:") and "TODO" in outcome.message, \
                f"{test_id}: {outcome.message}"
            assert "\n" not in outcome.message.strip(), f"{test_id}: more than one line: {outcome.message}"


class GradedAlikeInTheRelease:
    """A mixin beside ``VariantChecks``: each wrong variant graded on its named tests against the recorded
    answers (the student release's way) gets the live reference's outcome and message, word for word (the
    temporary folder aside), so the release grades a file as the course's grader does."""

    @pytest.fixture(scope="class")
    @classmethod
    def graded_by_snapshot(cls):
        wrong = [v for v in cls.graded_this_push() if expected_failures(v)]
        calls = {v: functools.partial(run_variant, cls.suite, cls.exercise, v, "--reference=snapshot",
                                      only=list(expected_failures(v)), **FAST) for v in wrong}
        with parallel(calls, WORKERS) as futures:
            return {v: future.result() for v, future in futures.items()}

    def test_the_release_grades_every_variant_alike(self, graded, graded_by_snapshot):
        from selfcheck.compare_snapshot import TEMP_FOLDER

        differ = []
        for variant, (_, by_snapshot) in graded_by_snapshot.items():
            _, live = graded(("variant", variant))
            for test_id in expected_failures(variant):
                seen = [TEMP_FOLDER.sub("TMP", run[test_id].message) if test_id in run else "(did not run)"
                        for run in (live, by_snapshot)]
                if seen[0] != seen[1]:
                    differ.append(f"{variant.stem} {test_id}\n  live:     {seen[0]}\n  recorded: {seen[1]}")
        assert not differ, "\n".join(differ)
