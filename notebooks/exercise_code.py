"""Which blocks the notebooks run: the reference where it is present, otherwise your own.

In the instructor's repository the notebooks run the reference (``solution/hidden/``), so their
stored outputs are fixed and nbval can check them. In the student repository there is no
reference: they run your ``exercises/`` files, and a section that needs a TODO you have not done yet
says which one and carries on.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from grader.paths import EXERCISES, REPO, reference_file


def locate(exercise: str) -> Path:
    """The file the notebooks run for ``exercise``: the reference where present, else yours."""
    reference = reference_file(exercise)
    return reference if reference.is_file() else EXERCISES / f"{exercise}.py"


def load(exercise: str) -> tuple[ModuleType, str]:
    """The module for ``exercise`` (e.g. ``mlp_block``) and where it came from, for the reader."""
    reference = reference_file(exercise)
    path = locate(exercise)
    # Files, not installed packages: load them by path, under a name that says whose they are.
    name = f"{'reference' if path == reference else 'your'}_{exercise}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path.relative_to(REPO))


def _reference_failed() -> None:
    """Where the reference runs, a section that fails is the course's error, not a TODO: raise it (called
    from an ``except`` block, a bare raise re-raises what it caught), so the notebook run fails."""
    if reference_file("mlp_block").is_file():
        raise  # noqa: PLE0704


def not_yet(error: NotImplementedError, what: str) -> None:
    """What a section says while the TODO it needs is not done."""
    _reference_failed()
    print(f"Not implemented yet: {error}\n-> {what} Come back and re-run this cell once that TODO is done.")


def not_right(error: Exception, what: str, command: str) -> None:
    """What a section says when the code it needs is written but does not do what the section checks yet: one
    line, with the command that says what differs, and the notebook runs on."""
    _reference_failed()
    print(f"Not right yet ({type(error).__name__}: {error})\n-> {what} `{command}` says what differs.")
