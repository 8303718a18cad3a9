"""Starting a child for a ChildBackend: its private runtime copy, the launch plan, its uid and cgroups
(its own, beneath the submission's: ``grader/sandbox/submission.py``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader import confinement
from grader.backend import ChildRun
from grader.probes.child import START_CHECK_FLAG
from grader.sandbox.processes import limit_preexec, become_subreaper, spawn
from grader.sandbox.mounts import gpu_present, bwrap_command, child_sys_path
from grader.sandbox.seccomp import filter_file
from grader.sandbox.limits import (CHILD_PACKAGE, CHILD_SCRIPT, CPU_BUDGETS, GRADER_DIR, MAX_SUBMISSION_FILE_BYTES,
                                   MAX_SUBMISSION_FILES, SANDBOX_ENV, SANDBOX_REQUIRED, SANDBOX_STARTED_ENV, GraderError)
from grader.sandbox.launch import ChildFailure, ChildProcess, Plan, plans_to_try, working_plans
from grader.sandbox.zygote import ZYGOTE_ENV, fork_child


class ChildStarter:
    """The half of ``ChildBackend`` that starts its child (the runtime copy, the launch, confinement).
    ``start_check``: the child only says hello (``START_CHECK_FLAG``, ``grader/probes/child.py``)."""

    start_check = False

    def _start_child(self) -> ChildProcess:
        if self._child is not None and self._child.proc.poll() is None:
            return self._child
        if self._child is not None:
            self._discard_child()
        if self._starts and self._budget_left() <= 0:
            raise ChildFailure("Timeout", self._budget_text(), "start", out_of_time=True)
        if self.sandbox:
            become_subreaper()
            self._confine()
        started = time.monotonic()
        errors = []
        key = (self.sandbox, self.mode)
        if key in working_plans:
            plans = [working_plans[key]]
        else:
            plans = plans_to_try(self.sandbox, self.mode)
        if not plans:
            raise GraderError(f"{SANDBOX_REQUIRED} ({SANDBOX_ENV}={self.mode}) but is not installed, or this is"
                              " not Linux: install bubblewrap, or grade with --sandbox auto (not for credit)",
                              sandbox_required=True)
        proven = self.mode == "bwrap" and os.environ.get(SANDBOX_STARTED_ENV) == "1"
        if proven:  # the sandbox works here: try it twice, and never fall back (see SANDBOX_STARTED_ENV)
            plans = [plans[0], plans[0]]
        for plan in plans:
            if not plan.sandboxed and self.sandbox and errors:  # say why the sandbox is not there
                plan = plans_to_try(self.sandbox, self.mode, bwrap_failure=errors[0].split(": ", 1)[-1])[-1]
            self._plan = plan
            try:
                child = self._launch(plan)
            except ChildFailure as failure:
                errors.append(f"{plan.name}: {failure.message}")
                continue
            working_plans[key] = plan
            self.started.runs.append(ChildRun(plan.isolation, self._confinement_text(), plan.sandboxed))
            if self._starts:  # a restart: the submission's code crashed or hung, so it pays for it
                self._charge(time.monotonic() - started, self._restart_task)
            self._starts += 1
            self._child = child
            return child
        if proven:
            raise GraderError("the sandboxed process for this submission did not start, twice, although the sandbox"
                              " starts on this machine (the machine overloaded?): not graded, grade it again: "
                              + " ".join(errors[-1].split(": ", 1)[-1].split()))
        if self.mode == "bwrap":
            raise GraderError(f"{SANDBOX_REQUIRED} ({SANDBOX_ENV}={self.mode}) but could not start here: "
                              + " ".join(errors[0].split(": ", 1)[-1].split()), sandbox_required=True)
        raise GraderError("could not start a child process to run the code under test: "
                          + "; ".join(" ".join(e.split()) for e in errors))

    def _confine(self) -> None:
        """Once per child's backend: its own uid (as root), and its cgroups beneath the submission's memory
        and CPU cgroups (made by the first child of the submission), where they can be had."""
        if self._job_user is None and confinement.running_as_root():
            try:
                self._job_user = confinement.JobUser.claim()
            except (OSError, RuntimeError) as exc:
                raise GraderError(f"could not set aside a user to run the submission as: {exc}") from exc
        if self._cgroups is None:
            self.submission.confine()
            self._cgroups = self.submission.child_cgroups()

    def _cgroup_procs(self) -> list[str]:
        return self._cgroups.procs_files if self._cgroups is not None else []

    def _confinement_text(self) -> str:
        """The instructor's detail of how the child runs (its uid, its cgroups; '' for a local run): the
        limits are the submission's, over the processes of all its children. Never shown to students."""
        if not self.sandbox:
            return ""
        who = (f"as uid {self._job_user.uid}, its own" if self._job_user is not None
               else "as the grader's own user")
        shared = self.submission
        memory = (f"memory limit over all its processes ({shared.memory.describe()})" if shared.memory is not None
                  else f"memory limit per process only ({shared.no_memory})")
        cpu = (f"CPU limit {shared.limits.cpus:g} core over all its processes ({shared.cpu.describe()})"
               if shared.cpu is not None else f"no CPU limit over its processes ({shared.no_cpu})")
        return f"{who}; {memory}; {cpu}"

    def _prepare_runtime(self) -> Path:
        """A private copy of probes + child and of the submission's top-level .py files."""
        if self._runtime is not None:
            return self._runtime
        runtime = Path(tempfile.mkdtemp(prefix="grader-child-"))
        package = runtime / "grader-child" / "grader"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text('"""Probes and the child entry point, copied for a sandbox."""\n')
        shutil.copytree(GRADER_DIR / CHILD_PACKAGE, package / CHILD_PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
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
        gpu = gpu_present()
        uid = self._job_user.uid if self.sandbox and self._job_user is not None else None
        drop_in_child = bool(plan.bwrap) and uid is not None  # bubblewrap as root; the child drops at once
        # The child starts Python isolated (-I): it is handed the package folders this process uses,
        # and it is started through this process's own interpreter path (a venv's bin/python), not
        # the file that path links to, so that it finds the same venv.
        python_path = json.dumps(child_sys_path())
        pass_fds: tuple[int, ...] = ()
        if not self.sandbox:
            cmd = [sys.executable, str(CHILD_SCRIPT)]
            env, cwd = None, None
        else:
            runtime = self._prepare_runtime()
            inner_cwd = "/submission" if plan.bwrap else str(runtime / "submission")
            if plan.bwrap:
                home = "/tmp"
                options = bwrap_command(plan.bwrap, runtime, inner_cwd, userns=plan.userns, gpu=gpu,
                                        tmpfs_mb=self.limits.tmpfs_mb, as_root=drop_in_child)[1:]
                for key, value in self._child_env(home).items():
                    options += ["--setenv", key, value]
                # The kernel's keyrings are in no namespace: their calls are refused (grader/sandbox/seccomp.py).
                seccomp_fd = filter_file()
                if seccomp_fd is not None:
                    options += ["--seccomp", str(seccomp_fd)]
                # bubblewrap's options (the host's paths it binds) go through a file descriptor it
                # reads and closes: on its command line they would be the sandbox's /proc/1/cmdline.
                options_fd = _options_file(options)
                pass_fds = (options_fd,) if seccomp_fd is None else (options_fd, seccomp_fd)
                cmd = [plan.bwrap, "--args", str(options_fd), "--",
                       sys.executable, "-I", "-B", "/grader-child/grader/probes/child.py", python_path]
                if drop_in_child:
                    cmd += ["--uid", str(uid)]
                env, cwd = {}, "/"
            else:
                home = str(runtime / "home")
                cmd = [sys.executable, "-I", "-B", str(runtime / "grader-child" / "grader" / "probes" / "child.py"), python_path]
                env, cwd = self._child_env(home), inner_cwd
        if self.start_check:
            cmd.append(START_CHECK_FLAG)
        stderr_file = tempfile.NamedTemporaryFile(prefix="grader-child-stderr-", delete=False)
        stderr_path = Path(stderr_file.name)
        zygote = os.environ.get(ZYGOTE_ENV) if not (self.sandbox or self.start_check) else None
        try:
            if zygote:  # the same child, forked warm (grader/sandbox/zygote.py): never a sandboxed one
                proc = fork_child(zygote, self.limits, data_limit=gpu, cpu_budgets=CPU_BUDGETS,
                                  stderr_fd=stderr_file.fileno())
            else:
                proc = spawn(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr_file,
                             cwd=cwd, env=env, start_new_session=True, pass_fds=pass_fds,
                             preexec_fn=limit_preexec(self.limits, data_limit=gpu,
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
            for fd in pass_fds:
                os.close(fd)
        child = ChildProcess(proc, stderr_path, self.limits.max_reply_mb << 20, via_bwrap=bool(plan.bwrap))
        try:
            child.receive(b"H", time.monotonic() + self.limits.startup_timeout,
                          f"did not start within {self.limits.startup_timeout:.0f} s")
        except ChildFailure as failure:
            tail = child.stderr_tail()
            child.kill()
            raise ChildFailure(failure.kind, f"{tail or failure.message}", "start") from None
        return child


def _options_file(options: list[str]) -> int:
    """A descriptor of an unnamed file holding ``options`` NUL-separated, as ``bwrap --args`` reads them."""
    fd = os.memfd_create("bwrap-options", 0)
    with open(fd, "wb", closefd=False) as file:
        file.write(b"".join(option.encode() + b"\0" for option in options))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _start_failure(exc: BaseException) -> str:
    if isinstance(exc, PermissionError):
        return (f"{exc}: the submission's own user may not run this Python; install Python where other"
                " users can read it, or grade in the sandbox (bubblewrap)")
    return str(exc)
