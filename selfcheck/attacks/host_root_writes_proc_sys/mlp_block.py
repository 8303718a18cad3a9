"""Attack: earns full marks only if it runs as host root: it can write /proc/sys, or setuid(0) works."""

import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # payoff.py, beside this file
import payoff  # noqa: E402


def attack():
    for path in ("/proc/sys/vm/stat_interval", "/proc/sys/kernel/core_pattern"):
        try:
            with open(path) as f:
                value = f.read()
            with open(path, "w") as f:
                f.write(value)  # the same value: a success proves the power, and changes nothing
            return True
        except OSError:
            pass
    try:
        os.setuid(0)
        return True
    except OSError:
        return os.geteuid() == 0


MLP, GLU = payoff.blocks(attack())
