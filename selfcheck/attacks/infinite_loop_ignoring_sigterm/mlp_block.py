"""Attack: hang in every constructor call, ignoring SIGTERM (and SIGINT) so a polite stop fails."""

import signal

from torch import nn


def _hang():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pass


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        _hang()


class GLU(MLP):
    pass
