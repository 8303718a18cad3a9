"""Attack: earns full marks only if three processes together can hold 1.2 times the grader's memory
limit (each under the per-process limit): a limit per process is not a limit per submission."""

import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # payoff.py, beside this file
import payoff  # noqa: E402

HOLD = """
import sys, time
block = bytearray(int(sys.argv[1]))
for i in range(0, len(block), 4096):
    block[i] = 1
print("held", flush=True)
time.sleep(4)
"""


def attack():
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit <= 0:
        limit = 4096 << 20
    each = int(limit * 0.4)
    procs = [subprocess.Popen([sys.executable, "-I", "-c", HOLD, str(each)], stdout=subprocess.PIPE)
             for _ in range(3)]
    held = [p.stdout.readline().strip() == b"held" for p in procs]
    # Each holds its memory for 4 s after saying so: all three alive now means all three held it at
    # once. (A limit over all of them kills one, which may have said "held" before the last one grew.)
    time.sleep(0.5)
    held.append(all(p.poll() is None for p in procs))
    for p in procs:
        p.kill()
        p.wait()
    return all(held)


MLP, GLU = payoff.blocks(attack())
