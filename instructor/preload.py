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
import torch  # noqa: F401

try:  # the SwiGLU suite imports it (where it installs)
    import triton  # noqa: F401
except ImportError:
    pass

import grader.plugin  # noqa: F401
import grader.probes
import grader.sandbox
from grader.probes.child import warm_up_torch

grader.probes.load_all()  # every probe module, with what they import

# The fork server dies with the batch that started it (and each session with the fork server):
# a batch killed from outside leaves nothing running.
grader.sandbox.die_with_parent()

# Autograd's first backward and the cost suite's first FlopCounterMode pass: once here, not once per fork.
warm_up_torch()

# Everything imported so far lives as long as the server: keep the collector off it, so a fork's
# collections stay small and do not touch (and copy) the server's pages.
gc.collect()
gc.freeze()
atexit.register(gc.unfreeze)  # at exit, let finalisation see them again (triton complains otherwise)
