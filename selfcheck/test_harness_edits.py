"""A variant written as edits of the reference says so clearly when the reference has moved on, and its
EXPECT_FAILURES are judged against the grader's record of each test, each way they can be missed named."""

from __future__ import annotations

import pytest

from selfcheck.harness import EditDoesNotApply, Outcome, apply_edits, judged, materialize

REFERENCE = "def f(x):\n    y = x + 1\n    return y * y\n"


def test_edits_apply_in_order_with_counts():
    source = apply_edits(REFERENCE, [("x + 1", "x - 1"), ("y", "z", 3)], "made_up.py")
    assert source == "def f(x):\n    z = x - 1\n    return z * z\n"


@pytest.mark.parametrize("changes,found", [([("x + 2", "x - 1")], "occurs 0 times"),
                                           ([("y", "z")], "occurs 3 times"),
                                           ([("x + 1", "x - 1"), ("x + 1", "x")], "occurs 0 times")])
def test_stale_edit_named_with_its_text_and_count(changes, found):
    with pytest.raises(EditDoesNotApply) as caught:
        apply_edits(REFERENCE, changes, "made_up.py")
    message = str(caught.value)
    assert message.startswith(f"made_up.py: edit {len(changes)} of {len(changes)} does not apply")
    assert found in message and repr(changes[-1][0]) in message and "reference changed" in message


def test_stale_edit_fails_the_variant_check(tmp_path):
    variant = tmp_path / "stale.py"
    variant.write_text('"""Wrong: made up."""\n\nEXPECT_FAILURES = {"test_x": "y"}\n\n'
                       'EDITS = [("this text is in no reference", "x")]\n')
    with pytest.raises(EditDoesNotApply, match="stale.py: edit 1 of 1 does not apply"):
        materialize(variant, "mlp_block")


# ------------------------------------------------------------------------- EXPECT_FAILURES, judged

OWN = Outcome("failed", "GLU.forward (TODO 4): the activation is on the value path", "",
              {"kind": "failed", "cause": "activation on the value path", "todo": "TODO 4", "waits_on": ""})
WAITING = Outcome("failed", "this counts once test_a passes", "", {"kind": "waits", "cause": "unexplained",
                                                                   "todo": "", "waits_on": "test_a"})
UNNAMED = Outcome("failed", "GLU.forward differs from the reference: check it layer by layer", "",
                  {"kind": "failed", "cause": "unexplained", "todo": "", "waits_on": ""})


@pytest.mark.parametrize("expectation,outcome", [
    ({"cause": "activation on the value path"}, OWN), ({"waits_on": "test_a"}, WAITING),
    ({"cause": "activation on the value path", "says": "VALUE PATH"}, OWN), ("layer by layer", UNNAMED)])
def test_an_expectation_met_is_no_problem(expectation, outcome):
    assert judged(expectation, outcome) == []


@pytest.mark.parametrize("expectation,outcome,said", [
    ({"cause": "activation on the gate path"}, OWN, "cause 'activation on the value path'"),
    ({"cause": "activation on the value path"}, WAITING, "kind 'waits'"),  # waiting is not failing on its own
    ({"waits_on": "test_b"}, WAITING, "not waiting on 'test_b'"),
    ({"waits_on": "test_a"}, OWN, "kind 'failed'"),
    ({"cause": "activation on the value path", "says": "gate path"}, OWN, "without saying 'gate path'"),
    ("gate path", UNNAMED, "without saying 'gate path'"),
    ("on the value path", OWN, "expect the record instead"),  # a phrase where the record names the cause
    ("counts once", WAITING, "expect the record instead"),
    ({"cause": "unexplained"}, UNNAMED, "says nothing"),
    ({"cause": "activation on the value path"}, Outcome("failed", "no record"), "kind ''"),  # a run without records
    ({"caused": "x"}, OWN, "use ['cause', 'says', 'waits_on']"), ({}, OWN, "use ['cause', 'says', 'waits_on']")])
def test_an_expectation_not_met_is_named(expectation, outcome, said):
    problems = judged(expectation, outcome)
    assert len(problems) == 1 and said in problems[0], problems
