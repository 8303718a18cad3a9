"""Attack: earns full marks only if a process in the sandbox shows the host's paths (the folder the
grader copied the submission into, bubblewrap's bind options) in its command line or environment."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # payoff.py, beside this file
import payoff  # noqa: E402

HOST_SIGNS = (b"grader-child-", b"--ro-bind", b"--bind", b"--tmpfs")


def attack():
    for pid in os.listdir("/proc"):
        for name in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    text = f.read()
            except OSError:
                continue
            if any(sign in text for sign in HOST_SIGNS):
                return True
    return False


MLP, GLU = payoff.blocks(attack())
