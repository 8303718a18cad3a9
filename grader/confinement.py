"""Who the submission runs as, and how much of the machine all of its processes may use together.

Two pieces, used by ``grader/sandbox/`` for every child that runs submission code:

* ``JobUser``: when the grader runs as root, the child never does. Each child gets a host uid of its
  own from a dedicated range, claimed with a lock file for as long as the child lives, so two
  submissions graded side by side (a batch) can neither read each other's files nor signal each
  other's processes, and ``RLIMIT_NPROC`` (which binds only for a uid that is not root) caps the
  processes of that one submission. Contest sandboxes such as IOI's isolate give each box its own
  uid for the same reason. A user namespace whose "nobody" maps to host root is not enough: such a
  process may still write ``/proc/sys``.
* ``MemoryCgroup``: one memory limit over all of the submission's processes and the files it keeps
  in tmpfs (a cgroup v2 where one can be made, else a cgroup v1 memory controller). Without one,
  the only memory limit is per process (``RLIMIT_AS``), and the report says so.
* ``CpuCgroup``: one CPU share over all of its processes (a quota of cores), and the count of the
  CPU time they used, which the sandbox charges against the submission's time budget.
"""

from __future__ import annotations

import fcntl
import os
import signal
import time
import uuid
from pathlib import Path

# Host uids handed to submissions: far above any account an installer creates (and above the usual
# subordinate-uid ranges of /etc/subuid), one per child alive on this machine.
UID_BASE = 1_900_000_000
UID_SLOTS = 4096
LOCK_DIR = Path("/run/mlp-block-grader")


def running_as_root() -> bool:
    return os.name == "posix" and os.geteuid() == 0


def _uid_in_use(uid: int) -> bool:
    """A process of this uid still exists (a leftover of a grader that was killed)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    return True
            except OSError:
                continue
    return False


class JobUser:
    """A host uid no other child holds; ``release()`` gives it back."""

    def __init__(self, uid: int, lock_fd: int) -> None:
        self.uid = uid
        self._lock_fd = lock_fd

    @classmethod
    def claim(cls) -> "JobUser":
        """Lock the first free slot. Only root may: others cannot switch uid."""
        if not running_as_root():
            raise PermissionError("only root can run the submission as a separate user")
        lock_dir = LOCK_DIR if _writable_dir(LOCK_DIR.parent) else Path("/tmp") / LOCK_DIR.name
        lock_dir.mkdir(mode=0o700, exist_ok=True)
        os.chmod(lock_dir, 0o700)  # a submission must not be able to take or hold a slot's lock
        start = (os.getpid() * 7919) % UID_SLOTS  # spread parallel graders over the range
        for i in range(UID_SLOTS):
            uid = UID_BASE + (start + i) % UID_SLOTS
            fd = os.open(lock_dir / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            if _uid_in_use(uid):  # a process of a killed grader: kill it, then skip the slot this time
                _kill_uid(uid)
                os.close(fd)
                continue
            return cls(uid, fd)
        raise RuntimeError(f"all {UID_SLOTS} grader uids are in use")

    def release(self) -> None:
        """Kill whatever still runs as this uid, then give the slot back."""
        if self._lock_fd < 0:
            return
        _kill_uid(self.uid)
        os.close(self._lock_fd)
        self._lock_fd = -1


def _kill_uid(uid: int) -> None:
    for _ in range(20):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    found = True
                    os.kill(int(entry), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                continue
        if not found:
            return
        time.sleep(0.02)


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


# ----------------------------------------------------------------------------------- the cgroup

def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, fs type, super options) of every cgroup mount."""
    found = []
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields, rest = left.split(), right.split()
                if len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
                    found.append((fields[4], rest[0], rest[2]))
    except OSError:
        pass
    return found


