"""The grader cannot be gamed: submissions that implement nothing but attack the grader score 0.

Each folder in ``selfcheck/attacks/`` is one submission: stubs that raise NotImplementedError (or no
layers at all), plus one attack. Files that pytest itself would pick up (``conftest.py``,
``test_*.py``) are stored with an ``.in`` suffix and get their real name when the batch is built.

All of them, plus a correct and a partly correct submission, are graded in one batch
(``python -m grader --batch``) with short limits, so the hanging ones cost seconds; the attacks on
processes are graded once more without the sandbox, where the grader's own limits must hold alone.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from selfcheck.harness import REPO, VARIANTS, run_suite

ATTACKS_DIR = Path(__file__).resolve().parent / "attacks"
ATTACKS = sorted(p.name for p in ATTACKS_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
# Attacks on the grader's processes: they must fail even where there is no sandbox. (The others
# that need no sandbox, patching comparisons or shipping tests and a conftest, fail the same way
# with or without one: the trusted process never runs the submission's code or reads its files.)
PROCESS_ATTACKS = ["exit_zero_at_import", "os_exit_zero_at_import", "exit_zero_at_exit", "fake_pytest_output",
                   "infinite_loop_at_import", "infinite_loop_ignoring_sigterm", "segfault_at_import",
                   "memory_exhaustion", "background_process"]
# Attacks that read the grader's files: only a sandbox can stop them.
FILE_ATTACKS = ["import_reference", "read_reference_by_path"]
# The process name background_process gives its daemon: unique per run (it reads daemon_token.py),
# so a self-check running at the same time elsewhere cannot be mistaken for a survivor of this one.
DAEMON_NAME = f"mlpd-{secrets.token_hex(5)}"
LIMITS = ["--call-timeout", "4", "--budget", "10", "--memory-mb", "1024"]
TRITON_REFERENCE = REPO / "solution" / "hidden" / "reference_triton_swiglu.py"
COST_REFERENCE = REPO / "solution" / "hidden" / "reference_mlp_cost.py"
BATCH_WALL_LIMIT = 300  # seconds: far above what the batch needs, far below "hangs forever"


def place(source: Path, dest: Path) -> None:
    shutil.copytree(source, dest)
    for stored in dest.rglob("*.in"):
        stored.rename(stored.with_suffix(""))


def build_batch(folder: Path, attacks: list[str]) -> None:
    for name in attacks:
        place(ATTACKS_DIR / name, folder / name)
    if "background_process" in attacks:
        (folder / "background_process" / "daemon_token.py").write_text(f'TOKEN = "{DAEMON_NAME}"\n')
    (folder / "correct").mkdir()
    shutil.copy(VARIANTS / "mlp_block" / "correct_textbook.py", folder / "correct" / "mlp_block.py")
    if TRITON_REFERENCE.exists():  # a correct Triton file too, so "correct" means every task
        shutil.copy(TRITON_REFERENCE, folder / "correct" / "triton_swiglu.py")
    (folder / "partial").mkdir()  # MLP right, GLU with the activation on the wrong path
    shutil.copy(VARIANTS / "mlp_block" / "glu_activation_on_value_path.py", folder / "partial" / "mlp_block.py")
    for submission in ("correct", "partial"):  # the cost task right in both, so only the GLU differs
        shutil.copy(COST_REFERENCE, folder / submission / "mlp_cost.py")


def daemons() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/comm") as f:
                if f.read().strip() == DAEMON_NAME:
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def grader(*args: str, cwd: Path, env: dict | None = None, timeout: float = BATCH_WALL_LIMIT):
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})
    return proc, time.monotonic() - started


def run_batch(tmp: Path, attacks: list[str], *extra: str) -> dict:
    batch, grades = tmp / "submissions", tmp / "grades.csv"
    batch.mkdir()
    build_batch(batch, attacks)
    proc, seconds = grader("--batch", str(batch), "--csv", str(grades), "--jobs", "3", *LIMITS, *extra, cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(grades, newline="") as f:
        rows = list(csv.DictReader(f))
    return {"rows": rows, "by_name": {r["submission"]: r for r in rows}, "seconds": seconds,
            "stderr": proc.stderr, "cwd": tmp, "daemons": daemons()}


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory) -> dict:
    return run_batch(tmp_path_factory.mktemp("sandboxed"), ATTACKS)


@pytest.fixture(scope="module")
def unsandboxed(tmp_path_factory) -> dict:
    return run_batch(tmp_path_factory.mktemp("unsandboxed"), PROCESS_ATTACKS, "--sandbox", "none")


def is_sandboxed(row: dict) -> bool:
    return row["isolation"].startswith("sandboxed")


def expect_zero(row: dict) -> None:
    assert row["status"] == "graded", f"{row['submission']}: {row['status']} {row['first_failure']}"
    assert int(row["max_score"]) > 0, row
    assert int(row["score"]) == 0, f"{row['submission']} scored {row['score']}: {row['first_failure']}"


# ------------------------------------------------------------------------------ the attacks

def test_every_attack_has_a_folder():
    assert set(PROCESS_ATTACKS) | set(FILE_ATTACKS) <= set(ATTACKS), set(PROCESS_ATTACKS + FILE_ATTACKS) - set(ATTACKS)


@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_scores_zero_in_the_sandbox(sandboxed, attack):
    row = sandboxed["by_name"][attack]
    if attack in FILE_ATTACKS and not is_sandboxed(row):
        pytest.skip(f"no sandbox on this machine ({row['isolation']}): reading the grader's files cannot be"
                    " prevented without one; install bubblewrap")
    expect_zero(row)


@pytest.mark.parametrize("attack", PROCESS_ATTACKS)
def test_process_attack_scores_zero_without_sandbox(unsandboxed, attack):
    row = unsandboxed["by_name"][attack]
    assert row["isolation"].startswith("NOT sandboxed"), row["isolation"]
    expect_zero(row)


@pytest.mark.parametrize("attack", FILE_ATTACKS)
def test_reading_the_reference_would_work_without_the_grader(attack, tmp_path):
    """The control: run in-process by plain pytest, the attack does find the reference and passes."""
    place(ATTACKS_DIR / attack, tmp_path / attack)
    code, outcomes = run_suite("test_mlp.py", str(tmp_path / attack))
    assert outcomes and all(o.status == "passed" for o in outcomes.values()), (code, outcomes)


@pytest.mark.parametrize("batch", ["sandboxed", "unsandboxed"])
def test_hangs_and_crashes_stay_within_limits(request, batch):
    from grader.grading import overall_timeout
    from grader.sandbox import Limits

    result = request.getfixturevalue(batch)
    limit = overall_timeout(Limits(call_timeout=4, budget=10))
    slow = {r["submission"]: r["seconds"] for r in result["rows"] if float(r["seconds"]) > limit}
    assert not slow, f"over the per-submission limit of {limit:.0f} s: {slow}"
    assert result["seconds"] < BATCH_WALL_LIMIT
    # The budget, not the number of calls, bounds a submission that hangs on every call.
    assert float(result["by_name"]["infinite_loop_ignoring_sigterm"]["seconds"]) < 10 + 4 * 4 + 30


@pytest.mark.parametrize("batch", ["sandboxed", "unsandboxed"])
def test_no_background_process_survives(request, batch):
    result = request.getfixturevalue(batch)
    assert result["daemons"] == [], f"left running after grading: pids {result['daemons']}"


def test_fake_output_and_reports_do_not_reach_the_grade(sandboxed):
    rows = sandboxed["rows"]
    names = [r["submission"] for r in rows]
    assert sorted(names) == sorted(set(names)) and len(names) == len(ATTACKS) + 2, names
    assert not (sandboxed["cwd"] / "results.json").exists()
    assert "36 passed" not in sandboxed["stderr"]


def test_fake_reports_in_a_single_run(tmp_path):
    """--json, --gradescope, --junit, the step summary and output: the grader's own, score 0."""
    place(ATTACKS_DIR / "fake_report_files", tmp_path / "submission")
    autograder = Path("/autograder/results/results.json")
    existed = autograder.exists()
    out = {name: tmp_path / name for name in ("grade.json", "results.json", "junit.xml", "summary.md", "output")}
    proc, _ = grader(str(tmp_path / "submission"), "--json", str(out["grade.json"]), "--gradescope",
                     str(out["results.json"]), "--junit", str(out["junit.xml"]), "--github-classroom", *LIMITS,
                     cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(out["summary.md"]),
                                        "GITHUB_OUTPUT": str(out["output"])})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out["grade.json"].read_text())["score"] == 0
    gradescope = json.loads(out["results.json"].read_text())
    assert gradescope["score"] == 0 and all(t["score"] == 0 for t in gradescope["tests"])
    suites = ET.parse(out["junit.xml"]).getroot().findall("testsuite")
    assert suites and all(s.find("testcase/failure") is not None for s in suites)
    summary = out["summary.md"].read_text()
    assert summary.startswith("### Grade: 0/") and summary.count("### Grade") == 1, summary
    assert out["output"].read_text().count("result=") == 1
    assert autograder.exists() == existed


# ------------------------------------------------------------------- honest submissions

def test_correct_submission_scores_full_marks(sandboxed):
    row = sandboxed["by_name"]["correct"]
    assert row["status"] == "graded", row
    for task in ("mlp", "glu"):
        assert int(row[task]) == int(row[f"{task}_max"]) > 0, row
    if int(row["swiglu_max"]) and TRITON_REFERENCE.exists():
        assert int(row["swiglu"]) == int(row["swiglu_max"]), row
    assert int(row["score"]) == int(row["max_score"]), row


def test_partly_correct_submission_scores_partial_marks(sandboxed):
    row = sandboxed["by_name"]["partial"]
    assert int(row["mlp"]) == int(row["mlp_max"]), row
    assert 0 < int(row["glu"]) < int(row["glu_max"]), row
    assert "gate path" in row["first_failure"], row["first_failure"]
