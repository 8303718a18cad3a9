"""The grader cannot be gamed: submissions that implement nothing but attack the grader score 0.

Longer than 400 lines because its batches are graded once, in module fixtures, and read by many tests.

Each folder in ``selfcheck/attacks/`` is one submission: stubs that raise NotImplementedError (or no
layers at all), plus one attack. Files that pytest itself would pick up (``conftest.py``,
``test_*.py``) are stored with an ``.in`` suffix and get their real name when the batch is built.

All of them, plus a correct and a partly correct submission, are graded in one batch
(``python -m instructor --batch``, which requires the sandbox) with short limits, so the hanging ones cost
seconds. The attacks that earn full marks only if a hostile action worked (``RESOURCE_ATTACKS``:
host root, another process's view, files anywhere on the machine, the network, memory) run in a
second batch with limits long enough for the action to be tried in full, so a 0 means the sandbox
held, not that time ran out. The attacks on processes are graded once more without the sandbox,
where the grader's own limits must hold alone (where the grader runs as root, that needs a Python
other users may run; otherwise the grader must refuse, which is checked instead).

Where bubblewrap is installed, or in CI, a sandbox that cannot start fails these checks: it never
skips them.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from selfcheck.harness import REPO, VARIANTS, apply_edits, edits, materialize, module_constant, run_suite, cli
from selfcheck.sample import drawn

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
# Attacks that earn full marks only if a hostile action succeeds inside the child (payoff.py).
RESOURCE_ATTACKS = ["host_root_writes_proc_sys", "sees_grader_process", "sees_host_paths", "finds_code_on_disk",
                    "reaches_host_loopback",
                    "fills_tmpfs", "memory_over_processes", "many_processes", "keyring_outlives_the_child"]
# Attacks on the grader's own process through what the child sends back.
EVIDENCE_ATTACKS = ["oversized_evidence", "compressed_evidence", "junk_frames"]
# Those whose payload takes the child a while to build (a gigabyte to deflate, gigabytes of junk to
# write) run with the long limits; a stride-0 view costs nothing to send, so that one runs in the
# first batch, where its restarts after each refused reply stop at the short budget.
SLOW_EVIDENCE_ATTACKS = ["compressed_evidence", "junk_frames"]
RESOURCE_LIMITS = ["--call-timeout", "40", "--budget", "60", "--memory-mb", "1024"]
GRADER_PEAK_LIMIT_MB = 2048
# The process name background_process gives its daemon: unique per run (it reads daemon_token.py),
# so a self-check running at the same time elsewhere cannot be mistaken for a survivor of this one.
DAEMON_NAME = f"mlpd-{secrets.token_hex(5)}"
# Short: a submission that hangs on every call costs its budget per task, twice (MLP and GLU). An honest one
# needs under 2 s of calls per task on a quiet machine (with --budget 1 it lost points, with 2 it did not),
# and kept full marks under 7 in this batch beside four busy processes (3.5 s for both tasks); on a 2-core machine
# slower by a third, with the other lane busy, the correct GLU beside a hanging MLP lost its task under 7 once: 9.
CALL_TIMEOUT, BUDGET = 4, 9
LIMITS = ["--call-timeout", str(CALL_TIMEOUT), "--budget", str(BUDGET), "--memory-mb", "1024"]
# The batches grade the MLP and GLU tasks only: every attack is in mlp_block.py. That the reference
# gets full marks on every task in the sandbox is checked where the autograders are
# (test_grader_reports.py, test_classroom50.py). The main batch grades both, as a hand-in is graded task after
# task (a hang or a hostile action in the first may reach the second); the batches whose property is one child's
# (a hostile action tried in full, a process attack without the sandbox) grade one task: their payloads cost CPU
# seconds per task.
BATCH_TASKS, ONE_TASK = "mlp,glu", "mlp"  # --tasks
BATCH_WALL_LIMIT = 300  # seconds: far above what the batch needs, far below "hangs forever"
# Attacks on the SwiGLU task's evidence, graded in a batch of their own (the Triton interpreter is slow),
# beside their controls: the same file without the attack. An attack may score what its control scores
# and no more; where the attack breaks the rules for kernel source, the message says so.
SWIGLU_CONTROLS = {"forge_launch_evidence": "swiglu_in_pytorch",  # PyTorch SwiGLU, no kernel launched
                   "reads_stand_in_coefficients": "swiglu_in_pytorch",
                   # Costs the grader, not points: its peak memory must stay under GRADER_PEAK_LIMIT_MB.
                   "floods_the_stand_in_server": "kernels_compute_nothing",
                   "kernel_default_runs_code": "kernels_compute_nothing",  # kernels launched, computing nothing
                   "line_separator_hides_code": "kernels_compute_nothing",
                   "helper_named_like_a_builtin": "kernels_compute_nothing",
                   "kernels_hold_an_answer_table": "kernels_compute_nothing",
                   "kernel_reaches_python_through_tl": "kernels_compute_nothing",
                   # A link scores what no file does, whatever it points at: the file is not read.
                   "links_to_the_swiglu_reference": "kernels_compute_nothing"}
# Each is a whole Triton suite in the sandbox, seconds of CPU: a push grades a share of them beside their controls
# (selfcheck/sample.py; python -m selfcheck --full grades all).
SWIGLU_THIS_PUSH = sorted(drawn(SWIGLU_CONTROLS, 2, "swiglu attacks"))
SWIGLU_ATTACKS = sorted({*SWIGLU_THIS_PUSH, *(SWIGLU_CONTROLS[a] for a in SWIGLU_THIS_PUSH)})
SWIGLU_LIMITS = ["--call-timeout", "60", "--budget", "120", "--memory-mb", "2048"]
# The same for the gated task: its control wires a kernel that computes nothing as the reference does.
GATED_CONTROLS = dict.fromkeys(["gated_pytorch_one_launch", "gated_pytorch_no_launch", "gated_reads_stand_ins",
                                "gated_kernel_holds_an_answer_table", "gated_atomic_out_of_bounds",
                                "links_to_the_gated_reference"], "gated_kernel_computes_nothing")
GATED_THIS_PUSH = sorted(drawn(GATED_CONTROLS, 1, "gated attacks"))
GATED_ATTACKS = sorted({*GATED_THIS_PUSH, *(GATED_CONTROLS[a] for a in GATED_THIS_PUSH)})


def place(source: Path, dest: Path) -> None:
    shutil.copytree(source, dest)
    for stored in dest.rglob("*.in"):
        stored.rename(stored.with_suffix(""))


def attack_source(stored: Path) -> str:
    """The file as graded: the stored text, or, for one stored as ``BASE`` and ``EDITS``, its base (a file
    of this repository, or the same file of another attack) with the edits applied."""
    changes, base = edits(stored), module_constant(stored, "BASE")
    if changes is None or not base:
        return stored.read_text()
    source = REPO / base if "/" in base else ATTACKS_DIR / base / stored.name
    return apply_edits(attack_source(source), changes, f"{stored.parent.name}/{stored.name}")


def make_links(stored: Path, into: Path) -> None:
    """The symbolic links an attack's ``links.json`` names (git would keep them, a copy would not)."""
    if not stored.exists():
        return
    for name, target in json.loads(stored.read_text())["links"].items():
        (into / name).symlink_to(target.replace("{REPO}", str(REPO)))


