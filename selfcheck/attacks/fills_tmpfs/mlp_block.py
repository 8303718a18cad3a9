"""Attack: earns full marks only if it can keep 1 GiB in a memory-backed folder (/dev/shm, /tmp), memory
that no per-process limit counts."""

import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # payoff.py, beside this file
import payoff  # noqa: E402

CHUNK = b"\1" * (1 << 20)


def fill(folder):
    path = os.path.join(folder, "ballast")
    try:
        with open(path, "wb") as f:
            for _ in range(1024):
                f.write(CHUNK)
        return True
    except OSError:
        return False
    finally:
        try:
            os.remove(path)
        except OSError:
            pass


MLP, GLU = payoff.blocks(any(fill(folder) for folder in ("/dev/shm", "/tmp", os.path.expanduser("~"))))
