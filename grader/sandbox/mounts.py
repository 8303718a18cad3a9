"""What the sandbox sees: the bubblewrap command line, the Python and system folders it mounts."""

from __future__ import annotations

import glob
import os
import site
import sys
import sysconfig
from pathlib import Path

from grader.paths import REPO
from grader.sandbox.limits import NOBODY


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


def gpu_present() -> bool:
    """An NVIDIA GPU this process may use: its device files, unless CUDA_VISIBLE_DEVICES hides them all
    (as the grader does, ``hide_gpus_from_grading``)."""
    return os.environ.get("CUDA_VISIBLE_DEVICES") != "" and bool(glob.glob("/dev/nvidia[0-9]*"))