def build_batch(folder: Path, attacks: list[str], loopback_port: int = 0, honest: bool = True) -> None:
    for name in attacks:
        place(ATTACKS_DIR / name, folder / name)
        for stored in (ATTACKS_DIR / name).glob("*.py"):
            (folder / name / stored.name).write_text(attack_source(stored))
        make_links(ATTACKS_DIR / name / "links.json", folder / name)
        source = ATTACKS_DIR / name / "mlp_block.py"
        if source.exists() and "import payoff" in source.read_text():  # what it earns if its action works
            shutil.copy(ATTACKS_DIR / "_payoff" / "payoff.py", folder / name / "payoff.py")
    if "background_process" in attacks:
        (folder / "background_process" / "daemon_token.py").write_text(f'TOKEN = "{DAEMON_NAME}"\n')
    if "reaches_host_loopback" in attacks:
        (folder / "reaches_host_loopback" / "loopback_port.py").write_text(f"PORT = {loopback_port}\n")
    if not honest:
        return
    (folder / "correct").mkdir()
    shutil.copy(VARIANTS / "mlp_block" / "correct_textbook.py", folder / "correct" / "mlp_block.py")
    (folder / "partial").mkdir()  # MLP right, GLU with the activation on the wrong path
    partial = materialize(VARIANTS / "mlp_block" / "glu_activation_on_value_path.py", "mlp_block")
    (folder / "partial" / "mlp_block.py").write_text(partial)