def _own_cgroups() -> dict[str, str]:
    """Controller (or '' for v2) -> this process's cgroup path in that hierarchy."""
    own = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for controller in controllers.split(",") if controllers else [""]:
                    own[controller] = path
    except (OSError, ValueError):
        pass
    return own


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class MemoryCgroup:
    """A fresh cgroup with a memory limit (no swap); the child joins it before it execs."""

    def __init__(self, path: Path, version: int) -> None:
        self.path = path
        self.version = version

    @property
    def procs_file(self) -> str:
        return str(self.path / "cgroup.procs")

    @classmethod
    def create(cls, limit_bytes: int) -> "MemoryCgroup | str":
        """The cgroup, or why none could be made (one short phrase for the report)."""
        if not os.path.exists("/proc/self/cgroup"):
            return "no cgroups on this system"
        name = f"mlp-block-grader-{uuid.uuid4().hex[:12]}"
        own = _own_cgroups()
        reasons = []
        for mount, fstype, options in _mounts():
            if fstype == "cgroup2" and "" in own:
                made = cls._try_v2(Path(mount) / own[""].lstrip("/"), name, limit_bytes, reasons)
            elif fstype == "cgroup" and "memory" in options.split(",") and "memory" in own:
                made = cls._try_v1(Path(mount) / own["memory"].lstrip("/"), name, limit_bytes, reasons)
            else:
                continue
            if made is not None:
                return made
        return "; ".join(reasons) or "no memory cgroup controller here"

    @classmethod
    def _try_v2(cls, parent: Path, name: str, limit: int, reasons: list[str]) -> "MemoryCgroup | None":
        try:
            if "memory" not in (parent / "cgroup.controllers").read_text().split():
                reasons.append("cgroup v2 without the memory controller")
                return None
            if "memory" not in (parent / "cgroup.subtree_control").read_text().split():
                _write(parent / "cgroup.subtree_control", "+memory")
            path = parent / name
            path.mkdir()
        except OSError as exc:
            reasons.append(f"cgroup v2 not writable ({exc.strerror})")
            return None
        try:
            _write(path / "memory.max", str(limit))
            if (path / "memory.swap.max").exists():
                _write(path / "memory.swap.max", "0")
            return cls(path, 2)
        except OSError as exc:
            reasons.append(f"cgroup v2 memory limit refused ({exc.strerror})")
            cls(path, 2).remove()
            return None

    @classmethod
    def _try_v1(cls, parent: Path, name: str, limit: int, reasons: list[str]) -> "MemoryCgroup | None":
        path = parent / name
        try:
            path.mkdir()
        except OSError as exc:
            reasons.append(f"cgroup v1 memory not writable ({exc.strerror})")
            return None
        try:
            _write(path / "memory.limit_in_bytes", str(limit))
            swap = path / "memory.memsw.limit_in_bytes"
            if swap.exists():  # memory + swap together: the same limit means no swap
                _write(swap, str(limit))
            return cls(path, 1)
        except OSError as exc:
            reasons.append(f"cgroup v1 memory limit refused ({exc.strerror})")
            cls(path, 1).remove()
            return None

    def describe(self) -> str:
        return f"cgroup v{self.version}"

    def kill_all(self) -> None:
        if self.version == 2 and (self.path / "cgroup.kill").exists():
            try:
                _write(self.path / "cgroup.kill", "1")
            except OSError:
                pass
        for _ in range(50):
            try:
                pids = [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
            except (OSError, ValueError):
                return
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)

    def remove(self) -> None:
        self.kill_all()
        for _ in range(50):  # the last processes take a moment to leave after SIGKILL
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


