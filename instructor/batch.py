"""``python -m instructor --batch DIR --csv grades.csv``: every entry of DIR is one hand-in, or skipped.

What DIR may hold (a folder, a .zip or loose files per student, as LMSs export them) and the name
each submission gets is ``instructor/intake.py``'s. Submissions are graded in parallel (``--jobs``),
each exactly as ``python -m grader PATH`` would: its own trusted pytest process and its own child,
which runs as a uid of its own when the grader is root. A batch grades for credit, so it requires the
sandbox unless ``--sandbox`` says otherwise: if the sandbox cannot start, the batch stops at once with
exit 3 and no score.

Each submission's outcome is kept whole as it finishes, in the batch's one store
(``instructor/batch_store.py``: a JSON file per submission, an error included), so an interrupted
batch loses nothing: Ctrl-C stops the running submissions within seconds; ``--resume`` skips the
submissions whose record is a grade and grades the others (errors included) again; ``--only NAME``
grades one submission again and replaces its record. At the end of every run, an interrupted one
too, the CSV and everything beside it are written once, from the store (``instructor/batch_reports.py``).
A submission that hangs, crashes or eats memory is stopped by its limits and costs only its own row.

``--students FILE`` narrows the class to a group before anything else (``instructor/groups.py``): the
rest of the batch never sees the others. The feedback that goes back to the LMS (the feedback pages,
Canvas's zip) is each record's once: what no finished run returned yet (``Store.not_returned``), so a
regrade comments on the regraded alone. The late policy and ``--not-handed-in`` are the reports'
(``instructor/batch_reports.py``'s ``Reporting``), applied to every record at the end of each run.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from instructor import batch_options, batch_reports, gradebooks, intake
from instructor.batch_reports import Outputs, Reporting
from instructor.batch_store import Record
from instructor.feedback import score_text
from grader.grading import GraderFailure, SandboxUnavailable, check_child_can_start, grade
from grader.results import BonusRule
from instructor.groups import Group
from instructor.intake import Intake, Submission
from grader.probes.safe_text import printable
from grader.sandbox import Limits
from grader.submission_files import SubmissionFiles, read_submission

EXIT_OK, EXIT_GRADER_ERROR, EXIT_INTERRUPTED = 0, 3, 130


class Progress:
    """One status line on stderr: redrawn in place on a terminal, one line per submission otherwise."""

    def __init__(self, total: int, skipped: int) -> None:
        self.total, self.done, self.skipped = total, 0, skipped
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def update(self, record: Record, running: int) -> None:
        row = batch_reports.row_for(record)
        with self.lock:
            self.done += 1
            elapsed = time.monotonic() - self.started
            eta = elapsed / self.done * (self.total - self.done)
            name = printable(record.name)
            # With bonus tasks the core points and the bonus apart: "63/63" read as full marks for 53 + 10.
            outcome = (score_text(record.grade) if record.grade is not None
                       else f"error: {printable(record.error)[:80]}")
            if self.tty:
                width = 30
                filled = int(width * self.done / max(self.total, 1))
                sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
                                 f"  {running} running  {_clock(elapsed)} elapsed, ~{_clock(eta)} left"
                                 f"  last: {name[:20]} {outcome[:30]}\033[K")
                if self.done == self.total:
                    sys.stderr.write("\n")
            else:
                sys.stderr.write(f"[{self.done}/{self.total}] {name}: {outcome} ({row['seconds']} s;"
                                 f" {_clock(elapsed)} elapsed, ~{_clock(eta)} left)\n")
            sys.stderr.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def make_runner():
    """Warm forks where the platform has a fork server and there is no GPU; fresh processes elsewhere."""
    import multiprocessing

    from grader.sandbox.zygote import forks_can_start_warm

    if "forkserver" in multiprocessing.get_all_start_methods() and forks_can_start_warm():
        from instructor.warm import ForkServerRunner

        return ForkServerRunner()
    from grader.grading import SubprocessRunner

    return SubprocessRunner()


def _grade_one(sub: Submission, files: SubmissionFiles, limits: Limits, sandbox_mode: str, tasks, seed, bonus,
               runner) -> Record:
    started = time.monotonic()
    try:
        return Record.of(sub, grade(sub.path, display=sub.name, limits=limits, sandbox_mode=sandbox_mode, tasks=tasks,
                                    seed=seed, runner=runner, bonus=bonus, files=files))
    except SandboxUnavailable:
        raise  # the machine, not this submission: the whole batch stops
    except GraderFailure as exc:
        return Record.of(sub, None, str(exc).splitlines()[0], time.monotonic() - started)
    except Exception as exc:  # a grader bug on one submission must not lose the others' records
        return Record.of(sub, None, f"{type(exc).__name__}: {exc}", time.monotonic() - started)


def _pick(found: Intake, only: str, folder: Path) -> Submission:
    """--only NAME: the submission of that name (the CSV's), or of that entry in the batch folder."""
    for sub in found.submissions:
        if only in (sub.name, sub.source.rstrip("/")):
            return sub
    why = next((reason for entry, reason in found.skipped if entry.rstrip("/") == only), None)
    if why is not None:
        raise GraderFailure(f"--only {only}: that entry of {folder} is skipped: {why}")
    raise GraderFailure(f"--only {only}: no submission of that name in {folder} (the names are the CSV's"
                        " submission column)")


class BatchLock:
    """The output's lock, held for the whole run: one batch at a time writes a CSV and its store.

    An exclusive ``flock`` on ``.lock`` in the batch's store: the kernel releases it when the process ends,
    however it ends, so a crashed batch leaves nothing held. The file says who holds it, for the
    message of the batch that finds it held."""

    def __init__(self, outputs: Outputs) -> None:
        self.path, self.csv = outputs.lock, outputs.csv
        self.fd: int | None = None

    def __enter__(self) -> "BatchLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 300).decode("utf-8", "replace").strip() or "another batch"
            os.close(fd)
            raise GraderFailure(f"{self.csv.name} is being written by another batch ({printable(holder)}): nothing"
                                " was graded; wait for it to end, or give this batch another --csv") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"process {os.getpid()} on {socket.gethostname()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}"
                     .encode())
        self.fd = fd
        return self

    def __exit__(self, *exc_info) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.close(self.fd)  # and the lock with it
            self.fd = None


