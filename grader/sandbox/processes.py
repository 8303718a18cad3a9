"""Processes the grader starts and stops: resource limits before exec, spawning, killing strays."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Sequence

from grader import confinement
from grader.sandbox.limits import Limits


# ------------------------------------------------------------------- processes and their limits

def _load_prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# Looked up once here: a child between fork and exec must not go through the dynamic loader.
_PRCTL = _load_prctl()


def _prctl(option: int, arg: int) -> None:
    if _PRCTL is not None:  # elsewhere the process-group kill is all there is
        _PRCTL(option, arg, 0, 0, 0)


PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def die_with_parent() -> None:
    """SIGKILL this process when the thread that started it exits (Linux only)."""
    if sys.platform.startswith("linux"):
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def become_subreaper() -> None:
    """Orphans of our children (a double-forked daemon) become our children, so we can kill them."""
    if sys.platform.startswith("linux"):
        _prctl(PR_SET_CHILD_SUBREAPER, 1)


def _task_count() -> int:
    """Tasks on the whole machine: an upper bound on this user's, to set RLIMIT_NPROC above."""
    try:
        with open("/proc/loadavg") as f:
            return int(f.read().split()[3].split("/")[1])
    except (OSError, IndexError, ValueError):
        return 4096


def limit_preexec(limits: Limits, *, data_limit: bool, uid: int | None, own_uid: bool = False,
                   memory_limit: bool = True, cgroup_procs: Sequence[str] = (),
                   cpu_budgets: int = 1) -> Callable[[], None]:
    """Runs in the forked child before exec: cgroup, limits, death with the parent, then ``uid``.

    ``own_uid``: the submission runs as a uid of its own (switched to here, or by the child itself).
    """
    import resource

    memory = limits.memory_mb << 20
    cpu = int(limits.budget) * cpu_budgets + 10
    fsize = limits.file_size_mb << 20
    # RLIMIT_NPROC counts every process and thread of the real uid: for a uid of the submission's own
    # that is the submission's; for a shared uid it only stops a fork bomb.
    nproc = limits.processes if own_uid else _task_count() + 512

    def limit(which: int, soft: int, hard: int | None = None) -> None:
        try:
            current = resource.getrlimit(which)[1]
            hard = soft if hard is None else hard
            if current != resource.RLIM_INFINITY:  # never ask for more than we may have
                soft, hard = min(soft, current), min(hard, current)
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):  # not every platform has every limit
            pass

    def preexec() -> None:
        for procs in cgroup_procs:
            confinement.join_cgroup_preexec(procs)  # while still root: the cgroups are root's
        if memory_limit:
            limit(resource.RLIMIT_DATA if data_limit else resource.RLIMIT_AS, memory)
        limit(resource.RLIMIT_CPU, cpu, cpu + 5)
        limit(resource.RLIMIT_FSIZE, fsize)
        limit(resource.RLIMIT_CORE, 0)
        if hasattr(resource, "RLIMIT_NPROC"):
            limit(resource.RLIMIT_NPROC, nproc)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if uid is not None:  # last: from here on, nothing of root's is left to this process
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a change of credentials clears it

    return preexec


def _children_of(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # the command name may hold spaces and ')'
        if len(fields) > 1 and int(fields[1]) == pid:
            kids.append(int(entry))
    return kids


_spawn_lock = threading.Lock()  # held while starting a process we own, and while killing strays
_owned_pids: set[int] = set()


def spawn(*args, **kwargs) -> subprocess.Popen:
    """subprocess.Popen, registered so that ``kill_strays`` never takes it for an orphan."""
    with _spawn_lock:
        proc = subprocess.Popen(*args, **kwargs)
        _owned_pids.add(proc.pid)
        return proc


def forget(proc: subprocess.Popen) -> None:
    with _spawn_lock:
        _owned_pids.discard(proc.pid)


def kill_strays(rounds: int = 20) -> int:
    """Kill and reap children of this process that we did not start: orphans that escaped a
    killed child's process group (we are their subreaper). Returns how many were killed."""
    if not sys.platform.startswith("linux"):
        return 0
    killed = 0
    for _ in range(rounds):
        with _spawn_lock:
            strays = [pid for pid in _children_of(os.getpid()) if pid not in _owned_pids]
            for pid in strays:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed += 1
                except ProcessLookupError:
                    pass
        for pid in strays:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        if not strays:
            break
        time.sleep(0.01)  # a stray may have forked once more before it died: look again
    return killed


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process's whole group (it was started in a session of its own) and reap it."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    forget(proc)

