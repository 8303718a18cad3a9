"""Triton under watch: the interpreter switch, checked memory for every tl.load and tl.store (what a bad
access is said to be: ``triton_bounds``; what each access touched: ``triton_map``), the switch to the
grader's stand-in kernels (``stand_ins``), and the record of every launch."""

from __future__ import annotations

import os
import sys
from typing import Callable

import torch
from grader.probes.triton_bf16 import compute_as_on_gpu, check_triton_version
from grader.probes.triton_compiler_rules import refuse_what_the_compiler_refuses
from grader.probes.triton_speed import skip_dead_overflow_checks, swap_language_once_per_launch
from grader.probes.triton_map import MemoryMap
from grader.probes.triton_bounds import describe_access, layout_note, nearest_tensor, overflowing_dims
from grader.probes.triton_memory import CheckedMemory, OutOfBoundsAccess, own_extents
from types import ModuleType
from grader.probes.core import CodeUnderTestError, missing, run_stage
from grader.probes.stand_ins import KERNELS as STAND_IN_KERNELS, run_stand_in


# ==================================================================================================
# The fused SwiGLU exercise (exercises/triton_swiglu.py): probes that watch Triton kernels run
# ==================================================================================================
#
# What these add to the MLP probes:
# * every Triton launch made while the code under test runs is recorded (kernel name, defining
#   module, the tensors it was given), so the tests can insist that the exercise's own kernels do the
#   work, and that the tensors handed back are ones a kernel wrote;
# * under Triton's interpreter every tl.load and tl.store is checked, before it happens, against the
#   memory of the tensors its launch was given: a forgotten mask becomes evidence naming the kernel,
#   the line and the likely cause, instead of a write past a heap block that kills the process later.
#   The lanes outside are left out of the access (NaN where they read) and the launch runs on, so a
#   test of another property than bounds (the wiring, the launch) can judge what it computed inside;
# * inputs are built here from contiguous data and a layout name (a view does not survive the trip
#   to a child process), inside NaN guard regions whose change is reported; fresh allocations are
#   NaN-filled while the code under test runs, so an element no program wrote cannot pass by luck.

SWIGLU_LAYOUTS = ("contiguous", "chunk", "transposed", "strided", "sequence_first", "expanded", "broadcast_row")
GUARD = 1024  # NaN elements before and after every input the probes build


def use_triton_interpreter_without_gpu() -> None:
    """Without a GPU Triton can only run kernels in its interpreter, which must be switched on before
    triton is imported (its library functions are compiled at import). Called before an exercise file
    is imported, so neither the student nor the suite has to set anything."""
    if "TRITON_INTERPRET" in os.environ or "triton" in sys.modules:
        return  # set by the caller, or too late: swiglu probes then say what went wrong
    if not torch.cuda.is_available():
        os.environ["TRITON_INTERPRET"] = "1"



def triton_interpreting() -> bool:
    import triton

    return bool(triton.knobs.runtime.interpret)


def _extent(t: torch.Tensor) -> tuple[int, int]:
    """[first byte, one past the last byte] that the elements of ``t`` occupy."""
    start = t.data_ptr()
    if t.numel() == 0:
        return start, start
    span = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride())) + 1
    return start, start + span * t.element_size()


