"""Attack: earns full marks only if it can run 600 processes at once (a fork bomb that stops at 600)."""

import sys
import os
import signal
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # payoff.py, beside this file
import payoff  # noqa: E402


def attack(wanted=600):
    started = []
    try:
        for _ in range(wanted):
            pid = os.fork()
            if pid == 0:
                try:
                    os.execv("/bin/sleep", ["sleep", "10"])  # exec: the copy of this process goes away
                finally:
                    os._exit(0)
            started.append(pid)
    except OSError:
        pass
    finally:
        for pid in started:
            os.kill(pid, signal.SIGKILL)
        for pid in started:
            os.waitpid(pid, 0)
    return len(started) >= wanted


MLP, GLU = payoff.blocks(attack())
