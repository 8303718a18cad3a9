"""Attack: implements nothing; after each reply keeps writing large frames into the channel, so that a
grader which queued everything it read would pile gigabytes up in its own memory."""

import sys
import threading

import torch

probes = next(m for name, m in sys.modules.items() if name.startswith("grader.probes") and getattr(m, "STAGE_LISTENER", None))
channel = next(c.cell_contents for c in probes.STAGE_LISTENER.__closure__ if hasattr(c.cell_contents, "write_fd"))
JUNK = b"\0" * (32 << 20)


def flood():
    for _ in range(100):  # 3.2 GB in all, if the grader reads it
        try:
            channel.write(b"R", JUNK)
        except OSError:
            return


threading.Thread(target=flood, daemon=True).start()


class MLP(torch.nn.Module):
    pass


class GLU(torch.nn.Module):
    pass
