"""Each command the documents show, checked without running it: ``problems(command)`` says what is
wrong with it. ``python -m grader`` and ``python -m instructor`` commands are parsed by their own
argument parsers; a script without one has its options looked up in its source; pytest commands name
suites that exist and tasks that the registry has; pip commands the requirements and PyTorch's CPU
index. Used by ``selfcheck/test_docs.py``, which also runs the cheap ones.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

from grader import cli as grader_cli
from grader.paths import REPO
from grader.tasks import TASK_NAMES, TASKS
from instructor import cli as instructor_cli
from instructor.exports import CPU_WHEELS
from selfcheck.docs_text import Command

# Shown to say that it is refused (the instructor's commands are not the grader's).
REFUSED_ON_PURPOSE = {"python -m grader --batch"}
# Steps of the "try an autograder on your own machine" recipes and system set-up: they name temporary
# folders and placeholders, so nothing here can run them; the commands between them are checked.
SHELL_STEPS = {"mkdir", "unzip", "cp", "cat", "cd", "sudo"}
# Files the platforms' scripts become, named in the docs by the name they have there.
PLACED = {"autograder.py": "instructor/templates/autograder.py", "run_autograder": "instructor/templates/run_grading",
          "run.sh": "instructor/templates/run_grading"}
PYTEST_OWN = {"-q", "-rf", "--collect-only", "--nbval", "--nbval-current-env"}  # pytest's and nbval's
PIP_OWN = {"--extra-index-url"}
PLACEHOLDER_VALUES = {"S": "60", "N": "2", "MB": "4096", "POINTS": "40", "LIST": "mlp"}


def option_strings(parser) -> set[str]:
    # argparse lists its options only in this attribute; nothing public enumerates them.
    return {name for action in parser._actions for name in action.option_strings}


def literal_options(path: Path) -> set[str]:
    """The option-like string constants of a script: what its own parser (or its argv test) knows."""
    return {node.value for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("-")}


def parses(parser, args: list[str]) -> bool:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            parser.parse_args([PLACEHOLDER_VALUES.get(word, word) for word in args])
    except SystemExit as exc:  # 0 after --help; both parsers exit 3 on a bad option
        return exc.code == 0
    return True


def script_of(words: list[str]) -> Path | None:
    """The file ``python [-m] X`` runs, in this repository."""
    if words[1] == "-m":
        base = REPO / words[2].replace(".", "/")
        return next((p for p in (base.with_suffix(".py"), base / "__main__.py") if p.is_file()), None)
    path = Path(words[1])
    placed = PLACED.get(path.name)
    file = REPO / placed if placed and not (REPO / path).exists() else REPO / path
    return file if file.is_file() else None


def exists(pattern: str) -> bool:
    return any(REPO.glob(pattern)) if "*" in pattern else (REPO / pattern).exists()


def problems(command: Command) -> list[str]:
    """What is wrong with one command, checked without running it."""
    env, words = command.words()
    tool = words[0]
    wrong = [f"sets {name}, which no code reads" for name in env
             if not any(name in p.read_text() for p in [*REPO.glob("*/*.py"), *REPO.glob("instructor/templates/*")])]
    if tool in SHELL_STEPS:
        return wrong
    if tool == ".ci/run" or tool == "bash":
        target = words[-1] if tool == "bash" else ".ci/run"
        placed = PLACED.get(Path(target).name, target)
        return wrong + ([] if (REPO / placed).is_file() else [f"{placed} does not exist"])
    if tool == "pip":
        files = [words[i + 1] for i, w in enumerate(words) if w == "-r"]
        urls = [words[i + 1] for i, w in enumerate(words) if w == "--extra-index-url"]
        wrong += [f"{f} does not exist" for f in files if not (REPO / f).is_file()]
        wrong += [f"index {u} is not PyTorch's CPU index ({CPU_WHEELS})" for u in urls if u != CPU_WHEELS]
        return wrong + [f"{w}: not an option shown for pip" for w in words if w.startswith("--") and w not in PIP_OWN]
    if tool in ("jupyter", "jupytext"):
        return wrong + [f"{w} does not exist" for w in words if "/" in w and not exists(w)]
    if tool == "pytest":
        return wrong + pytest_problems(command, words)
    if tool in ("python", "python3"):
        return wrong + python_problems(command, words)
    return wrong + [f"{tool}: a kind of command this check does not know; teach selfcheck/doc_commands.py to check it"]


def pytest_problems(command: Command, words: list[str]) -> list[str]:
    wrong, own = [], literal_options(REPO / "tests" / "conftest.py") | PYTEST_OWN
    args = iter(words[1:])
    paths = []
    for word in args:
        if word == "-m":
            expression = next(args)
            wrong += [f"-m {name}: no such task" for name in re.findall(r"\w+", expression)
                      if name not in TASK_NAMES + ("and", "or", "not")]
        elif word == "-p":
            next(args)
        elif word.startswith("-"):
            wrong += [] if word.split("=")[0] in own else [f"{word}: not an option of the suites' pytest"]
            if word in ("--target", "--reference"):
                next(args)
        else:
            paths.append(word)
            wrong += [] if exists(word) else [f"{word} does not exist"]
    # "(-m cost)" beside a suite: the tasks named must be that suite's.
    for name in re.findall(r"-m (\w+)", command.comment):
        suites = {f"tests/{suite}" for t in TASKS if t.name == name for suite in t.suites}
        if not suites or (paths and not set(paths) <= suites | {"tests"}):
            wrong.append(f"the comment says -m {name}, but that task's suite is {', '.join(suites) or 'none'}")
    return wrong


def python_problems(command: Command, words: list[str]) -> list[str]:
    text = " ".join(words)
    parser = {"grader": grader_cli.build_parser, "instructor": instructor_cli.build_parser}.get(
        words[2] if words[1:2] == ["-m"] and len(words) > 2 else "")
    if parser is None:
        script = script_of(words)
        if script is None:
            return [f"{' '.join(words[:3])}: no such script or module here"]
        known = literal_options(script)
        return [f"{w}: {script.relative_to(REPO)} has no such option" for w in words if w.startswith("--") and w not in known]
    parser = parser()
    args = words[3:]
    if text in REFUSED_ON_PURPOSE:
        return [] if not parses(parser, args) else [f"shown as refused, but {words[2]} now accepts it"]
    unknown = [w for w in args if w.startswith("--") and w.split("=")[0] not in option_strings(parser)]
    if unknown:
        return [f"{', '.join(unknown)}: not an option of python -m {words[2]}"]
    # A span in the text may name a command by its option alone ("`python -m instructor --batch`").
    if (command.fenced or len(args) > 1) and not parses(parser, args):
        return [f"python -m {words[2]} refuses these arguments"]
    return []
