"""The stage an error of the code under test is told in, where a decision rests on it: importing the
exercise file. The child names it, the grader's side reads it back (``grader/judge/seam.py``: a missing file is
"not handed in", an import error is told as one); both use these two functions, never the words."""

from __future__ import annotations

_IMPORT = "import "


def import_stage(file: str) -> str:
    """The stage of importing ``file`` (as displayed: ``exercises/mlp_block.py``)."""
    return f"{_IMPORT}{file}"


def imported_file(stage: str) -> str | None:
    """The file ``stage`` imports, or None where it is not an import."""
    return stage[len(_IMPORT):] if stage.startswith(_IMPORT) else None
