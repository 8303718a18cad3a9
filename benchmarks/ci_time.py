"""How long CI takes: ``.ci/run`` on a fresh clone of this repository's HEAD, as CI runs it.

    python benchmarks/ci_time.py            # clone HEAD into a temporary folder, run .ci/run there, time it
    python benchmarks/ci_time.py --keep     # and leave the clone (its .venv included) for a look
    python benchmarks/ci_time.py --commit 121ad66   # an earlier commit instead: a baseline on the same machine

Prints the wall time of the whole command, of its install (the venv and the requirements) and of each
step ``python -m selfcheck`` reports, how busy the machine's cores were meanwhile (near 100 %: the time is
CPU work, and only less work makes it shorter), then the verdict against CI's limit. The machine is
whatever this runs on: quote it beside the figures (benchmarks/README.md does).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROC_STAT = Path("/proc/stat")
LIMIT_S = 8 * 60  # CI's limit on this project's 2-core machine
STEP = re.compile(r"^--- (?P<title>.+?): (?P<passed>\d+) passed, (?P<failed>\d+) failed, \d+ skipped in (?P<s>[\d.]+)s")


def cpu_ticks() -> tuple[int, int] | None:
    """(busy, total) clock ticks of all cores since boot, from /proc/stat (Linux); None elsewhere."""
    try:
        fields = [int(f) for f in PROC_STAT.read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
    return sum(fields) - idle, sum(fields)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    parser.add_argument("--commit", default="HEAD", help="the commit to clone and time (default: HEAD)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="ci-time-"))
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    if args.commit != "HEAD":
        subprocess.run(["git", "checkout", "-q", args.commit], cwd=clone, check=True)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()
    started, ticks = time.perf_counter(), cpu_ticks()
    proc = subprocess.Popen(["bash", ".ci/run"], cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        match = STEP.match(line)
        if match:
            print(f"  {match['title']}: {float(match['s']):.0f} s ({match['passed']} passed, {match['failed']} failed)")
    code = proc.wait()
    total = time.perf_counter() - started
    log = work / "ci.log"
    log.write_text("".join(lines))
    selfcheck = next((float(m.group(1)) for m in map(re.compile(r"^selfcheck: .* in (\d+)s").match, lines) if m), None)
    if selfcheck is not None:  # the rest of the time is the install: bubblewrap, the venv, the requirements
        print(f"  install (venv, requirements, bubblewrap): {total - selfcheck:.0f} s")
        print(f"  python -m selfcheck: {selfcheck:.0f} s")
    after = cpu_ticks()
    if ticks and after and after[1] > ticks[1]:  # a share near 100 %: the time is CPU work, not waiting
        print(f"  the machine's cores were busy {100 * (after[0] - ticks[0]) / (after[1] - ticks[1]):.0f} % of the time"
              " (anything else running counts too)")
    print(f".ci/run on a fresh clone of {head}: exit {code}, {total:.0f} s"
          f" ({'within' if total <= LIMIT_S else 'OVER'} CI's {LIMIT_S // 60} min); log: {log}")
    if not args.keep:
        shutil.rmtree(clone, ignore_errors=True)
    return 0 if code == 0 and total <= LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
