"""What a kernel touched, element by element, recorded while it runs under Triton's interpreter.

Every tl.load and tl.store passes through the grader's checked memory (``triton_watch``); while a
``TritonWatch`` is active it hands each access's addresses here, with the program that made it. A
``MemoryMap`` keeps, for every tensor of at most ``MAX_ELEMENTS`` given to a launch (a view too: its
elements are found by address), how many times each element was loaded and stored and the last program
that did each, and for an access outside every tensor, where it went relative to the tensor it was
nearest. The record travels back as evidence (small integer tensors in the tensors' shapes), which the
test's side checks and draws (``grader/kernels/maps.py``) when a test fails on where a kernel read or wrote.
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


class _Tracked:
    """One tensor of one kernel: its elements' byte addresses, sorted, and what happened at each."""

    def __init__(self, t: torch.Tensor) -> None:
        offsets = torch.zeros(t.shape, dtype=torch.int64)
        for dim, (size, stride) in enumerate(zip(t.shape, t.stride())):
            shape = [1] * t.dim()
            shape[dim] = size
            offsets = offsets + torch.arange(size, dtype=torch.int64).reshape(shape) * stride
        addresses = t.data_ptr() + offsets.reshape(-1).numpy() * t.element_size()
        # A broadcast view's elements share addresses: counts are kept per address, drawn per element.
        self.addresses, self.element = np.unique(addresses, return_inverse=True)
        self.shape = tuple(t.shape)
        self.contiguous = t.is_contiguous()  # then an offset past the end is a place in the row-major grid
        self.start, self.size = t.data_ptr(), t.element_size()
        self.end = int(self.addresses[-1]) + self.size
        self.counts = {access: np.zeros(self.addresses.size, dtype=np.int32) for access in ("load", "store")}
        self.program = {access: np.full(self.addresses.size, -1, dtype=np.int32) for access in ("load", "store")}
        self.outside: dict[str, list[int]] = {"load": [], "store": []}

    def same_tensor(self, t: torch.Tensor) -> bool:
        return self.shape == tuple(t.shape) and self.start == t.data_ptr() and self.size == t.element_size()

    def accessed(self, access: str, addresses: np.ndarray, program: int) -> None:
        where = np.searchsorted(self.addresses, addresses)
        found = where < self.addresses.size
        where, addresses = where[found], addresses[found]
        hits = where[self.addresses[where] == addresses]  # a view's gaps hold other tensors' elements
        if hits.size:
            np.add.at(self.counts[access], hits, 1)
            self.program[access][hits] = program

    def evidence(self) -> dict:
        """Per element, in the tensor's shape: counts and last program of each access that happened."""
        kept: dict[str, object] = {"contiguous": self.contiguous}
        for access in ("load", "store"):
            if self.counts[access].any() or self.outside[access]:
                kept[f"{access}s"] = torch.from_numpy(self.counts[access][self.element]).reshape(self.shape)
                kept[f"{access}_programs"] = torch.from_numpy(self.program[access][self.element]).reshape(self.shape)
            if self.outside[access]:
                kept[f"{access}s_outside"] = torch.tensor(sorted(set(self.outside[access])), dtype=torch.int64)
        return kept


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

    def evidence(self, kernel: str) -> dict[str, dict]:
        """{argument: its record} for every tensor of ``kernel`` that was kept and touched."""
        sent, budget = {}, MAX_SENT
        for (name, arg), tracked in self.tensors.items():  # in the kernel's argument order
            kept = tracked.evidence() if name == kernel else {}
            cost = sum(t.numel() for t in kept.values() if isinstance(t, torch.Tensor))
            if len(kept) > 1 and cost <= budget:
                sent[arg], budget = kept, budget - cost
        return sent
