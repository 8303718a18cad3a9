"""The grader's start check (``check_child_can_start``, grader/grading.py) starts the child as grading does and
has it answer before importing torch: it proves that a child starts and finds torch, in a fraction of a second,
where importing torch took seconds of every grading's CPU."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from grader.probes.child import HEADER, START_CHECK_FLAG
from grader.sandbox.limits import CHILD_SCRIPT


def start_check_child(tmp_path: Path, folders: list[str]) -> subprocess.CompletedProcess:
    """The child, started isolated with ``folders`` as its only package folders (-S: not even this Python's own
    site-packages) and the start-check flag."""
    return subprocess.run([sys.executable, "-I", "-B", "-S", str(CHILD_SCRIPT), json.dumps(folders), START_CHECK_FLAG],
                          stdin=subprocess.DEVNULL, capture_output=True, cwd=tmp_path, timeout=60)


def test_the_child_answers_without_importing_torch(tmp_path):
    """A torch that raises when imported: the child finds it, says hello and ends, never importing it."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise SystemExit('torch imported by the start check')\n")
    proc = start_check_child(tmp_path, [str(tmp_path)])
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    kind, length = HEADER.unpack(proc.stdout[:HEADER.size])
    assert kind == b"H" and json.loads(proc.stdout[HEADER.size:HEADER.size + length])["pid"] > 0


def test_a_child_that_finds_no_torch_says_so_and_never_says_hello(tmp_path):
    """No torch at all, or only the empty folder an uninstall can leave (a namespace package, no torch)."""
    proc = start_check_child(tmp_path, [])
    assert proc.returncode != 0 and not proc.stdout
    assert "finds no torch" in proc.stderr.decode(), proc.stderr.decode()[-2000:]
    (tmp_path / "left_behind" / "torch").mkdir(parents=True)
    proc = start_check_child(tmp_path, [str(tmp_path / "left_behind")])
    assert proc.returncode != 0 and not proc.stdout and "finds no torch" in proc.stderr.decode()

