"""The system calls a sandboxed child is refused beyond what bubblewrap's namespaces stop: the kernel's keyrings.

Keyrings belong to no namespace bubblewrap makes. A child started from a grader that holds a session keyring
(a systemd service, a PAM login, a container runtime that gives each container one) inherits it through
``setuid`` and ``bwrap --new-session``, and could read the grader's keys or plant its own there; and keys it
adds to its uid's user keyring outlive it, for the next child given that uid. So ``add_key``, ``keyctl`` and
``request_key`` fail with ENOSYS, as Docker's default profile has them, and so does every system call of a
foreign ABI (i386's ``int 0x80``, x32), through which the same calls have other numbers.

The filter is classic BPF, as ``bwrap --seccomp FD`` reads it (what ``seccomp_export_bpf`` writes): an array
of ``struct sock_filter``. It is made for the machine it runs on; on one it does not know, there is none, and
the child still leaves the grader's session keyring behind (``child.py``'s ``leave_session_keyring``).
"""

from __future__ import annotations

import errno
import os
import platform
import struct

from grader.probes import child

# The audit architecture and the keyring calls' numbers (child.py's), for each machine the filter knows.
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
FILTERED = {machine: (arch, child.KEYRING_CALLS[machine]) for machine, arch in AUDIT_ARCH.items()}
X32_BIT = 0x40000000  # x86_64's x32 ABI: the same calls with this bit set

_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06  # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, ...
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data
_ALLOW, _REFUSE = 0x7FFF0000, 0x00050000 | errno.ENOSYS  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | ENOSYS


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def keyring_filter(machine: str | None = None) -> bytes | None:
    """The compiled filter for ``machine`` (default: this one); None where the filter does not know it."""
    known = FILTERED.get(machine or platform.machine())
    if known is None:
        return None
    arch, calls = known
    refuse_at = 4 + 1 + len(calls) + 1  # the last instruction: after the arch check and load, the x32 check, the calls, allow
    program = [_op(_LD_W_ABS, _ARCH), _op(_JEQ_K, arch, jt=1), _op(_RET_K, _REFUSE), _op(_LD_W_ABS, _NR)]
    program.append(_op(_JGE_K, X32_BIT, jt=refuse_at - len(program) - 1))
    for call in calls:
        program.append(_op(_JEQ_K, call, jt=refuse_at - len(program) - 1))
    program += [_op(_RET_K, _ALLOW), _op(_RET_K, _REFUSE)]
    assert len(program) == refuse_at + 1
    return b"".join(program)


def filter_file(machine: str | None = None) -> int | None:
    """A descriptor of an unnamed file holding the filter, read from its start (``bwrap --seccomp FD`` reads and
    closes it); None where there is no filter for this machine."""
    program = keyring_filter(machine)
    if program is None:
        return None
    fd = os.memfd_create("bwrap-seccomp", 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
