"""The seccomp filter a sandboxed child starts under (``grader/sandbox/seccomp.py``), read instruction by
instruction: the kernel's keyring calls refused on every ABI, every other call allowed. That it holds in a real
sandbox is the attack ``keyring_outlives_the_child`` (``selfcheck/test_grader_attacks.py``)."""

from __future__ import annotations

import errno
import os
import struct
import subprocess
import sys

import pytest

from grader.paths import REPO
from grader.probes import child
from grader.sandbox import seccomp


def run_filter(program: bytes, arch: int, nr: int) -> int:
    """What the classic BPF ``program`` returns for a system call ``nr`` of audit architecture ``arch``: the few
    instructions grader/sandbox/seccomp.py writes (load a word, jump if equal or above, return)."""
    ops, at, loaded = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)], 0, 0
    while True:
        code, jt, jf, k = ops[at]
        if code == 0x20:
            loaded, at = {0: nr, 4: arch}[k], at + 1
        elif code in (0x15, 0x35):
            at += 1 + (jt if (loaded == k if code == 0x15 else loaded >= k) else jf)
        else:
            assert code == 0x06, code
            return k


@pytest.mark.parametrize("machine", sorted(seccomp.FILTERED))
def test_the_keyring_filter_refuses_the_keyring_calls_on_every_abi(machine):
    """The filter's jumps, on each machine it knows: the three keyring calls refused, the x32 ABI's and a foreign
    architecture's calls refused (the same calls under other numbers), any other call allowed; on a machine it
    does not know there is no filter, and the child still runs."""
    arch, calls = seccomp.FILTERED[machine]
    program = seccomp.keyring_filter(machine)
    refused, allowed = 0x00050000 | errno.ENOSYS, 0x7FFF0000
    assert [run_filter(program, arch, nr) for nr in calls] == [refused] * len(calls)
    assert run_filter(program, arch, seccomp.X32_BIT | calls[-1]) == refused
    assert run_filter(program, 0x40000003, calls[-1]) == refused  # AUDIT_ARCH_I386
    assert [run_filter(program, arch, nr) for nr in (0, 1, 59, 221, max(calls) + 1)] == [allowed] * 5
    assert seccomp.keyring_filter("riscv64") is None


LEAVES = r"""
import ctypes, platform, sys
from grader.probes import child
add_key, _, keyctl = child.KEYRING_CALLS[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def listing():
    buf = ctypes.create_string_buffer(4096)
    return libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(11), ctypes.c_long(-3), buf, ctypes.c_long(4096))
libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(1), b"the-graders-session")  # the grader's own, named
secret = b"the grader's key"
assert libc.syscall(ctypes.c_long(add_key), b"user", b"secret", secret, ctypes.c_size_t(len(secret)),
                    ctypes.c_long(-3)) > 0, ctypes.get_errno()
before = listing()
child.leave_session_keyring()
print(before, listing())
"""


@pytest.mark.skipif(os.uname().machine not in child.KEYRING_CALLS, reason="no keyring calls known for this machine")
def test_the_child_leaves_the_graders_session_keyring():
    """Where there is no filter (a machine it does not know, no bubblewrap): the child's first act leaves the
    session keyring it inherited, so the grader's keys are not its to list or read (4 bytes a key id)."""
    done = subprocess.run([sys.executable, "-c", LEAVES], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-1500:]
    before, after = map(int, done.stdout.split())
    assert before == 4 and after == 0, (before, after)
