"""Run the code under test in a child process: isolated, and on Linux sandboxed.

``ChildBackend`` is a seam backend (``describe(exercise)``, ``call(exercise, probe, **kwargs)``) whose
probes run in a child process (``grader/child.py``). The caller only ever gets evidence back: a
child that hangs, exits, segfaults or runs out of memory turns into error evidence such as
``{"error": {"stage": "GLU.forward", "type": "Timeout", ...}}`` and the next call gets a fresh child.

Two uses:

* ``sandbox=False``: plain isolation for local runs, so a Triton kernel that corrupts the heap under
  the interpreter fails its tests instead of killing pytest. The child sees the same files and
  environment as the test run.
* ``sandbox=True`` (``SandboxBackend``, what ``python -m grader`` uses): the child gets a copy of the
  submission's exercise files and of ``probes.py``/``child.py`` only. On Linux it runs under
  bubblewrap: read-only system and Python directories, nothing of the grader's checkout (no tests,
  no reference), a private /tmp and /dev/shm of a few MB, no network, its own PID namespace (so
  nothing it starts outlives it). When the grader runs as root, the child (bubblewrap included) runs
  as a host uid of its own (``grader/confinement.py``), never as root, and all of its processes share
  one memory limit (a cgroup) where one can be made. Mode ``bwrap`` (grading for credit) fails with a
  ``GraderError`` when bubblewrap cannot start; mode ``auto`` (a student's local check) then runs the
  child unsandboxed, with the same limits and uid, and ``isolation()`` says so and why.

Every child gets resource limits (address space, CPU time, file size, processes; a local run no
memory limit), a wall-clock limit per call, and a budget per task (a hang in one task costs only that
task); it is killed with its whole process group after use. What it sends back is hostile input
(``grader/evidence.py``): checked for size and shape before anything computes on it, and the time
spent on that counts against the submission's budget. Limits come from ``GRADER_*`` environment
variables (see ``Limits.from_env``), which ``python -m grader`` sets from its options.
"""

from __future__ import annotations

import atexit
import glob
import io
import json
import os
import queue
import shutil
import signal
import site
import struct
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from grader import confinement
from grader.safe_text import printable

GRADER_DIR = Path(__file__).resolve().parent
REPO = GRADER_DIR.parent
CHILD_SCRIPT = GRADER_DIR / "child.py"
HEADER = struct.Struct(">cQ")
NOBODY = 65534
MAX_STAGE_FRAME = 4096
# One child serves every task of its exercise file, each with a wall-clock budget of its own; its CPU
# time limit is only the backstop behind those.
CPU_BUDGETS = 4

# What the submission may bring into the sandbox: its top-level Python files, nothing else.
MAX_SUBMISSION_FILES = 64
MAX_SUBMISSION_FILE_BYTES = 2 << 20


# ------------------------------------------------------------------------------------- limits

@dataclass(frozen=True)
class Limits:
    call_timeout: float = 60.0       # seconds of wall clock for one probe (or one import)
    startup_timeout: float = 120.0   # seconds for a fresh child to import torch and report ready
    budget: float = 300.0            # seconds of wall clock for all calls of one task (mlp, glu, ...)
    memory_mb: int = 4096            # all of the submission's processes together (a cgroup where one
                                     # can be made), and each process (RLIMIT_AS; RLIMIT_DATA with a GPU)
    file_size_mb: int = 64           # largest file the child may write
    tmpfs_mb: int = 64               # size of the sandbox's /tmp and of its /dev/shm
    processes: int = 256             # processes and threads of the submission's uid (RLIMIT_NPROC)
    max_reply_mb: int = 64           # largest evidence the parent accepts from the child
    threads: int = 1                 # torch/OpenMP threads in the child: the probes are small
    cpus: float = 1.0                # cores' worth of CPU time all of the submission's processes share
                                     # (a cgroup where one can be made); CPU time counts against budget

    ENV = {
        "call_timeout": "GRADER_CALL_TIMEOUT",
        "startup_timeout": "GRADER_STARTUP_TIMEOUT",
        "budget": "GRADER_BUDGET",
        "memory_mb": "GRADER_MEMORY_MB",
        "processes": "GRADER_PROCESSES",
        "threads": "GRADER_CHILD_THREADS",
        "cpus": "GRADER_CPUS",
    }

    @classmethod
    def from_env(cls, environ=os.environ) -> "Limits":
        values = {}
        for name, var in cls.ENV.items():
            if environ.get(var):
                kind = type(getattr(cls, name))
                values[name] = kind(float(environ[var])) if kind is int else kind(environ[var])
        return cls(**values)

    def to_env(self) -> dict[str, str]:
        return {var: str(getattr(self, name)) for name, var in self.ENV.items()}


