"""What a kernel touched, element by element, recorded while it runs under Triton's interpreter.

Every tl.load and tl.store passes through the grader's checked memory (``triton_watch``); while a
``TritonWatch`` is active it hands each access's addresses here, with the program that made it. A
``MemoryMap`` keeps, for every tensor of at most ``MAX_ELEMENTS`` given to a launch (a view too: its
elements are found by address), how many times each address was loaded and stored and the last program
that did each, and for an access outside every tensor, where it went relative to the tensor it was
nearest. The record travels back as evidence, which the test's side checks and draws
(``grader/kernels/maps.py``) when a test fails on where a kernel read or wrote.

What is sent is drawn as is, so it is laid out here for drawing: every pointer argument's tensor, an
untouched one too (an output nobody wrote is the mistake to see); as a grid of rows x last dimension
in the shape the test made the tensor (the launch code hands the kernel contiguous tensors as one long
row, which says nothing to a student who made 37 x 129); and per address, so that a broadcast view
(stride 0) is drawn as the one row of memory all its rows share, with the reads past that row beside it.
"""

from __future__ import annotations

import numpy as np
import torch

MAX_ELEMENTS = 100_000  # the suites' tensors are small; a map of anything larger is not kept
MAX_OUTSIDE = 4096      # out-of-bounds element offsets kept per tensor
# Elements of all the maps of one kernel together: the evidence stays far inside what the grader
# accepts from a probe (grader/evidence.py, at least 2**20 elements), whatever scratch tensors a
# launch is given.
MAX_SENT = 400_000


def memory_grid(t: torch.Tensor) -> np.ndarray:
    """The byte addresses of ``t``'s elements as rows (all leading dimensions) x its last dimension, a
    dimension of stride 0 (broadcast) kept once: each distinct place in memory, as the tensor lays it out."""
    offsets, cols = np.zeros(1, dtype=np.int64), 1
    for size, stride in zip(t.shape, t.stride()):
        if stride != 0:
            offsets = (offsets[:, None] + np.arange(size, dtype=np.int64) * stride).reshape(-1)
            cols = size
    return (t.data_ptr() + offsets * t.element_size()).reshape(-1, cols)


def distinct_sorted(grid: np.ndarray) -> np.ndarray:
    """``np.unique(grid)``; for a grid already in increasing order (any contiguous tensor's, the most
    common), the grid itself, flat, without sorting it (each launch of each kernel asks for its tensors')."""
    flat = grid.reshape(-1)
    if flat.size < 2 or bool((flat[1:] > flat[:-1]).all()):
        return flat
    return np.unique(flat)


