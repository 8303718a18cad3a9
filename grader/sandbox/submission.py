"""What every child of one submission shares: its time budget per task, and its memory and CPU cgroups.

A suite may start several children for one submission, each through a backend of its own: the SwiGLU
suite starts one that runs the student's file and one that runs only the student's kernels under trusted
launch code. Were the limits each child's, a submission would get a core and a budget per child: a file
that keeps both busy takes two cores, and a hang in each costs the budget twice over. So the limits are
the submission's (``Submission``), whatever number of children it has:

* one time budget per task, charged by every child's calls (and by the CPU time all of them used);
* one memory cgroup and one CPU cgroup over all of their processes. Each child joins a cgroup of its
  own *beneath* the submission's (``ChildCgroups``): the submission's limits cover the whole subtree
  and its CPU count adds up all of it, while a child that is stopped is killed with whatever it left
  behind, without touching its siblings.

One grading run (a pytest session) grades one submission, so the submission is this process's: every
backend made with the same limits joins it (``shared_submission``), until ``end_submissions`` (called
by ``close_all`` at the end of the session) removes its cgroups.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path

from grader import confinement
from grader.sandbox.limits import Limits


@dataclass
class ChildCgroups:
    """The cgroups one child joins, and those of them that are its own to kill and remove."""

    procs_files: list[str] = field(default_factory=list)
    own: list[confinement.MemoryCgroup] = field(default_factory=list)  # leaves beneath the submission's

    def kill_all(self) -> None:
        for leaf in self.own:
            leaf.kill_all()

    def remove(self) -> None:
        for leaf in self.own:
            leaf.remove()
        self.own = []


class Submission:
    """The budget ledger and the cgroups of one submission, shared by the backends of all its children."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.memory: confinement.MemoryCgroup | None = None
        self.no_memory = ""  # why there is no memory limit over all its processes, if there is none
        self.cpu: confinement.CpuCgroup | None = None
        self.no_cpu = ""  # why there is no CPU limit over all its processes, if there is none
        self._confined = False
        self._children: list[ChildCgroups] = []
        self._names = itertools.count(1)
        self._spent: dict[str, float] = {}  # task -> seconds of the submission's time used
        self._cpu_seen = 0.0  # the CPU cgroup's count when last charged
        self._lock = threading.Lock()  # children are started and charged from several threads

    # -- the budget

    def charge(self, task: str, seconds: float) -> None:
        """Charge ``task``: ``seconds`` of wall clock, or the CPU time all of the submission's processes
        used since the last charge of any child, whichever is more (busy background processes pay too)."""
        with self._lock:
            if self.cpu is not None:
                used = self.cpu.cpu_seconds()
                seconds, self._cpu_seen = max(seconds, used - self._cpu_seen), max(used, self._cpu_seen)
            self._spent[task] = self._spent.get(task, 0.0) + seconds

    def left(self, task: str) -> float:
        with self._lock:
            return self.limits.budget - self._spent.get(task, 0.0)

    # -- the cgroups

    def confine(self) -> None:
        """Once: the memory and CPU cgroups over all of the submission's processes, where they can be made."""
        with self._lock:
            if self._confined:
                return
            self._confined = True
            made = confinement.MemoryCgroup.create(self.limits.memory_mb << 20)
            if isinstance(made, str):
                self.no_memory = made
            else:
                self.memory, self.no_memory = _hierarchical(made)
            made = confinement.CpuCgroup.create(self.limits.cpus, memory=self.memory)
            if isinstance(made, str):
                self.no_cpu = made
            else:
                self.cpu, self._cpu_seen = made, made.cpu_seconds()

    def child_cgroups(self) -> ChildCgroups:
        """A cgroup of its own for one more child beneath each of the submission's. Where one cannot be
        made, the child joins the submission's own: the limits hold, only its stop kills nothing more."""
        with self._lock:
            parents = self._parents()
            name = f"child-{next(self._names)}"
            own = []
            try:
                for path, version in parents:
                    (path / name).mkdir()
                    own.append(confinement.MemoryCgroup(path / name, version))
                child = ChildCgroups([leaf.procs_file for leaf in own], own)
            except OSError:
                ChildCgroups(own=own).remove()
                child = ChildCgroups([str(path / "cgroup.procs") for path, _ in parents])
            self._children.append(child)
            return child

    def _parents(self) -> list[tuple[Path, int]]:
        """Every cgroup of the submission a child must be beneath (v1: one per hierarchy)."""
        parents = [(self.memory.path, self.memory.version)] if self.memory is not None else []
        if self.cpu is not None and self.cpu.owned:
            parents += [(path, self.cpu.version) for path in self.cpu.paths]
        return parents

    def close(self) -> None:
        """Kill whatever still runs in the submission's cgroups and remove them, the children's first."""
        with self._lock:
            for child in self._children:
                child.remove()
            self._children = []
            for made in (self.cpu, self.memory):  # a v2 CPU limit on the memory cgroup goes with that one
                if made is not None:
                    made.remove()
            self.cpu = self.memory = None
            ended = "its grading run had ended"  # what a child started after this is told, truthfully
            self.no_memory, self.no_cpu = self.no_memory or ended, self.no_cpu or ended


def _hierarchical(memory: confinement.MemoryCgroup) -> tuple[confinement.MemoryCgroup | None, str]:
    """The memory cgroup, if its limit also counts the children's cgroups beneath it; else why not.
    A v2 limit always does; a v1 one only with ``memory.use_hierarchy`` (the default on recent kernels)."""
    flag = memory.path / "memory.use_hierarchy"
    if memory.version == 2 or not flag.exists():
        return memory, ""
    try:
        if flag.read_text().strip() != "1":
            flag.write_text("1")
        return memory, ""
    except OSError as exc:
        memory.remove()
        return None, f"cgroup v1 memory without hierarchy ({exc.strerror})"


_submissions: dict[Limits, Submission] = {}
_submissions_lock = threading.Lock()


def shared_submission(limits: Limits) -> Submission:
    """The submission this process grades with ``limits``, made for the first backend that asks."""
    with _submissions_lock:
        if limits not in _submissions:
            _submissions[limits] = Submission(limits)
        return _submissions[limits]


def end_submissions() -> None:
    """The end of a grading run: every submission's cgroups go, and the next backend starts a new one."""
    with _submissions_lock:
        ended = list(_submissions.values())
        _submissions.clear()
    for submission in ended:
        submission.close()
