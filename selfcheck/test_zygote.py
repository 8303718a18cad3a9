"""The warm zygote (``grader/sandbox/zygote.py``) that the variant pools fork their unsandboxed children
from: a forked child tells the suites what a spawned one tells them (its evidence, its crash, its exit),
and a sandboxed child never comes from the zygote, whatever the environment names."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from grader.judge.seam import make_backend
from grader.sandbox import SandboxBackend
from grader.sandbox.zygote import ZYGOTE_ENV, Zygote, ZygoteProcess
from selfcheck.harness import VARIANTS

if not sys.platform.startswith("linux"):
    pytest.skip("the zygote forks children over a Unix socket with descriptors (Linux)", allow_module_level=True)

EXERCISE = "triton_swiglu"  # a Triton exercise: the suites run it in a child of its own
CTOR = {"hidden_dim": 8, "intermediate_dim": 12}


@pytest.fixture(scope="module")
def zygote():
    started = Zygote()
    yield started
    started.close()


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    return int(stat[stat.rfind(")") + 2:].split()[1])


def call(folder, monkeypatch, address: str | None, probe: str, **kwargs) -> tuple[dict, int | None]:
    """The probe's evidence from a child started with ``address`` as the zygote (None: spawned), and the
    pid of the child's parent while it ran (None where it did not start or did not stay)."""
    if address is None:
        monkeypatch.delenv(ZYGOTE_ENV, raising=False)
    else:
        monkeypatch.setenv(ZYGOTE_ENV, address)
    backend = make_backend(str(folder))
    child_backend = backend.backend_for(EXERCISE)
    try:
        evidence = backend.call(EXERCISE, probe, **kwargs)
        child = child_backend._child
        parent = parent_of(child.proc.pid) if child is not None and child.proc.poll() is None else None
        return evidence, parent
    finally:
        child_backend.close()


@pytest.mark.parametrize("source, says", [
    ("import ctypes\nctypes.string_at(0)\n", "killed by SIGSEGV"),
    ("import os\nos._exit(0)\n", "exited with status 0"),
    ("import os\nos._exit(3)\n", "exited with status 3"),
], ids=["segfault", "exit-zero", "exit-three"])
def test_a_forked_child_ends_as_a_spawned_one(zygote, monkeypatch, tmp_path, source, says):
    (tmp_path / f"{EXERCISE}.py").write_text(source)
    spawned, _ = call(tmp_path, monkeypatch, None, "describe_block", cls_name="MLP", ctor=CTOR)
    forked, _ = call(tmp_path, monkeypatch, zygote.address, "describe_block", cls_name="MLP", ctor=CTOR)
    assert spawned["error"]["type"] == forked["error"]["type"] == "ChildExited", (spawned, forked)
    assert says in spawned["error"]["message"] and spawned["error"]["message"] == forked["error"]["message"], \
        (spawned, forked)


def test_a_forked_child_answers_as_a_spawned_one_and_is_the_zygotes(zygote, monkeypatch, tmp_path):
    shutil.copy(VARIANTS / "mlp_block" / "correct_textbook.py", tmp_path / f"{EXERCISE}.py")
    spawned, spawned_parent = call(tmp_path, monkeypatch, None, "describe_block", cls_name="MLP", ctor=CTOR)
    forked, forked_parent = call(tmp_path, monkeypatch, zygote.address, "describe_block", cls_name="MLP", ctor=CTOR)
    assert spawned["param_count"] == forked["param_count"] == 212, (spawned, forked)
    assert spawned_parent == os.getpid() and forked_parent == zygote._proc.pid, (spawned_parent, forked_parent)


def test_a_sandboxed_child_never_comes_from_the_zygote(zygote, monkeypatch, tmp_path):
    monkeypatch.setenv(ZYGOTE_ENV, zygote.address)
    shutil.copy(VARIANTS / "mlp_block" / "correct_textbook.py", tmp_path / "mlp_block.py")
    backend = SandboxBackend(tmp_path, mode="auto")
    try:
        backend.start()
        proc = backend._child.proc
        assert not isinstance(proc, ZygoteProcess) and parent_of(proc.pid) == os.getpid()
    finally:
        backend.close()
