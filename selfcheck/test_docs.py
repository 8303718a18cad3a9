"""The documents agree with the code. What README.md, docs/*.md and benchmarks/README.md state about
the tasks, the exercise files, the JSON report, the batch's CSV columns, the suites' test counts, the
options and the worst case per submission is compared with the code that decides it; and every command
they show is checked: the cheap ones run as written (``RUN_AS_WRITTEN``), each pytest command collects
its tests, and every other one is parsed by its command's own argument parser (a script without one:
its options looked up in its source), never run.

How the documents are read (their commands, spans and lists): ``selfcheck/docs_text.py``; how a command
is checked without running it: ``selfcheck/doc_commands.py``. Each failure names the document, the
line, and what the code says instead.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from grader import cli as grader_cli
from grader import report, results
from grader.grading import overall_timeout
from grader.paths import EXERCISES, REPO
from grader.tasks import TASK_NAMES, TASK_TITLES, TASKS
from instructor import cli as instructor_cli
from instructor.batch_reports import columns
from instructor.batch_reports import ITEM_COLUMNS
from instructor import exports
from instructor.doc_tables import GENERATED
from instructor.exports import PLATFORMS
from selfcheck.harness import start_preloaded
from selfcheck.doc_commands import PIP_OWN, exists, literal_options, option_strings, parses, problems
from selfcheck.docs_text import (DOCS, FENCE, Command, doc_commands, enumerations, flat, line_of, listed,
                                   paragraph_with, paragraphs, prose, spans)

NUMBER_WORDS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten".split())}

# Run as written (in the repository, or in a scratch folder where the command writes files): quick, and
# they need nothing but the requirements. Each prefix must still be shown by some document.
RUN_AS_WRITTEN = {
    "python -m grader --help": "repository",
    "python -m instructor --help": "repository",
    "python benchmarks/gated_mlp_bench.py --bytes": "repository",
    "python notebooks/check_twin.py": "repository",
    "python -m instructor --gradescope-bundle autograder.zip": "scratch",
    "python -m instructor --classroom50 hw-mlp": "scratch",
}
# Named though not in this repository, with where they are.
ELSEWHERE = {".github/workflows/autograde.yaml": "Classroom 50's shim, in each student's repository",
             "benchmarks/results/": "what benchmarks/swiglu_bench.py writes"}
NAMED_PATH = re.compile(r"(?<![\w/.-])((?:exercises|tests|grader|notebooks|docs|instructor|solution|selfcheck|benchmarks"
                        r"|\.github|\.ci|\.devcontainer)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*/])")
COMMANDS = doc_commands()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: f"{c.doc}:{c.line}")
def test_each_command_shown_is_valid(command: Command):
    wrong = problems(command)
    assert not wrong, f"{command.where()}\n  " + "\n  ".join(wrong)


def test_the_documents_show_commands():
    assert len([c for c in COMMANDS if c.fenced]) > 40 and len(COMMANDS) > 100, len(COMMANDS)
    for prefix in RUN_AS_WRITTEN:
        assert any(c.text.startswith(prefix) for c in COMMANDS), f"no document shows {prefix!r} any more"


def run(words: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable if words[0] == "python" else words[0], *words[1:]], cwd=cwd,
                          env=environment, capture_output=True, text=True, timeout=300)


CHEAP = sorted({c.text for c in COMMANDS if any(c.text.startswith(p) for p in RUN_AS_WRITTEN)})


@pytest.mark.parametrize("text", CHEAP)
def test_cheap_commands_run_as_written(text: str, tmp_path: Path):
    where = next(place for prefix, place in RUN_AS_WRITTEN.items() if text.startswith(prefix))
    proc = run(shlex.split(text), REPO if where == "repository" else tmp_path)
    assert proc.returncode == 0, f"{text}: exit {proc.returncode}\n{proc.stdout[-1500:]}{proc.stderr[-1500:]}"


PYTESTS = sorted({c.text for c in COMMANDS if c.words()[1][0] == "pytest"})


@pytest.mark.parametrize("text", PYTESTS)
def test_pytest_commands_collect_tests(text: str, tmp_path: Path):
    env, words = Command("", 0, text, "", True).words()
    args = [*words[1:], "--collect-only", "-q", "-p", "no:cacheprovider"]
    if hasattr(os, "fork"):  # forked from the warm server (torch and pytest imported): the same pytest command
        log = tmp_path / "output.txt"
        code, _ = start_preloaded()(args, {**os.environ, "PYTHONPATH": str(REPO), **env}, log, 300)
        output = log.read_text(errors="replace") if log.exists() else ""
    else:
        proc = run(["python", "-m", *words, *args[len(words) - 1:]], REPO, env)
        code, output = proc.returncode, proc.stdout
    assert code == 0, f"{text}: collects nothing or is refused (exit {code})\n{output[-1500:]}"


def test_options_named_in_the_text_exist_with_their_values():
    grader, instructor = grader_cli.build_parser(), instructor_cli.build_parser()
    known = option_strings(grader) | option_strings(instructor) | literal_options(REPO / "tests" / "conftest.py") | PIP_OWN
    for script in [*REPO.glob("benchmarks/*.py"), REPO / "selfcheck" / "grading_policy.py", REPO / "selfcheck" / "__main__.py"]:
        known |= literal_options(script)
    wrong = []
    for doc in DOCS:
        for line, span in spans(doc):
            if not span.startswith("--"):
                continue
            words = shlex.split(span)
            names = [w for w in words if w.startswith("--")]
            wrong += [f"{doc.relative_to(REPO)}:{line}: {n} is no option here" for n in names if n not in known]
            if len(words) > 1 and "|" not in span and all(n in option_strings(instructor) for n in names) and not any(
                    parses(parser, args) for parser, args in ((grader, words), (instructor, words),
                                                              (instructor, ["--release", "x", *words]))):
                wrong.append(f"{doc.relative_to(REPO)}:{line}: `{span}` is refused by the parser (a value it does not take)")
    assert not wrong, "\n".join(wrong)


def _scripts() -> list[list[str]]:
    """Every command a maintainer runs: the scripts with a main (benchmarks, notebooks), the shell scripts,
    and the modules run with ``python -m``."""
    found = [["python", str(path.relative_to(REPO))] for folder in ("benchmarks", "notebooks")
             for path in sorted(REPO.glob(f"{folder}/*.py")) if '__name__ == "__main__"' in path.read_text()]
    found += [["bash", str(path.relative_to(REPO))] for path in sorted(REPO.glob("benchmarks/*.sh"))]
    return found + [["python", "-m", module] for module in ("grader", "instructor", "selfcheck", "grader.judge.snapshot",
                                                             "selfcheck.grading_policy", "selfcheck.compare_snapshot")]


HELP_SCRIPTS = _scripts()
HELP_SECONDS = 30  # an import of torch on a busy machine; a benchmark or a recording takes minutes


def _tree_state() -> str:
    """What git sees changed in the checkout ('' outside a git checkout): a --help must change nothing."""
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO, capture_output=True,
                          text=True)
    return done.stdout if done.returncode == 0 else ""


@pytest.mark.parametrize("command", HELP_SCRIPTS, ids=[" ".join(c[1:]) for c in HELP_SCRIPTS])
def test_every_script_answers_help_without_running(command):
    """A maintainer asks a script what it does before running it: ``--help`` prints its usage and stops (a few
    seconds at most: an import of torch), never a benchmark's minutes, and writes nothing (the snapshot's
    recorder once recorded it again on --help; the GPU script made a folder named --help)."""
    program = [sys.executable] if command[0] == "python" else ["bash"]
    before = _tree_state()
    done = subprocess.run([*program, *command[1:], "--help"], cwd=REPO, capture_output=True, text=True,
                          timeout=HELP_SECONDS)
    assert done.returncode == 0 and "usage:" in done.stdout[:200], (done.returncode, done.stdout[:300], done.stderr[-300:])
    assert _tree_state() == before, f"{' '.join(command)} --help changed the checkout"


def test_every_list_of_tasks_is_the_registry():
    wrong = []
    for doc in DOCS:
        for names, what in ((list(TASK_NAMES), "task names"), (list(TASK_TITLES.values()), "task titles")):
            for run_ in enumerations(prose(doc), names):
                if len(run_) >= 3 and sorted(run_) != sorted(names):
                    wrong.append(f"{doc.relative_to(REPO)}: lists the {what} {', '.join(run_)};"
                                 f" grader/tasks.py has {', '.join(names)}")
    assert not wrong, "\n".join(wrong)


def test_counts_of_tasks_in_words_are_the_registry():
    """"the five tasks", "the two Triton tasks"; a past state is said as "when there were N tasks"."""
    triton = sum(task.triton for task in TASKS)
    wrong = []
    for doc in DOCS:
        text = flat(prose(doc))
        for m in re.finditer(r"(?<!there were )\b(\w+) (Triton )?tasks\b", text):
            count = NUMBER_WORDS.get(m.group(1).lower())
            want = triton if m.group(2) else len(TASKS)
            if count is not None and count != want:
                wrong.append(f"{doc.relative_to(REPO)}:{line_of(prose(doc), m.start())}: '{m.group(0)}', the registry has {want}")
    assert not wrong, "\n".join(wrong)


def test_every_list_of_exercise_files_is_the_exercises():
    files = sorted(p.name for p in EXERCISES.glob("*.py") if not p.name.startswith("_"))
    wrong = []
    for doc in DOCS:
        lists = [run_ for run_ in enumerations(prose(doc), [*files, *(f"exercises/{f}" for f in files)]) if len(run_) >= 3]
        wrong += [f"{doc.relative_to(REPO)}: lists {', '.join(r)}; exercises/ holds {', '.join(files)}"
                  for r in lists if sorted(Path(f).name for f in r) != files]
    assert not wrong, "\n".join(wrong)


def test_every_path_named_exists():
    missing = []
    for doc in DOCS:
        text = doc.read_text()
        for m in NAMED_PATH.finditer(text):
            path = m.group(1)
            if re.search(r"[A-Z]{3,}", path) or any(path.startswith(p) for p in ELSEWHERE) or exists(path.rstrip("/")):
                continue
            missing.append(f"{doc.relative_to(REPO)}:{line_of(text, m.start())} names {path}")
    assert not missing, "\n".join(missing)


def test_the_json_schema_shown_is_what_the_grader_writes():
    text = (REPO / "docs" / "grading.md").read_text()
    shown = json.loads(next(m.group(2) for m in FENCE.finditer(text) if m.group(1) == "json"))
    failing = results.TestResult("test_mlp.py::test_gradients[GLU]", "glu", 0, 2, "failed", "one line", kind="failed",
                         cause="GLU: no biases")
    written = report.as_json(results.Grade("path as given", 1, [failing], bonus={}))
    assert shown["schema"] == written["schema"]
    for what, got, want in (("the report", shown, written), ("a task", shown["tasks"][0], written["tasks"][0]),
                            ("a task's first_failure", shown["tasks"][0]["first_failure"], written["tasks"][0]["first_failure"]),
                            ("a test", shown["tests"][0], written["tests"][0])):
        assert set(got) == set(want), (f"docs/grading.md's schema, {what}: shows {sorted(set(got) - set(want))} that"
                                       f" the grader does not write, lacks {sorted(set(want) - set(got))}")


def test_the_batch_columns_shown_are_what_a_batch_writes():
    doc = REPO / "docs" / "platforms.md"
    lists = [listed(s) for s in re.findall(r"`([^`]+)`", paragraph_with(doc, "Columns: ")) if "," in s]
    head, pattern, tail = lists[:3]
    assert pattern == ["TASK", "TASK_max"], f"docs/platforms.md: the tasks' columns {pattern}"
    shown = head + [c for t in TASK_NAMES for c in (t, f"{t}_max")] + tail
    assert shown == columns(), f"docs/platforms.md shows the columns {shown}; a batch writes {columns()}"
    items = re.search(r"`grades_items.csv`, per test: `([^`]*)`", flat(prose(doc)))
    assert items and listed(items.group(1)) == ITEM_COLUMNS, items and items.group(1)


@pytest.fixture(scope="module")
def collected() -> dict[str, int]:
    """Tests per suite, as pytest collects them."""
    out = run(["python", "-m", "pytest", "tests", "--collect-only", "-qq", "-p", "no:cacheprovider"], REPO).stdout
    return {suite: int(count) for suite, count in re.findall(r"^(tests/test_\w+\.py): (\d+)$", out, re.M)}


def test_test_counts_quoted_are_the_suites(collected):
    wrong = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text().splitlines(), 1):
            suites = set(re.findall(r"tests/test_\w+\.py", line))
            for count in re.findall(r"\b(\d+) tests\b", line):
                if len(suites) == 1:
                    suite = suites.pop()
                    if int(count) != collected[suite]:
                        wrong.append(f"{doc.relative_to(REPO)}:{number}: {count} tests in {suite};"
                                     f" it collects {collected[suite]}")
    # A count quoted must be right; the docs need not quote any (a new test is not a docs edit).
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("part", GENERATED, ids=lambda part: part.name)
def test_each_generated_table_is_what_the_code_gives(part):
    """The tables written from the code (the tasks with their full marks, the worst cases, the points column of the
    tables of tests, for every task a shared test grades): as the code gives them now, so a task added or
    reweighted, or a limit changed, shows in the documents."""
    shown = part.shown()
    assert shown is not None, f"{part.doc.relative_to(REPO)}: {part.missing}"
    assert shown == part.make(), (f"{part.doc.relative_to(REPO)}'s table of {part.name} is not what the code gives:"
                                  " python -m instructor --doc-tables")


def test_every_worst_case_quoted_is_one_the_code_gives():
    """A sentence about a hanging submission quotes its minutes from the table's values."""
    right = {f"{overall_timeout(limits, len(TASKS)) / 60:.1f}" for limits in exports.BATCH_LIMITS.values()}
    for platform in PLATFORMS.values():
        right |= {f"{platform.worst_case() / 60:.1f}", f"{(platform.worst_case() - platform.setup) / 60:.1f}"}
        right |= {f"{platform.setup / 60:.1f}"} if platform.setup else set()
    wrong = []
    for doc in DOCS:
        for sentence in re.split(r"(?<=[.;:])\s", flat(prose(doc))):
            if re.search(r"\bhang", sentence):
                wrong += [f"{doc.relative_to(REPO)}: {m} min in '{sentence.strip()[:120]}...';"
                          f" the code gives {', '.join(sorted(right))}"
                          for m in re.findall(r"([\d.]+) min\b", sentence) if f"{float(m):.1f}" not in right]
    assert not wrong, "\n".join(wrong)


