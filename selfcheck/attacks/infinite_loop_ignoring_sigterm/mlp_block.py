"""Attack: hang in every constructor call, ignoring SIGTERM (and SIGINT) so a polite stop fails. It hangs
asleep: a busy hang's CPU is what cpu_hog and hang_in_mlp_forward try, and this one would only take a core
from the self-checks beside it for both of its budgets."""

import signal
import time

from torch import nn


def _hang():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        time.sleep(1)


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        _hang()


class GLU(MLP):
    pass
