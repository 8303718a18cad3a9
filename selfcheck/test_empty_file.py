"""An empty exercise file is one mistake: every test of its suite fails with the same one line, about the
file (no internal name, no function blamed), grouped as one cause."""

from __future__ import annotations

import pytest

from selfcheck.harness import run_suite


@pytest.mark.parametrize("suite,exercise", [("test_cost.py", "mlp_cost"), ("test_mlp.py", "mlp_block")])
def test_an_empty_file_is_one_line_for_every_test(tmp_path, suite, exercise):
    (tmp_path / f"{exercise}.py").write_text("# nothing yet\n")
    code, outcomes = run_suite(suite, str(tmp_path))
    assert code != 0 and outcomes
    messages = {outcome.message for outcome in outcomes.values()}
    assert all(outcome.status == "failed" for outcome in outcomes.values())
    assert len(messages) == 1, messages
    message = messages.pop()
    assert message.startswith(f"{exercise}.py defines no function or class at all"), message
    assert "_target_" not in message and "raised" not in message, message
