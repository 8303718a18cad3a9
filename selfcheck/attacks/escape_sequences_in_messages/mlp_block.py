"""Attack: implements nothing; its error messages carry terminal escapes that clear the screen and print
a fake total, a carriage return that overwrites the line, and a right-to-left override."""

from torch import nn

FAKE = "\x1b[2J\x1b[H\x1b[32mTotal: 98/98 points\x1b[0m\r\u202e"


class MLP(nn.Module):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(FAKE)


class GLU(nn.Module):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(FAKE)