def processes_named(name: str) -> list[int]:
    """The pids of the processes called ``name`` (the name a process gives itself, /proc/PID/comm)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/comm") as f:
                if f.read().strip() == name:
                    found.append(int(entry))
        except OSError:
            continue
    return found


def daemons() -> list[int]:
    return processes_named(DAEMON_NAME)


def grader(*args: str, cwd: Path, env: dict | None = None, timeout: float = BATCH_WALL_LIMIT):
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", cli(args), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})
    return proc, time.monotonic() - started


def bwrap_expected() -> bool:
    """Where the sandbox must work: bubblewrap is installed, or this is CI (which installs it)."""
    return bool(shutil.which("bwrap")) or bool(os.environ.get("CI"))


def run_batch(tmp: Path, attacks: list[str], tasks: str, *extra: str, limits=LIMITS, loopback_port: int = 0,
              expect_code: int = 0, honest: bool = True, jobs: int = 3) -> dict:
    batch, grades = tmp / "submissions", tmp / "grades.csv"
    batch.mkdir()
    build_batch(batch, attacks, loopback_port, honest)
    proc, seconds = grader("--batch", str(batch), "--csv", str(grades), "--jobs", str(jobs), "--tasks", tasks, *limits, *extra,
                           cwd=tmp)
    if "--sandbox" not in extra and proc.returncode == 3 and not bwrap_expected():
        pytest.skip(f"bubblewrap is not installed here (install it to run these checks): {proc.stderr[-300:]}")
    assert proc.returncode == expect_code, proc.stderr[-3000:]
    rows = []
    if grades.exists():  # a batch that refuses before grading writes no CSV
        with open(grades, newline="") as f:
            rows = list(csv.DictReader(f))
    return {"rows": rows, "by_name": {r["submission"]: r for r in rows}, "seconds": seconds, "tasks": len(tasks.split(",")),
            "stderr": proc.stderr, "cwd": tmp, "daemons": daemons()}


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory) -> dict:
    return run_batch(tmp_path_factory.mktemp("sandboxed"), BATCH_ATTACKS, BATCH_TASKS)


@pytest.fixture(scope="module")
def resources(tmp_path_factory) -> dict:
    """The attacks that pay off only if a hostile action worked, with time enough to try it in full."""
    with socket.socket() as server:  # a service on the host's loopback the child must not reach
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        return run_batch(tmp_path_factory.mktemp("resources"), RESOURCE_ATTACKS + SLOW_EVIDENCE_ATTACKS,
                         ONE_TASK, limits=RESOURCE_LIMITS, loopback_port=server.getsockname()[1])


@pytest.fixture(scope="module")
def swiglu_batch(tmp_path_factory) -> dict:
    return run_batch(tmp_path_factory.mktemp("swiglu"), SWIGLU_ATTACKS, "swiglu", limits=SWIGLU_LIMITS,
                     honest=False)


@pytest.fixture(scope="module")
def gated_batch(tmp_path_factory) -> dict:
    return run_batch(tmp_path_factory.mktemp("gated"), GATED_ATTACKS, "gated", limits=SWIGLU_LIMITS,
                     honest=False)


@pytest.fixture(scope="module")
def beside_hog(tmp_path_factory) -> dict:
    """An honest submission's grading time alone, and beside cpu_hog in a batch of two jobs."""
    alone = run_batch(tmp_path_factory.mktemp("alone"), [], BATCH_TASKS, jobs=2)
    beside = run_batch(tmp_path_factory.mktemp("beside_hog"), ["cpu_hog"], BATCH_TASKS, jobs=2)
    return {"alone": alone["by_name"]["correct"], "beside": beside["by_name"]["correct"],
            "hog": beside["by_name"]["cpu_hog"]}