def test_the_bytes_table_is_what_the_script_prints():
    printed = run(["python", "benchmarks/gated_mlp_bench.py", "--bytes"], REPO).stdout
    rows = [re.findall(r"[\d.]+", line) for line in printed.splitlines() if re.match(r"\s+\d+\s", line)]
    shown = [re.findall(r"[\d.]+", line.replace(",", "")) for line in (REPO / "benchmarks" / "README.md").read_text().splitlines()
             if re.match(r"\| \d+ \| [\d.]+ MB", line)]
    assert rows and shown == rows, f"benchmarks/README.md shows {shown}, the script prints {rows}"


def test_the_workflow_command_quoted_is_the_workflows():
    """What the documents say "check my work" runs is what .github/workflows/check.yml runs."""
    workflow = (REPO / ".github" / "workflows" / "check.yml").read_text()
    quoted = [(doc, span) for doc in DOCS for part in paragraphs(doc) if re.search(r"check\.yml|this workflow", part)
              for span in re.findall(r"\bruns `([^`]+)`", part) if re.match(r"(python -m )?pytest ", span)]
    assert quoted, "no document says which tests the check-my-work workflow runs"
    wrong = [f"{doc.relative_to(REPO)}: `{span}`" for doc, span in quoted if f"run: {span}\n" not in workflow]
    assert not wrong, "quoted as what check.yml runs, which runs something else:\n" + "\n".join(wrong)


def test_the_dev_container_is_the_readme_set_up():
    container = json.loads((REPO / ".devcontainer" / "devcontainer.json").read_text())
    readme = (REPO / "README.md").read_text()
    set_up = next(c for c in COMMANDS if c.doc == "README.md" and c.fenced)
    # Linux without a GPU: the set-up line with PyTorch's CPU index, as the README says to add it.
    cpu_index = re.search(r"add `(--extra-index-url\s+\S+)`", " ".join(readme.split())).group(1)
    assert container["postCreateCommand"] == f"{set_up.text} {cpu_index}", "the dev container must run the README's set-up line"
    version = re.search(r"\(Python (\d+\.\d+), CPU\)", readme).group(1)
    assert re.search(rf":(?:\d+-)?{re.escape(version)}-", container["image"]), (container["image"], version)
    assert "ms-python.python" in container["customizations"]["vscode"]["extensions"]
    workflow = (REPO / ".github" / "workflows" / "check.yml").read_text()
    assert f'python-version: "{version}"' in workflow, "check my work and the dev container run other Pythons"
