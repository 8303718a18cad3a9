"""Memory under the interpreter, checked: every load, store and atomic a kernel makes goes through
``CheckedMemory``, which asks the guard (``triton_watch``) whether its lanes stay inside the launch's tensors
and leaves out those that do not, so that nothing outside is ever read or written."""

from __future__ import annotations


class OutOfBoundsAccess(RuntimeError):
    """A kernel tried to load or store outside every tensor its launch was given."""


# The interpreter's native module: what of it touches memory (checked below) and what does not (passed on).
# A name not listed (a memory access a later Triton adds) is refused rather than passed on unchecked.
_NATIVE_PASSED = {"fma_fp32", "fma_fp64", "MEM_SEMANTIC", "RMW_OP", "ACQUIRE", "ACQUIRE_RELEASE", "RELAXED",
                  "RELEASE", "ADD", "AND", "FADD", "MAX", "MIN", "OR", "UMAX", "UMIN", "XCHG", "XOR"}
# tl.atomic_* by the interpreter's read-modify-write operation, for messages.
_ATOMIC_NAMES = {"ADD": "atomic_add", "FADD": "atomic_add", "MIN": "atomic_min", "UMIN": "atomic_min",
                 "MAX": "atomic_max", "UMAX": "atomic_max", "AND": "atomic_and", "OR": "atomic_or",
                 "XOR": "atomic_xor", "XCHG": "atomic_xchg"}


class CheckedMemory:
    """Stands in for the interpreter's native memory access: every load, store and atomic (which reads and
    writes) has its addresses checked, then is delegated with the lanes outside left out."""

    def __init__(self, native, guard) -> None:  # guard: triton_watch's, whose check() says which lanes are out
        self._native = native
        self._guard = guard

    def __getattr__(self, name: str):
        if name not in _NATIVE_PASSED:
            raise AttributeError(f"the grader does not check the interpreter's {name}: refused unchecked")
        return getattr(self._native, name)

    def load(self, ptrs, mask, other, dtype):
        import numpy as np

        outside = self._guard.check("load", ptrs, mask, np.dtype(dtype).itemsize)
        if outside is None:
            return self._native.load(ptrs, mask, other, dtype)
        loaded = self._native.load(ptrs, _inside_only(ptrs, mask, outside), other, dtype)
        return _poisoned(loaded, outside) if self._guard.poisons_outside_reads() else loaded

    def store(self, ptrs, value, mask):
        outside = self._guard.check("store", ptrs, mask, value.dtype.itemsize)
        return self._native.store(ptrs, value, mask if outside is None else _inside_only(ptrs, mask, outside))

    def atomic_rmw(self, op, ptrs, value, mask, sem):
        name = next((tl_name for native, tl_name in _ATOMIC_NAMES.items()
                     if op == getattr(self._native.RMW_OP, native, None)), "atomic_add")
        outside = self._guard.check(name, ptrs, mask, value.dtype.itemsize)
        if outside is None:
            return self._native.atomic_rmw(op, ptrs, value, mask, sem)
        return _poisoned(self._native.atomic_rmw(op, ptrs, value, _inside_only(ptrs, mask, outside), sem), outside)

    def atomic_cas(self, ptrs, expected, value, sem):
        if self._guard.check("atomic_cas", ptrs, None, value.dtype.itemsize) is not None:
            # no mask to narrow: stopped here, before it happens
            raise OutOfBoundsAccess(self._guard.last_violation)
        return self._native.atomic_cas(ptrs, expected, value, sem)


def _inside_only(ptrs, mask, outside):
    """The access's mask with the lanes outside the launch's tensors switched off."""
    import numpy as np

    wanted = np.ones(np.shape(ptrs), dtype=bool) if mask is None else np.broadcast_to(np.asarray(mask, dtype=bool),
                                                                                      np.shape(ptrs))
    return wanted & ~outside


def _poisoned(loaded, outside):
    """What the lanes outside read: NaN where the values are floating point (bfloat16 is kept as its bits in
    uint16: NaN's bits), as unusable as a GPU's read of whatever lies there; a result that uses them shows it."""
    import numpy as np

    loaded = np.array(loaded, copy=True)
    if loaded.dtype.kind == "f":
        loaded[outside] = np.nan
    elif loaded.dtype == np.uint16:
        loaded[outside] = 0x7FC0
    return loaded


def own_extents(extents, addresses, itemsize: int):
    """The tensors one access may touch: those holding its first lane (a tile runs on past its tensor's end),
    else those holding its last (it starts before the start), else any of the launch's. A tile that runs
    from one tensor into the next in memory is out of bounds there, whatever lies next to it: two processes
    place their tensors differently, and a verdict must not depend on it."""
    for address in (addresses[0], addresses[-1]):
        holding = [e for e in extents if e[1] <= address and address + itemsize <= e[2]]
        if holding:
            return holding
    return extents
