"""The same attack for the SwiGLU task: the loops start when the suite imports this file (through
mlp_block.py), and every name the suite asks of it waits."""

import time

import mlp_block  # noqa: F401  (its import starts the loops)


def __getattr__(name):
    time.sleep(3600)