def python_for_others() -> bool:
    """Whether a user other than root may run this Python (every folder on its way is searchable)."""
    paths = {os.path.realpath(sys.executable), os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    for path in paths:
        for folder in [Path(path), *Path(path).parents]:
            if folder.is_dir() and not os.stat(folder).st_mode & 0o001:
                return False
    return True


# Without a sandbox, as root, the child runs as a uid of its own; that uid may not be able to run
# this Python at all (installed under /root): then the grader must refuse, never fall back to root.
MUST_REFUSE_UNSANDBOXED = os.geteuid() == 0 and not python_for_others()


@pytest.fixture(scope="module")
def unsandboxed(tmp_path_factory) -> dict:
    return run_batch(tmp_path_factory.mktemp("unsandboxed"), PROCESS_ATTACKS, ONE_TASK, "--sandbox", "none",
                     expect_code=3 if MUST_REFUSE_UNSANDBOXED else 0)


def is_sandboxed(row: dict) -> bool:
    return row["sandboxed"] == "true" and row["isolation"].startswith("sandboxed")


def expect_zero(row: dict) -> None:
    assert row["status"] == "graded", f"{row['submission']}: {row['status']} {row['first_failure']}"
    assert int(row["max_score"]) > 0, row
    assert int(row["score"]) == 0, f"{row['submission']} scored {row['score']}: {row['first_failure']}"


# ------------------------------------------------------------------------------ the attacks

def test_every_attack_has_a_folder():
    assert set(PROCESS_ATTACKS) | set(FILE_ATTACKS) <= set(ATTACKS), set(PROCESS_ATTACKS + FILE_ATTACKS) - set(ATTACKS)


TRITON_ATTACKS = {*SWIGLU_CONTROLS, *SWIGLU_CONTROLS.values(), *GATED_CONTROLS, *GATED_CONTROLS.values()}
BATCH_ATTACKS = [a for a in ATTACKS if a not in RESOURCE_ATTACKS + SLOW_EVIDENCE_ATTACKS and a not in TRITON_ATTACKS]
NOT_AN_ATTACK = {"hang_in_mlp_forward"}  # a student's bug with a correct GLU: graded in the batch, not 0


@pytest.mark.parametrize("attack", [a for a in BATCH_ATTACKS if a not in NOT_AN_ATTACK])
def test_attack_scores_zero_in_the_sandbox(sandboxed, attack):
    row = sandboxed["by_name"][attack]
    assert is_sandboxed(row), f"{attack}: graded without the sandbox ({row['isolation']})"
    expect_zero(row)


@pytest.mark.parametrize("attack", RESOURCE_ATTACKS)
def test_hostile_action_fails_in_the_sandbox(resources, attack):
    """0 because the action was tried in full and failed (payoff.py's stubs), not because time ran out."""
    row = resources["by_name"][attack]
    assert is_sandboxed(row), f"{attack}: graded without the sandbox ({row['isolation']})"
    if attack == "memory_over_processes" and "memory limit per process only" in row["isolation"]:
        # No cgroup could be made here: the report must say so, and the attack then succeeds.
        return
    expect_zero(row)
    assert "the attack failed" in row["first_failure"], row["first_failure"]


@pytest.mark.parametrize("attack", EVIDENCE_ATTACKS)
def test_hostile_evidence_is_refused_and_costs_the_grader_little(request, attack):
    batch = request.getfixturevalue("resources" if attack in SLOW_EVIDENCE_ATTACKS else "sandboxed")
    row = batch["by_name"][attack]
    expect_zero(row)
    assert int(row["grader_peak_mb"]) < GRADER_PEAK_LIMIT_MB, row


@pytest.mark.parametrize("attack", SWIGLU_THIS_PUSH)
def test_swiglu_attack_scores_no_more_than_its_control(swiglu_batch, attack):
    """Forged launch evidence, or Python in a kernel's default argument, earns nothing over the same
    file without the attack."""
    row = expect_no_more_than_control(swiglu_batch, attack, SWIGLU_CONTROLS[attack])
    if attack == "kernel_default_runs_code":
        assert "has a default value" in row["first_failure"], row["first_failure"]
    if attack == "kernel_reaches_python_through_tl":
        assert "tl.math.wraps, which is the Python function functools.wraps" in row["first_failure"], row["first_failure"]
    if attack == "links_to_the_swiglu_reference":
        assert "not read: triton_swiglu.py: a symbolic link" in row["note"], row
    if attack == "helper_named_like_a_builtin":
        refusals = ("is named like Python's or Triton's own isinstance", "assigns to", "tl.random, which is the module")
        assert any(said in row["first_failure"] for said in refusals), row["first_failure"]
    if attack == "floods_the_stand_in_server":  # before its bounds, 2.6 GB (the log kept every view's storage)
        assert int(row["grader_peak_mb"]) < GRADER_PEAK_LIMIT_MB, row


@pytest.mark.parametrize("attack", GATED_THIS_PUSH)
def test_gated_attack_scores_no_more_than_its_control(gated_batch, attack):
    """The gated projection computed by PyTorch, with one launch of a kernel that computes nothing, with no
    launch, or following the stand-in by reading its coefficients, earns nothing over the honest wiring of
    a kernel that computes nothing."""
    row = expect_no_more_than_control(gated_batch, attack, GATED_CONTROLS[attack])
    if attack == "links_to_the_gated_reference":
        assert all(f"not read: {name}: a symbolic link" in row["note"] for name in ("triton_gated_mlp.py", "mlp_cost.py")), row
        assert int(row["grader_peak_mb"]) < GRADER_PEAK_LIMIT_MB, row
    if attack == "gated_atomic_out_of_bounds":
        assert "tried to tl.atomic_add" in row["first_failure"], row["first_failure"]


def expect_no_more_than_control(batch: dict, attack: str, control_name: str) -> dict:
    """The attack's row: graded in the sandbox, scoring no more than its control, which scores something
    but not everything (else the comparison would say nothing). Returns the attack's row."""
    control, row = batch["by_name"][control_name], batch["by_name"][attack]
    assert is_sandboxed(row), f"{attack}: graded without the sandbox ({row['isolation']})"
    assert row["status"] == control["status"] == "graded", (row, control)
    assert 0 < int(control["score"]) < int(control["max_score"]), control
    assert int(row["score"]) <= int(control["score"]), (
        f"{attack} scored {row['score']}, its control {control['score']}: {row['first_failure']}")
    return row


def test_a_cpu_hog_does_not_slow_its_neighbour(beside_hog):
    """All of a submission's processes share one core's worth of CPU: 240 busy loops in sessions of their
    own leave the honest submission graded beside them about as fast as alone (without the limit it took
    three times as long on two cores)."""
    alone, beside = (float(beside_hog[k]["seconds"]) for k in ("alone", "beside"))
    assert beside_hog["beside"]["score"] == beside_hog["beside"]["max_score"], beside_hog["beside"]
    expect_zero(beside_hog["hog"])
    if "CPU limit 1 core over all its processes" not in beside_hog["hog"]["isolation"]:
        pytest.skip(f"no CPU cgroup could be made here: {beside_hog['hog']['isolation']}")
    assert beside < 1.8 * alone + 2, f"graded in {alone:.1f} s alone, {beside:.1f} s beside the hog"


def test_each_submission_runs_as_its_own_user_with_one_memory_limit(resources):
    """As root: a uid of its own per submission; and a memory limit over all its processes (or the
    report says that there is none)."""
    uids = set()
    for row in resources["rows"]:
        assert ("memory limit over all its processes" in row["isolation"]
                or "memory limit per process only (" in row["isolation"]), row["isolation"]
        if os.geteuid() == 0:
            assert ", its own" in row["isolation"], row["isolation"]
            uids.add(row["isolation"].split("as uid ")[1].split(",")[0])
    if os.geteuid() == 0:
        assert len(uids) == len(resources["rows"]), uids  # graded side by side, yet each its own uid


@pytest.mark.parametrize("attack", PROCESS_ATTACKS)
def test_process_attack_scores_zero_without_sandbox(unsandboxed, attack):
    if MUST_REFUSE_UNSANDBOXED:  # never as root: no grade at all rather than one from a root child
        assert not unsandboxed["rows"], unsandboxed["rows"]
        assert "may not run this Python" in unsandboxed["stderr"], unsandboxed["stderr"][-1000:]
        return
    row = unsandboxed["by_name"][attack]
    assert row["isolation"].startswith("NOT sandboxed") and row["sandboxed"] == "false", row["isolation"]
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
    if batch == "unsandboxed" and MUST_REFUSE_UNSANDBOXED:
        return  # nothing ran: test_process_attack_scores_zero_without_sandbox checks the refusal
    limit = overall_timeout(Limits(call_timeout=CALL_TIMEOUT, budget=BUDGET), tasks=result["tasks"])
    slow = {r["submission"]: r["seconds"] for r in result["rows"] if float(r["seconds"]) > limit}
    assert not slow, f"over the per-submission limit of {limit:.0f} s: {slow}"
    assert result["seconds"] < BATCH_WALL_LIMIT
    # The budgets, not the number of calls, bound a submission that hangs on every call.
    hanging = float(result["by_name"]["infinite_loop_ignoring_sigterm"]["seconds"])
    assert hanging < result["tasks"] * BUDGET + 4 * CALL_TIMEOUT + 30, hanging


@pytest.mark.parametrize("batch", ["sandboxed", "unsandboxed"])
def test_no_background_process_survives(request, batch):
    result = request.getfixturevalue(batch)
    assert result["daemons"] == [], f"left running after grading: pids {result['daemons']}"


def test_fake_output_and_reports_do_not_reach_the_grade(sandboxed):
    rows = sandboxed["rows"]
    names = [r["submission"] for r in rows]
    assert sorted(names) == sorted(set(names)) and len(names) == len(BATCH_ATTACKS) + 2, names
    assert not (sandboxed["cwd"] / "results.json").exists()
    assert "36 passed" not in sandboxed["stderr"]


def test_hang_in_one_task_costs_only_that_task(sandboxed):
    row = sandboxed["by_name"]["hang_in_mlp_forward"]
    assert int(row["glu"]) == int(row["glu_max"]) > 0, row
    assert int(row["mlp"]) < int(row["mlp_max"]), row


def test_control_characters_never_reach_a_report(sandboxed, tmp_path):
    row = sandboxed["by_name"]["escape_sequences_in_messages"]
    assert "\x1b" not in row["first_failure"] and "\\x1b[2J" in row["first_failure"], row["first_failure"]
    place(ATTACKS_DIR / "escape_sequences_in_messages", tmp_path / "submission")
    out = {name: tmp_path / name for name in ("grade.json", "junit.xml", "summary.md")}
    proc, _ = grader(str(tmp_path / "submission"), "--tasks", "mlp,glu", "--json", str(out["grade.json"]),
                     "--junit", str(out["junit.xml"]), *LIMITS, cwd=tmp_path,
                     env={"GITHUB_STEP_SUMMARY": str(out["summary.md"])})
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, proc.stderr, *(p.read_text() for p in out.values())):
        assert not any(ch in text for ch in "\x1b\r\u202e"), text[:500]
    assert "Total: 0/" in proc.stdout


