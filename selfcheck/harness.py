"""Run a graded suite on one implementation and read back each test's outcome and message.

A variant is one file standing in for an exercise file (``mlp_block.py``, ``triton_swiglu.py``).
It declares what the suite must say about it in a module-level dict::

    EXPECT_FAILURES = {"test_parity_with_reference[default-GLU]": "gate path"}

mapping a failing test id to a phrase its message must contain. Tests it does not name may pass or
fail. A correct variant declares ``EXPECT_FAILURES = {}`` and must pass every test.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VARIANTS = Path(__file__).resolve().parent / "variants"


@dataclass
class Outcome:
    status: str  # passed / failed / error / skipped
    message: str


def expected_failures(variant: Path) -> dict[str, str]:
    """Read EXPECT_FAILURES without importing the variant (it is code under test)."""
    for node in ast.parse(variant.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EXPECT_FAILURES" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise ValueError(f"{variant} declares no EXPECT_FAILURES")


def run_suite(suite: str, target: str, *extra: str, timeout: float = 300) -> tuple[int, dict[str, Outcome]]:
    """Run ``tests/<suite>`` with ``--target target``; returns (exit code, outcomes by test id)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", f"tests/{suite}", "--target", target, "-q",
             f"--junitxml={report}", *extra],
            cwd=REPO, capture_output=True, text=True, timeout=timeout,
            env={k: v for k, v in os.environ.items() if k != "EXERCISE_TARGET"},
        )
        if not report.exists():
            raise RuntimeError(f"pytest wrote no report (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        outcomes = {}
        for case in ET.parse(report).getroot().iter("testcase"):
            name = case.get("name", "")
            status, message = "passed", ""
            for tag in ("failure", "error", "skipped"):
                node = case.find(tag)
                if node is not None:
                    status = {"failure": "failed"}.get(tag, tag)
                    message = (node.get("message") or node.text or "").removeprefix("Failed: ")
                    break
            outcomes[name] = Outcome(status, message)
    return proc.returncode, outcomes


def run_variant(suite: str, exercise: str, variant: Path, *extra: str) -> tuple[int, dict[str, Outcome]]:
    """Grade ``variant`` as if it were the student's ``exercise``.py."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(variant, Path(folder) / f"{exercise}.py")
        return run_suite(suite, folder, *extra)


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
    for test_id, phrase in expected.items():
        got = outcomes.get(test_id)
        if got is None:
            problems.append(f"{variant.name}: expected {test_id} to fail, but no such test ran")
        elif got.status != "failed":
            problems.append(f"{variant.name}: expected {test_id} to fail, it {got.status}")
        elif phrase.lower() not in got.message.lower():
            problems.append(f"{variant.name}: {test_id} failed without saying {phrase!r}: {got.message[:300]}")
    return problems
