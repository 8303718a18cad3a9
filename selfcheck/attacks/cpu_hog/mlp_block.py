"""Attack on the neighbours: busy loops in as many processes as the limits allow, each in a session of its
own, while every test waits. Scores 0 (nothing is implemented); what it must not do is slow down the
submissions graded beside it in a batch: all its processes together get the CPU share of one child."""

import os
import time

HOGS = 240  # below the per-submission process limit, far above the cores of any grading machine


def _spin():
    os.setsid()  # its own session and process group: a kill of the child's group alone misses it
    while True:
        pass


for _ in range(HOGS):
    try:
        if os.fork() == 0:
            _spin()
    except OSError:
        break


class MLP:
    def __init__(self, *args, **kwargs):
        time.sleep(3600)  # every test waits for its timeout while the loops run


class GLU(MLP):
    pass