def test_same_files_same_grade(tmp_path):
    """No --seed: the seed comes from the files, so grading twice gives the same seed and score."""
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "mlp_block.py").write_text(materialize(VARIANTS / "mlp_block" / "default_activation_relu.py", "mlp_block"))
    grades = []
    for i in range(2):
        proc, _ = grader(str(folder), "--tasks", "mlp,glu", "--json", str(tmp_path / f"{i}.json"), *LIMITS, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        data = json.loads((tmp_path / f"{i}.json").read_text())
        grades.append((data["seed"], data["score"], [t["status"] for t in data["tests"]]))
    assert grades[0] == grades[1], grades


def test_grading_hides_every_gpu(tmp_path):
    """The grader grades on the CPU wherever it runs (``hide_gpus_from_grading``): the code it grades sees
    no GPU even where the grader's caller named one. A correct file that checks this scores full marks."""
    folder = tmp_path / "submission"
    folder.mkdir()
    checks = ('import os\nassert os.environ.get("CUDA_VISIBLE_DEVICES") == "", '
              '"the grader left a GPU visible"\n')
    (folder / "mlp_block.py").write_text(checks + (VARIANTS / "mlp_block" / "correct_textbook.py").read_text())
    proc, _ = grader(str(folder), "--tasks", "mlp", "--json", str(tmp_path / "grade.json"), *LIMITS, cwd=tmp_path,
                     env={"CUDA_VISIBLE_DEVICES": "0"})
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "grade.json").read_text())
    assert data["score"] == data["max_score"] > 0, [t["message"] for t in data["tests"] if t["status"] != "passed"][:3]


