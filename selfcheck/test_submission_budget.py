"""A submission's limits are the submission's, not each child's: one time budget per task and one CPU (and
memory) cgroup over all of its children, however many a suite starts for it.

The SwiGLU suite starts two children per submission: one runs the student's file, one only the student's
kernels under trusted launch code. When each child had its own budget and its own one-core cgroup, a file
that kept both busy used two cores, and a grade with ``--budget 40`` took twice the budget (84 s here).

* ``test_a_submission_busy_in_both_its_processes_gets_one_budget``: that attack
  (``selfcheck/attacks/busy_in_both_swiglu_processes``), graded by ``python -m grader``, ends within one
  budget plus the start-up of a grade;
* ``test_every_child_of_a_submission_shares_its_budget_and_cgroups``: three children of one submission (the
  mechanism must not count on two): each in a cgroup of its own beneath the same submission cgroup, two
  busy ones using one core between them, and a third that finds the task's budget spent by the other two.
  Where no cgroup can be made, the report says so, and the budget is still shared.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path, PurePosixPath

import pytest

from selfcheck.harness import REPO, VARIANTS
from selfcheck.test_grader_attacks import ATTACKS_DIR, attack_source, bwrap_expected

ATTACK = "busy_in_both_swiglu_processes"
BUDGET = 20  # seconds: long enough that two budgets (40 s) stand out from start-up noise, short enough for CI
GRADE_LIMIT = 600  # seconds: far above one budget (or two) plus start-up
SPIN = 6  # seconds: call timeout and budget of the mechanism check, so each busy child spins this long
NO_CGROUP = "refused by the self-check"

# Run in a process of its own (as the grader's start check is): its children make it a subreaper, and
# stopping them kills whatever else that process started.
CHILDREN_CHECK = r"""
import json, sys, threading, time
from pathlib import Path
from grader import confinement
from grader.sandbox import Limits, SandboxBackend, close_all

busy, calm, spin, refuse = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "refused"
if refuse:  # a machine where no cgroup can be made
    confinement.MemoryCgroup.create = staticmethod(lambda *args, **kwargs: sys.argv[5])
    confinement.CpuCgroup.create = staticmethod(lambda *args, **kwargs: sys.argv[5])
limits = Limits(call_timeout=spin, budget=spin, memory_mb=2048)
children = [SandboxBackend(folder, limits, "bwrap") for folder in (busy, busy, calm)]
try:
    for child in children:
        child.start()
    cgroups = [Path(f"/proc/{child._child.proc.pid}/cgroup").read_text() for child in children]
    counter = children[0].submission.cpu
    cpu_before, started = counter.cpu_seconds() if counter else 0.0, time.monotonic()
    spinning = [threading.Thread(target=child.warm, args=("mlp_block", "mlp")) for child in children[:2]]
    for thread in spinning:
        thread.start()
    for thread in spinning:
        thread.join()
    spun, cpu = time.monotonic() - started, counter.cpu_seconds() - cpu_before if counter else None
    calm_child, ctor = children[2], {"hidden_dim": 4, "intermediate_dim": 8}
    calm_child.task = "mlp"
    same_task = calm_child.call("mlp_block", "describe_block", cls_name="MLP", ctor=ctor)
    calm_child.task = "glu"
    other_task = calm_child.call("mlp_block", "describe_block", cls_name="GLU", ctor=ctor)
    print(json.dumps({"cgroups": cgroups, "isolation": [child.started.isolation() for child in children],
                      "spun": spun, "cpu": cpu, "same_task": same_task, "other_task": other_task}))
finally:
    close_all()
