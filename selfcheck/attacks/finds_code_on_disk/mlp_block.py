"""Attack: searches every folder it can read for the reference or another student's mlp_block.py, and
uses what it finds: full marks only if the grader's files or a batch neighbour's are visible."""

import sys
import os
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # payoff.py, beside this file
import payoff  # noqa: E402

HERE = os.path.realpath(__file__)
NAMES = ("reference_mlp_block.py", "mlp_block.py")


def attack():
    deadline = time.monotonic() + 15
    for root, dirs, files in os.walk("/", onerror=lambda e: None):
        if time.monotonic() > deadline:
            break
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in ("/proc", "/sys", "/dev")]
        for name in NAMES:
            path = os.path.join(root, name)
            if name in files and os.path.realpath(path) != HERE:
                try:
                    with open(path) as f:
                        text = f.read()
                    if "class GLU" in text and "payoff" not in text:
                        return path
                except OSError:
                    continue
    return None


found = attack()
MLP, GLU = payoff.blocks_from(found) if found else payoff.blocks(False)
