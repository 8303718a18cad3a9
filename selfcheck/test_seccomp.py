"""The seccomp filter a sandboxed child starts under (``grader/sandbox/seccomp.py``), read instruction by
instruction: the kernel's keyring calls refused on every ABI, every other call allowed. That it holds in a real
sandbox is the attack ``keyring_outlives_the_child`` (``selfcheck/test_grader_attacks.py``)."""

from __future__ import annotations

import errno
import struct

import pytest

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


@pytest.mark.parametrize("machine", sorted(seccomp.KEYRING_CALLS))
def test_the_keyring_filter_refuses_the_keyring_calls_on_every_abi(machine):
    """The filter's jumps, on each machine it knows: the three keyring calls refused, the x32 ABI's and a foreign
    architecture's calls refused (the same calls under other numbers), any other call allowed; on a machine it
    does not know there is no filter, and the child still runs."""
    arch, calls = seccomp.KEYRING_CALLS[machine]
    program = seccomp.keyring_filter(machine)
    refused, allowed = 0x00050000 | errno.ENOSYS, 0x7FFF0000
    assert [run_filter(program, arch, nr) for nr in calls] == [refused] * len(calls)
    assert run_filter(program, arch, seccomp.X32_BIT | calls[-1]) == refused
    assert run_filter(program, 0x40000003, calls[-1]) == refused  # AUDIT_ARCH_I386
    assert [run_filter(program, arch, nr) for nr in (0, 1, 59, 221, max(calls) + 1)] == [allowed] * 5
    assert seccomp.keyring_filter("riscv64") is None
