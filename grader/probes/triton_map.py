"""What a kernel touched: which elements of each tensor its stores wrote, drawn as a text map.

Under Triton's interpreter every store passes through the grader's checked memory
(``triton_watch``); while a ``TritonWatch`` is active it hands each store's addresses here, and a
``StoreMap`` counts, per element of every contiguous tensor of at most ``MAX_ELEMENTS`` given to a
launch, how many times it was written. The counts travel back as evidence (small integer tensors);
``text_map`` draws them for a failure message, rows by columns, at most ``WIDTH`` characters wide and
``HEIGHT`` rows tall (larger tensors are shown by blocks).
"""

from __future__ import annotations

import numpy as np
import torch

MAX_ELEMENTS = 100_000  # the suites' tensors are small; a map of anything larger is not kept
WIDTH, HEIGHT = 64, 24
LEGEND = "# written once, . never written, 2 written more than once, : a block partly written"


class StoreMap:
    """Per (kernel, argument): the write count of each element of that tensor, while watched."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], np.ndarray] = {}
        self.shapes: dict[tuple[str, str], tuple[int, ...]] = {}
        self.extents: dict[tuple[str, str], tuple[int, int, int]] = {}  # first byte, one past, item size

    def launched(self, kernel: str, tensors: list[tuple[str, torch.Tensor]]) -> None:
        for arg, t in tensors:
            if 0 < t.numel() <= MAX_ELEMENTS and t.is_contiguous():
                key = (kernel, arg)
                self.counts.setdefault(key, np.zeros(t.numel(), dtype=np.int32))
                self.shapes[key] = tuple(t.shape)
                self.extents[key] = (t.data_ptr(), t.data_ptr() + t.numel() * t.element_size(), t.element_size())

    def stored(self, kernel: str, addresses: np.ndarray) -> None:
        for (name, arg), (lo, hi, size) in self.extents.items():
            if name != kernel:
                continue
            inside = addresses[(addresses >= lo) & (addresses < hi)]
            if inside.size:
                np.add.at(self.counts[(name, arg)], (inside - lo) // size, 1)

    def evidence(self, kernel: str, arg: str) -> torch.Tensor | None:
        """The write counts of ``kernel``'s ``arg``, in its shape (None if not kept)."""
        key = (kernel, arg)
        if key not in self.counts:
            return None
        return torch.from_numpy(self.counts[key].copy()).reshape(self.shapes[key])


def text_map(counts: torch.Tensor) -> str:
    """The write counts as rows of characters (``LEGEND``), a tensor of more than two dimensions as
    its rows (all leading dimensions) by its last; blocks of elements where it is larger than the map."""
    grid = counts.reshape(-1, counts.shape[-1]) if counts.dim() >= 2 else counts.reshape(1, -1)
    rows, cols = grid.shape
    block_rows, block_cols = -(-rows // HEIGHT), -(-cols // WIDTH)
    lines = []
    for r in range(0, rows, block_rows):
        line = []
        for c in range(0, cols, block_cols):
            block = grid[r:r + block_rows, c:c + block_cols]
            if bool((block == 1).all()):
                line.append("#")
            elif bool((block == 0).all()):
                line.append(".")
            elif bool((block >= 1).all()):
                line.append("2")
            else:
                line.append(":")
        lines.append("".join(line))
    scale = (f" (one character: {block_rows} x {block_cols} elements)" if block_rows * block_cols > 1 else "")
    header = (f"what the kernel wrote, {rows} row{'s' * (rows != 1)} x {cols} column{'s' * (cols != 1)}{scale};"
              f" {LEGEND}:")
    return "\n".join([header, *lines])
