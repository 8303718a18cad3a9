"""What the tests read of the stand-ins' log (``grader/stand_in_server.py``, under ``LOG_KEY`` in a probe's
evidence): the coefficients each launch of an exercise kernel was served with, and its inputs (and, to
compute its values again, its kernel and the gated launch's flags): all that the log keeps of a launch
(``check_request``).

A launch's coefficients count only for the inputs that launch was served (``served_on``): a result is
the stand-in's only if some launch on those very inputs produced it. A file that launched the kernel
on inputs of its own to learn the coefficients, then computed the test's result in PyTorch, matches no
launch; one that launched it on the test's inputs returned what the kernel was served, which is what
launching the kernel means."""

from __future__ import annotations

import torch

from grader.probes.stand_ins import serve
from grader.stand_in_server import LOG_KEY

FORWARD, BACKWARD, GATED = "_swiglu_forward_kernel", "_swiglu_backward_kernel", "_gated_projection_kernel"


def input_tolerance(dtype: torch.dtype) -> float:
    """How far an input the code under test computed (a block's Wg(x)) may be from the test's float64 value,
    relative to its largest element: another summation order, in ``dtype``."""
    return {torch.float64: 1e-9, torch.float32: 1e-4}.get(dtype, 2e-2)


def launches(evidence: dict, kernel: str) -> list[dict]:
    return [launch for launch in evidence.get(LOG_KEY) or [] if launch["kernel"] == kernel]


def _same(served: torch.Tensor | None, wanted: torch.Tensor | None, tolerance: float) -> bool:
    if wanted is None or served is None:
        return wanted is None and served is None
    if served.numel() != wanted.numel():
        return False
    a, b = served.double().reshape(-1), wanted.double().reshape(-1)
    scale = float(b.abs().max()) if b.numel() else 0.0
    return bool(((a - b).abs() <= tolerance * scale).all())  # NaN is no match


def launches_on(evidence: dict, kernel: str, tolerance: float = 0.0, **inputs: torch.Tensor | None) -> list[dict]:
    """The launches of ``kernel`` that were served ``inputs`` (by name, compared value by value in the launch's
    row order, to ``tolerance`` relative to the largest; 0: exactly, for tensors the test handed over itself)."""
    return [launch for launch in launches(evidence, kernel)
            if all(_same(launch["inputs"].get(name), t, tolerance) for name, t in inputs.items())]


def served_on(evidence: dict, kernel: str, tolerance: float = 0.0, **inputs: torch.Tensor | None) -> list[list[float]]:
    """The coefficients of each of ``launches_on``: only for those inputs may a result be judged with them."""
    return [launch["coefficients"] for launch in launches_on(evidence, kernel, tolerance, **inputs)]


def served_values(launch: dict) -> dict[str, torch.Tensor]:
    """What ``launch`` was served (float64, or its COMPUTE_DTYPE), computed again from the log."""
    return serve(launch, launch["coefficients"])


def shown(evidence: dict, kernel: str) -> list[float] | None:
    """The coefficients a message quotes: the first launch's, or None where the kernel was never launched."""
    found = launches(evidence, kernel)
    return found[0]["coefficients"] if found else None
