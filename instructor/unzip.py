"""Zips in a batch, read as hostile input: a student's zip, or the class's "download all submissions" zip.

A zip is refused whole for a member with an absolute path or ``..``, a symbolic link, more than
``MAX_ZIP_MEMBERS`` members or ``MAX_ZIP_BYTES`` declared, or a ``.py`` member over
``MAX_SUBMISSION_FILE_BYTES``. Only its ``.py`` members are decompressed (each read up to that size,
whatever it declares), into a private folder; the class's zip also gives up its ``.zip`` members
(each student's zip, opened later as any student's zip is). Every other member is written as an
empty file of its name, for the intake to name it (a PDF skipped, a zip inside a student's zip not
extracted). What one zip writes is at most ``MAX_ZIP_BYTES``, and what one batch unpacks at most
``MAX_UNPACKED_BYTES``, whatever the zips declare.
"""

from __future__ import annotations

import stat
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from grader.probes.safe_text import printable
from grader.sandbox import MAX_SUBMISSION_FILE_BYTES

MAX_ZIP_MEMBERS = 4096
MAX_ZIP_BYTES = 256 << 20
MAX_UNPACKED_BYTES = 2 << 30  # every zip of one batch together, the class's zip and the zips in it included


class Unpacker:
    """Opens the zips of one batch, each into a folder of its own under ``work``, against one budget."""

    def __init__(self, work: Path) -> None:
        self.work, self.opened, self.left = work, 0, MAX_UNPACKED_BYTES

    def open(self, path: Path, whole_class: bool = False) -> tuple[Path | None, str]:
        """The folder the zip was extracted into, or None and the reason it was refused."""
        self.opened += 1
        target = self.work / f"unzipped-{self.opened}"
        refused = self._extract(path, target, whole_class)
        return (None, refused) if refused else (target, "")

    def _extract(self, path: Path, target: Path, whole_class: bool) -> str:
        def parts(member: zipfile.ZipInfo) -> tuple[str, ...]:
            return PurePosixPath(member.filename.replace("\\", "/")).parts

        def oversize(member: zipfile.ZipInfo, limit: int) -> str:
            return f"member {printable(member.filename)!r} is over {limit >> 20} MB"

        try:
            with zipfile.ZipFile(path) as archive:
                members = archive.infolist()
                if len(members) > MAX_ZIP_MEMBERS:
                    return f"{len(members)} members, more than {MAX_ZIP_MEMBERS}"
                if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                    return f"over {MAX_ZIP_BYTES >> 20} MB uncompressed"
                for member in members:
                    if member.filename.startswith(("/", "\\")) or ".." in parts(member) or not parts(member):
                        return f"member {printable(member.filename)!r} has an absolute path or '..'"
                    if stat.S_ISLNK(member.external_attr >> 16):
                        return f"member {printable(member.filename)!r} is a symbolic link"
                files = [m for m in members if not m.is_dir()]
                python = [m for m in files if m.filename.lower().endswith(".py")]
                big = next((m for m in python if m.file_size > MAX_SUBMISSION_FILE_BYTES), None)
                if big is not None:
                    return oversize(big, MAX_SUBMISSION_FILE_BYTES)
                target.mkdir(parents=True)
                written = 0
                for member in files:
                    cap = (MAX_SUBMISSION_FILE_BYTES if member.filename.lower().endswith(".py") else
                           MAX_ZIP_BYTES if whole_class and member.filename.lower().endswith(".zip") else 0)
                    data = b""  # of the other members only the name is written, which the intake lists
                    if cap:
                        limit = min(cap, MAX_ZIP_BYTES - written, self.left)
                        with archive.open(member) as source:
                            data = source.read(limit + 1)  # the size it declared may be a lie
                        if len(data) > limit:
                            return (oversize(member, cap) if limit == cap else
                                    f"over {MAX_ZIP_BYTES >> 20} MB uncompressed" if limit < self.left else
                                    f"the batch's zips together unpack to over {MAX_UNPACKED_BYTES >> 30} GB")
                        written += len(data)
                        self.left -= len(data)
                    dest = target.joinpath(*parts(member))
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    with open(dest, "xb") as out:  # a name twice in one zip is refused, not overwritten
                        out.write(data)
        except FileExistsError as exc:
            return f"a member's name appears twice ({printable(Path(exc.filename or '').name)!r})"
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, RuntimeError, NotImplementedError, EOFError,
                ValueError, zlib.error) as exc:
            return f"not a readable zip ({printable(str(exc)).splitlines()[0] if str(exc) else type(exc).__name__})"
        return ""
