"""Run a graded suite on one implementation and read back each test's outcome, message and the grader's
record of it (the kind, cause, TODO and premise the test set, and its points: ``grader/plugin.py``).

A variant is one file standing in for an exercise file (``mlp_block.py``, ``triton_swiglu.py``).
It declares which tests must fail, and how, in a module-level dict::

    EXPECT_FAILURES = {"test_parity_with_reference[default-GLU]": {"cause": "activation on the value path"},
                       "test_gradients[GLU]": {"waits_on": "test_parity_with_reference[default-GLU]"},
                       "test_parameter_shapes[MLP]": "the two sizes are swapped"}

judged by the grader's record (``judged``): ``{"cause": ID}``, the test failed on its own property for
that cause; ``{"waits_on": TEST}``, it waits for that test; a string, a phrase its message must say,
only where the record names no cause (a phrase where it names one is refused), or (``"says"`` beside
the record's keys) where the hint's wording is what the variant checks. Tests it does not name may pass
or fail. A correct variant declares ``EXPECT_FAILURES = {}`` and must pass every test.

A variant is either a whole implementation (a correct one written differently, code adapted from a
public project) or, for a known mistake, only the lines in which it differs from the reference::

    EDITS = [("value = self.Wv(x)", "value = self.act(self.Wv(x))")]

each pair a piece of the reference's text (found exactly once) and what replaces it, so the mistake
reads at a glance and the scaffolding lives in the reference alone (``materialize``). Edits apply in
order, each to the text the ones before it left; a triple ``(old, new, n)`` replaces a piece found
exactly ``n`` times (a mask dropped from every ``tl.load``). An edit whose text is not found as often
as it says fails the variant's check with the edit and the count, so a changed reference shows at once.

Every run is a fresh pytest process, so nothing a variant does can leak into another run; the
unsandboxed children a run starts (the student's process, the kernels') are fresh forks of one warm
zygote (``grader/sandbox/zygote.py``) that holds only the imports. Two options make many runs cheaper
without sharing anything between them:

* ``preloaded=True`` forks each run from the grader's warm fork server (``instructor/warm.py``), which
  has already imported torch and pytest, instead of starting Python from scratch: the same pytest
  command in its own process, about a second sooner. Where there is no os.fork (Windows) it runs as
  a subprocess. Call ``start_preloaded()`` from the main thread first (the server lives as long as
  the thread that started it).
* ``parallel`` starts many runs at once, a few side by side (``SELFCHECK_WORKERS``, default one per
  core); ``threads`` caps torch's threads in each run so runs side by side don't fight for cores.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Hashable, Iterator, Sequence, TypeVar

from grader.cli import INSTRUCTOR_COMMANDS
from grader.paths import KERNEL_MAPS_ENV, REFERENCE, REPO, reference_file
from grader.sandbox.zygote import ZYGOTE_ENV, Zygote, forks_can_start_warm

VARIANTS = Path(__file__).resolve().parent / "variants"
INSTRUCTOR_FLAGS = {*INSTRUCTOR_COMMANDS, "--csv", "--resume", "--only"}  # the commands, as the grader's CLI lists them


def cli(args) -> str:
    """The command that takes ``args``: the instructor's (batches, release, exports) or the grader."""
    return "instructor" if INSTRUCTOR_FLAGS & set(args) else "grader"
WORKERS_ENV = "SELFCHECK_WORKERS"

R = TypeVar("R")


@dataclass
class Outcome:
    status: str  # passed / failed / error / skipped
    message: str
    detail: str = ""  # the whole failure text (a message's later lines: a kernel's map)
    fields: dict = field(default_factory=dict)  # the grader's record: kind, cause, todo, waits_on (grader/results.py)
    points: int = 0  # what the test is worth, as the grader collected it


def expected_failures(variant: Path) -> dict[str, str | dict[str, str]]:
    """Read EXPECT_FAILURES without importing the variant (it is code under test)."""
    expected = module_constant(variant, "EXPECT_FAILURES")
    if expected is None:
        raise ValueError(f"{variant} declares no EXPECT_FAILURES")
    return expected


@functools.lru_cache(maxsize=None)
def tests_in(suite: str) -> frozenset[str]:
    """The test functions a suite file defines."""
    tree = ast.parse((REPO / "tests" / suite).read_text())
    return frozenset(node.name for node in tree.body if isinstance(node, ast.FunctionDef))


