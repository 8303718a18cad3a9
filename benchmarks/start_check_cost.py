"""What the grader's start check costs: the child it starts answering at once (``--start-check``, as the grader
runs it) against a child started in full (torch and the probes imported, as a graded child is).

    python benchmarks/start_check_cost.py             # median of 5 runs each, sandboxed (bubblewrap)
    python benchmarks/start_check_cost.py --runs 9 --sandbox none

Each run is a fresh process, as the grader starts one per grading for credit (``check_child_can_start``,
grader/grading.py). CPU is the whole machine's busy time during the run (/proc/stat, Linux): the sandboxed child
is no child of the measuring process, so its own rusage would miss it. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PROC_STAT = Path("/proc/stat")


def busy_seconds() -> float:
    fields = [int(f) for f in PROC_STAT.read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / 100  # USER_HZ ticks; idle and iowait left out


def one_run(script: str, submission: Path, env: dict) -> tuple[float, float]:
    """(wall seconds, busy CPU seconds) of one start check in a fresh process."""
    busy, started = busy_seconds(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", script, str(submission)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    wall, cpu = time.perf_counter() - started, busy_seconds() - busy
    if proc.returncode != 0 or '"why": ""' not in proc.stdout:
        raise SystemExit(f"the start check did not pass: {proc.stdout[-500:]} {proc.stderr[-500:]}")
    return wall, cpu


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each kind (median reported)")
    parser.add_argument("--sandbox", choices=("bwrap", "none"), default="bwrap", help="the grader's --sandbox")
    args = parser.parse_args(argv)
    if not PROC_STAT.exists():
        raise SystemExit("needs Linux (/proc/stat)")
    from grader.grading import START_CHECK, Limits, pytest_env

    kinds = {"answers at once (--start-check)": START_CHECK,
             "started in full (torch imported)": START_CHECK.replace("backend.start_check = True\n", "")}
    with tempfile.TemporaryDirectory() as tmp:
        submission = Path(tmp) / "submission"
        submission.mkdir()
        Path(tmp).chmod(0o711)
        env = {**pytest_env(Limits(), args.sandbox), "TMPDIR": tmp}
        for kind, script in kinds.items():
            runs = [one_run(script, submission, env) for _ in range(args.runs)]
            wall, cpu = (statistics.median(values) for values in zip(*runs))
            print(f"{kind}: median {wall:.2f} s wall, {cpu:.2f} CPU-s ({args.runs} runs, --sandbox {args.sandbox})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
