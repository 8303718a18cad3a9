"""A variant written as edits of the reference says so clearly when the reference has moved on."""

from __future__ import annotations

import pytest

from selfcheck.harness import EditDoesNotApply, apply_edits, materialize

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