def suite_of(suites: tuple[str, ...], test_id: str) -> str:
    """Which of a task's suite files defines the test ``test_id`` (``test_x[param]``)."""
    name = test_id.split("[")[0]
    for suite in suites:
        if name in tests_in(suite):
            return suite
    raise KeyError(f"no test {name} in {', '.join(suites)}")


def run_suite(suite: str | tuple[str, ...], target: str, *extra: str, timeout: float = 300,
              threads: int | None = None, preloaded: bool = False, only: Sequence[str] = (), pictures: bool = False
              ) -> tuple[int, dict[str, Outcome]]:
    """Run ``tests/<suite>`` (or each of a task's suite files) with ``--target target``; returns (exit code,
    outcomes by test id).

    ``only``: run just these test ids (``test_x[param]``) of the suite, not all of it.
    ``pictures``: let failing kernel tests save their PNG maps (off: they cost time, and nobody looks).
    """
    suites = (suite,) if isinstance(suite, str) else tuple(suite)
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        selection = ([f"tests/{suite_of(suites, test_id)}::{test_id}" for test_id in only]
                     or [f"tests/{name}" for name in suites])
        # No cache: runs side by side would write the same .pytest_cache files at once.
        argv = [*selection, "--target", target, "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                *recorded(Path(tmp)), *extra]
        env = {k: v for k, v in os.environ.items() if k not in ("EXERCISE_TARGET", ZYGOTE_ENV)}
        env[KERNEL_MAPS_ENV] = "1" if pictures else "0"
        # As the grader's sessions run (grader/grading.py): no third-party plugin (nbval, anyio's), so none
        # of them is imported and registered again in each of the runs.
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        if threads:
            env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
        warm = hasattr(os, "fork") and forks_can_start_warm()
        if warm:
            env[ZYGOTE_ENV] = zygote_address()  # the run's unsandboxed children start warm
        if preloaded and warm:
            log = Path(tmp) / "output.txt"
            for _ in range(2):
                code, timed_out = start_preloaded()(argv, env, log, timeout)
                if timed_out:
                    raise subprocess.TimeoutExpired(["pytest", *argv], timeout)
                # 255: multiprocessing's fork server lost the session's exit status (its pipe read
                # nothing: a correct variant, every test reported passed, once on CI), not pytest's;
                # the run is made once more.
                if code != LOST_STATUS:
                    break
            output = log.read_text(errors="replace") if log.exists() else ""
        else:
            proc = subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=REPO, capture_output=True,
                                  text=True, timeout=timeout, env=env)
            code, output = proc.returncode, f"{proc.stdout}\n{proc.stderr}"
        if not report.exists():
            raise RuntimeError(f"pytest wrote no report (exit {code}):\n{output}")
        return code, read_report(report, Path(tmp))


RECORDS = "records.jsonl"
LOST_STATUS = 255  # multiprocessing.popen_forkserver's return code when the fork server's pipe gives none


def recorded(folder: Path) -> list[str]:
    """pytest's arguments that make the run keep the grader's own record of each test (``grader/plugin.py``:
    its points, and the kind, cause, TODO and premise its test set) in ``folder``, for ``read_report``."""
    return ["-p", "grader.plugin", f"--grader-results={folder / RECORDS}"]


def read_records(folder: Path) -> dict[str, dict]:
    """The grader's record of each test of a run (``recorded``), by test id: {"fields", "points"}."""
    records: dict[str, dict] = {}
    path = folder / RECORDS
    for line in path.read_text().splitlines() if path.exists() else ():
        entry = json.loads(line)
        name = str(entry.get("nodeid", "")).split("::", 1)[-1]
        if entry["kind"] == "collected":
            records.setdefault(name, {})["points"] = int(entry["points"])
        elif entry["kind"] == "result":
            records.setdefault(name, {})["fields"] = dict(entry.get("fields") or {})
    return records