def run_batch(folder: Path, csv_path: Path, **options) -> int:
    """Grade every hand-in of ``folder`` into ``csv_path`` and the files beside it (``_run_batch``), while
    holding the output's lock: a second batch on the same CSV stops before grading and says which holds it."""
    outputs = Outputs.beside(csv_path, options.get("feedback"), options.get("feedback_format", "md"))
    with BatchLock(outputs):
        return _run_batch(folder, csv_path, **options)


def parse_shard(value: str | None) -> tuple[int, int] | None:
    """``"2/4"`` -> (2, 4); None for None. K from 1 to N."""
    if value is None:
        return None
    k, slash, n = value.partition("/")
    if not (slash and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise GraderFailure(f"--shard {value}: expected K/N with 1 <= K <= N, e.g. 2/4")
    return int(k), int(n)


def in_shard(names: list[str], shard: tuple[int, int] | None) -> set[str]:
    """The submissions of shard K of N: every N-th of the class's names in their sorted order, from the K-th.
    Every shard runs the same intake on the same folder, so the N shares are disjoint and cover the class."""
    if shard is None:
        return set(names)
    k, n = shard
    return {name for i, name in enumerate(sorted(names)) if i % n == k - 1}


def select_group(found: Intake, group: Group | None) -> list[str]:
    """With ``--students FILE``: ``found`` narrowed to the group's hand-ins and skipped entries (and a line
    per listed student with no hand-in); returns those students, as listed. Without: nothing changes."""
    if group is None:
        return []
    every = list(found.submissions)
    found.submissions, missing = group.select(found)
    found.skipped, absent = group.report(found, missing, every)
    return absent


def say_absent(absent: list[str], group: Group | None) -> None:
    if absent:
        print(f"listed in --students {group.path}, no hand-in in the batch ({len(absent)}):"
              f" {', '.join(absent)}", file=sys.stderr)


def finish(outputs: Outputs, skipped: list[tuple[str, str]], how: Reporting, finished: bool = True) -> str:
    """Every file from the store's records; the feedback returned is what no finished run returned yet, and a
    finished run marks it returned (an interrupted one does not: its files are written again next time)."""
    records = outputs.store.records()
    pages, *_ = batch_reports.feedback_pages(outputs, records, how)
    fresh = frozenset(outputs.store.not_returned(pages))
    for gone in set(outputs.store.returned()) - {record.name for record in records}:  # dropped from the batch
        if isinstance(gone, str) and Path(gone).name == gone:  # a name the store wrote, never a path
            outputs.page(gone).unlink(missing_ok=True)
    summary = batch_reports.write_all(outputs, records, skipped, how=Reporting(
        how.canvas_assignment, how.late, how.blank_not_handed_in, fresh))
    if finished:
        outputs.store.mark_returned(pages)
    return summary


def merge_shards(folder: Path, csv_path: Path, shards: list[Path], *, feedback: Path | None = None,
                 feedback_format: str = "md", canvas_assignment: str | None = None, group: Group | None = None,
                 reporting: Reporting | None = None, options: dict[str, str] | None = None,
                 new_reporting: bool = False) -> int:
    """``--merge``: the shards' records gathered into ``csv_path``'s store, and its files written from them,
    as one batch of the whole class (or of ``group``) writes them. Every submission of the folder (of the
    group) must have a record in exactly one shard."""
    how = reporting or Reporting(canvas_assignment)
    outputs = Outputs.beside(csv_path, feedback, feedback_format)
    with BatchLock(outputs):
        if outputs.store.records() or csv_path.exists():
            raise GraderFailure(f"{csv_path} already exists, or its batch's records: --merge writes a new one")
        batch_options.check_merge({shard: Outputs.beside(shard).store.folder for shard in shards}, options,
                                  outputs.store.folder, new_reporting)
        with tempfile.TemporaryDirectory(prefix="grader-intake-") as work:
            found = intake.scan(folder, Path(work), outputs.all())
        absent = select_group(found, group)
        names = {sub.name for sub in found.submissions}
        records: dict[str, Record] = {}
        for shard in shards:
            for record in Outputs.beside(shard).store.records():
                if record.name in records:
                    raise GraderFailure(f"--merge: {record.name} has a record in two shards (one is {shard})")
                if record.name in names:
                    records[record.name] = record
        missing = sorted(names - set(records))
        if missing:
            raise GraderFailure(f"--merge: no shard has a record of {len(missing)} submission(s) of {folder}"
                                f" ({', '.join(map(printable, missing[:5]))}): grade them with --shard or --only")
        from_canvas = {r.name for r in records.values() if r.lms == "canvas"}
        gradebooks.check_canvas_assignment(how.canvas_assignment, len(from_canvas))
        for name in sorted(records):
            outputs.store.keep(records[name])
        summary = finish(outputs, found.skipped, how)
    say_absent(absent, group)
    print(f"merged {len(records)} records of {len(shards)} shard(s): {summary}")
    return EXIT_OK


def _run_batch(folder: Path, csv_path: Path, *, jobs: int, resume: bool, limits: Limits, sandbox_mode: str,
               tasks=None, seed=None, only: str | list[str] | None = None, feedback: Path | None = None,
               feedback_format: str = "md", bonus: BonusRule | None = None,
               canvas_assignment: str | None = None, shard: tuple[int, int] | None = None,
               group: Group | None = None, reporting: Reporting | None = None,
               options: dict[str, str] | None = None, new_reporting: bool = False) -> int:
    how = reporting or Reporting(canvas_assignment)
    only = [only] if isinstance(only, str) else only
    if not folder.is_dir() and not intake.is_class_zip(folder):
        raise GraderFailure(f"--batch {folder}: no such folder or .zip")
    outputs = Outputs.beside(csv_path, feedback, feedback_format)
    store = outputs.store
    kept = store.records()
    if (kept or csv_path.exists() and csv_path.stat().st_size) and not (resume or only):
        raise GraderFailure(f"{csv_path} already exists, or its batch's records in {store.folder}: pass --resume to"
                            " continue that batch, or remove both to start over")
    batch_options.check_run(store.folder, options, "--resume" if resume else "--only" if only else "", new_reporting)
    with tempfile.TemporaryDirectory(prefix="grader-intake-") as work:  # zips and loose files, unpacked
        found = intake.scan(folder, Path(work), outputs.all())
        absent = select_group(found, group)
        if not found.submissions:
            for entry, reason in found.skipped:
                print(f"skipped {entry}: {reason}", file=sys.stderr)
            of = f" of the students in --students {group.path}" if group else ""
            raise GraderFailure(f"--batch {folder}: no submission{of} in it ({len(found.skipped)} entries skipped)")
        from_canvas = {s.name for s in found.submissions if s.lms == "canvas"} | {r.name for r in kept if r.lms == "canvas"}
        gradebooks.check_canvas_assignment(how.canvas_assignment, len(from_canvas))
        if shard is not None:  # this shard's share of the class, and nothing of the others'
            mine = in_shard([sub.name for sub in found.submissions], shard)
            found.submissions = [sub for sub in found.submissions if sub.name in mine]
        # Each hand-in read once, here (grader/submission_files.py): what --resume compares with its record,
        # and what is graded.
        files = {sub.name: read_submission(sub.path) for sub in found.submissions}
        if only:
            todo = list({sub.name: sub for sub in (_pick(found, name, folder) for name in only)}.values())
        else:
            # Done: graded from the same files, for the same LMS student. A hand-in changed since its grade is
            # graded again, and so is a name that now stands for another student (a record is kept by name).
            subs = {sub.name: sub for sub in found.submissions}
            done = {record.name for record in kept if record.grade is not None and record.name in files
                    and record.grade.files_digest == files[record.name].digest()
                    and (record.lms, record.lms_id) == (subs[record.name].lms, subs[record.name].student_id)}
            changed = sorted(r.name for r in kept if r.grade is not None and r.name in files and r.name not in done)
            todo = [sub for sub in found.submissions if sub.name not in done]
            gone = [r.name for r in kept if r.name not in files]
            if gone:
                store.drop(gone)
                print(f"dropped {len(gone)} record(s) of submissions no longer in {folder}: {', '.join(map(printable, gone))}"
                      f" (kept in {store.dropped_folder})", file=sys.stderr)
            if changed:
                print(f"graded again, changed since their grade: {', '.join(map(printable, changed))}", file=sys.stderr)
        total = len(found.submissions)
        if resume and len(todo) < total:
            print(f"resuming: {total - len(todo)} of {total} submissions already graded (their records are in"
                  f" {store.folder})", file=sys.stderr)
        graded: list[Record] = []
        try:
            if sandbox_mode != "auto":
                # Once for the whole batch, here in the main thread, where Ctrl-C reaches it: where no
                # child can start, every submission would fail the same way.
                check_child_can_start(limits, sandbox_mode)
            _grade_all(todo, files, jobs, graded.append, store, (limits, sandbox_mode, tasks, seed, bonus),
                       total - len(todo))
        except SandboxUnavailable as exc:
            if graded:  # the sandbox failed midway: the CSV shows what was graded before
                finish(outputs, found.skipped, how, finished=False)
            print(f"grader error: {exc}; the batch stopped: nothing was graded without the sandbox"
                  f" ({len(graded)} submission(s) graded before are in {csv_path})", file=sys.stderr)
            return EXIT_GRADER_ERROR
        except KeyboardInterrupt:
            # The CSV and the reports from the records kept so far, so that they agree with them.
            finish(outputs, found.skipped, how, finished=False)
            print(f"\ninterrupted: {len(graded)} submission(s) graded into {csv_path}, {len(todo) - len(graded)} not;"
                  " run the same command with --resume to go on", file=sys.stderr)
            # Now, without waiting for the worker threads: one may be waiting for a fork server to
            # import torch (tens of seconds on a busy machine). Every record was written whole by
            # this thread; the sessions were killed, and the rest dies with this process.
            sys.stdout.flush()
            sys.stderr.flush()
            shutil.rmtree(work, ignore_errors=True)
            os._exit(EXIT_INTERRUPTED)
        summary = finish(outputs, found.skipped, how)
    errors = sum(record.grade is None for record in graded)
    for entry, reason in found.skipped:
        print(f"skipped {entry}: {reason}", file=sys.stderr)
    say_absent(absent, group)
    if sandbox_mode != "bwrap":
        print(f"--sandbox {sandbox_mode}: check the sandboxed column", file=sys.stderr)
    if errors:
        print(f"{errors} submission(s) could not be graded (status 'error'): rerun with --resume to retry them",
              file=sys.stderr)
    print(summary)
    return EXIT_GRADER_ERROR if todo and errors == len(todo) else EXIT_OK


def _grade_all(todo: list[Submission], files: dict[str, SubmissionFiles], jobs: int, finished_one, store, how: tuple,
               already: int) -> None:
    """Grade ``todo``, ``jobs`` at a time; as each finishes, its record is kept in ``store`` (by this
    thread alone) and passed to ``finished_one``.

    On Ctrl-C, or a sandbox that cannot start, the running submissions are stopped before the
    exception goes on: only whole records were written.
    """
    progress = Progress(len(todo), already)
    runner = make_runner()
    pool = ThreadPoolExecutor(max_workers=jobs)
    pending: dict[Future, Submission] = {}
    try:
        queue = list(todo)
        while queue or pending:
            while queue and len(pending) < jobs:
                sub = queue.pop(0)
                pending[pool.submit(_grade_one, sub, files[sub.name], *how, runner)] = sub
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                pending.pop(future)
                record = future.result()
                store.keep(record)
                finished_one(record)
                progress.update(record, len(pending))
    except KeyboardInterrupt:
        runner.abort()  # the running submissions' processes, and everything they started
        pool.shutdown(wait=False, cancel_futures=True)  # run_batch ends the process
        raise
    except SandboxUnavailable:
        runner.abort()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
