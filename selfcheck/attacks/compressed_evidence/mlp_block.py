"""Attack: implements nothing; rewrites each reply as a zip whose stored tensor is deflated, so that
about 200 kB on the wire inflate to 200 MB in the grader (a real bomb would go to many GB)."""

import io
import sys
import zipfile

import torch

probes = next(m for name, m in sys.modules.items() if name.startswith("grader.probes") and getattr(m, "STAGE_LISTENER", None))
channel = next(c.cell_contents for c in probes.STAGE_LISTENER.__closure__ if hasattr(c.cell_contents, "write_fd"))
plain_write = channel.write


def deflated(payload):
    source, out = zipfile.ZipFile(io.BytesIO(payload)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for info in source.infolist():
            bomb.writestr(info.filename, source.read(info.filename))
    return out.getvalue()


def write(kind, payload):
    plain_write(kind, deflated(payload) if kind == b"R" else payload)


def run_block(module, cls_name, ctor, state_dict, x, train=False, grad_out=None, seed=0, device="cpu"):
    return {"out": torch.zeros(200 << 20, dtype=torch.uint8), "x_after": x, "x_before": x}


channel.write = write
probes.PROBES["run_block"] = run_block


class MLP(torch.nn.Module):
    pass


class GLU(torch.nn.Module):
    pass
