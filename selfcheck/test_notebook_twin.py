"""The notebooks and their jupytext twins are in step, and the check that says so can fail.

``notebooks/check_twin.py`` compares each ``notebooks/*.ipynb`` with its ``.py`` twin. A check that
never fails proves nothing, so the tests below also break a copy of the pair in several ways and
make sure each one is caught, with a message that names the file and the fixing command.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

from grader.paths import REPO

CHECK = REPO / "notebooks" / "check_twin.py"
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))




def load_check():
    spec = importlib.util.spec_from_file_location("check_twin", CHECK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_is_a_notebook():
    assert NOTEBOOKS, "notebooks/ holds no .ipynb"


def test_notebooks_in_step_with_their_twins():
    # As the maintainer would run it: a separate process, judged by its exit status.
    result = subprocess.run([sys.executable, str(CHECK)], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# Each way of breaking the pair: a name, and a function that breaks the copies (ipynb, py) in place.
def edit_code_in_twin(ipynb: Path, twin: Path) -> None:
    text = jupytext.read(twin)
    cell = next(c for c in text.cells if c.cell_type == "code")
    cell.source += "\nprint('edited in the .py only')"
    jupytext.write(text, twin, fmt="py:percent")


def edit_markdown_in_notebook(ipynb: Path, twin: Path) -> None:
    notebook = nbformat.read(ipynb, as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "markdown")
    cell.source = cell.source.replace(" ", "  ", 1)
    nbformat.write(notebook, ipynb)


def add_cell_to_twin(ipynb: Path, twin: Path) -> None:
    text = jupytext.read(twin)
    text.cells.append(nbformat.v4.new_code_cell("print('a cell only the .py has')"))
    jupytext.write(text, twin, fmt="py:percent")


def delete_twin(ipynb: Path, twin: Path) -> None:
    twin.unlink()


def unrun_a_cell(ipynb: Path, twin: Path) -> None:
    notebook = nbformat.read(ipynb, as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "code")
    cell.execution_count, cell.outputs = None, []
    nbformat.write(notebook, ipynb)


BREAKAGES = {
    "code edited in the twin": (edit_code_in_twin, "jupytext --sync"),
    "markdown edited in the notebook": (edit_markdown_in_notebook, "jupytext --sync"),
    "cell added to the twin": (add_cell_to_twin, "jupytext --sync"),
    "twin missing": (delete_twin, "jupytext --sync"),
    "cell never run": (unrun_a_cell, "jupyter nbconvert --to notebook --execute"),
}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_check_catches_drift(notebook: Path, breakage: str, tmp_path: Path, capsys):
    # In-process (the same main() the command line runs) to keep the self-checks quick.
    check = load_check()
    ipynb, twin = tmp_path / notebook.name, tmp_path / notebook.with_suffix(".py").name
    shutil.copy(notebook, ipynb)
    shutil.copy(notebook.with_suffix(".py"), twin)
    assert check.main([str(ipynb)]) == 0, "the untouched copy should pass: " + capsys.readouterr().err

    break_it, fix = BREAKAGES[breakage]
    break_it(ipynb, twin)
    status, message = check.main([str(ipynb)]), capsys.readouterr().err
    assert status != 0, f"{breakage} went unnoticed"
    assert notebook.name in message and fix in message, message
