"""``python -m instructor --batch DIR --csv grades.csv``: every entry of DIR is one hand-in, or skipped.

What DIR may hold (a folder, a .zip or loose files per student, as LMSs export them) and the name
each submission gets is ``instructor/intake.py``'s; what is written beside the CSV (feedback, item
analysis, histogram, the skipped entries) is ``instructor/batch_reports.py``'s, rewritten from every row
at the end of each run. Submissions are graded in parallel (``--jobs``), each exactly as ``python -m
grader PATH`` would: its own trusted pytest process and its own child, which runs as a uid of its own
when the grader is root. A batch grades for credit, so it requires the sandbox unless ``--sandbox``
says otherwise: if the sandbox cannot start, the batch stops at once with exit 3 and no score.

A row is appended to the CSV (and flushed to disk) as each submission finishes, so an interrupted
batch loses nothing: Ctrl-C stops the running submissions within seconds and leaves only whole rows;
``--resume`` skips the submissions already graded and retries those whose row says ``error``;
``--only NAME`` grades one submission again and puts its row in place of the old one. A submission
that hangs, crashes or eats memory is stopped by its limits and costs only its own row.
"""

from __future__ import annotations

import csv
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from instructor import batch_reports, intake
from instructor.batch_reports import Outputs, write_csv
from grader.grading import TASK_TITLES, GraderFailure, SandboxUnavailable, check_child_can_start, grade
from grader.results import Grade
from instructor.intake import Intake, Submission
from grader.safe_text import csv_cell, printable
from grader.sandbox import Limits

EXIT_OK, EXIT_GRADER_ERROR, EXIT_INTERRUPTED = 0, 3, 130


def columns() -> list[str]:
    cols = ["submission", "score", "max_score"]
    for task in TASK_TITLES:
        cols += [task, f"{task}_max"]
    return cols + ["status", "first_failure", "sandboxed", "isolation", "seed", "seconds", "grader_peak_mb"]


def row_for(name: str, result: Grade | None, error: str = "", seconds: float = 0.0) -> dict:
    row = {c: "" for c in columns()}
    row["submission"] = name
    if result is None:
        row.update(status="error", first_failure=error, seconds=f"{seconds:.1f}")
    else:
        row.update(score=result.score, max_score=result.max_score, isolation=result.isolation,
                   sandboxed="true" if result.sandboxed else "false",  # as in the JSON report
                   seed=result.seed, seconds=f"{result.seconds:.1f}", status="graded",
                   grader_peak_mb=result.grader_peak_mb)
        for task in TASK_TITLES:
            tests = result.task_tests(task)
            row[task] = sum(t.points for t in tests)
            row[f"{task}_max"] = sum(t.max_points for t in tests)
        first = result.first_failure()
        if first is not None:
            row["first_failure"] = f"{first.name}: {first.message}"
    # The folder name and the messages come from students: no cell may act as a formula.
    return {k: csv_cell(v) for k, v in row.items()}


def read_rows(csv_path: Path) -> list[dict]:
    if not csv_path.exists() or csv_path.stat().st_size == 0:
        return []
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != columns():
            raise GraderFailure(f"{csv_path} has other columns than this grader writes; give a new --csv file")
        return list(reader)


def keep_graded_rows(csv_path: Path, outputs: Outputs) -> set[str]:
    """For --resume: drop the rows to grade again (``error``, or no kept result) and return who is done."""
    rows = read_rows(csv_path)
    kept = [r for r in rows if r["status"] == "graded" and r["submission"] and outputs.result(r["submission"]).exists()]
    if len(kept) != len(rows):
        write_csv(csv_path, columns(), kept)
    return {r["submission"] for r in kept}


def replace_row(csv_path: Path, row: dict) -> None:
    """For --only: this submission's row in place of its old one (or last); the other rows as they were."""
    rows = read_rows(csv_path)
    at = next((i for i, r in enumerate(rows) if r["submission"] == row["submission"]), len(rows))
    write_csv(csv_path, columns(), rows[:at] + [row] + rows[at + 1:])


class Progress:
    """One status line on stderr: redrawn in place on a terminal, one line per submission otherwise."""

    def __init__(self, total: int, skipped: int) -> None:
        self.total, self.done, self.skipped = total, 0, skipped
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def update(self, name: str, row: dict, running: int) -> None:
        with self.lock:
            self.done += 1
            elapsed = time.monotonic() - self.started
            eta = elapsed / self.done * (self.total - self.done)
            name = printable(name)
            outcome = (f"{row['score']}/{row['max_score']}" if row["status"] == "graded"
                       else f"error: {row['first_failure'][:80]}")
            if self.tty:
                width = 30
                filled = int(width * self.done / max(self.total, 1))
                sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}"
                                 f"  {running} running  {_clock(elapsed)} elapsed, ~{_clock(eta)} left"
                                 f"  last: {name[:20]} {outcome[:20]}\033[K")
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
    """Warm forks where the platform has a fork server; fresh processes elsewhere."""
    import multiprocessing

    if "forkserver" in multiprocessing.get_all_start_methods():
        from instructor.warm import ForkServerRunner

        return ForkServerRunner()
    from grader.grading import SubprocessRunner

    return SubprocessRunner()


