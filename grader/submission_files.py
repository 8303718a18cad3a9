"""A submission's files, read once: the only place a trusted process opens what a submission named.

``read_submission`` reads the top-level ``.py`` files of a hand-in folder (or of its ``exercises/``), each
as a regular file opened without following a link, at most ``MAX_SUBMISSION_FILE_BYTES`` each and
``MAX_SUBMISSION_FILES`` in all. Everything that grades afterwards works on what it returned: the seed
is drawn from these bytes, and ``write_copy`` puts them into a private folder of the grader's, from which
the sandbox copies its files and the kernel suites take the kernels. A link (to the reference, to
``/proc/self/cwd/...``, to a large or binary host file), a device, a FIFO, a folder named ``*.py`` or a
file over the size limit is refused with its name and why, and is graded as not handed in.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from grader.probes.safe_text import printable
from grader.sandbox.limits import MAX_SUBMISSION_FILE_BYTES, MAX_SUBMISSION_FILES

CHECKOUT_FOLDER = "exercises"  # a whole checkout holds its exercise files here
LINK_REFUSED = "a symbolic link, not a file: only regular files are read"


@dataclass(frozen=True)
class Refusal:
    name: str  # the entry's name as the submission spelled it, made printable
    why: str   # for people

    def __str__(self) -> str:
        return f"{self.name}: {self.why}"


@dataclass
class SubmissionFiles:
    """What was read: file name -> bytes, and every ``.py`` entry that was refused, with why."""

    files: dict[str, bytes] = field(default_factory=dict)
    refused: list[Refusal] = field(default_factory=list)
    in_checkout: bool = False  # the files came from a checkout's exercises/ (messages say exercises/NAME.py)

    def digest(self) -> str:
        """The content's fingerprint: the same files, the same digest, whatever the folder or the date."""
        h = hashlib.sha256()
        for name in sorted(self.files):
            h.update(name.encode() + b"\0" + self.files[name] + b"\0")
        return h.hexdigest()

    def write_copy(self, folder: Path) -> Path:
        """The files, written into ``folder`` (new, private to the grader's user); returns the folder to
        grade, laid out as the hand-in was (a checkout's files under exercises/)."""
        folder.mkdir(mode=0o700)
        target = folder / CHECKOUT_FOLDER if self.in_checkout else folder
        target.mkdir(mode=0o700, exist_ok=True)
        for name, data in self.files.items():
            fd = os.open(target / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        return folder


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open_folder(parent: int | None, path: str | Path) -> int | None:
    """A folder's descriptor; beneath ``parent``, never through a link. None where it is not a folder."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    try:
        if parent is None:
            return os.open(path, flags)  # the hand-in's own folder: named by the instructor, not the submission
        return os.open(path, flags | os.O_NOFOLLOW, dir_fd=parent)
    except OSError:
        return None


def read_submission(folder: Path) -> SubmissionFiles:
    """Read the hand-in in ``folder`` once (see the module docstring). A folder that cannot be read gives
    no files: every task is then not handed in."""
    taken = SubmissionFiles()
    top = _open_folder(None, folder)
    if top is None:
        return taken
    try:
        inner = _open_folder(top, CHECKOUT_FOLDER)
        try:
            st = os.stat(CHECKOUT_FOLDER, dir_fd=top, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                taken.refused.append(Refusal(f"{CHECKOUT_FOLDER}/", "a symbolic link: only a real folder is read"))
        except OSError:
            pass
        if inner is not None:
            taken.in_checkout = True
            try:
                _read_files(inner, taken)
            finally:
                os.close(inner)
        else:
            _read_files(top, taken)
    finally:
        os.close(top)
    return taken


def _read_files(folder: int, taken: SubmissionFiles) -> None:
    names = sorted(name for name in os.listdir(folder) if name.endswith(".py"))
    for name in names:
        shown = printable(name)
        try:
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except OSError as exc:
            taken.refused.append(Refusal(shown, f"cannot be read ({exc.strerror})"))
            continue
        if stat.S_ISLNK(st.st_mode):
            taken.refused.append(Refusal(shown, LINK_REFUSED))
            continue
        if not stat.S_ISREG(st.st_mode):
            taken.refused.append(Refusal(shown, f"{_kind(st.st_mode)}, not a file: only regular files are read"))
            continue
        if st.st_size > MAX_SUBMISSION_FILE_BYTES:
            taken.refused.append(Refusal(shown, f"{st.st_size} bytes, over the limit of {MAX_SUBMISSION_FILE_BYTES} bytes"))
            continue
        if len(taken.files) >= MAX_SUBMISSION_FILES:
            taken.refused.append(Refusal(shown, f"more than {MAX_SUBMISSION_FILES} .py files: the rest are not read"))
            continue
        data = _read_regular(folder, name, st)
        if isinstance(data, str):
            taken.refused.append(Refusal(shown, data))
        else:
            taken.files[name] = data


def _read_regular(folder: int, name: str, seen: os.stat_result) -> bytes | str:
    """The file's bytes, or why not: opened without following a link or blocking on a FIFO, and checked
    to be the regular file ``seen`` was (an entry swapped between the two is refused)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (seen.st_dev, seen.st_ino):
            return "changed while it was read: not read"
        chunks, size = [], 0
        while size <= MAX_SUBMISSION_FILE_BYTES:
            chunk = os.read(fd, MAX_SUBMISSION_FILE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_SUBMISSION_FILE_BYTES:
            return f"grew over the limit of {MAX_SUBMISSION_FILE_BYTES} bytes while it was read"
        return b"".join(chunks)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    finally:
        os.close(fd)
