"""``python -m instructor --stubs``: the stubs in ``exercises/`` made from the reference, one source.

Each ``solution/hidden/reference_X.py`` is the answer with its differences from the stub marked, and
``exercises/X.py`` is what this module makes of it, so the scaffolding both share (docstrings,
signatures, the kernels' arguments, the launch code) is written once. A marked region::

    # BEGIN TODO 3
    # stub: # TODO 3: create self.Wv, self.Wg and self.Wo (nn.Linear, with bias), ...
    # stub: raise NotImplementedError("GLU.__init__: TODO 3 in exercises/mlp_block.py")
    self.Wv = nn.Linear(hidden_dim, intermediate_dim)
    ...
    # END TODO 3

In the stub the region's own lines are gone and its ``# stub:`` lines (first in the region, at the
markers' indentation; ``# stub:`` alone is a blank line) stand in their place, at that indentation.
Neither marker is in the stub. The labels, each closed by ``# END`` with the same label:

* ``TODO n``: a student's task; the stub's lines name it (``TODO n`` in the comment or the error);
* ``reference only``: lines the stub does not have at all (argument checks, imports they need);
* ``stub only``: lines only the stub has (a name its messages use);
* ``docstring``: the module docstring, one for each side.

Blank lines are lines like any other: a region takes exactly those it holds.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from grader.paths import EXERCISES, REFERENCE, display_path

REGENERATE = "python -m instructor --stubs"
MARKER = re.compile(r"^(?P<indent>[ \t]*)# (?P<end>BEGIN|END) (?P<label>.*?)\s*$")
STUB_LINE = re.compile(r"^(?P<indent>[ \t]*)# stub:(?: (?P<text>.*))?$")
LABEL = re.compile(r"^(?:TODO (?P<todo>\d+)|reference only|stub only|docstring)$")


class MarkerError(ValueError):
    """A reference's markers do not make a stub; the message names the file and the line."""


@dataclass
class Region:
    label: str
    indent: str
    line: int  # where its BEGIN is, counting from 1
    stub: list[str]  # the stub's lines, indented
    own: int = 0  # the reference's lines in it


def stub_of(reference: str, name: str) -> str:
    """The stub made from ``reference`` (the text of ``name``, which messages show)."""
    out: list[str] = []
    region: Region | None = None
    for number, line in enumerate(reference.splitlines(keepends=True), 1):
        where = f"{name}:{number}"
        marker, stub_line = MARKER.match(line), STUB_LINE.match(line)
        if marker and marker["end"] == "BEGIN":
            if region:
                raise MarkerError(f"{where}: BEGIN {marker['label']} inside the region {region.label!r} opened on"
                                  f" line {region.line}: close it first with # END {region.label}")
            if not LABEL.match(marker["label"]):
                raise MarkerError(f"{where}: unknown region label {marker['label']!r}: TODO n, reference only,"
                                  " stub only or docstring")
            region = Region(marker["label"], marker["indent"], number, [])
        elif marker:
            if not region or marker["label"] != region.label:
                opened = f"the open region is {region.label!r} (line {region.line})" if region else "no region is open"
                raise MarkerError(f"{where}: END {marker['label']} closes nothing: {opened}")
            out += _closed(region, name)
            region = None
        elif stub_line:
            if not region:
                raise MarkerError(f"{where}: a '# stub:' line outside a region (it would be in neither file)")
            if region.own:
                raise MarkerError(f"{where}: the '# stub:' lines of {region.label!r} go first in the region,"
                                  " before the reference's own lines")
            if stub_line["indent"] != region.indent:
                raise MarkerError(f"{where}: a '# stub:' line at another indentation than its BEGIN (line"
                                  f" {region.line}): the stub's lines are written at the markers' indentation")
            text = stub_line["text"] or ""
            region.stub.append(region.indent + text + "\n" if text else "\n")
        elif region:
            region.own += 1
        else:
            out.append(line)
    if region:
        raise MarkerError(f"{name}:{region.line}: BEGIN {region.label} is never closed with # END {region.label}")
    stub = "".join(out)
    try:
        ast.parse(stub)
    except SyntaxError as exc:
        raise MarkerError(f"{name}: the stub made from it is not Python (its line {exc.lineno}: {exc.msg})") from None
    return stub


def _closed(region: Region, name: str) -> list[str]:
    """The stub's lines of a region just closed, once its label's rule is checked."""
    where = f"{name}:{region.line}: {region.label!r}"
    todo = LABEL.match(region.label)["todo"]
    if todo and not any(re.search(rf"\bTODO {todo}\b", line) for line in region.stub):
        raise MarkerError(f"{where}: no '# stub:' line names TODO {todo}, so a student could not tell which task"
                          " this is")
    if region.label == "reference only" and region.stub:
        raise MarkerError(f"{where} has '# stub:' lines: a region the stub has lines of is 'docstring' or 'TODO n'")
    if region.label == "stub only" and region.own:
        raise MarkerError(f"{where} holds {region.own} line(s) of the reference: mark them 'reference only'")
    return region.stub


def marker_lines(text: str) -> list[int]:
    """The lines of ``text`` (counting from 1) that are markers: none may reach a student."""
    return [number for number, line in enumerate(text.splitlines(), 1)
            if STUB_LINE.match(line) or ((m := MARKER.match(line)) and LABEL.match(m["label"]))]


# ------------------------------------------------------------------------ the exercises' stubs

def stub_files(reference: Path = REFERENCE, exercises: Path = EXERCISES) -> dict[Path, Path]:
    """Each exercise stub, with the reference it is made from (``reference_X.py`` -> ``X.py``)."""
    return {exercises / path.name.removeprefix("reference_"): path for path in sorted(reference.glob("reference_*.py"))}


def made(reference: Path = REFERENCE, exercises: Path = EXERCISES) -> dict[Path, str]:
    """Each stub's text as the reference makes it."""
    return {stub: stub_of(source.read_text(), display_path(source))
            for stub, source in stub_files(reference, exercises).items()}


def stale(reference: Path = REFERENCE, exercises: Path = EXERCISES) -> dict[Path, str]:
    """The stubs that are not what the reference makes, each with the first lines of the difference."""
    found = {}
    for stub, text in made(reference, exercises).items():
        committed = stub.read_text() if stub.is_file() else ""
        if committed != text:
            diff = difflib.unified_diff(committed.splitlines(), text.splitlines(), f"{display_path(stub)} (as it is)",
                                        f"{display_path(stub)} (as the reference makes it)", lineterm="", n=1)
            found[stub] = "\n".join(list(diff)[:12])
    return found


def write(reference: Path = REFERENCE, exercises: Path = EXERCISES) -> list[Path]:
    """Write the stubs that differ from what the reference makes; returns those written."""
    written = []
    for stub, text in made(reference, exercises).items():
        if not stub.is_file() or stub.read_text() != text:
            stub.write_text(text)
            written.append(stub)
    return written
