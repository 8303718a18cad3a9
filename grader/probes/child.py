"""The child process that runs the code under test: it loads exercise files and runs probes on them.

Started by ``grader/sandbox/`` (``ChildBackend``), never imported by the tests. It imports only
the standard library, torch, ``grader/probes/`` and the exercise files it is told to load, so that
inside the sandbox it needs nothing else from the grader's checkout.

Protocol, over the two pipes the child was started with (stdin from the parent, stdout to it): each
frame is a 1-byte kind, an 8-byte big-endian length and a payload.

parent -> child   ``L`` load:  JSON {"exercise", "path", "module", "display"}
                  ``C`` call:  torch.save of {"exercise", "probe", "kwargs"}
child -> parent   ``S`` stage: UTF-8 name of the stage about to run (``GLU.forward``), so a crash
                               can still be reported against the method that was running
                  ``R`` reply: torch.save of the evidence dict
                  ``H`` hello: JSON {"pid", "triton_interpret"} once the child is ready
                  ``Q`` query: torch.save of a kernel launch's inputs, during a call that asked for
                               the grader's stand-in kernels (``stand_ins.launch_request``)
parent -> child   ``A`` answer: torch.save of the values served for that launch, or {"error"}

Right after start-up the child moves both pipes to private descriptors and points fd 0 at
/dev/null and fd 1 at stderr: whatever the code under test prints can never be mistaken for a
frame. The parent trusts nothing it reads here beyond "evidence the child computed": it loads
replies with ``torch.load(weights_only=True)`` and caps their size.
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys

HEADER = struct.Struct(">cQ")


def _grader_package_root() -> str:
    """The folder holding ``grader/``: this file is ``grader/probes/child.py``."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Channel:
    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd

    def _read_exact(self, n: int) -> bytes:
        chunks = []
        while n:
            chunk = os.read(self.read_fd, min(n, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def read(self) -> tuple[bytes, bytes]:
        kind, length = HEADER.unpack(self._read_exact(HEADER.size))
        return kind, self._read_exact(length)

    def write(self, kind: bytes, payload: bytes) -> None:
        data = HEADER.pack(kind, len(payload)) + payload
        view = memoryview(data)
        while view:
            written = os.write(self.write_fd, view)
            view = view[written:]


def _private_channel() -> Channel:
    """Keep the pipes for the protocol; give the code under test harmless stdin and stdout."""
    channel = Channel(os.dup(0), os.dup(1))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return channel


# The kernel's keyring calls, by machine: add_key, request_key, keyctl. The sandbox refuses all three
# (grader/sandbox/seccomp.py); where it has no filter, the child still leaves the grader's session keyring.
KEYRING_CALLS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}
KEYCTL_JOIN_SESSION_KEYRING = 1


def leave_session_keyring() -> None:
    """Join a new, empty session keyring: the grader's, inherited through fork and exec and kept across a change of
    uid, is no longer this process's to read or write. Under the sandbox's filter the call is refused, and there
    is no keyring to reach anyway."""
    import ctypes
    import platform

    calls = KEYRING_CALLS.get(platform.machine())
    if calls:
        ctypes.CDLL(None, use_errno=True).syscall(ctypes.c_long(calls[2]), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING),
                                                  ctypes.c_void_p(None))


def become(uid: int) -> None:
    """Drop from the sandbox's root to the submission's own host uid, for good, or exit.

    Only where the grader runs as root: bubblewrap then starts this process as root with no
    capabilities but changing uid, and nothing but the interpreter has run yet.
    """
    import ctypes

    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    PR_SET_NO_NEW_PRIVS = 38
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    with open("/proc/self/status") as f:
        caps = [line.split()[1] for line in f if line.startswith(("CapEff", "CapPrm"))]
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid) or any(int(c, 16) for c in caps):
        raise SystemExit("could not drop to the submission's uid")


def load_probes():
    """What the child imports before its loop: torch, the interpreter's switch, every probe module
    (``grader/sandbox/zygote.py`` imports them once for all the children it forks). Returns the package."""
    if _grader_package_root() not in sys.path:
        sys.path.insert(0, _grader_package_root())
    import torch

    # Triton reads TRITON_INTERPRET when its @triton.jit decorators run, i.e. when an exercise file
    # is imported: without a GPU the kernels must run under its interpreter.
    if not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"

    from grader import probes

    probes.load_all()
    return probes