def _grade_one(sub: Submission, limits: Limits, sandbox_mode: str, tasks, seed, bonus,
               runner) -> tuple[Grade | None, str, float]:
    started = time.monotonic()
    try:
        return grade(sub.path, display=sub.name, limits=limits, sandbox_mode=sandbox_mode, tasks=tasks,
                     seed=seed, runner=runner, bonus=bonus), "", time.monotonic() - started
    except SandboxUnavailable:
        raise  # the machine, not this submission: the whole batch stops
    except GraderFailure as exc:
        return None, str(exc).splitlines()[0], time.monotonic() - started
    except Exception as exc:  # a grader bug on one submission must not lose the others' rows
        return None, f"{type(exc).__name__}: {exc}", time.monotonic() - started


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


def run_batch(folder: Path, csv_path: Path, *, jobs: int, resume: bool, limits: Limits, sandbox_mode: str,
              tasks=None, seed=None, only: str | None = None, feedback: Path | None = None,
              feedback_format: str = "md", bonus: list[str] | None = None) -> int:
    if not folder.is_dir() and not intake.is_class_zip(folder):
        raise GraderFailure(f"--batch {folder}: no such folder or .zip")
    if csv_path.exists() and csv_path.stat().st_size and not (resume or only):
        raise GraderFailure(f"{csv_path} already exists: pass --resume to continue it, or remove it to start over")
    outputs = Outputs.beside(csv_path, feedback, feedback_format)
    with tempfile.TemporaryDirectory(prefix="grader-intake-") as work:  # zips and loose files, unpacked
        found = intake.scan(folder, Path(work), outputs.all())
        if not found.submissions:
            for entry, reason in found.skipped:
                print(f"skipped {entry}: {reason}", file=sys.stderr)
            raise GraderFailure(f"--batch {folder}: no submission in it ({len(found.skipped)} entries skipped)")
        if only:
            done, todo = set(), [_pick(found, only, folder)]
        else:
            done = keep_graded_rows(csv_path, outputs) if resume else set()
            todo = [sub for sub in found.submissions if sub.name not in done]
        total = len(found.submissions)
        if done:
            print(f"resuming: {total - len(todo)} of {total} submissions already graded in {csv_path}",
                  file=sys.stderr)
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        rows: list[dict] = []
        try:
            if sandbox_mode != "auto":
                # Once for the whole batch, here in the main thread, where Ctrl-C reaches it: where no
                # child can start, every submission would fail the same way.
                check_child_can_start(limits, sandbox_mode)
            with open(csv_path, "a", newline="", encoding="utf-8") as f:
                writer = csv.DictWriter(f, fieldnames=columns())
                if f.tell() == 0:
                    writer.writeheader()
                    f.flush()

                def record(row: dict) -> None:
                    if only:  # in place of its old row, the others as they are
                        replace_row(csv_path, row)
                    else:
                        writer.writerow(row)
                        f.flush()
                        os.fsync(f.fileno())  # a row on disk survives a crash of the batch right after
                    rows.append(row)

                _grade_all(todo, jobs, record, outputs, (limits, sandbox_mode, tasks, seed, bonus), total - len(todo))
        except SandboxUnavailable as exc:
            print(f"grader error: {exc}; the batch stopped: nothing was graded without the sandbox"
                  f" ({len(rows)} row(s) graded before are in {csv_path})", file=sys.stderr)
            return EXIT_GRADER_ERROR
        except KeyboardInterrupt:
            print(f"\ninterrupted: {len(rows)} submission(s) graded into {csv_path}, {len(todo) - len(rows)} not;"
                  " run the same command with --resume to go on", file=sys.stderr)
            # Now, without waiting for the worker threads: one may be waiting for a fork server to
            # import torch (tens of seconds on a busy machine). Every row was written whole and
            # synced by this thread; the sessions were killed, and the rest dies with this process.
            sys.stdout.flush()
            sys.stderr.flush()
            shutil.rmtree(work, ignore_errors=True)
            os._exit(EXIT_INTERRUPTED)
        # Rows were appended as submissions finished (so a crash keeps them); the file ends sorted by name.
        ordered = sorted(read_rows(csv_path), key=lambda row: row["submission"].casefold())
        write_csv(csv_path, columns(), ordered)
        summary = batch_reports.write_all(outputs, ordered, found.skipped)
    errors = sum(r["status"] == "error" for r in rows)
    for entry, reason in found.skipped:
        print(f"skipped {entry}: {reason}", file=sys.stderr)
    if sandbox_mode != "bwrap":
        print(f"--sandbox {sandbox_mode}: check the sandboxed column", file=sys.stderr)
    if errors:
        print(f"{errors} submission(s) could not be graded (status 'error'): rerun with --resume to retry them",
              file=sys.stderr)
    print(summary)
    return EXIT_GRADER_ERROR if todo and errors == len(todo) else EXIT_OK


def _grade_all(todo: list[Submission], jobs: int, record, outputs: Outputs, how: tuple, already: int) -> None:
    """Grade ``todo``, ``jobs`` at a time; as each finishes, its result is kept and its row ``record``ed.

    On Ctrl-C, or a sandbox that cannot start, the running submissions are stopped before the
    exception goes on: only whole rows were written.
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
                pending[pool.submit(_grade_one, sub, *how, runner)] = sub
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                sub = pending.pop(future)
                result, error, seconds = future.result()
                row = row_for(sub.name, result, error, seconds)
                batch_reports.keep_result(outputs, sub.name, result)
                record(row)
                progress.update(sub.name, row, len(pending))
    except KeyboardInterrupt:
        runner.abort()  # the running submissions' processes, and everything they started
        pool.shutdown(wait=False, cancel_futures=True)  # run_batch ends the process
        raise
    except SandboxUnavailable:
        runner.abort()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
