"""How a child is started (the plans, tried in order) and how the grader talks to one (frames, deadlines)."""

from __future__ import annotations

import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from grader import confinement
from grader.probes.safe_text import printable, shorten
from grader.sandbox.processes import kill_group, kill_strays
from grader.probes.child import HEADER  # the frames' header: the child's module says what the frames are
from grader.sandbox.limits import MAX_STAGE_FRAME


# ------------------------------------------------------------------------ how a child is started

@dataclass
class Plan:
    """One way to start the child; the first that works is kept for the rest of the process."""
    name: str
    isolation: str         # what the report says
    sandboxed: bool
    bwrap: str | None = None
    userns: bool = False


working_plans: dict[tuple[bool, str], Plan] = {}  # (sandboxed?, mode) -> the plan that started a child


def plans_to_try(sandbox: bool, mode: str, bwrap_failure: str = "") -> list[Plan]:
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


# ------------------------------------------------------------------------------ one child process

class ChildFailure(Exception):
    """``out_of_time``: the call was not made, the task's budget being used up. ``budget_stopped``: it was
    made, and stopped when what was left of the task's budget (less than a call's own limit) ran out."""

    def __init__(self, kind: str, message: str, stage: str, out_of_time: bool = False) -> None:
        super().__init__(message)
        self.kind, self.message, self.stage, self.out_of_time = kind, message, stage, out_of_time
        self.budget_stopped = False


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
                cap = MAX_STAGE_FRAME if kind == b"S" else self.max_reply if kind in (b"R", b"H", b"Q") else -1
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

    def send(self, kind: bytes, payload: bytes, deadline: float | None = None, timeout_text: str = "") -> None:
        """``deadline``: the write gives up then (``_write``); None: it may block (a child just started)."""
        # A reply nobody asked for is a protocol violation; stage names left over are harmless.
        for _ in range(self.frames.maxsize + 1):
            try:
                leftover = self.frames.get_nowait()[0]
            except queue.Empty:
                break
            if leftover != b"S":
                raise ChildFailure("ChildExited", self._death() if leftover in ("eof", "protocol") else
                                   "the process running your code sent a reply nobody asked for", self.stage)
        if deadline is not None:
            self._write(kind, payload, deadline, timeout_text)
            return
        try:
            self.proc.stdin.write(HEADER.pack(kind, len(payload)) + payload)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise ChildFailure("ChildExited", self._death(), self.stage) from None

    def receive(self, expected: bytes, deadline: float, timeout_text: str,
                answer: Callable[[bytes], bytes | None] | None = None) -> bytes:
        """The next frame of kind ``expected``. A launch's request for stand-in values (``Q``) on the way is
        answered with ``answer(payload)`` (``A``), or, where the call asked for no stand-ins or ``answer``
        gives None (the call has asked for more than it may), refused, ending the call."""
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
            elif kind == b"Q":
                if answer is None:
                    raise ChildFailure("ChildExited", "the process running your code asked for stand-in values"
                                       " in a call that uses none", self.stage)
                reply = answer(payload)
                if reply is None:  # reading more of this call's requests would cost the grader, whatever they hold
                    raise ChildFailure("ChildExited", "the process running your code asked for stand-in values more"
                                       " often, or with more data, in one call than any test's launches do", self.stage)
                self._write(b"A", reply, deadline, timeout_text)
            elif kind == "protocol":
                raise ChildFailure("ChildExited", f"the process running your code {payload}", self.stage)
            elif kind == "eof":
                raise ChildFailure("ChildExited", self._death(), self.stage)
            # anything else is noise the code under test wrote into the channel: ignore it

    def _write(self, kind: bytes, payload: bytes, deadline: float, timeout_text: str) -> None:
        """Write a frame within the call's deadline: a child that stops reading (its code replaced os.read, or
        it asks for stand-in values and never reads the answers) fills the pipe, and a blocking write would
        then wait for it for ever. A pipe with room for PIPE_BUF bytes is reported writable, and a write of
        at most that many never blocks."""
        data = memoryview(HEADER.pack(kind, len(payload)) + payload)
        try:
            self.proc.stdin.flush()
            fd = self.proc.stdin.fileno()
            while data:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ChildFailure("Timeout", timeout_text, self.stage)
                if select.select([], [fd], [], remaining)[1]:
                    data = data[os.write(fd, data[:select.PIPE_BUF]):]
        except (BrokenPipeError, OSError, ValueError):
            raise ChildFailure("ChildExited", self._death(), self.stage) from None

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
            return shorten(lines[-1], 300) if lines else ""
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


