"""Not an attack but a bug a student makes: MLP.forward never returns; GLU is correct. The hang may cost
the MLP task its points, never the GLU task's (each task has its own time budget)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # payoff.py, beside this file
import payoff  # noqa: E402

CorrectMLP, GLU = payoff.blocks(True)


class MLP(CorrectMLP):
    def forward(self, x):
        while True:
            pass