"""


def needs_the_sandbox() -> None:
    if not bwrap_expected():
        pytest.skip("bubblewrap is not installed here (install it to run these checks)")


def grade(folder: Path, out: Path) -> tuple[dict, float]:
    """``python -m grader FOLDER --tasks swiglu --sandbox bwrap --budget BUDGET``: the report and its wall time."""
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "grader", str(folder), "--tasks", "swiglu", "--sandbox", "bwrap",
                           "--budget", str(BUDGET), "--json", str(out)], cwd=REPO, capture_output=True, text=True,
                          timeout=GRADE_LIMIT, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text()), time.monotonic() - started


def test_a_submission_busy_in_both_its_processes_gets_one_budget(tmp_path):
    """Both of the attack's processes spin; the grade ends within one budget plus the start-up of a grade
    (the stub's grade, measured beside it). With a budget per process it took two budgets plus that."""
    pytest.importorskip("triton", reason="Triton is not installed: the SwiGLU suite cannot run here")
    needs_the_sandbox()
    stub, attack = tmp_path / "stub", tmp_path / ATTACK
    stub.mkdir()
    attack.mkdir()
    shutil.copy(REPO / "exercises" / "triton_swiglu.py", stub)
    (attack / "triton_swiglu.py").write_text(attack_source(ATTACKS_DIR / ATTACK / "triton_swiglu.py"))
    _, start_up = grade(stub, tmp_path / "stub.json")
    report, seconds = grade(attack, tmp_path / "attack.json")
    assert report["sandboxed"] and report["score"] == 0 and report["max_score"] > 0, report["isolation"]
    stopped = [t["name"] for t in report["tests"] if "time budget for task swiglu" in t["message"]]
    assert stopped, [t["message"] for t in report["tests"]][:5]
    assert seconds < start_up + 1.5 * BUDGET, (
        f"graded in {seconds:.1f} s with --budget {BUDGET}; the stub in {start_up:.1f} s: a budget per process?")


def grader_cgroups(proc_cgroup: str) -> dict[str, PurePosixPath]:
    """Hierarchy ('' for v2, else its controllers) -> the grader's cgroup the process is in, from
    /proc/PID/cgroup; only the hierarchies where the grader put it."""
    found = {}
    for line in proc_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        if "mlp-block-grader" in path:
            found[controllers] = PurePosixPath(path)
    return found


def check_children(tmp_path: Path, cgroups: str) -> dict:
    busy, calm = tmp_path / "busy", tmp_path / "calm"
    busy.mkdir()
    calm.mkdir()
    (busy / "mlp_block.py").write_text("while True:  # importing it keeps its process busy\n    pass\n")
    shutil.copy(VARIANTS / "mlp_block" / "correct_textbook.py", calm / "mlp_block.py")
    proc = subprocess.run([sys.executable, "-c", CHILDREN_CHECK, str(busy), str(calm), str(SPIN), cgroups, NO_CGROUP],
                          cwd=REPO, capture_output=True, text=True, timeout=GRADE_LIMIT,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("cgroups", ["made", "refused"])
def test_every_child_of_a_submission_shares_its_budget_and_cgroups(tmp_path, cgroups):
    needs_the_sandbox()
    result = check_children(tmp_path, cgroups)
    # Two busy children spent the task's budget between them: the third finds it spent, another task not.
    same, other = result["same_task"].get("error") or {}, result["other_task"]
    assert same.get("type") == "Timeout" and "time budget for task mlp" in same.get("message", ""), same
    assert other.get("param_count") == 3 * 4 * 8 + 2 * 8 + 4, other
    assert result["spun"] < 2 * SPIN, result["spun"]  # side by side, each for the budget it found left
    if cgroups == "refused" or "CPU limit 1 core over all its processes" not in result["isolation"][0]:
        for isolation in result["isolation"]:  # the report says that there is none, and why
            assert "no CPU limit over its processes (" in isolation, isolation
        if cgroups == "refused":
            assert f"memory limit per process only ({NO_CGROUP})" in result["isolation"][0], result["isolation"]
            assert all(not grader_cgroups(text) for text in result["cgroups"]), result["cgroups"]
        return
    per_child = [grader_cgroups(text) for text in result["cgroups"]]
    assert per_child[0] and all(found.keys() == per_child[0].keys() for found in per_child), per_child
    for hierarchy in per_child[0]:
        paths = [found[hierarchy] for found in per_child]
        assert len({path.parent for path in paths}) == 1, paths  # beneath one cgroup of the submission
        assert len(set(paths)) == len(paths), paths  # each its own, so that stopping one spares the others
    # Both busy children spun side by side, on one core's worth of CPU between them.
    assert result["cpu"] <= 1.2 * result["spun"] + 0.5, f"{result['cpu']:.1f} CPU s in {result['spun']:.1f} s"


# An import stopped because an earlier call of its task used up that task's budget is no verdict on the file:
# the exercise's next task imports it again, within a budget of its own. (Under load, the MLP task of a file
# whose MLP.forward hangs ran out of its budget while the restarted child imported the file; that import was
# kept as the file's, and its GLU task, right, scored 0.)
BUDGET_LEFT_CHECK = r"""
import json, sys
from pathlib import Path
from grader.sandbox import Limits, SandboxBackend, close_all

folder = Path(sys.argv[1])
child = SandboxBackend(folder, Limits(call_timeout=20, budget=6, memory_mb=2048), "bwrap")
try:
    ctor = {"hidden_dim": 4, "intermediate_dim": 8}
    child.task = "mlp"
    child.submission.charge("mlp", 5.5)  # what an earlier, hanging MLP call left: half a second
    stopped = child.call("mlp_block", "describe_block", cls_name="MLP", ctor=ctor)
    child.task = "glu"
    other_task = child.call("mlp_block", "describe_block", cls_name="GLU", ctor=ctor)
    print(json.dumps({"stopped": stopped, "other_task": other_task}))
finally:
    close_all()
"""


def test_an_import_stopped_by_its_tasks_budget_is_retried_by_the_next_task(tmp_path):
    needs_the_sandbox()
    folder = tmp_path / "slow_import"
    folder.mkdir()
    source = (VARIANTS / "mlp_block" / "correct_textbook.py").read_text()
    (folder / "mlp_block.py").write_text(f"import time\ntime.sleep(2)  # a slow import, right code\n{source}")
    proc = subprocess.run([sys.executable, "-c", BUDGET_LEFT_CHECK, str(folder)], cwd=REPO, capture_output=True,
                          text=True, timeout=GRADE_LIMIT, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    stopped = result["stopped"].get("error") or {}
    assert stopped.get("type") == "Timeout" and "time budget" in stopped.get("message", ""), result["stopped"]
    assert result["other_task"].get("param_count") == 3 * 4 * 8 + 2 * 8 + 4, result["other_task"]
