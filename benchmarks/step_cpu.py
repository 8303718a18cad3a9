"""What each step of the maintainer command costs alone: its wall time and the machine's CPU seconds.

    python benchmarks/step_cpu.py                   # every step of python -m selfcheck, one after the other
    python benchmarks/step_cpu.py --step attacks    # some steps only (repeat the option)

Each step runs by itself (``python -m selfcheck --step NAME``) in this checkout, so its CPU seconds are its own:
the busy time of all cores (``/proc/stat``, Linux) while it ran, its sandboxed children included, which a process's
own accounting misses. The lanes of ``selfcheck/__main__.py`` are balanced by these figures: side by side the
steps share the cores, and a lane's length is about its steps' CPU seconds over the machine's share of it.
Anything else running on the machine counts too: run it on a quiet one, and quote the machine beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.ci_time import cpu_ticks  # noqa: E402



def step_names() -> list[str]:
    """The steps, as ``python -m selfcheck --list`` names them (first word of each step's line)."""
    listed = subprocess.run([sys.executable, "-m", "selfcheck", "--list"], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout
    return [line.split()[0] for line in listed.splitlines() if line and not line.startswith(" ")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--step", action="append", metavar="NAME", help="a step to time (default: every step)")
    args = parser.parse_args(argv)
    if cpu_ticks() is None:
        print("no /proc/stat here: the CPU seconds of a step with sandboxed children are read from it (Linux only)")
        return 0
    names = step_names()
    unknown = sorted(set(args.step or ()) - set(names))
    if unknown:
        parser.error(f"--step {', '.join(unknown)}: the steps are {', '.join(names)}")
    failed = []
    print(f"{'step':<10} {'wall s':>8} {'CPU s':>8}  exit")
    for name in args.step or names:
        before, started = cpu_ticks(), time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "selfcheck", "--step", name], cwd=REPO,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall, after = time.perf_counter() - started, cpu_ticks()
        cpu = (after[0] - before[0]) / os.sysconf("SC_CLK_TCK")  # /proc/stat counts clock ticks
        print(f"{name:<10} {wall:>8.0f} {cpu:>8.0f}  {proc.returncode}", flush=True)
        if proc.returncode:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)} (python -m selfcheck --step NAME shows why)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