def warm_up_torch() -> None:
    """What torch does once per process on first use, done before a fork, not once per fork: autograd's
    first backward pass (about 0.2 s, and more where it first imports sympy), and the cost suite's first
    FlopCounterMode pass (about a second). For a process that forks children (the batch's fork server;
    the children's zygote, ``grader/sandbox/zygote.py``); a spawned child pays it only if it needs it."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.linear(x, torch.ones(4, 3, dtype=torch.float64)).sum().backward()
    with torch.device("meta"), FlopCounterMode(display=False):
        x = torch.empty(2, 3, requires_grad=True)
        torch.nn.functional.linear(x, torch.empty(4, 3)).sum().backward()


# The grader's start check (``grader/grading.py``): that a child starts where the graded ones will, its uid
# dropped and its sandbox up, and finds torch there; it says hello and ends before importing torch, which would
# cost seconds of CPU per grading for nothing the check needs.
START_CHECK_FLAG = "--start-check"


def _answer_start_check(channel: Channel) -> None:
    import importlib.util

    spec = importlib.util.find_spec("torch")  # a folder left behind with no __init__.py is no torch
    if spec is None or not spec.origin or not os.access(spec.origin, os.R_OK):  # on stderr: the grader shows it
        raise SystemExit("the child's Python finds no torch it can read in the folders it was given: " + " ".join(sys.path))
    channel.write(b"H", json.dumps({"pid": os.getpid(), "triton_interpret": ""}).encode())


def main(args: list[str] | None = None) -> None:
    """``args``: the command line's (a warm fork, grader/sandbox/zygote.py, passes none)."""
    args = sys.argv[1:] if args is None else list(args)
    leave_session_keyring()
    if "--uid" in args:  # first of all: nothing of the submission may ever run as root
        at = args.index("--uid")
        become(int(args[at + 1]))
        del args[at:at + 2]
    start_check = START_CHECK_FLAG in args
    if start_check:
        args.remove(START_CHECK_FLAG)
    channel = _private_channel()
    # Started isolated (-I): the grader hands over the package folders its own Python uses (a conda
    # or venv site-packages, a .pth-added folder), so the child imports the same torch.
    if args:
        for entry in json.loads(args[0]):
            if entry not in sys.path:
                sys.path.append(entry)
    if start_check:
        _answer_start_check(channel)
        return
    probes = load_probes()
    import torch

    from grader.probes.stages import import_stage

    current = {"stage": ""}

    def announce(stage: str) -> None:
        current["stage"] = stage
        channel.write(b"S", stage.encode("utf-8", "replace"))

    probes.core.STAGE_LISTENER = announce

    def ask_stand_in(request: dict) -> dict:
        """A launch's request for stand-in values, answered by the parent (grader/stand_in_server.py)."""
        buffer = io.BytesIO()
        torch.save(probes.core.compacted(request), buffer)  # the grader takes no view of a larger storage
        channel.write(b"Q", buffer.getvalue())
        kind, payload = channel.read()
        if kind != b"A":
            raise SystemExit(f"frame {kind!r} where the stand-in's values belong")
        return torch.load(io.BytesIO(payload), weights_only=True)

    probes.core.STAND_IN_SERVER = ask_stand_in

    modules: dict[str, object] = {}
    displays: dict[str, str] = {}
    channel.write(b"H", json.dumps({"pid": os.getpid(),
                                    "triton_interpret": os.environ.get("TRITON_INTERPRET", "")}).encode())
    while True:
        try:
            kind, payload = channel.read()
        except EOFError:
            return
        if kind == b"L":
            request = json.loads(payload)
            exercise, display = request["exercise"], request["display"]
            displays[exercise] = display
            channel.write(b"S", import_stage(display).encode())
            evidence: dict = {}
            if not os.path.isfile(request["path"]):
                missing = FileNotFoundError(f"no file {display} in the submission")
                modules[exercise] = missing
                evidence = {"error": {**probes.describe_exception(import_stage(display), missing), "where": ""}}
            else:
                try:
                    modules[exercise] = probes.load_module(request["path"], request["module"])
                except BaseException as exc:  # SystemExit and KeyboardInterrupt at import are errors too
                    modules[exercise] = exc
                    evidence = {"error": probes.describe_exception(import_stage(display), exc)}
            _reply(channel, evidence)
        elif kind == b"C":
            request = torch.load(io.BytesIO(payload), weights_only=True)
            exercise = request["exercise"]
            current["stage"] = request["probe"]
            try:
                evidence = probes.call(modules[exercise], displays[exercise], request["probe"],
                                       **request["kwargs"])
            except BaseException as exc:  # e.g. sys.exit() inside forward: still one line of evidence
                evidence = {"error": probes.describe_exception(current["stage"], exc)}
            _reply(channel, evidence)
        else:
            raise SystemExit(f"unknown frame kind {kind!r}")


def _explain_memory_error(evidence: dict) -> dict:
    """A bare MemoryError says nothing; say that a limit was hit, and which."""
    error = evidence.get("error")
    if isinstance(error, dict) and error.get("type") == "MemoryError" and not error.get("message"):
        try:
            import resource

            limits = [resource.getrlimit(r)[0] for r in (resource.RLIMIT_AS, resource.RLIMIT_DATA)]
            limit = min((x for x in limits if x > 0), default=0)
        except (ImportError, ValueError, OSError):  # no rlimits on this platform
            limit = 0
        size = f" of {limit >> 20} MB" if limit > 0 else ""
        error["message"] = f"ran out of memory: the grader runs your code with a memory limit{size}"
    return evidence


def _reply(channel: Channel, evidence: dict) -> None:
    import torch

    from grader.probes.core import compacted

    evidence = _explain_memory_error(evidence)
    buffer = io.BytesIO()
    try:
        torch.save(compacted(evidence), buffer)  # the grader takes no view of a larger storage
    except Exception as exc:  # evidence holding something torch.save cannot write
        from grader.probes.errors import error_evidence

        buffer = io.BytesIO()
        torch.save({"error": error_evidence("returning evidence", type(exc).__name__, str(exc)[:400])}, buffer)
    channel.write(b"R", buffer.getvalue())


if __name__ == "__main__":
    main()