class CpuCgroup:
    """A fresh cgroup (or one per v1 hierarchy) that caps the CPU time of all of the submission's
    processes together at ``cpus`` cores' worth and counts what they used.

    Without it a submission that starts hundreds of busy processes takes the machine from the
    submissions graded beside it (a batch), and the wall-clock budgets are what it slows down. With
    it, the scheduler gives the group its share whatever it starts, and the time its processes use
    (``cpu_seconds``) is charged against its own budget."""

    def __init__(self, paths: list[Path], usage: Path, version: int, owned: bool = True) -> None:
        self.paths = paths  # every cgroup the child joins (v1: one per hierarchy)
        self.usage = usage  # cpu.stat (v2, usage_usec) or cpuacct.usage (v1, nanoseconds)
        self.version = version
        self.owned = owned  # False: the memory cgroup's own (v2), which that one joins and removes

    @property
    def procs_files(self) -> list[str]:
        return [str(path / "cgroup.procs") for path in self.paths] if self.owned else []

    @classmethod
    def create(cls, cpus: float, memory: MemoryCgroup | None = None) -> "CpuCgroup | str":
        """The cgroup(s), or why none could be made (one short phrase for the report). A process is in
        one cgroup of a v2 hierarchy: where ``memory`` is a v2 cgroup, the limit goes on that one."""
        if not os.path.exists("/proc/self/cgroup"):
            return "no cgroups on this system"
        name = f"mlp-block-grader-cpu-{uuid.uuid4().hex[:12]}"
        own, mounts = _own_cgroups(), _mounts()
        period = 100_000
        quota = max(1000, int(cpus * period))
        for mount, fstype, _ in mounts:
            if fstype != "cgroup2" or "" not in own:
                continue
            parent = Path(mount) / own[""].lstrip("/")
            shared = memory is not None and memory.version == 2
            try:
                if "cpu" not in (parent / "cgroup.controllers").read_text().split():
                    continue
                if "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
                    _write(parent / "cgroup.subtree_control", "+cpu")
                path = memory.path if shared else parent / name
                if not shared:
                    path.mkdir()
            except OSError as exc:
                return f"cgroup v2 cpu not writable ({exc.strerror})"
            made = cls([path], path / "cpu.stat", 2, owned=not shared)
            try:
                _write(path / "cpu.max", f"{quota} {period}")
                return made
            except OSError as exc:
                made.remove()
                return f"cgroup v2 cpu limit refused ({exc.strerror})"
        # v1: the cpu controller (the quota) and cpuacct (the count), mounted together or apart.
        cpu = next(((m, "cpu") for m, t, o in mounts if t == "cgroup" and "cpu" in o.split(",") and "cpu" in own), None)
        acct = next(((m, "cpuacct") for m, t, o in mounts
                     if t == "cgroup" and "cpuacct" in o.split(",") and "cpuacct" in own), None)
        if cpu is None or acct is None:
            return "no cpu cgroup controller here"
        paths = []
        for mount, controller in (cpu, acct):
            path = Path(mount) / own[controller].lstrip("/") / name
            if path in paths:
                continue
            try:
                path.mkdir()
            except OSError as exc:
                cls(paths, path, 1).remove()
                return f"cgroup v1 {controller} not writable ({exc.strerror})"
            paths.append(path)
        made = cls(paths, paths[-1] / "cpuacct.usage", 1)
        try:
            _write(paths[0] / "cpu.cfs_period_us", str(period))
            _write(paths[0] / "cpu.cfs_quota_us", str(quota))
            return made
        except OSError as exc:
            made.remove()
            return f"cgroup v1 cpu limit refused ({exc.strerror})"

    def cpu_seconds(self) -> float:
        """CPU time used by all of the group's processes so far (0 where it cannot be read)."""
        try:
            text = self.usage.read_text()
        except OSError:
            return 0.0
        if self.version == 1:
            return int(text.strip() or 0) / 1e9
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        return 0.0

    def describe(self) -> str:
        return f"cgroup v{self.version}"

    def kill_all(self) -> None:
        for path in self.paths if self.owned else []:
            MemoryCgroup(path, self.version).kill_all()

    def remove(self) -> None:
        for path in self.paths if self.owned else []:
            MemoryCgroup(path, self.version).remove()


def join_cgroup_preexec(procs_file: str) -> None:
    """In the forked child, before exec: move this process into the cgroup (all it starts follows)."""
    fd = os.open(procs_file, os.O_WRONLY)
    try:
        os.write(fd, b"0")
    finally:
        os.close(fd)
