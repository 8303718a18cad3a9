"""A warm start for unsandboxed children: one process that has imported torch, Triton and the probes
forks each child, instead of each child starting Python and importing them again (2-3 CPU seconds
each, twice per Triton suite run: the student's process and the kernels' own).

Only for children that run without the sandbox, and only where ``ZYGOTE_ENV`` names a zygote: the
maintainers' self-checks, which grade hundreds of variants in unsandboxed children, start one. A
sandboxed child, the only kind that grades for credit, always starts as a fresh process
inside bubblewrap. A forked child is the same ``grader/probes/child.py`` loop, started with the same
limits (``limit_preexec``), cwd and environment as a spawned one, in a session of its own; the zygote
holds nothing but those imports (no test data, no reference), and never starts a thread, so a fork of it
is a clean process.

The zygote speaks over a Unix socket, one connection per child: the client sends a JSON request with
the child's stdin, stdout and stderr as descriptors (SCM_RIGHTS); the zygote answers the child's pid,
then, when the child ends, its status as ``subprocess`` gives it (negative: killed by that signal). A
client whose connection closes takes its child with it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.sandbox.mounts import gpu_present

ZYGOTE_ENV = "GRADER_CHILD_ZYGOTE"  # the zygote's socket path; unset: every child is a fresh process
_MAX_REQUEST = 1 << 20


def forks_can_start_warm() -> bool:
    """Whether children may be forked from a warm process (the batch's fork server, this zygote) rather
    than started fresh: not where there is a GPU to use. A fork of a process that has touched CUDA fails its
    first CUDA call ("initialization error"), and importing torch, Triton, an exercise file and the probes
    touches it, in ways that change between their versions (seen on an H200: every forked child failed)."""
    return not gpu_present()


# ------------------------------------------------------------------------------------------- server

def _warm_up() -> None:
    """What child.py imports before its loop, Triton, which every Triton exercise file imports, and torch's
    work on first use (autograd's first backward imports sympy and more: about half a second a child)."""
    from grader.probes.child import load_probes, warm_up_torch

    load_probes()  # sets TRITON_INTERPRET without a GPU, before triton is imported below
    warm_up_torch()
    try:
        import triton  # noqa: F401
        import triton.language  # noqa: F401
    except ImportError:
        pass


def _start_child(request: dict, fds: list[int]) -> None:
    """In the forked process: become the child the request describes, run its loop, never return."""
    try:
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.environ.clear()
        os.environ.update(request["env"])
        if request.get("cwd"):
            os.chdir(request["cwd"])
        from grader.sandbox.limits import Limits
        from grader.sandbox.processes import limit_preexec

        limits = Limits(**request["limits"])
        limit_preexec(limits, data_limit=request["data_limit"], uid=None, memory_limit=False,
                      cpu_budgets=request["cpu_budgets"])()
        threads = os.environ.get("OMP_NUM_THREADS")
        if threads and threads.isdigit():
            import torch

            torch.set_num_threads(int(threads))
        tempfile.tempdir = None  # the child's TMPDIR, not the zygote's
        from grader.probes import child

        child.main([])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - the child's own errors go to its stderr, as a spawned one's would
        import traceback

        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _status(raw: int) -> int:
    """A waitpid status as subprocess's returncode."""
    return -os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)


def serve(address: str, owner: int) -> None:
    """The zygote's loop: fork a child per connection, report its end, exit when ``owner`` is gone."""
    _warm_up()
    import gc

    gc.collect()
    gc.freeze()  # the imports stay shared with every fork, untouched by its collections
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address + ".starting")
    listener.listen(64)
    os.rename(address + ".starting", address)  # the path appears only once it takes connections
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}
    while os.getppid() == owner:
        for key, _ in selector.select(timeout=0.05):
            if key.fileobj is listener:
                conn, _ = listener.accept()
                try:
                    message, fds, _, _ = socket.recv_fds(conn, _MAX_REQUEST, 3)
                    request = json.loads(message)
                except (OSError, ValueError):
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    listener.close()
                    conn.close()
                    for other in children.values():
                        other.close()
                    _start_child(request, fds)
                for fd in fds:
                    os.close(fd)
                children[pid] = conn
                conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
                selector.register(conn, selectors.EVENT_READ, pid)
            else:  # the client closed its end (or wrote, which it never does): its child goes
                try:
                    os.killpg(key.data, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                selector.unregister(key.fileobj)
        while children:
            try:
                pid, raw = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(json.dumps({"status": _status(raw)}).encode() + b"\n")
                except OSError:
                    pass
                if conn.fileno() in selector.get_map():
                    selector.unregister(conn)
                conn.close()
    for pid in children:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# ------------------------------------------------------------------------------------------- client

class ZygoteProcess:
    """A forked child, as much of ``subprocess.Popen`` as ``ChildProcess`` and ``kill_group`` use."""

    def __init__(self, address: str, request: dict, stderr_fd: int) -> None:
        child_in, self_in = os.pipe()
        self_out, child_out = os.pipe()
        self._conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._conn.connect(address)
            socket.send_fds(self._conn, [json.dumps(request).encode()], [child_in, child_out, stderr_fd])
            self._buffer = b""
            self.pid = int(json.loads(self._line())["pid"])
        except (OSError, ValueError, KeyError) as exc:
            self._conn.close()
            for fd in (self_in, self_out):
                os.close(fd)
            raise OSError(f"the child zygote at {address} did not start a child: {exc}") from None
        finally:
            os.close(child_in)
            os.close(child_out)
        self.stdin = os.fdopen(self_in, "wb")
        self.stdout = os.fdopen(self_out, "rb")
        self.returncode: int | None = None
        self.args = ["zygote", address]

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read_status(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self._read_status(timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return self.returncode

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _read_status(self, timeout: float | None) -> None:
        ready = selectors.DefaultSelector()
        ready.register(self._conn, selectors.EVENT_READ)
        try:
            if not self._buffer and not ready.select(timeout):
                return
        finally:
            ready.close()
        try:
            self.returncode = int(json.loads(self._line())["status"])
        except (OSError, ValueError, KeyError):
            self.returncode = -signal.SIGKILL  # the zygote itself went: so did its children
        self._conn.close()

    def _line(self) -> bytes:
        """The zygote's next line (unbuffered beyond it: the status line may come much later)."""
        while b"\n" not in self._buffer:
            chunk = self._conn.recv(4096)
            if not chunk:
                raise OSError("the zygote closed the connection")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line


def fork_child(address: str, limits, *, data_limit: bool, cpu_budgets: int, stderr_fd: int) -> ZygoteProcess:
    """A child forked by the zygote at ``address``, with this process's cwd and environment."""
    request = {"env": dict(os.environ), "cwd": os.getcwd(), "limits": dataclasses.asdict(limits),
               "data_limit": data_limit, "cpu_budgets": cpu_budgets}
    return ZygoteProcess(address, request, stderr_fd)


class Zygote:
    """A zygote of this process's own, started now and gone with it (``close``)."""

    def __init__(self, ready_within: float = 120) -> None:
        self._folder = tempfile.mkdtemp(prefix="grader-zygote-")
        self.address = os.path.join(self._folder, "socket")
        start = "import sys; from grader.sandbox.zygote import serve; serve(sys.argv[1], int(sys.argv[2]))"
        self._proc = subprocess.Popen([sys.executable, "-c", start, self.address, str(os.getpid())],
                                      cwd=Path(__file__).resolve().parents[2], stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + ready_within
        while not os.path.exists(self.address):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("the child zygote did not start")
            time.sleep(0.05)

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        try:
            os.unlink(self.address)
        except OSError:
            pass
        try:
            os.rmdir(self._folder)
        except OSError:
            pass
