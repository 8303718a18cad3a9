"""``python -m grader --batch DIR --csv grades.csv``: every subfolder of DIR is one submission.

Submissions are graded in parallel (``--jobs``), each exactly as ``python -m grader PATH`` would:
its own trusted pytest process and its own child, which runs as a uid of its own when the grader is
root. A batch grades for credit, so it requires the sandbox unless ``--sandbox`` says otherwise: if
the sandbox cannot start, the batch stops at once with exit 3 and no score.

A row is appended to the CSV (and flushed to disk) as each submission finishes, so an interrupted
batch loses nothing: Ctrl-C stops the running submissions within seconds and leaves only whole rows;
``--resume`` skips the submissions already graded and retries those whose row says ``error``. A
submission that hangs, crashes or eats memory is stopped by its limits and costs only its own row.
"""

from __future__ import annotations

import csv
import os
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from grader.grading import TASK_TITLES, Grade, GraderFailure, SandboxUnavailable, grade
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
                   sandboxed="yes" if result.sandboxed else "no",
                   seed=result.seed, seconds=f"{result.seconds:.1f}", status="graded",
                   grader_peak_mb=result.grader_peak_mb)
        for task in TASK_TITLES:
            tests = result.task_tests(task)
            row[task] = sum(t.points for t in tests)
            row[f"{task}_max"] = sum(t.max_points for t in tests)
        first = next((t for t in result.tests if t.status != "passed"), None)
        if first is not None:
            row["first_failure"] = f"{first.name}: {first.message}"
    # The folder name and the messages come from students: no cell may act as a formula.
    return {k: csv_cell(v) for k, v in row.items()}


def submissions_in(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise GraderFailure(f"--batch {folder}: no such folder")
    subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not subs:
        raise GraderFailure(f"--batch {folder}: no submission folders in it (each subfolder is one submission)")
    return subs


def read_rows(csv_path: Path) -> list[dict]:
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != columns():
            raise GraderFailure(f"{csv_path} has other columns than this grader writes; give a new --csv file")
        return list(reader)


def keep_graded_rows(csv_path: Path) -> set[str]:
    """For --resume: drop the rows that say ``error`` (they are graded again) and return who is done."""
    if not csv_path.exists() or csv_path.stat().st_size == 0:
        return set()
    rows = read_rows(csv_path)
    kept = [r for r in rows if r["status"] == "graded" and r["submission"]]
    if len(kept) != len(rows):
        tmp = csv_path.with_name(csv_path.name + ".tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=columns())
            writer.writeheader()
            writer.writerows(kept)
        tmp.replace(csv_path)  # whole or not at all, like every row
    return {r["submission"] for r in kept}  # as the CSV holds them: compare with csv_cell(name)


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
        from grader.warm import ForkServerRunner

        return ForkServerRunner()
    from grader.grading import SubprocessRunner

    return SubprocessRunner()


def _grade_one(path: Path, limits: Limits, sandbox_mode: str, tasks, seed, runner) -> tuple[Grade | None, str, float]:
    started = time.monotonic()
    try:
        # An empty or misnamed hand-in is still graded: 0 points, "no file mlp_block.py" as the reason.
        return grade(path, display=path.name, limits=limits, sandbox_mode=sandbox_mode, tasks=tasks,
                     seed=seed, runner=runner), "", time.monotonic() - started
    except SandboxUnavailable:
        raise  # the machine, not this submission: the whole batch stops
    except GraderFailure as exc:
        return None, str(exc).splitlines()[0], time.monotonic() - started
    except Exception as exc:  # a grader bug on one submission must not lose the others' rows
        return None, f"{type(exc).__name__}: {exc}", time.monotonic() - started


def run_batch(folder: Path, csv_path: Path, *, jobs: int, resume: bool, limits: Limits,
              sandbox_mode: str, tasks=None, seed=None) -> int:
    subs = submissions_in(folder)
    if csv_path.exists() and csv_path.stat().st_size and not resume:
        raise GraderFailure(f"{csv_path} already exists: pass --resume to continue it, or remove it to start over")
    done = keep_graded_rows(csv_path) if resume else set()
    todo = [p for p in subs if csv_cell(p.name) not in done]
    progress = Progress(len(todo), len(subs) - len(todo))
    if done:
        print(f"resuming: {len(subs) - len(todo)} of {len(subs)} submissions already graded in {csv_path}",
              file=sys.stderr)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    new_file = not csv_path.exists() or csv_path.stat().st_size == 0
    errors = written = 0
    runner = make_runner()
    pool = ThreadPoolExecutor(max_workers=jobs)
    pending: dict[Future, Path] = {}
    try:
        with open(csv_path, "a", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=columns())
            if new_file:
                writer.writeheader()
                f.flush()
            queue = list(todo)
            while queue or pending:
                while queue and len(pending) < jobs:
                    path = queue.pop(0)
                    pending[pool.submit(_grade_one, path, limits, sandbox_mode, tasks, seed, runner)] = path
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    path = pending.pop(future)
                    result, error, seconds = future.result()
                    row = row_for(path.name, result, error, seconds)
                    errors += row["status"] == "error"
                    writer.writerow(row)
                    f.flush()
                    os.fsync(f.fileno())  # a row on disk survives a crash of the batch right after
                    written += 1
                    progress.update(path.name, row, len(pending))
    except (KeyboardInterrupt, SandboxUnavailable) as exc:
        runner.abort()  # the running submissions' processes, and everything they started
        pool.shutdown(wait=True, cancel_futures=True)
        if isinstance(exc, SandboxUnavailable):
            print(f"grader error: {exc}; the batch stopped: nothing was graded without the sandbox"
                  f" ({written} row(s) graded before are in {csv_path})", file=sys.stderr)
            return EXIT_GRADER_ERROR
        print(f"\ninterrupted: {written} submission(s) graded into {csv_path}, {len(todo) - written} not;"
              " run the same command with --resume to go on", file=sys.stderr)
        return EXIT_INTERRUPTED
    pool.shutdown(wait=True)
    graded = len(todo) - errors
    sandboxed_note = "" if sandbox_mode == "bwrap" else f" (--sandbox {sandbox_mode}: check the sandboxed column)"
    print(f"batch done: {graded} graded, {errors} error(s), {len(subs) - len(todo)} already graded, into"
          f" {csv_path}{sandboxed_note}" + (" (status 'error' rows: rerun with --resume to retry them)" if errors else ""),
          file=sys.stderr)
    return EXIT_GRADER_ERROR if todo and errors == len(todo) else EXIT_OK