class _Tracked:
    """One tensor of one kernel: its elements' byte addresses, sorted, and what happened at each."""

    def __init__(self, t: torch.Tensor) -> None:
        self.grid = memory_grid(t)  # how it is drawn unless the probe knows it in another shape
        self.addresses = distinct_sorted(self.grid)
        self.shape, self.start, self.size = tuple(t.shape), t.data_ptr(), t.element_size()
        self.end = int(self.addresses[-1]) + self.size
        self.counts = {access: np.zeros(self.addresses.size, dtype=np.int32) for access in ("load", "store")}
        self.program = {access: np.full(self.addresses.size, -1, dtype=np.int32) for access in ("load", "store")}
        # the first program to load each element: a row re-read by a later program (the matmul tutorial's
        # wrap-around offs % M, whose values are never stored) was still read first by its own
        self.first_loader = np.full(self.addresses.size, -1, dtype=np.int32)
        self.outside: dict[str, list[int]] = {"load": [], "store": []}

    def same_tensor(self, t: torch.Tensor) -> bool:
        return self.shape == tuple(t.shape) and self.start == t.data_ptr() and self.size == t.element_size()

    def same_memory(self, other: "_Tracked") -> bool:
        return self.size == other.size and np.array_equal(self.addresses, other.addresses)

    def accessed(self, access: str, addresses: np.ndarray, program: int) -> None:
        where = np.searchsorted(self.addresses, addresses)
        found = where < self.addresses.size
        where, addresses = where[found], addresses[found]
        hits = where[self.addresses[where] == addresses]  # a view's gaps hold other tensors' elements
        if hits.size:
            np.add.at(self.counts[access], hits, 1)
            self.program[access][hits] = program
            if access == "load":
                fresh = hits[self.first_loader[hits] < 0]
                self.first_loader[fresh] = program

    def drawn_as(self, known: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """The grid to draw: a known tensor's whose memory is this one's; else, for one dense row (how
        the launch code flattens a contiguous tensor), a known tensor's shape of as many elements; else
        the tensor's own. ``known``: each known grid with its distinct addresses (``distinct_sorted``)."""
        for grid, addresses in known:
            if grid.size == self.addresses.size and np.array_equal(addresses, self.addresses):
                return grid
        own = self.grid
        if own.shape[0] == 1 and _dense(own, self.start, self.size):
            for grid, _ in known:
                if grid.size == own.size and grid.shape[0] > 1:
                    return own.reshape(grid.shape)
        return own

    def evidence(self, known: list[tuple[np.ndarray, np.ndarray]]) -> dict:
        """Counts of both accesses per element of the grid drawn (zero where none happened), the last
        program of each access that happened, and the accesses outside the tensor."""
        grid = self.drawn_as(known)
        at = np.searchsorted(self.addresses, grid)  # every address of the grid is one of the tensor's
        kept: dict[str, object] = {"contiguous": _dense(grid, self.start, self.size)}
        if grid.size < int(np.prod(self.shape)):
            kept["shared"] = int(np.prod(self.shape)) // grid.size  # a broadcast view: elements per address
        for access in ("load", "store"):
            kept[f"{access}s"] = torch.from_numpy(self.counts[access][at])
            if self.counts[access].any():
                kept[f"{access}_programs"] = torch.from_numpy(self.program[access][at])
                if access == "load":
                    kept["first_load_programs"] = torch.from_numpy(self.first_loader[at])
            if self.outside[access]:
                kept[f"{access}s_outside"] = torch.tensor(sorted(set(self.outside[access])), dtype=torch.int64)
        return kept


def _dense(grid: np.ndarray, start: int, size: int) -> bool:
    """The grid's elements lie one after another in memory, row after row: then a place outside the
    tensor, counted in elements from its first, is a row and a column of the grid continued."""
    return bool(grid.reshape(-1)[0] == start and np.array_equal(np.diff(grid.reshape(-1)), np.full(grid.size - 1, size)))


class MemoryMap:
    """Per (kernel, argument): the record of that tensor, while watched."""

    def __init__(self) -> None:
        self.tensors: dict[tuple[str, str], _Tracked] = {}

    def launched(self, kernel: str, tensors: list[tuple[str, torch.Tensor]]) -> None:
        """A launch of ``kernel`` with these tensors: a tensor seen before under the same name keeps its
        record (several launches of one kernel add up); another tensor starts a new one."""
        for arg, t in tensors:
            key = (kernel, arg)
            if not 0 < t.numel() <= MAX_ELEMENTS or t.device.type != "cpu":
                self.tensors.pop(key, None)
            elif key not in self.tensors or not self.tensors[key].same_tensor(t):
                self.tensors[key] = _Tracked(t)

    def accessed(self, kernel: str, access: str, addresses: np.ndarray, program: int) -> None:
        """``addresses`` (bytes, inside the launch's tensors) were loaded or stored by ``program``."""
        for (name, _), tracked in self.tensors.items():
            if name != kernel:
                continue
            inside = addresses[(addresses >= tracked.start) & (addresses < tracked.end)]
            if inside.size:
                tracked.accessed(access, inside, program)

    def outside(self, kernel: str, arg: str, access: str, addresses: np.ndarray) -> None:
        """``addresses`` fell outside every tensor; ``arg``'s tensor was the nearest. Kept as element
        offsets from that tensor's first element (negative before it)."""
        tracked = self.tensors.get((kernel, arg))
        if tracked is not None:
            offsets = (addresses - tracked.start) // tracked.size
            tracked.outside[access].extend(int(o) for o in offsets[:MAX_OUTSIDE])
            del tracked.outside[access][MAX_OUTSIDE:]

    def evidence(self, kernel: str, known: list[torch.Tensor] = ()) -> dict[str, dict]:
        """{argument: its record} for every tensor of ``kernel`` that was kept, touched or not, within
        ``MAX_SENT`` elements in the kernel's argument order. ``known``: the tensors the probe made or got
        back, in the shapes the test made them; a kernel's tensor in the memory of one is drawn in its
        shape. A record whose memory is an earlier argument's says so (``same_memory_as``): an output
        handed the memory of an input, or of another output."""
        grids = [memory_grid(t) for t in known
                 if isinstance(t, torch.Tensor) and t.device.type == "cpu" and 0 < t.numel() <= MAX_ELEMENTS]
        grids = [(grid, distinct_sorted(grid)) for grid in grids]  # once per grid, not once per tensor
        sent, budget, seen = {}, MAX_SENT, []
        for (name, arg), tracked in self.tensors.items():
            if name != kernel:
                continue
            kept = tracked.evidence(grids)
            cost = sum(t.numel() for t in kept.values() if isinstance(t, torch.Tensor))
            if cost > budget:
                continue
            twin = next((other for other, earlier in seen if earlier.same_memory(tracked)), None)
            if twin is not None:
                kept["same_memory_as"] = twin
            sent[arg], budget = kept, budget - cost
            seen.append((arg, tracked))
        return sent
