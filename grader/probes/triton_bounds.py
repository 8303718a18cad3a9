"""What an out-of-bounds access is said to be: which tensor it was nearest, how far past its end or
before its start it went, the kernel's line, and the likely cause in the student's terms."""

from __future__ import annotations

import os
import re
import sys

import torch


_WRITTEN = re.compile(r"(out|grad_(?!out_)\w+)_ptr\b")  # the kernels' output pointers: out_ptr, grad_gate_ptr, ...


def nearest_tensor(access: str, outside, extents, itemsize: int):
    """The launch's tensor an out-of-bounds access was nearest to: (arg, first byte, one past, layout note).
    A store is told against the nearest tensor a kernel writes: an address just before out's start can
    be nearer the end of an input, which the kernel never stores to."""
    if access == "store":
        extents = [e for e in extents if _WRITTEN.match(e[0])] or extents
    if not extents:
        return None
    low, high = int(outside.min()), int(outside.max())

    def distance(extent):
        _, lo, hi, _ = extent
        return min(abs(lo - low), abs(lo - high), abs(low + itemsize - hi), abs(high + itemsize - hi))

    return min(extents, key=distance)


def describe_access(kernel: str, access: str, outside, nearest, itemsize: int) -> str:
    from triton.runtime import interpreter

    builder = interpreter.interpreter_builder
    program = ", ".join(str(i) for i, n in zip(builder.grid_idx, builder.grid_dim) if n > 1) or "0"
    programs = " x ".join(str(n) for n in builder.grid_dim if n > 1) or "1"
    low, high = int(outside.min()), int(outside.max())
    where, note, before = "", "", False
    if nearest is not None:
        arg, lo, hi, note = nearest
        if high + itemsize > hi:
            where = f", up to {-(-(high + itemsize - hi) // itemsize)} element(s) past the end of {arg}'s tensor"
        else:
            where = f", up to {-(-(lo - low) // itemsize)} element(s) before the start of {arg}'s tensor"
            before = True
        if note:
            note = (f"{arg}'s tensor is {note}, so its elements are not at consecutive addresses: index it with"
                    " its strides, or pass a .contiguous() copy")
    if before:  # a mask keeps the end in bounds, never the start
        cause = note or ("an offset below 0: the row or column is computed too small (cols - 1?), or a"
                         " negative index reaches back past the tensor's first element")
    else:
        cause = note or (f"missing mask on tl.{access} (mask=offsets < n_cols): the last block runs past the"
                         " end, or the offsets ignore the row stride")
    return (f"{kernel} (program {program} of {programs}) tried to tl.{access} {outside.size} element(s)"
            f" outside the tensors it was given{where}{_kernel_line(kernel)}. Likely cause: {cause}")


def layout_note(t: torch.Tensor) -> str:
    """'' for a tensor whose rows a kernel may index as consecutive elements, else what it is instead.
    (A half of h.chunk(2, -1) is not contiguous, but its rows are: past their end, blame the mask.)"""
    if t.is_contiguous() or t.dim() == 0 or t.stride(-1) == 1:
        return ""
    return f"not contiguous (shape {tuple(t.shape)}, strides {tuple(t.stride())})"


def _kernel_line(kernel: str) -> str:
    """' (at file.py:LINE)' of the innermost frame of the running kernel's code."""
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == kernel:
            return f" (at {os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno})"
        frame = frame.f_back
    return ""