SANDBOX_ENV = "GRADER_SANDBOX"  # auto (default) | bwrap (required: fail closed) | none
SANDBOX_MODES = ("auto", "bwrap", "none")
SANDBOX_REQUIRED = "bubblewrap is required"  # how every "no sandbox, no grade" error begins
# Set by the grader once its start check has started a sandboxed child on this machine: from then on a
# child that cannot start is that submission's problem (a neighbour hogging the machine, its own code),
# never a sign that the sandbox is unavailable, so it must not stop a whole batch.
SANDBOX_STARTED_ENV = "GRADER_SANDBOX_STARTED"


class GraderError(RuntimeError):
    """Something is wrong with the grader's machine, not with the submission (no child could start)."""


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


def _limit_preexec(limits: Limits, *, data_limit: bool, uid: int | None, own_uid: bool = False,
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


# ------------------------------------------------------------------------- the sandbox's view

def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _python_dirs() -> list[str]:
    """Directories the child's Python needs: prefixes, stdlib, site-packages, where torch lives."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))}
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        candidates.add(sysconfig.get_path(name))
    candidates.update(site.getsitepackages())
    candidates.update(child_sys_path())
    for module in ("torch", "triton", "numpy"):
        spec = _find_spec(module)
        if spec is not None and spec.origin:
            candidates.add(os.path.dirname(os.path.dirname(spec.origin)))
    for var in ("LD_LIBRARY_PATH",):
        candidates.update(p for p in os.environ.get(var, "").split(os.pathsep) if p)
    dirs = set()
    for path in candidates:
        if path and os.path.isdir(path):
            dirs.add(os.path.abspath(path))
            dirs.add(os.path.realpath(path))
    return sorted(dirs)


def child_sys_path() -> list[str]:
    """The entries of this process's sys.path the child gets too (it starts Python isolated, -I).

    Package folders only (site-packages, a conda or pyenv prefix, a .pth-added folder); never the
    grader's checkout, which pytest puts on sys.path and which holds the reference.
    """
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    keep = []
    for entry in sys.path:
        if not entry or not os.path.exists(entry):
            continue
        real = os.path.realpath(entry)
        if _under(real, str(REPO)) and not any(_under(real, p) for p in prefixes):
            continue
        if _under(str(REPO), real):  # a folder above the checkout would show it whole
            continue
        if any(_under(real, p) for p in prefixes) or os.path.basename(real) in ("site-packages", "dist-packages"):
            keep.append(entry)
    return keep


def _find_spec(name: str):
    import importlib.util

    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt/conda")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                "/etc/localtime", "/etc/nsswitch.conf")


def bwrap_command(bwrap: str, runtime: Path, inner_cwd: str, *, userns: bool, gpu: bool,
                  tmpfs_mb: int = 64, as_root: bool = False) -> list[str]:
    """bubblewrap arguments for a sandbox that sees system libraries, Python and the copies only.

    ``as_root``: bubblewrap itself runs as root (so it can bind Python from a folder only root may
    enter, such as /root/.pyenv) with no user namespace, and keeps only the capabilities to change
    uid: the child's first act is to become the submission's own unprivileged uid (``child.py
    --uid``), before it imports anything that is not the interpreter's. A user namespace would only
    rename root ("nobody" inside, root outside) and leave /proc/sys writable.
    """
    hidden = str(REPO)  # the grader's checkout: tests and reference must stay unreadable
    cmd = [bwrap, "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if as_root:  # every namespace but the user one (--unshare-all would try that too)
        cmd += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        cmd += ["--unshare-all"]
    if userns and not as_root:
        cmd += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    # A private /tmp first: binds below may reach into the host's /tmp (a venv there) and must win.
    # /dev/shm is a small tmpfs of its own too: --dev's would be bounded only by the host's memory.
    size = str(tmpfs_mb << 20)
    cmd += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm",
            "--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    if gpu:
        for dev in sorted(glob.glob("/dev/nvidia*")):
            cmd += ["--dev-bind-try", dev, dev]
        cmd += ["--ro-bind-try", "/sys", "/sys"]
    bound: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            cmd += ["--ro-bind", path, path]
            bound.append(path)
    for path in SYSTEM_FILES:
        cmd += ["--ro-bind-try", path, path]
    python_dirs = _python_dirs()
    # The folders bubblewrap makes to mount on would be root's alone (0700): the child, not root,
    # must pass through them.
    made: set[str] = set()
    for path in python_dirs:
        for parent in reversed(Path(path).parents):
            folder = str(parent)
            if folder != "/" and folder not in made and not any(_under(folder, b) for b in bound):
                cmd += ["--perms", "0755", "--dir", folder]
                made.add(folder)
    for path in python_dirs:
        if not any(_under(path, b) for b in bound):
            cmd += ["--ro-bind", path, path]
            bound.append(path)
    if any(_under(hidden, b) for b in bound):
        # Python lives in a folder that also holds the checkout: cover the checkout with an empty
        # folder, then put back what Python needs from inside it (a venv in the checkout).
        cmd += ["--tmpfs", hidden]
        for path in python_dirs:
            if _under(path, hidden):
                cmd += ["--ro-bind", path, path]
    cmd += ["--ro-bind", str(runtime / "grader-child"), "/grader-child",
            "--ro-bind", str(runtime / "submission"), "/submission",
            "--chdir", inner_cwd, "--clearenv"]
    return cmd


def _gpu_present() -> bool:
    return bool(glob.glob("/dev/nvidia[0-9]*"))


# ------------------------------------------------------------------------ how a child is started

@dataclass
class Plan:
    """One way to start the child; the first that works is kept for the rest of the process."""
    name: str
    isolation: str         # what the report says
    sandboxed: bool
    bwrap: str | None = None
    userns: bool = False


_working_plan: dict[tuple[bool, str], Plan] = {}  # (sandboxed?, mode) -> the plan that started a child


def _plans(sandbox: bool, mode: str, bwrap_failure: str = "") -> list[Plan]:
    if not sandbox:
        return [Plan("local", "isolated child process (local run, not sandboxed)", sandboxed=False)]
    plans = []
    bwrap = shutil.which("bwrap") if sys.platform.startswith("linux") else None
    if mode in ("auto", "bwrap") and bwrap:
        what = "sandboxed with bubblewrap (no network, no access to the grader's files)"
        if confinement.running_as_root():
            plans.append(Plan("bwrap-root", what, True, bwrap=bwrap))
        else:
            plans.append(Plan("bwrap-userns", what, True, bwrap=bwrap, userns=True))
            # A setuid bubblewrap where user namespaces are off: the same sandbox, the caller's uid.
            plans.append(Plan("bwrap", what, True, bwrap=bwrap))
    if mode in ("auto", "none"):
        why = ("sandbox turned off" if mode == "none" else
               "bubblewrap not installed" if not bwrap and sys.platform.startswith("linux") else
               f"bubblewrap could not start here: {bwrap_failure}" if bwrap else f"no sandbox on {sys.platform}")
        plans.append(Plan("plain", f"NOT sandboxed ({why}): child process with limits", False))
    return plans


_last_run: list[tuple[str, bool]] = []  # (isolation in words, sandboxed?) of each child started


def isolation() -> str:
    """How the last child of this process was run, in words for the report ('' if none ran)."""
    return _last_run[-1][0] if _last_run else ""


def sandboxed() -> bool:
    """Whether every child this process started ran in the sandbox (False if none ran)."""
    return bool(_last_run) and all(ok for _, ok in _last_run)


# ------------------------------------------------------------------------------ one child process

class ChildFailure(Exception):
    def __init__(self, kind: str, message: str, stage: str) -> None:
        super().__init__(message)
        self.kind, self.message, self.stage = kind, message, stage


SIGNAL_HINTS = {
    "SIGSEGV": "a segmentation fault: memory was read or written out of bounds",
    "SIGBUS": "a bus error: memory was read or written out of bounds",
    "SIGABRT": "an abort, often heap corruption from an out-of-bounds write",
    "SIGKILL": "killed, usually for using too much memory",
    "SIGXCPU": "it used up its CPU time",
    "SIGXFSZ": "it wrote a file larger than allowed",
    "SIGFPE": "an arithmetic fault",
}


class ChildProcess:
    """A started child: send a frame, wait for the reply with a deadline, kill it."""

    def __init__(self, proc: subprocess.Popen, stderr_path: Path, max_reply: int, via_bwrap: bool = False) -> None:
        self.proc = proc
        self.via_bwrap = via_bwrap
        self.stderr_path = stderr_path
        self.max_reply = max_reply
        # Bounded: a child that writes frame after frame waits for the grader to read them, instead
        # of piling gigabytes up in the grader's memory.
        self.frames: queue.Queue = queue.Queue(maxsize=2)
        self.closed = threading.Event()
        self.stage = ""
        self.reader = threading.Thread(target=self._read_frames, daemon=True)
        self.reader.start()

    def _put(self, frame: tuple) -> bool:
        while not self.closed.is_set():
            try:
                self.frames.put(frame, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _read_frames(self) -> None:
        stream = self.proc.stdout
        try:
            while not self.closed.is_set():
                header = stream.read(HEADER.size)
                if len(header) < HEADER.size:
                    break
                kind, length = HEADER.unpack(header)
                # The only frames a child sends: a stage name (short), a reply, a hello. Anything
                # else means the channel was taken over: stop reading, the child gets killed.
                cap = MAX_STAGE_FRAME if kind == b"S" else self.max_reply if kind in (b"R", b"H") else -1
                if length > cap:
                    what = (f"a frame of kind {kind!r}" if cap < 0 else
                            f"{length} bytes of evidence, over the {self.max_reply >> 20} MB limit")
                    self._put(("protocol", f"sent {what}"))
                    return
                payload = stream.read(length)
                if len(payload) < length:
                    break
                if not self._put((kind, payload)):
                    return
        except (OSError, ValueError):
            pass
        self._put(("eof", b""))

    def send(self, kind: bytes, payload: bytes) -> None:
        # A reply nobody asked for is a protocol violation; stage names left over are harmless.
        for _ in range(self.frames.maxsize + 1):
            try:
                leftover = self.frames.get_nowait()[0]
            except queue.Empty:
                break
            if leftover != b"S":
                raise ChildFailure("ChildExited", self._death() if leftover in ("eof", "protocol") else
                                   "the process running your code sent a reply nobody asked for", self.stage)
        try:
            self.proc.stdin.write(HEADER.pack(kind, len(payload)) + payload)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise ChildFailure("ChildExited", self._death(), self.stage) from None

    def receive(self, expected: bytes, deadline: float, timeout_text: str) -> bytes:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChildFailure("Timeout", timeout_text, self.stage)
            try:
                kind, payload = self.frames.get(timeout=remaining)
            except queue.Empty:
                continue
            if kind == b"S":
                self.stage = printable(payload.decode("utf-8", "replace")[:200])
            elif kind == expected:
                return payload
            elif kind == "protocol":
                raise ChildFailure("ChildExited", f"the process running your code {payload}", self.stage)
            elif kind == "eof":
                raise ChildFailure("ChildExited", self._death(), self.stage)
            # anything else is noise the code under test wrote into the channel: ignore it

    def _death(self) -> str:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "the process running your code stopped answering"
        if self.via_bwrap and code is not None and code > 128:
            code = -(code - 128)  # bubblewrap exits with 128 + the signal that killed the sandboxed process
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
            why = SIGNAL_HINTS.get(name, "")
            return f"the process running your code was killed by {name}" + (f" ({why})" if why else "")
        if code == 0:
            return ("the process running your code exited with status 0: don't call sys.exit(),"
                    " exit() or os._exit() in an exercise file")
        tail = self.stderr_tail()
        if "MemoryError" in tail or "out of memory" in tail.lower():
            return f"the process running your code ran out of memory (limit applies): {tail}"
        return f"the process running your code exited with status {code}" + (f": {tail}" if tail else "")

    def stderr_tail(self) -> str:
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(max(0, os.path.getsize(self.stderr_path) - 4096))
                lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines() if ln.strip()]
            return lines[-1][:300] if lines else ""
        except OSError:
            return ""

    def kill(self, strays: bool = False) -> None:
        self.closed.set()
        kill_group(self.proc)
        if strays:
            kill_strays()  # a daemon it left may hold our pipe open: it goes before we wait for EOF
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        # Closing stdout while the reader thread is blocked in read() would wait for that read: let the
        # reader see EOF (every writer is dead now) and finish first.
        self.reader.join(timeout=5)
        if not self.reader.is_alive():
            self.proc.stdout.close()
        self.stderr_path.unlink(missing_ok=True)


# --------------------------------------------------------------------------------- the backend

def exercise_folder(folder: Path) -> Path:
    """A whole checkout holds its exercise files in exercises/; otherwise the folder itself."""
    return folder / "exercises" if (folder / "exercises").is_dir() else folder


def _error(stage: str, kind: str, message: str) -> dict:
    # Parts of the message (its stderr, the stage it announced) came from the child.
    return {"error": {"stage": printable(stage), "type": kind, "message": printable(message), "where": "",
                      "not_implemented": False}}


_live_backends: "weakref.WeakSet[ChildBackend]" = weakref.WeakSet()


def close_all() -> None:
    """Stop every child of this process and remove their copies (end of a test session, or exit)."""
    for backend in list(_live_backends):
        backend.close()


atexit.register(close_all)


class ChildBackend:
    """Seam backend whose probes run in a child process (see the module docstring).

    ``folder`` is the submission (a folder of exercise files or a whole checkout). For local runs
    ``locate``/``describe``/``module_name`` say where an exercise's file is, how to name it in
    messages and which module name to import it under (the seam passes its own rules).

    ``task`` is the task of the test now running (set by the suites' conftest): each task has a
    time budget of its own, so an endless loop in ``MLP.forward`` cannot cost the GLU tests.
    """

    def __init__(self, folder: str | Path, *, sandbox: bool, limits: Limits | None = None,
                 mode: str | None = None, locate: Callable[[str], Path] | None = None,
                 describe: Callable[[str], str] | None = None,
                 module_name: Callable[[str], str] | None = None) -> None:
        self.folder = Path(folder)
        self.sandbox = sandbox
        self.limits = limits or Limits.from_env()
        self.mode = mode or os.environ.get(SANDBOX_ENV, "auto")
        if self.mode not in SANDBOX_MODES:
            raise GraderError(f"{SANDBOX_ENV}={self.mode!r}: expected one of {', '.join(SANDBOX_MODES)}")
        self.exercises = exercise_folder(self.folder)
        in_checkout = self.exercises != self.folder
        self._locate = locate or (lambda ex: self.exercises / f"{ex}.py")
        self._describe = describe or (lambda ex: f"{'exercises/' if in_checkout else ''}{ex}.py")
        self._module_name = module_name or (lambda ex: f"_target_exercise_{ex}")
        self.task = ""
        self._restart_task = ""
        self._child: ChildProcess | None = None
        self._loaded: set[str] = set()
        self._import_failures: dict[str, dict] = {}  # exercise -> error evidence, once it hung/crashed
        self._spent: dict[str, float] = {}  # task -> seconds of the submission's time used
        self._runtime: Path | None = None
        self._job_user: confinement.JobUser | None = None
        self._cgroup: confinement.MemoryCgroup | None = None
        self._no_cgroup = ""  # why there is no memory limit over all processes, if there is none
        self._cpu_cgroup: confinement.CpuCgroup | None = None
        self._no_cpu_cgroup = ""  # why there is no CPU limit over all processes, if there is none
        self._cpu_seen = 0.0  # the CPU cgroup's count when last charged
        self._plan: Plan | None = None
        self._starts = 0
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, ChildBackend._cleanup, self.__dict__)
        _live_backends.add(self)

    # -- the seam interface

    def describe(self, exercise: str) -> str:
        return self._describe(exercise)

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        with self._lock:
            if exercise in self._import_failures:
                return self._import_failures[exercise]
            if self._budget_left() <= 0:
                return _error(probe_name, "Timeout", self._budget_text())
            import torch  # the trusted side speaks torch.save/torch.load with the child

            request = {"exercise": exercise, "probe": probe_name, "kwargs": kwargs}
            buffer = io.BytesIO()
            torch.save(request, buffer)
            try:
                loaded = self._ensure_loaded(exercise)
                if loaded is not None:
                    return loaded
                payload = self._exchange(b"C", buffer.getvalue(), probe_name)
            except ChildFailure as failure:
                self._discard_child()
                return _error(failure.stage or probe_name, failure.kind, failure.message)
            from grader import evidence as evidence_checks  # imports torch: only once a child runs

            return self._judge_reply(payload, probe_name, evidence_checks.element_allowance(kwargs))

    def warm(self, exercise: str, task: str) -> None:
        """Start the child and import ``exercise`` now, its time counted for ``task``: a suite may do
        this in a thread ahead of its first probe, so that two children start side by side. Whatever
        goes wrong is left for that probe to report, as it would have without this. The thread must
        outlive the child: a child is killed when the thread that started it ends (PR_SET_PDEATHSIG)."""
        with self._lock:
            self.task = task
            if exercise in self._import_failures or self._budget_left() <= 0:
                return
            try:
                self._ensure_loaded(exercise)
            except ChildFailure:
                self._discard_child()
            except Exception:  # noqa: BLE001 - a GraderError is raised again by the probe that needs the child
                pass

    def _judge_reply(self, payload: bytes, stage: str, max_elements: int) -> dict:
        """The child's reply as evidence, or error evidence; the time it takes is the submission's."""
        from grader import evidence as evidence_checks

        started = time.monotonic()
        try:
            evidence = evidence_checks.load(payload, max_bytes=self.limits.max_reply_mb << 20,
                                            max_elements=max_elements)
        except evidence_checks.BadEvidence as exc:
            self._discard_child()
            return _error(stage, "BadEvidence", f"the process running your code sent back something that"
                          f" is not evidence the grader accepts: {exc}")
        finally:
            self._charge(time.monotonic() - started)
        if not isinstance(evidence, dict):
            return _error(stage, "BadEvidence", "the process running your code sent back"
                          f" a {type(evidence).__name__}, not evidence")
        return evidence

    def start(self) -> None:
        """Start the child now, importing no exercise; raises ``GraderError`` where none can start."""
        with self._lock:
            self._start_child()

    def close(self) -> None:
        with self._lock:
            self._discard_child()
            self._cleanup(self.__dict__)

    # -- the child's life

    @staticmethod
    def _cleanup(state: dict) -> None:
        child = state.get("_child")
        if child is not None:
            child.kill()
            state["_child"] = None
        for key in ("_cgroup", "_cpu_cgroup"):
            if state.get(key) is not None:
                state[key].remove()
                state[key] = None
        if state.get("_job_user") is not None:  # kills what still runs as its uid, then frees it
            state["_job_user"].release()
            state["_job_user"] = None
        runtime = state.get("_runtime")
        if runtime is not None:
            shutil.rmtree(runtime, ignore_errors=True)
            state["_runtime"] = None

    def _charge(self, seconds: float) -> None:
        """Charge the task now running: ``seconds`` of wall clock, or the CPU time the submission's
        processes used since the last charge, whichever is more (busy background processes pay too)."""
        if self._cpu_cgroup is not None:
            used = self._cpu_cgroup.cpu_seconds()
            seconds, self._cpu_seen = max(seconds, used - self._cpu_seen), max(used, self._cpu_seen)
        self._spent[self.task] = self._spent.get(self.task, 0.0) + seconds

    def _budget_left(self) -> float:
        return self.limits.budget - self._spent.get(self.task, 0.0)

    def _budget_text(self) -> str:
        task = f" for task {self.task}" if self.task else ""
        return (f"not run: the grader's time budget{task} ({self.limits.budget:.0f} s)"
                " was used up by earlier calls that hung or were slow")

    def _exchange(self, kind: bytes, payload: bytes, stage: str, timeout: float | None = None) -> bytes:
        """Send one request, wait for its reply; the time spent counts against the budget."""
        if self._budget_left() <= 0:
            raise ChildFailure("Timeout", self._budget_text(), stage)
        child = self._start_child()
        limit = min(timeout or self.limits.call_timeout, self._budget_left())
        started = time.monotonic()
        child.stage = stage
        try:
            child.send(kind, payload)
            return child.receive(b"R", started + limit,
                                 f"did not finish within {limit:.0f} s and was stopped: an endless"
                                 " loop, or far too much work?")
        finally:
            self._charge(time.monotonic() - started)

    def _ensure_loaded(self, exercise: str) -> dict | None:
        """Import the exercise file in the child; returns error evidence if it cannot be imported."""
        self._start_child()  # a fresh child if the last one died; it has loaded nothing yet
        if exercise in self._loaded:
            return None
        display = self.describe(exercise)
        request = {"exercise": exercise, "path": self._path_for_child(exercise),
                   "module": self._module_name(exercise), "display": display}
        try:
            payload = self._exchange(b"L", json.dumps(request).encode(), f"import {display}")
        except ChildFailure as failure:
            # Importing it hung or killed the process: doing it again would only do that again.
            self._discard_child()
            self._import_failures[exercise] = _error(f"import {display}", failure.kind, failure.message)
            return self._import_failures[exercise]
        evidence = self._judge_reply(payload, f"import {display}", 0)
        if "error" in evidence:
            self._import_failures[exercise] = evidence
            return evidence
        self._loaded.add(exercise)
        return None

    def _path_for_child(self, exercise: str) -> str:
        if not self.sandbox:
            return str(self._locate(exercise))
        rel = f"{self._submission_rel()}/{exercise}.py".lstrip("/")
        base = "/submission" if self._plan.bwrap else str(self._runtime / "submission")
        return f"{base}/{rel}"

    def _submission_rel(self) -> str:
        return "exercises" if self.exercises != self.folder else ""

    def _discard_child(self) -> None:
        # The next start (torch imported again) is paid for by the task whose call ended this child.
        self._restart_task = self.task
        if self._child is not None:
            self._child.kill(strays=self.sandbox)
            self._child = None
            self._loaded.clear()
        if self._cgroup is not None:
            self._cgroup.kill_all()
        if self._cpu_cgroup is not None:
            self._cpu_cgroup.kill_all()
        if self.sandbox:
            kill_strays()

    def _start_child(self) -> ChildProcess:
        if self._child is not None and self._child.proc.poll() is None:
            return self._child
        if self._child is not None:
            self._discard_child()
        if self._starts and self._budget_left() <= 0:
            raise ChildFailure("Timeout", self._budget_text(), "start")
        if self.sandbox:
            become_subreaper()
            self._confine()
        started = time.monotonic()
        errors = []
        key = (self.sandbox, self.mode)
        if key in _working_plan:
            plans = [_working_plan[key]]
        else:
            plans = _plans(self.sandbox, self.mode)
        if not plans:
            raise GraderError(f"{SANDBOX_REQUIRED} ({SANDBOX_ENV}={self.mode}) but is not installed, or this is"
                              " not Linux: install bubblewrap, or grade with --sandbox auto (not for credit)")
        proven = self.mode == "bwrap" and os.environ.get(SANDBOX_STARTED_ENV) == "1"
        if proven:  # the sandbox works here: try it twice, and never fall back (see SANDBOX_STARTED_ENV)
            plans = [plans[0], plans[0]]
        for plan in plans:
            if not plan.sandboxed and self.sandbox and errors:  # say why the sandbox is not there
                plan = _plans(self.sandbox, self.mode, bwrap_failure=errors[0].split(": ", 1)[-1])[-1]
            self._plan = plan
            try:
                child = self._launch(plan)
            except ChildFailure as failure:
                errors.append(f"{plan.name}: {failure.message}")
                continue
            _working_plan[key] = plan
            _last_run.append((self._isolation_text(plan), plan.sandboxed))
            if self._starts:  # a restart: the submission's code crashed or hung, so it pays for it
                task, self.task = self.task, self._restart_task
                self._charge(time.monotonic() - started)
                self.task = task
            self._starts += 1
            self._child = child
            return child
        if proven:
            raise GraderError("the sandboxed process for this submission did not start, twice, although the sandbox"
                              " starts on this machine (the machine overloaded?): not graded, grade it again: "
                              + " ".join(errors[-1].split(": ", 1)[-1].split()))
        if self.mode == "bwrap":
            raise GraderError(f"{SANDBOX_REQUIRED} ({SANDBOX_ENV}={self.mode}) but could not start here: "
                              + " ".join(errors[0].split(": ", 1)[-1].split()))
        raise GraderError("could not start a child process to run the code under test: "
                          + "; ".join(" ".join(e.split()) for e in errors))

    def _confine(self) -> None:
        """Once per submission: its own uid (as root) and its memory cgroup, where they can be had."""
        if self._job_user is None and confinement.running_as_root():
            try:
                self._job_user = confinement.JobUser.claim()
            except (OSError, RuntimeError) as exc:
                raise GraderError(f"could not set aside a user to run the submission as: {exc}") from exc
        if self._cgroup is None and not self._no_cgroup:
            made = confinement.MemoryCgroup.create(self.limits.memory_mb << 20)
            if isinstance(made, str):
                self._no_cgroup = made
            else:
                self._cgroup = made
        if self._cpu_cgroup is None and not self._no_cpu_cgroup:
            made = confinement.CpuCgroup.create(self.limits.cpus, memory=self._cgroup)
            if isinstance(made, str):
                self._no_cpu_cgroup = made
            else:
                self._cpu_cgroup = made
                self._cpu_seen = made.cpu_seconds()

    def _cgroup_procs(self) -> list[str]:
        procs = [self._cgroup.procs_file] if self._cgroup is not None else []
        return procs + (self._cpu_cgroup.procs_files if self._cpu_cgroup is not None else [])

    def _isolation_text(self, plan: Plan) -> str:
        if not self.sandbox:
            return plan.isolation
        who = (f"as uid {self._job_user.uid}, its own" if self._job_user is not None
               else "as the grader's own user")
        memory = (f"memory limit over all its processes ({self._cgroup.describe()})" if self._cgroup is not None
                  else f"memory limit per process only ({self._no_cgroup})")
        cpu = (f"CPU limit {self.limits.cpus:g} core over all its processes ({self._cpu_cgroup.describe()})"
               if self._cpu_cgroup is not None else f"no CPU limit over its processes ({self._no_cpu_cgroup})")
        return f"{plan.isolation}; {who}; {memory}; {cpu}"

    def _prepare_runtime(self) -> Path:
        """A private copy of probes + child and of the submission's top-level .py files."""
        if self._runtime is not None:
            return self._runtime
        runtime = Path(tempfile.mkdtemp(prefix="grader-child-"))
        package = runtime / "grader-child" / "grader"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text('"""Probes and the child entry point, copied for a sandbox."""\n')
        for name in ("probes.py", "child.py"):
            shutil.copyfile(GRADER_DIR / name, package / name)
        target = runtime / "submission" / self._submission_rel()
        target.mkdir(parents=True, exist_ok=True)
        copied = 0
        if self.exercises.is_dir():
            for source in sorted(self.exercises.iterdir()):
                # Regular files only: a symlink could point at the grader's own reference.
                if source.suffix != ".py" or source.is_symlink() or not source.is_file():
                    continue
                if source.stat().st_size > MAX_SUBMISSION_FILE_BYTES or copied >= MAX_SUBMISSION_FILES:
                    continue
                shutil.copyfile(source, target / source.name)
                copied += 1
        home = runtime / "home"
        home.mkdir()
        # Private to the grader and the child's uid (through its group, read-only; bubblewrap, running as
        # root without CAP_DAC_OVERRIDE, must be the owner to bind it): a neighbour in a batch, another
        # uid, sees nothing of it. The child may write its home alone.
        uid = self._job_user.uid if self._job_user is not None else None
        for path in [runtime, *runtime.rglob("*")]:
            path.chmod(0o750 if path.is_dir() else 0o640)
            if uid is not None:
                os.chown(path, os.getuid(), uid)
        home.chmod(0o700)
        if uid is not None:
            os.chown(home, uid, uid)
        self._runtime = runtime
        return runtime

    def _child_env(self, home: str) -> dict[str, str]:
        threads = str(self.limits.threads)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": "/tmp" if self._plan.bwrap else home,
               "LANG": "C.UTF-8", "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads,
               "OPENBLAS_NUM_THREADS": threads,
               "MALLOC_ARENA_MAX": "2", "TRITON_CACHE_DIR": f"{home}/.triton",
               "PYTHONDONTWRITEBYTECODE": "1"}
        for var in ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "TRITON_INTERPRET"):
            if var in os.environ:
                env[var] = os.environ[var]
        return env

    def _launch(self, plan: Plan) -> ChildProcess:
        gpu = _gpu_present()
        uid = self._job_user.uid if self.sandbox and self._job_user is not None else None
        drop_in_child = bool(plan.bwrap) and uid is not None  # bubblewrap as root; the child drops at once
        # The child starts Python isolated (-I): it is handed the package folders this process uses,
        # and it is started through this process's own interpreter path (a venv's bin/python), not
        # the file that path links to, so that it finds the same venv.
        python_path = json.dumps(child_sys_path())
        if not self.sandbox:
            cmd = [sys.executable, str(CHILD_SCRIPT)]
            env, cwd = None, None
        else:
            runtime = self._prepare_runtime()
            inner_cwd = "/submission" if plan.bwrap else str(runtime / "submission")
            if plan.bwrap:
                home = "/tmp"
                cmd = bwrap_command(plan.bwrap, runtime, inner_cwd, userns=plan.userns, gpu=gpu,
                                    tmpfs_mb=self.limits.tmpfs_mb, as_root=drop_in_child)
                for key, value in self._child_env(home).items():
                    cmd += ["--setenv", key, value]
                cmd += [sys.executable, "-I", "-B", "/grader-child/grader/child.py", python_path]
                if drop_in_child:
                    cmd += ["--uid", str(uid)]
                env, cwd = {}, "/"
            else:
                home = str(runtime / "home")
                cmd = [sys.executable, "-I", "-B", str(runtime / "grader-child" / "grader" / "child.py"), python_path]
                env, cwd = self._child_env(home), inner_cwd
        stderr_file = tempfile.NamedTemporaryFile(prefix="grader-child-stderr-", delete=False)
        stderr_path = Path(stderr_file.name)
        try:
            proc = spawn(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr_file,
                         cwd=cwd, env=env, start_new_session=True,
                         preexec_fn=_limit_preexec(self.limits, data_limit=gpu,
                                                   uid=None if drop_in_child else uid, own_uid=uid is not None,
                                                   # a local run is the student's own machine: crashes
                                                   # and hangs are caught, memory is theirs to use
                                                   memory_limit=self.sandbox,
                                                   cgroup_procs=self._cgroup_procs(),
                                                   cpu_budgets=CPU_BUDGETS)
                         if os.name == "posix" else None)
        except (OSError, subprocess.SubprocessError) as exc:  # e.g. the uid may not run this Python
            stderr_path.unlink(missing_ok=True)
            raise ChildFailure("GraderError", _start_failure(exc), "start") from exc
        finally:
            stderr_file.close()
        child = ChildProcess(proc, stderr_path, self.limits.max_reply_mb << 20, via_bwrap=bool(plan.bwrap))
        try:
            child.receive(b"H", time.monotonic() + self.limits.startup_timeout,
                          f"did not start within {self.limits.startup_timeout:.0f} s")
        except ChildFailure as failure:
            tail = child.stderr_tail()
            child.kill()
            raise ChildFailure(failure.kind, f"{tail or failure.message}", "start") from None
        return child


def _start_failure(exc: BaseException) -> str:
    if isinstance(exc, PermissionError):
        return (f"{exc}: the submission's own user may not run this Python; install Python where other"
                " users can read it, or grade in the sandbox (bubblewrap)")
    return str(exc)


class SandboxBackend(ChildBackend):
    """What ``--target sandbox:FOLDER`` runs: the submission in FOLDER, sandboxed."""

    def __init__(self, folder: str | Path, limits: Limits | None = None, mode: str | None = None) -> None:
        super().__init__(folder, sandbox=True, limits=limits, mode=mode)
