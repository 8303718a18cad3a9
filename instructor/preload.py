"""Imported once by the batch's fork server: everything a trusted pytest session needs, warmed up.

Each submission's session is then a fork of that server (``instructor/warm.py``), so it starts with
torch and pytest imported and autograd initialised instead of paying for them again: the difference
between about 3.5 and 2 CPU seconds per submission. Only trusted code is imported here.
"""

import atexit
import gc

import pytest  # noqa: F401
import _pytest.config  # noqa: F401
import _pytest.python  # noqa: F401
import torch

try:  # the SwiGLU suite imports it (where it installs)
    import triton  # noqa: F401
except ImportError:
    pass

import grader.plugin  # noqa: F401
import grader.probes
import grader.sandbox

grader.probes.load_all()  # every probe module, with what they import

# The fork server dies with the batch that started it (and each session with the fork server):
# a batch killed from outside leaves nothing running.
grader.sandbox.die_with_parent()

# The first backward pass initialises autograd (about 0.2 s); do it once here, not once per fork.
_x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
torch.nn.functional.linear(_x, torch.ones(4, 3, dtype=torch.float64)).sum().backward()
del _x

# The cost suite's first FlopCounterMode pass imports sympy and more (about a second): once here too.
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

with torch.device("meta"), FlopCounterMode(display=False):
    _x = torch.empty(2, 3, requires_grad=True)
    torch.nn.functional.linear(_x, torch.empty(4, 3)).sum().backward()
del _x

# Everything imported so far lives as long as the server: keep the collector off it, so a fork's
# collections stay small and do not touch (and copy) the server's pages.
gc.collect()
gc.freeze()
atexit.register(gc.unfreeze)  # at exit, let finalisation see them again (triton complains otherwise)