class _TritonGuard:
    """Installed once per process as soon as code under test has imported triton, and left in place:
    every launch is shown to the active ``TritonWatch``es, and under the interpreter every load and
    store of every kernel is checked, whichever probe runs it (``run_block`` too)."""

    def __init__(self) -> None:
        self.watches: list[TritonWatch] = []
        # kernel, tensor extents, and each tensor's (first byte, shape, strides) by argument
        self.running: tuple[str, list[tuple[str, int, int, str]], dict[str, tuple]] | None = None
        self.stand_ins: str | None = None  # set by StandIns: the module whose kernels the stand-ins replace
        self.launch_grids: dict[str, tuple[int, ...]] = {}  # set by LaunchGrid: kernel name -> the grid it gets
        self.last_violation = ""  # the latest out-of-bounds access told, watched or not
        self.told_in_launch = False  # whether the running launch's first out-of-bounds access was told

    def install(self) -> None:
        import triton
        import triton.runtime.jit as jit

        check_triton_version(triton.__version__)

        jit.JITFunction.run = self._watched(jit.JITFunction.run)
        try:
            from triton.runtime import interpreter
        except ImportError:  # a triton without the interpreter: nothing to check addresses with
            return
        interpreter.InterpretedFunction.run = self._watched(interpreter.InterpretedFunction.run)
        interpreter._interpreter = CheckedMemory(interpreter._interpreter, self)
        compute_as_on_gpu(interpreter)
        refuse_what_the_compiler_refuses(interpreter)
        swap_language_once_per_launch(interpreter)
        skip_dead_overflow_checks(interpreter)

    def _watched(self, run: Callable) -> Callable:
        guard = self

        def watched_run(kernel, *args, grid, warmup, **kwargs):
            if warmup:
                return run(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            fn = getattr(kernel, "fn", None)
            named = list(zip(getattr(kernel, "arg_names", []), args)) + list(kwargs.items())
            tensors = [pair for arg, value in named for pair in _tensors_in(arg, value)]
            name = getattr(fn, "__name__", type(kernel).__name__)
            grid = guard.launch_grids.get(name) or grid  # the grader's grid where it set one (LaunchGrid)
            for watch in guard.watches:
                watch.launched(name, getattr(fn, "__module__", "?"), tensors, _resolved(grid, dict(named)))
            if (guard.stand_ins is not None and name in STAND_IN_KERNELS
                    and getattr(fn, "__module__", None) == guard.stand_ins):
                return run_stand_in(name, dict(named))
            outer, outer_told = guard.running, guard.told_in_launch
            guard.running = (name, [(arg, *_extent(t), layout_note(t)) for arg, t in tensors],
                             {arg: (t.data_ptr(), tuple(t.shape), tuple(t.stride())) for arg, t in tensors})
            guard.told_in_launch = False
            try:
                return run(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                guard.running, guard.told_in_launch = outer, outer_told

        return watched_run

    def check(self, access: str, ptrs, mask, itemsize: int):
        """None where every lane the mask lets through is inside the launch's tensors; else the lanes (a bool
        array of the tile's shape) that are outside, recorded as the watches' violation. Those lanes are then
        left out of the access (a load reads NaN there, or where bounds are apart what a masked lane reads:
        ``poisons_outside_reads``): nothing outside the tensors is ever read or written,
        and the launch runs on, so what it computed inside can be judged apart from the violation (a probe
        that judges bounds fails its stage on it: ``watched_stage``)."""
        import numpy as np

        if self.running is None:
            return None
        kernel, extents, layouts = self.running
        tile = np.asarray(ptrs).astype(np.int64)
        wanted = np.ones(tile.shape, dtype=bool) if mask is None else np.broadcast_to(np.asarray(mask, dtype=bool),
                                                                                       tile.shape)
        addresses = tile[wanted]
        if addresses.size == 0:
            return None
        inside = np.zeros(addresses.shape, dtype=bool)
        for _, lo, hi, _ in own_extents(extents, addresses, itemsize):
            inside |= (addresses >= lo) & (addresses + itemsize <= hi)
        if inside.all():
            if self.watches:
                program = _program()
                for watch in self.watches:
                    watch.memory.accessed(kernel, _drawn_as(access), addresses, program)
            return None
        lanes = np.zeros(tile.shape, dtype=bool)
        lanes[wanted] = ~inside
        if self.watches and inside.any():
            program = _program()
            for watch in self.watches:
                watch.memory.accessed(kernel, _drawn_as(access), addresses[inside], program)
        if self.told_in_launch:
            return lanes  # told once, at the first: the rest of the launch runs on
        self.told_in_launch = True
        outside = addresses[~inside]
        nearest = nearest_tensor(access, outside, extents, itemsize)
        overflow = None
        names = next((watch.dim_names[nearest[0]] for watch in self.watches
                      if nearest is not None and nearest[0] in watch.dim_names), None)
        if names is not None:  # the exercise names the tensor's dimensions: say which one the tile ran past
            beyond = np.zeros(tile.shape, dtype=bool)
            beyond[wanted] = ~inside
            reached = overflowing_dims(tile, beyond, layouts[nearest[0]], itemsize)
            if reached and len(names) == len(layouts[nearest[0]][1]):
                dim, index = next(iter(reached.items()))
                overflow = (f"{nearest[0]}'s ({', '.join(names)}) tile", names[dim], index, layouts[nearest[0]][1][dim])
        masked = mask is not None and not np.asarray(mask, dtype=bool).all()
        message = describe_access(kernel, access, outside, nearest, itemsize, overflow, masked, tiled=tile.ndim >= 2)
        self.last_violation = message
        for watch in self.watches:
            if watch.violation is None:
                watch.violation, watch.violation_kernel = message, kernel
                watch.violation_pointer = nearest[0] if nearest is not None else ""
                if nearest is not None:
                    watch.memory.outside(kernel, nearest[0], _drawn_as(access), outside)
        return lanes


    def poisons_outside_reads(self) -> bool:
        """Whether a load's lanes outside the tensors read NaN: unless every active watch judges bounds apart."""
        return not self.watches or any(watch.poison_outside_reads for watch in self.watches)


def _drawn_as(access: str) -> str:
    """The map an access is drawn in: a load's, or a store's (an atomic writes what it reads)."""
    return "load" if access == "load" else "store"


def _program() -> int:
    """The running program's index in the grid, counted as tl.program_id(0) + tl.program_id(1) * grid[0] + ..."""
    from triton.runtime import interpreter

    builder = interpreter.interpreter_builder
    (x, y, z), (nx, ny, _) = builder.grid_idx, builder.grid_dim
    return int(x + nx * (y + ny * z))


# The interpreter keeps bfloat16 as its bits in uint16 arrays and hands them to numpy as they are:
# bfloat16 * bfloat16 multiplies the integers (garbage, often NaN), and float32 -> bfloat16 drops the
# low bits (truncation). A GPU computes bfloat16 arithmetic in float32 and rounds every result to the
# nearest even bfloat16, and converts the same way. These replacements do that, so a kernel gets the
# same bfloat16 numbers here as on a GPU and the suite needs one bfloat16 tolerance for both
# (the maintainers' self-checks compare them with PyTorch's, element by element).


def _resolved(grid, named: dict) -> tuple[int, ...] | None:
    """The launch's grid as the tuple of ints Triton will launch (a callable grid called on the arguments, as
    Triton calls it), for the record only: None where it is not plain ints (Triton then says what is wrong)."""
    try:
        resolved = tuple(grid(named) if callable(grid) else grid)
    except Exception:  # noqa: BLE001 - any fault of the grid is Triton's to report, in its own words
        return None
    return resolved if all(type(size) is int for size in resolved) else None


def _tensors_in(arg: str, value: object) -> list[tuple[str, torch.Tensor]]:
    """The tensors a kernel argument hands over: itself, a tuple's items, a descriptor's base."""
    if isinstance(value, torch.Tensor):
        return [(arg, value)]
    if isinstance(value, (tuple, list)):
        return [pair for i, item in enumerate(value) for pair in _tensors_in(f"{arg}[{i}]", item)]
    base = getattr(value, "base", None)
    return [(arg, base)] if isinstance(base, torch.Tensor) else []


class StandIns:
    """While active: launches of ``module``'s exercise kernels are served the grader's stand-in values
    (``stand_ins``) by the trusted process, instead of running."""

    def __init__(self, module: ModuleType) -> None:
        self.module_name = module.__name__

    def __enter__(self) -> None:
        guard_triton().stand_ins = self.module_name

    def __exit__(self, *exc_info) -> None:
        guard_triton().stand_ins = None


class LaunchGrid:
    """While active: launches of ``kernel`` get ``grid`` instead of the one their launch code picked (the
    student's kernel run under trusted launch code with the grid the student's own launch used)."""

    def __init__(self, kernel: str, grid: tuple[int, ...]) -> None:
        self.kernel, self.grid = kernel, tuple(grid)

    def __enter__(self) -> None:
        grids = guard_triton().launch_grids
        self.outer = grids.get(self.kernel)
        if self.grid:
            grids[self.kernel] = self.grid

    def __exit__(self, *exc_info) -> None:
        grids = guard_triton().launch_grids
        if self.outer is None:
            grids.pop(self.kernel, None)
        else:
            grids[self.kernel] = self.outer


_GUARD: _TritonGuard | None = None


def guard_triton() -> _TritonGuard:
    global _GUARD
    if _GUARD is None:
        _GUARD = _TritonGuard()
        _GUARD.install()
    return _GUARD


def guard_triton_launches(module: ModuleType) -> None:
    """After a file is loaded: if it uses triton, watch and check its kernels from now on."""
    if "triton" in sys.modules:
        try:
            guard_triton()
        except ImportError:  # triton is half-installed: the probes report that when they run
            pass


class TritonWatch:
    """While active: which Triton kernels were launched, with what, and any out-of-bounds access."""

    def __init__(self, module: ModuleType) -> None:
        self.module_name = module.__name__
        self.launches: list[dict] = []
        self.violation: str | None = None
        self.violation_kernel = ""
        self.violation_pointer = ""  # the pointer argument whose tensor the access was nearest
        self.memory = MemoryMap()  # what each launch read and wrote, element by element (triton_map)
        # argument -> the names of its tensor's dimensions ("x_ptr": ("M", "K")), where an exercise has
        # them: an out-of-bounds access is then told as the dimension its tile ran past
        self.dim_names: dict[str, tuple[str, ...]] = {}
        # What a load's lanes outside the tensors read: NaN where bounds are judged (a result that uses them
        # shows it), the load's `other` where they are apart (``watched_stage``): what a masked lane reads, so
        # that a kernel whose only fault is a missing mask computes inside what it would with the mask (an x
        # tile read past K, multiplied by a masked weight tile, adds nothing), and a test of another property
        # judges that.
        self.poison_outside_reads = True

    def __enter__(self) -> "TritonWatch":
        guard_triton().watches.append(self)
        return self

    def __exit__(self, *exc_info) -> None:
        guard_triton().watches.remove(self)

    def launched(self, kernel: str, home: str, tensors: list[tuple[str, torch.Tensor]], grid=None) -> None:
        self.launches.append({"kernel": kernel, "module": home, "ours": home == self.module_name,
                              "tensors": dict(tensors), "grid": grid})
        self.memory.launched(kernel, tensors)

    def ours(self) -> list[str]:
        return [launch["kernel"] for launch in self.launches if launch["ours"]]

    def tensors_given(self, kernel: str) -> dict[str, torch.Tensor]:
        """The tensors the last launch of ``kernel`` was given, by argument (empty if none was made)."""
        return next((launch["tensors"] for launch in reversed(self.launches) if launch["kernel"] == kernel), {})

    def grid_of(self, kernel: str) -> list[int] | None:
        """The grid of the last launch of ``kernel``, as ints (None if none was made or it was not ints)."""
        grid = next((launch["grid"] for launch in reversed(self.launches) if launch["kernel"] == kernel), None)
        return list(grid) if grid is not None else None

    def foreign(self) -> list[str]:
        return [f"{launch['kernel']} (from {launch['module']})" for launch in self.launches if not launch["ours"]]


def watched_stage(watch: TritonWatch, stage: str, fn: Callable, *args, bounds: str = "judged", **kwargs):
    """run_stage, with an out-of-bounds access reported as itself rather than as what it broke. ``bounds``:
    "judged", an access outside the launch's tensors fails the stage (what a kernel computed is only right
    if it stayed in bounds); "apart", the stage's result stands, the access left out (NaN where it read),
    and the violation stays in ``watch.violation`` for the probe to report: for a test of another property
    (the wiring, the launch, the inputs left untouched), which memory safety is not."""
    failed = False
    watch.poison_outside_reads = bounds == "judged"
    try:
        result = run_stage(stage, fn, *args, **kwargs)
    except CodeUnderTestError:
        if watch.violation is None:
            raise
        result, failed = None, True  # what went wrong first, whatever the stage then raised, is the access
    if watch.violation is not None and (failed or bounds == "judged"):
        error = CodeUnderTestError(stage, OutOfBoundsAccess(watch.violation))
        # Drawn by the test (kernel_map), the kernel's tensors in the shapes of the arguments they came from.
        error.evidence["map"] = watch.memory.evidence(watch.violation_kernel, [*args, *kwargs.values()])
        if watch.violation_pointer:  # which argument's tensor it ran past: a field, for the suites' hints
            error.evidence["pointer"] = watch.violation_pointer
        raise error
    return result


def exercise_function(module: ModuleType, name: str) -> Callable:
    fn = getattr(module, name, None)
    if not callable(fn):
        raise CodeUnderTestError(name, missing(module, "function", name))
    return fn


def check_triton_ready(stage: str) -> None:
    try:
        interpreting = triton_interpreting()
    except ImportError as exc:
        raise CodeUnderTestError(stage, ImportError(f"triton cannot be imported here: {exc}")) from exc
    if not interpreting and not torch.cuda.is_available():
        raise CodeUnderTestError(stage, RuntimeError(
            "there is no GPU and Triton's interpreter is off: triton was imported before TRITON_INTERPRET=1"
            " was set. Run the suite with pytest (it sets it), or set TRITON_INTERPRET=1 yourself"))
