"""Check that each notebook in notebooks/ and its text twin say the same thing.

Every ``notebooks/NAME.ipynb`` has a twin ``notebooks/NAME.py`` in jupytext's percent format: the
text file is what a reviewer reads in a diff, the notebook carries the outputs that nbval checks. A
change made to one and not the other would let the two tell different stories, so this script fails
when they drift apart. It checks, for each notebook:

1. the notebook is paired with ``py:percent`` in its metadata and the twin exists;
2. both have the same cells, in the same order, of the same kind (code or markdown), with the same
   source (leading and trailing blank lines aside);
3. every code cell has been run, in order, in one fresh kernel (execution counts 1, 2, 3, ...): nbval
   does not compare the outputs of a cell that was never run, so such a cell would be checked by
   nothing.

Usage::

    python notebooks/check_twin.py                 # every notebook in notebooks/
    python notebooks/check_twin.py path/to/X.ipynb  # only these

Exit status 0 when all is in step, 1 otherwise, with one message per problem naming the file and the
command that fixes it.

After editing the text twin ``notebooks/NAME.py``, bring the notebook in step and refresh its outputs::

    jupytext --sync notebooks/NAME.ipynb
    jupyter nbconvert --to notebook --execute --inplace --ExecutePreprocessor.record_timing=False notebooks/NAME.ipynb
    jupytext --sync notebooks/NAME.ipynb
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import jupytext

HERE = Path(__file__).resolve().parent
# Re-running a notebook in place; record_timing=False keeps per-cell timestamps out of the file.
RUN_COMMAND = ("jupyter nbconvert --to notebook --execute --inplace "
               "--ExecutePreprocessor.record_timing=False {ipynb}")


def shown(path: Path) -> str:
    """The path as a reader would type it: relative to the current folder when possible."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def cells_of(path: Path) -> list[tuple[str, str]]:
    notebook = jupytext.read(path)
    return [(cell.cell_type, cell.source.strip("\n")) for cell in notebook.cells]


def as_lines(cells: list[tuple[str, str]]) -> list[str]:
    """The cells as one list of lines, each cell under a header, for a line-by-line diff."""
    lines = []
    for number, (kind, source) in enumerate(cells, start=1):
        lines.append(f"# ---- cell {number} ({kind})")
        lines += source.split("\n")
    return lines


def twin_problems(ipynb: Path) -> list[str]:
    twin = ipynb.with_suffix(".py")
    sync = f"jupytext --sync {shown(ipynb)}"
    notebook = jupytext.read(ipynb)
    formats = notebook.metadata.get("jupytext", {}).get("formats", "")
    if "py:percent" not in formats.split(","):
        return [f"{shown(ipynb)} is not paired with a py:percent text twin. "
                f"Fix: jupytext --set-formats ipynb,py:percent {shown(ipynb)}"]
    if not twin.is_file():
        return [f"{shown(ipynb)} has no text twin {shown(twin)}. Fix: {sync}"]

    from_notebook, from_twin = cells_of(ipynb), cells_of(twin)
    if from_notebook == from_twin:
        return []
    # Name the first cell that differs and show the difference, so the reader sees what drifted.
    first = next((i for i, (a, b) in enumerate(zip(from_notebook, from_twin)) if a != b),
                 min(len(from_notebook), len(from_twin)))
    where = (f"cell {first + 1} differs" if first < min(len(from_notebook), len(from_twin))
             else f"{len(from_notebook)} cells in the notebook, {len(from_twin)} in the twin")
    diff = difflib.unified_diff(as_lines(from_notebook), as_lines(from_twin),
                                fromfile=shown(ipynb), tofile=shown(twin), n=2, lineterm="")
    excerpt = "\n".join(list(diff)[:40])
    return [
        f"{shown(twin)} and {shown(ipynb)} have drifted apart ({where}).\n"
        f"Fix: {sync}   (the file changed last wins; then re-run the notebook so its outputs match:\n"
        f"     {RUN_COMMAND.format(ipynb=shown(ipynb))} and sync once more)\n"
        f"{excerpt}"
    ]


def run_problems(ipynb: Path) -> list[str]:
    counts = [cell.get("execution_count") for cell in jupytext.read(ipynb).cells if cell.cell_type == "code"]
    if counts == list(range(1, len(counts) + 1)):
        return []
    return [
        f"{shown(ipynb)} was not run top to bottom in one fresh kernel (execution counts {counts}); "
        f"nbval would not check the outputs of cells that never ran.\n"
        f"Fix: {RUN_COMMAND.format(ipynb=shown(ipynb))}, then jupytext --sync {shown(ipynb)}"
    ]


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python notebooks/check_twin.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="the .ipynb files (default: every one here)")
    notebooks = parser.parse_args(argv).notebooks or sorted(HERE.glob("*.ipynb"))
    if not notebooks:
        print(f"no notebooks found in {shown(HERE)}", file=sys.stderr)
        return 1
    problems = []
    for ipynb in notebooks:
        if ipynb.suffix != ".ipynb" or not ipynb.is_file():
            problems.append(f"{shown(ipynb)}: not a notebook file")
            continue
        problems += twin_problems(ipynb) + run_problems(ipynb)
    for problem in problems:
        print(f"FAIL {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"ok: {', '.join(shown(p) for p in notebooks)} in step with the text twin, run top to bottom")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