def fake_bwrap(tmp_path: Path) -> dict:
    """A PATH on which bubblewrap is installed but cannot start (as where user namespaces are off)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "bwrap").write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    (bin_dir / "bwrap").chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_required_sandbox_that_cannot_start_means_no_score(tmp_path):
    place(ATTACKS_DIR / "exit_zero_at_import", tmp_path / "submission")
    report = tmp_path / "grade.json"
    proc, _ = grader(str(tmp_path / "submission"), "--sandbox", "bwrap", "--json", str(report), *LIMITS,
                     cwd=tmp_path, env=fake_bwrap(tmp_path))
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr)
    assert not report.exists() and "Total" not in proc.stdout
    why = [line for line in proc.stderr.splitlines() if line.startswith("grader error:")]
    assert len(why) == 1 and "bubblewrap is required" in why[0] and "Permission denied" in why[0], proc.stderr
    # A batch grades for credit: the same, without being told.
    batch = tmp_path / "batch"
    place(ATTACKS_DIR / "exit_zero_at_import", batch / "one")
    proc, _ = grader("--batch", str(batch), "--csv", str(tmp_path / "g.csv"), *LIMITS, cwd=tmp_path,
                     env=fake_bwrap(tmp_path))
    assert proc.returncode == 3 and "bubblewrap is required" in proc.stderr, proc.stderr
    rows = list(csv.DictReader(open(tmp_path / "g.csv"))) if (tmp_path / "g.csv").exists() else []
    assert not [r for r in rows if r["status"] == "graded"], rows


def test_a_child_that_cannot_start_once_the_sandbox_has_is_that_submissions_error(tmp_path):
    """Once the start check has started a sandboxed child (GRADER_SANDBOX_STARTED), a child that then
    does not start, twice (a hog beside it, its own code), is an error of that grade, not "bubblewrap is
    required", which would stop the whole batch."""
    from grader.grading import START_CHECK, SandboxUnavailable, child_cannot_start, start_check_answer
    from grader.sandbox import SANDBOX_STARTED_ENV

    (tmp_path / "submission").mkdir()
    env = {**os.environ, **fake_bwrap(tmp_path), "PYTHONPATH": str(REPO), "GRADER_SANDBOX": "bwrap"}
    said = {}
    for proven in (False, True):
        env[SANDBOX_STARTED_ENV] = "1" if proven else ""
        proc = subprocess.run([sys.executable, "-c", START_CHECK, str(tmp_path / "submission")], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        said[proven] = start_check_answer(proc.stdout)  # (why, whether the sandbox was required and is not here)
    assert said[False][1], said
    assert not said[True][1] and "did not start, twice" in said[True][0], said
    assert "uid map" in said[True][0], said  # the reason bubblewrap gave
    assert not isinstance(child_cannot_start(*said[True]), SandboxUnavailable)
    assert isinstance(child_cannot_start(*said[False]), SandboxUnavailable)


def test_incomplete_or_malformed_results_are_an_error():
    from grader.grading import GraderFailure, fill_results
    from grader.results import Grade

    collected = [{"kind": "collected", "nodeid": f"tests/test_mlp.py::t{i}", "task": "mlp", "points": 1}
                 for i in range(2)]
    result = {"kind": "result", "nodeid": "tests/test_mlp.py::t0", "status": "passed", "message": "",
              "detail": "", "grader_error": False, "sandbox_required": False, "fields": {"kind": "passed"}}
    session = {"kind": "session", "exitstatus": 1, "isolation": "x; as uid 1", "isolation_summary": "x", "sandboxed": True,
               "grader_peak_mb": 1}
    for records in ([*collected, result, session],                                  # a test without a result
                    [*collected, result, result, {**result, "nodeid": "tests/test_mlp.py::t1"}, session],
                    [*collected, result, {**result, "nodeid": "tests/test_mlp.py::t1"}]):  # no session
        with pytest.raises(GraderFailure):
            fill_results(Grade("s", 1), records, 1, "")
    good = Grade("s", 1)
    fill_results(good, [*collected, result, {**result, "nodeid": "tests/test_mlp.py::t1", "status": "failed"}, session], 1, "")
    assert (good.score, good.max_score, good.sandboxed) == (1, 2, True)


# A hang in every constructor call that ignores SIGTERM and SIGINT, as infinite_loop_ignoring_sigterm does,
# asleep rather than spinning; hanging, it takes a process name the self-check can see.
HANG_NAME = f"mlph-{secrets.token_hex(5)}"
SLEEPS_IGNORING_SIGTERM = f"""import ctypes, signal, time
from torch import nn


class MLP(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        ctypes.CDLL(None).prctl(15, ctypes.c_char_p(b"{HANG_NAME}"), 0, 0, 0)  # PR_SET_NAME
        while True:
            time.sleep(1)


GLU = MLP
"""


def stopped_stderr(proc: subprocess.Popen) -> str:
    """What a batch that failed its check wrote to stderr, once it is killed (a grandchild still holding
    the pipe does not hold this up)."""
    proc.kill()
    try:
        return proc.communicate(timeout=10)[1][-2000:]
    except subprocess.TimeoutExpired:
        return "(its stderr was still held open 10 s after it was killed)"


def test_interrupted_batch_stops_soon_and_resume_retries_errors(tmp_path):
    if not bwrap_expected():
        pytest.skip("bubblewrap is not installed here (a batch requires its sandbox)")
    batch = tmp_path / "batch"
    for name in ("a_hang", "b_hang"):  # hangs that sleep: a spinning one would take two cores from the other lane
        (batch / name).mkdir(parents=True)
        (batch / name / "mlp_block.py").write_text(SLEEPS_IGNORING_SIGTERM)
    (batch / "c_correct").mkdir()
    shutil.copy(VARIANTS / "mlp_block" / "correct_textbook.py", batch / "c_correct" / "mlp_block.py")
    grades = tmp_path / "grades.csv"
    proc = subprocess.Popen([sys.executable, "-m", "instructor", "--batch", str(batch), "--csv", str(grades), "--jobs", "2",
                             "--tasks", "mlp,glu", "--call-timeout", "60", "--budget", "120"],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # As from a terminal: a maintainer command started in the background
                            # (`nohup ... &`) hands its children SIGINT ignored, and then Python
                            # never turns it into KeyboardInterrupt.
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    waited_until = time.monotonic() + 60
    while len(processes_named(HANG_NAME)) < 2 and time.monotonic() < waited_until and proc.poll() is None:
        time.sleep(0.2)
    try:
        if len(processes_named(HANG_NAME)) < 2:
            pytest.fail(f"the two hanging submissions did not both hang within 60 s: {stopped_stderr(proc)}")
        proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        try:
            _, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the batch did not stop within 30 s of Ctrl-C: {stopped_stderr(proc)}")
        assert time.monotonic() - started < 10, stderr
        gone_by = time.monotonic() + 10
        while processes_named(HANG_NAME) and time.monotonic() < gone_by:
            time.sleep(0.2)
        assert not processes_named(HANG_NAME), f"hanging submissions outlived the stopped batch: {stderr[-2000:]}"
    finally:  # nothing left grading or hanging, spending the rest of the maintainer command's CPU
        if proc.poll() is None:
            proc.kill()
        for pid in processes_named(HANG_NAME):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    assert proc.returncode == 130 and "--resume" in stderr, stderr
    rows = list(csv.DictReader(open(grades)))
    assert all(r["status"] in ("graded", "error") for r in rows), rows  # whole rows only
    # ... written at the stop, from the records kept so far: one row each, no more, no fewer.
    kept = sorted(path.stem for path in (tmp_path / ".grades_results").glob("*.json"))
    assert sorted(r["submission"] for r in rows) == kept, (rows, kept)
    # An error is graded again by --resume (a grader error, then fixed: here, its record written as the batch would).
    from instructor.batch_reports import Outputs
    from instructor.batch_store import Record

    Outputs.beside(grades).store.keep(Record("c_correct", error="machine trouble"))
    for name in ("a_hang", "b_hang"):
        shutil.rmtree(batch / name)
    # The batch's own options (a run of a batch given others stops, naming them): the hangs are gone, so the
    # long limits the interrupt needed cost nothing here.
    proc, _ = grader("--batch", str(batch), "--csv", str(grades), "--resume", "--tasks", "mlp,glu", "--call-timeout", "60",
                     "--budget", "120", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(open(grades)))
    mine = [r for r in rows if r["submission"] == "c_correct"]
    assert len(mine) == 1 and mine[0]["status"] == "graded" and mine[0]["score"] == mine[0]["max_score"], rows


def test_fake_reports_in_a_single_run(tmp_path):
    """--json, --gradescope, --junit and the step summary: the grader's own, score 0; $GITHUB_OUTPUT untouched."""
    place(ATTACKS_DIR / "fake_report_files", tmp_path / "submission")
    autograder = Path("/autograder/results/results.json")
    existed = autograder.exists()
    out = {name: tmp_path / name for name in ("grade.json", "results.json", "junit.xml", "summary.md", "output")}
    proc, _ = grader(str(tmp_path / "submission"), "--sandbox", "bwrap" if bwrap_expected() else "auto",
                     "--json", str(out["grade.json"]), "--gradescope",
                     str(out["results.json"]), "--junit", str(out["junit.xml"]), *LIMITS,
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
    assert not out["output"].exists()  # where a workflow step's outputs go: only the workflow writes there
    assert not (tmp_path / "result.json").exists() and not (tmp_path / "release-body.md").exists()
    assert autograder.exists() == existed


# ------------------------------------------------------------------- honest submissions

def test_correct_submission_scores_full_marks(sandboxed):
    row = sandboxed["by_name"]["correct"]
    assert row["status"] == "graded", row
    for task in ("mlp", "glu"):
        assert int(row[task]) == int(row[f"{task}_max"]) > 0, row
    assert int(row["score"]) == int(row["max_score"]), row


def test_partly_correct_submission_scores_partial_marks(sandboxed):
    row = sandboxed["by_name"]["partial"]
    assert int(row["mlp"]) == int(row["mlp_max"]), row
    assert 0 < int(row["glu"]) < int(row["glu_max"]), row
    assert "gate path" in row["first_failure"], row["first_failure"]
