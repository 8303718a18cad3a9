"""The stubs are made from the reference (``instructor/stubs.py``): the committed ``exercises/`` is exactly
what the reference's marked regions make, and a marker out of place stops the making with its file
and line."""

from __future__ import annotations

import shutil

import pytest

from grader.paths import EXERCISES, REFERENCE
from instructor import release, stubs

REFERENCE_LINES = """\
# BEGIN docstring
# stub: \"\"\"Exercise: add one.\"\"\"
\"\"\"Reference: add one.\"\"\"
# END docstring
# BEGIN reference only
import math
# END reference only
# BEGIN stub only
# stub: HERE = "exercises/add.py"
# END stub only


def add_one(x):
    # BEGIN TODO 1
    # stub: # TODO 1: return x + 1.
    # stub:
    # stub: raise NotImplementedError(f"add_one: TODO 1 in {HERE}")
    return x + math.floor(1.5)
    # END TODO 1
"""

STUB_LINES = """\
\"\"\"Exercise: add one.\"\"\"
HERE = "exercises/add.py"


def add_one(x):
    # TODO 1: return x + 1.

    raise NotImplementedError(f"add_one: TODO 1 in {HERE}")
"""


def test_committed_stubs_are_what_the_reference_makes():
    stale = stubs.stale()
    assert not stale, (f"the stubs differ from what the reference makes; if the reference is right, write them with"
                       f" `{stubs.REGENERATE}` and review the difference:\n" + "\n\n".join(stale.values()))


def test_every_exercise_has_its_reference():
    made = stubs.stub_files()
    assert {p.name for p in made} == {p.name for p in EXERCISES.glob("*.py")}, "an exercise without a reference, or one more"
    for stub, reference in made.items():
        assert "# BEGIN TODO 1" in reference.read_text(), f"{reference.name} marks no TODO 1"
        assert stubs.marker_lines(stub.read_text()) == [], stub.name


def test_each_kind_of_region_makes_its_lines():
    assert stubs.stub_of(REFERENCE_LINES, "add.py") == STUB_LINES
    assert stubs.marker_lines(REFERENCE_LINES) == [1, 2, 4, 5, 7, 8, 9, 10, 14, 15, 16, 17, 19]


@pytest.mark.parametrize("edit,line,said", [
    (("    # END TODO 1\n", ""), 14, "BEGIN TODO 1 is never closed"),
    (("# BEGIN reference only\n", ""), 6, "END reference only closes nothing: no region is open"),
    (("    # END TODO 1\n", "    # END TODO 2\n"), 19, "the open region is 'TODO 1' (line 14)"),
    (("# END docstring\n", ""), 4, "BEGIN reference only inside the region 'docstring' opened on line 1"),
    (("# BEGIN stub only\n", "# BEGIN anything\n"), 8, "unknown region label 'anything'"),
    (("import math\n", "import math\n# stub: import os\n"), 7, "go first in the region"),
    (("# stub: HERE", "  # stub: HERE"), 9, "another indentation than its BEGIN (line 8)"),
    (("# END stub only\n", "# END stub only\n# stub: x = 1\n"), 11, "outside a region"),
    (("    # stub: # TODO 1: return x + 1.\n    # stub:\n    # stub: raise NotImplementedError(f\"add_one: TODO 1 in {HERE}\")\n",
      "    # stub: return None\n"), 14, "no '# stub:' line names TODO 1"),
    (("import math\n", "# stub: import os\nimport math\n"), 5, "'reference only' has '# stub:' lines"),
    (("# stub: HERE = \"exercises/add.py\"\n", "# stub: HERE = 1\nHERE = 2\n"), 8, "holds 1 line(s) of the reference"),
    (("    # stub: raise", "    # stub: raise)"), None, "the stub made from it is not Python"),
])
def test_a_marker_out_of_place_is_named_with_its_file_and_line(edit, line, said):
    old, new = edit
    assert REFERENCE_LINES.count(old) == 1, old
    with pytest.raises(stubs.MarkerError) as caught:
        stubs.stub_of(REFERENCE_LINES.replace(old, new), "solution/hidden/reference_add.py")
    message = str(caught.value)
    where = f"solution/hidden/reference_add.py:{line}: " if line else "solution/hidden/reference_add.py: "
    assert message.startswith(where) and said in message, message


def test_written_stubs_are_the_made_ones_and_a_changed_one_is_named(tmp_path):
    reference, exercises = tmp_path / "hidden", tmp_path / "exercises"
    shutil.copytree(REFERENCE, reference)
    exercises.mkdir()
    assert sorted(stubs.write(reference, exercises)) == sorted(stubs.stub_files(reference, exercises))
    assert stubs.stale(reference, exercises) == {} and stubs.write(reference, exercises) == []
    changed = exercises / "mlp_block.py"
    changed.write_text(changed.read_text().replace("TODO 4 in", "TODO 5 in"))
    [(path, diff)] = stubs.stale(reference, exercises).items()
    assert path == changed and "-        raise NotImplementedError(\"GLU.forward: TODO 5 in" in diff, diff


def test_release_refuses_stubs_the_reference_does_not_make(monkeypatch, tmp_path):
    monkeypatch.setattr(stubs, "stale", lambda: {EXERCISES / "mlp_block.py": "a difference"})
    with pytest.raises(release.ReleaseError, match="exercises/mlp_block.py.*python -m instructor --stubs"):
        release.make_release(tmp_path / "student", execute_notebooks=False)
    assert not (tmp_path / "student").exists()


def test_the_leak_check_finds_markers(tmp_path):
    (tmp_path / "helpers.py").write_text("x = 1\n" + REFERENCE_LINES)
    found = release.leaks(tmp_path, {})
    assert found[0] == "helpers.py:2 holds a stub marker of the reference" and len(found) == 13, found


def test_each_todo_of_an_exercise_is_one_tasks():
    """The TODOs each task declares (``grader/tasks.py``) are its exercise's (``# BEGIN TODO n`` in the
    reference), each in one task: the table of tasks and the grades say which TODOs a task's points are for."""
    import re

    from grader.paths import reference_file
    from grader.tasks import TASKS, todo_span

    for exercise in {task.exercise for task in TASKS}:
        owners = [task for task in TASKS if task.exercise == exercise]
        marked = {int(n) for n in re.findall(r"# BEGIN TODO (\d+)\b", reference_file(exercise).read_text())}
        declared = [n for task in owners for n in task.todos]
        each = ", ".join(f"{task.name}: {todo_span(task.todos)}" for task in owners)
        assert len(declared) == len(set(declared)), f"exercises/{exercise}.py: two tasks declare one TODO ({each})"
        assert set(declared) == marked, (f"exercises/{exercise}.py: its tasks declare {todo_span(tuple(declared))} in"
                                         f" grader/tasks.py; its reference marks {todo_span(tuple(marked))}")