def read_report(report: Path, records: Path | None = None) -> dict[str, Outcome]:
    """Each test's outcome and message from pytest's JUnit XML, with the grader's record of it where the
    run kept one (``records``: the folder ``recorded`` named)."""
    kept = read_records(records) if records is not None else {}
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.get("name", "")
        status, message, detail = "passed", "", ""
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                detail = node.text or ""
                status = {"failure": "failed"}.get(tag, tag)
                message = node.get("message") or ""
                # pytest 9.2 and later cut a long message attribute short; the element text holds it whole.
                if not message or message.endswith("[truncated; full report in element text]"):
                    message = node.text or message
                message = message.removeprefix("Failed: ")
                break
        outcomes[name] = Outcome(status, message, detail, **kept.get(name, {}))
    return outcomes


def module_constant(variant: Path, name: str):
    """The literal a variant's module assigns to ``name`` (``x = ...`` or ``x: T = ...``), read without importing
    it; None where it assigns none. ValueError where the value is no literal."""
    for node in ast.parse(variant.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
            return ast.literal_eval(node.value)
    return None


def edits(variant: Path) -> list[tuple] | None:
    """The variant's EDITS of the reference, or None for a whole implementation."""
    return module_constant(variant, "EDITS")


class EditDoesNotApply(ValueError):
    """A variant's edit whose text the reference no longer holds as often as the edit says."""


def apply_edits(source: str, changes: Sequence[tuple], name: str) -> str:
    """``source`` with ``changes`` applied in order (see the module docstring)."""
    for number, (old, new, *count) in enumerate(changes, 1):
        want = count[0] if count else 1
        found = source.count(old)
        if found != want:
            times = "once" if want == 1 else f"{want} times"
            raise EditDoesNotApply(f"{name}: edit {number} of {len(changes)} does not apply: its text {old!r} occurs"
                                   f" {found} times in the reference (after the edits before it), not {times};"
                                   " the reference changed? Update the edit")
        source = source.replace(old, new)
    return source


def materialize(variant: Path, exercise: str) -> str:
    """The source the suite grades for ``variant``: the file itself, or the reference with its edits."""
    changes = edits(variant)
    if changes is None:
        return variant.read_text()
    source = reference_file(exercise).read_text()
    source = apply_edits(source, changes, variant.name)
    return f"# {variant.name}: the reference with these edits: {[new for _, new, *_ in changes]!r}\n{source}"


def reference_sources() -> dict[str, str]:
    """The reference's exercise files as a student would hand them in: file name -> source."""
    return {p.name.removeprefix("reference_"): p.read_text()
            for p in sorted(REFERENCE.glob("reference_*.py"))}


# (suite files, exercise, the graded text, extra arguments, options) -> a finished run. One pytest session
# grades the same file the same way more than once (a variant pool, then the seed panel and the policy
# table at the default seed): the verdict is a function of these, so the second asks the first's result.
_FINISHED: dict[tuple, tuple[int, dict[str, "Outcome"]]] = {}
_FINISHED_LOCK = threading.Lock()


def run_variant(suite: str | tuple[str, ...], exercise: str, variant: Path, *extra: str,
                **options) -> tuple[int, dict[str, Outcome]]:
    """Grade ``variant`` as if it were the student's ``exercise``.py; ``options`` go to run_suite. A run
    this process has already made with the same file, suites, arguments and options is not made again."""
    text = materialize(variant, exercise)
    suites = (suite,) if isinstance(suite, str) else tuple(suite)
    key = (suites, exercise, text, extra,
           tuple(sorted((k, tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in options.items()
                        if not (isinstance(v, (list, tuple)) and not v))))  # only=[]: the whole suite, as no only
    with _FINISHED_LOCK:
        if key in _FINISHED:
            return _FINISHED[key]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / f"{exercise}.py").write_text(text)
        result = run_suite(suite, folder, *extra, **options)
    with _FINISHED_LOCK:
        _FINISHED[key] = result
    return result


def verdict(variant: Path, code: int, outcomes: dict[str, Outcome]) -> list[str]:
    """What is wrong with how the suite treated ``variant``; empty when all is as declared."""
    expected = expected_failures(variant)
    problems = []
    if not outcomes:
        return [f"{variant.name}: the suite ran no test (exit {code})"]
    if not expected:
        bad = {k: v for k, v in outcomes.items() if v.status != "passed"}
        problems += [f"{variant.name} is correct but {k} {v.status}: {v.message[:300]}" for k, v in bad.items()]
        if code != 0 and not bad:
            problems.append(f"{variant.name} is correct but pytest exited {code}")
        return problems
    if code == 0:
        problems.append(f"{variant.name} is wrong but the suite passed")
    for test_id, expectation in expected.items():
        got = outcomes.get(test_id)
        if got is None:
            problems.append(f"{variant.name}: expected {test_id} to fail, but no such test ran")
        elif got.status != "failed":
            problems.append(f"{variant.name}: expected {test_id} to fail, it {got.status}")
        else:
            problems += [f"{variant.name}: {test_id} {problem}" for problem in judged(expectation, got)]
    return problems


EXPECTATION_KEYS = {"cause", "waits_on", "says"}


def judged(expectation: str | dict, got: Outcome) -> list[str]:
    """What is wrong with a failed test's outcome against one EXPECT_FAILURES value: the grader's record
    (``{"cause": ID}``: the test failed on its own property, for that cause; ``{"waits_on": TEST}``: it
    waits for that test), and where the wording is what is checked, a phrase its message says (a string,
    or ``"says"`` beside the record's keys)."""
    kind, fields = got.fields.get("kind", ""), got.fields
    if isinstance(expectation, str):
        if kind == "waits" or fields.get("cause", "unexplained") != "unexplained":
            return [f"is expected by a phrase, but the grader's record names it ({kind!r}, cause"
                    f" {fields.get('cause')!r}, waiting on {fields.get('waits_on')!r}): expect the record instead,"
                    f" with \"says\" beside it if the wording is what is checked"]
        expectation = {"says": expectation}
    unknown = set(expectation) - EXPECTATION_KEYS
    if unknown or not expectation:
        return [f"has an expectation with keys {sorted(expectation)}: use {sorted(EXPECTATION_KEYS)}"]
    if expectation.get("cause") == "unexplained":
        return ['expects the cause "unexplained", which says nothing: expect a phrase of the message instead']
    problems = []
    if "cause" in expectation and (kind, fields.get("cause")) != ("failed", expectation["cause"]):
        problems.append(f"failed with kind {kind!r}, cause {fields.get('cause')!r}, not on its own property for"
                        f" cause {expectation['cause']!r}: {got.message[:300]}")
    if "waits_on" in expectation and (kind, fields.get("waits_on")) != ("waits", expectation["waits_on"]):
        problems.append(f"failed with kind {kind!r}, waiting on {fields.get('waits_on')!r}, not waiting on"
                        f" {expectation['waits_on']!r}: {got.message[:300]}")
    phrase = expectation.get("says", "").lower()
    if phrase and phrase not in got.message.lower() and phrase not in got.detail.lower():
        problems.append(f"failed without saying {expectation['says']!r}: {got.message[:300]}")
    return problems


# ------------------------------------------------------------------------- many runs, sooner

def default_workers() -> int:
    """``SELFCHECK_WORKERS`` if set, else one run per core, at most 4 (each run holds a torch process)."""
    if os.environ.get(WORKERS_ENV):
        return max(1, int(os.environ[WORKERS_ENV]))
    return max(1, min(4, os.cpu_count() or 1))


@contextmanager
def parallel(calls: dict[Hashable, Callable[[], R]],
             workers: int | None = None) -> Iterator[dict[Hashable, Future[R]]]:
    """Start every call now, ``workers`` at a time, in the given order; yields their futures by key.

    Threads are enough: each call waits on a pytest child process. On leaving, calls not yet started
    are dropped and running ones are waited for, so no child outlives the caller.
    """
    pool = ThreadPoolExecutor(max_workers=workers or default_workers(), thread_name_prefix="selfcheck")
    try:
        yield {key: pool.submit(call) for key, call in calls.items()}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


_runner = None


def start_preloaded():
    """The warm fork server the preloaded runs fork from, started on first use."""
    global _runner
    if _runner is None:
        from instructor.warm import ForkServerRunner

        _runner = ForkServerRunner()
    return _runner


_zygote: Zygote | None = None
_zygote_lock = threading.Lock()


def zygote_address() -> str:
    """The socket of this process's child zygote (grader/sandbox/zygote.py), started on first use: the
    children of every run (the student's process, the kernels') fork from it, warm, instead of each
    importing torch and Triton afresh. It ends with this process."""
    global _zygote
    with _zygote_lock:
        if _zygote is None:
            _zygote = Zygote()
        return _zygote.address
