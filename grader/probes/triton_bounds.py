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
    if access != "load":  # a store or an atomic: told against what the kernel writes
        extents = [e for e in extents if _WRITTEN.match(e[0])] or extents
    if not extents:
        return None
    low, high = int(outside.min()), int(outside.max())

    def distance(extent):
        _, lo, hi, _ = extent
        return min(abs(lo - low), abs(lo - high), abs(low + itemsize - hi), abs(high + itemsize - hi))

    return min(extents, key=distance)


def overflowing_dims(ptrs, outside, layout: tuple[int, tuple, tuple], itemsize: int) -> dict[int, int] | None:
    """{dim: the furthest index reached past it} of the tensor ``layout`` (first byte, shape, strides in
    elements) at the ``outside`` entries of one access's tile of pointers, read from the tile itself:
    each axis of the tile must step through one dimension of the tensor by that dimension's stride, from
    an origin inside it. None where the tile walks the tensor otherwise (then its strides are the
    cause, not a mask)."""
    import numpy as np

    start, shape, strides = layout
    offsets = np.asarray(ptrs).astype(np.int64) - start
    if offsets.ndim == 0 or np.any(offsets % itemsize):
        return None
    elements = offsets // itemsize
    steps = {}  # tile axis -> tensor dim
    for axis in range(elements.ndim):
        if elements.shape[axis] < 2:
            continue
        step = np.diff(elements, axis=axis)
        if np.any(step != step.flat[0]):
            return None
        if step.flat[0] == 0:
            continue  # a broadcast axis
        dims = [d for d, (n, stride) in enumerate(zip(shape, strides)) if stride == step.flat[0] and n > 1
                and d not in steps.values()]
        if not dims:
            return None
        steps[axis] = dims[0]
    origin, remaining = {}, int(elements.flat[0])
    for d in sorted((d for d, stride in enumerate(strides) if stride > 0), key=lambda d: -strides[d]):
        origin[d], remaining = remaining // strides[d], remaining % strides[d]
    if remaining or any(not 0 <= origin.get(d, 0) < n for d, n in enumerate(shape) if d not in steps.values()):
        return None
    reached = {}
    for axis, d in steps.items():
        position = np.arange(elements.shape[axis]).reshape([-1 if a == axis else 1 for a in range(elements.ndim)])
        index = np.broadcast_to(origin.get(d, 0) + position, elements.shape)[np.asarray(outside)]
        if index.size and (index.max() >= shape[d] or index.min() < 0):
            reached[d] = int(index.max() if index.max() >= shape[d] else index.min())
    return reached or None


def describe_access(kernel: str, access: str, outside, nearest, itemsize: int,
                    overflow: tuple[str, str, int, int] | None = None, masked: bool = False,
                    tiled: bool = False) -> str:
    """``overflow``: (the tile's name, the dimension's name, the index reached, the dimension's size),
    where the tile's own structure says which dimension of its tensor the access ran past (for the
    gated projection's tiles: M, N or K). ``tiled``: the access is a 2-d tile (a matmul's), told in a
    tile's words rather than a row's."""
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
    if overflow is not None:
        tile, dim, index, size = overflow
        side = f"reaches {index}, past {dim} = {size}" if index >= size else f"reaches {index}, below 0"
        cause = (f"{tile}: its {dim} index {side}; mask the tl.{access} on {dim} too ({dim} offsets < {dim}):"
                 " the tile's other dimensions stayed in bounds")
    elif before:  # a mask keeps the end in bounds, never the start
        cause = note or ("an offset below 0: the row or column is computed too small (cols - 1?), or a"
                         " negative index reaches back past the tensor's first element")
    elif masked and tiled:
        cause = note or (f"the mask of this tl.{access} lets elements past the end through: each dimension's"
                         " offsets must be compared with that dimension's size (rows < M, ks < K, ...), or the"
                         " tile's offsets use the wrong strides")
    elif masked:  # a mask was given, and let these through: its bound or the offsets are wrong, not its absence
        # Short enough that all three causes survive the message's cut to one line of 400 characters.
        cause = note or (f"the mask of this tl.{access} lets elements past the end through: a wrong bound (cols <="
                         " n_cols, not <), another tensor's row stride used for this one, or the row"
                         " and block numbers swapped")
    elif tiled:
        cause = note or (f"a tile of this tl.{access} runs past the tensor's end with no mask: mask every"
                         " dimension whose size is not a multiple of the block (rows < M, ks < K, ...), or the"
                         " tile's offsets use the wrong strides")
    else:
        cause = note or (f"missing mask on tl.{access} (mask=offsets < n_cols): the last block runs past the"
                         " end, or the offsets ignore the row stride")
    # The likely cause first: it is what a student acts on, and what survives where a report cuts the line short
    # (pytest's summary by cause); the numbers after it locate the access.
    return (f"{kernel}: likely cause: {cause}. It tried to tl.{access} {outside.size} element(s) outside the tensors"
            f" it was given{where}{_kernel_line(kernel)}, program {program} of {programs}")


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
