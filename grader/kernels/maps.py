"""Pictures of what a kernel touched, for the failure messages of the Triton suites.

The probes record, under Triton's interpreter, how many times each element of each tensor a kernel
was given was loaded and stored, by which program, and where an access outside every tensor went
(``grader/probes/triton_map.py``). That record comes from the process that ran the submission, so
``accept`` checks it before anything is drawn: well formed, and named as a pointer parameter of one of
the exercises' kernels, whose signatures the trusted side reads itself (``kernel_parameters``). It only
ever adds a picture to a test that has already failed on its own evidence. ``text_map`` draws one
tensor in at most ``WIDTH`` x ``HEIGHT`` characters (larger tensors by blocks), ``program_map`` which
program touched each element, and ``save_picture`` the same for every tensor as a PNG coloured by
program, where matplotlib is installed.
"""

from __future__ import annotations

import ast
import os
import re
from functools import lru_cache

import torch

from grader.kernels.source import is_jit
from grader.paths import EXERCISES, KERNEL_MAPS, KERNEL_MAPS_ENV, reference_file
from grader.probes.triton_map import MAX_ELEMENTS, MAX_OUTSIDE  # what the probes keep: nothing larger is drawn
from grader.tasks import TRITON_EXERCISES

WIDTH, HEIGHT = 60, 24  # with " <- before the start" after the widest line: 80 columns
MAX_TENSORS = 16
PROGRAM_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
INTEGER_DTYPES = (torch.int16, torch.int32, torch.int64)


# ------------------------------------------------------------------------------ checking the record

def kernels_in(source: str) -> dict[str, frozenset[str]]:
    """{kernel: its pointer parameters (``*_ptr``)} of the ``@triton.jit`` functions in ``source`` that
    take a pointer (a helper such as ``_activation(g, ACTIVATION)`` takes none)."""
    kernels = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and is_jit(node):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            pointers = frozenset(a.arg for a in arguments if a.arg.endswith("_ptr"))
            if pointers:
                kernels[node.name] = pointers
    return kernels


@lru_cache(maxsize=None)
def kernel_parameters() -> dict[str, frozenset[str]]:
    """{kernel: its pointer parameters} for the kernels of every Triton exercise, read from the source's
    syntax tree, never run, on the trusted side: the reference where this checkout has it (the
    instructor's, every autograder), else the stub in ``exercises/`` (a student's own checkout, whose
    runs are the student's own business). The record's names come from the submission's process, so a
    map is drawn only under one of these: a look-alike name (out_ptr with a Cyrillic o, or in fullwidth
    letters) would draw a tensor no kernel has."""
    kernels: dict[str, frozenset[str]] = {}
    for exercise in sorted(TRITON_EXERCISES):
        for path in (reference_file(exercise), EXERCISES / f"{exercise}.py"):
            try:
                kernels.update(kernels_in(path.read_text(encoding="utf-8")))
                break
            except (OSError, SyntaxError, ValueError):
                continue  # not in this checkout (the release has no reference), or mid-edit: the next one
    return kernels


def parameters_of(*wanted: str) -> frozenset[str]:
    """The pointer parameters of every exercise kernel that takes all of ``wanted`` (of every kernel
    when nothing is wanted): the names a map may be drawn under."""
    return frozenset().union(*(names for names in kernel_parameters().values() if names.issuperset(wanted)))


def accept(maps: object, names: frozenset[str] | None = None) -> dict[str, dict]:
    """The records that are well formed and named by one of ``names`` (by default, any exercise kernel's
    pointer parameter: ``parameters_of``): {argument: {loads, load_programs, stores, store_programs,
    loads_outside, stores_outside, contiguous}}, each tensor the shape its counts have. Anything else is
    left out: a map is only ever decoration on a failure, so a malformed or misnamed one is simply not
    drawn."""
    if not isinstance(maps, dict):
        return {}
    names = parameters_of() if names is None else names
    kept = {}
    for arg, record in list(maps.items())[:MAX_TENSORS]:
        if isinstance(arg, str) and arg in names and isinstance(record, dict):
            checked = _checked_record(record)
            if checked:
                kept[arg] = checked
    return kept


def _checked_record(record: dict) -> dict | None:
    checked: dict[str, object] = {"contiguous": record.get("contiguous") is True}
    shape = None
    for access in ("load", "store"):
        counts, programs = record.get(f"{access}s"), record.get(f"{access}_programs")
        if counts is None and programs is None:
            continue
        if not all(isinstance(t, torch.Tensor) and t.dtype in INTEGER_DTYPES for t in (counts, programs)):
            return None
        if counts.shape != programs.shape or not 1 <= counts.dim() <= 4 or not 0 < counts.numel() <= MAX_ELEMENTS:
            return None
        if shape is not None and counts.shape != shape:
            return None
        shape = counts.shape
        checked[f"{access}s"], checked[f"{access}_programs"] = counts.long(), programs.long()
        outside = record.get(f"{access}s_outside")
        if isinstance(outside, torch.Tensor) and outside.dtype == torch.int64 and outside.dim() == 1 \
                and outside.numel() <= MAX_OUTSIDE:
            checked[f"{access}s_outside"] = outside
    return checked if shape is not None else None


# ------------------------------------------------------------------------------------- text maps

def _as_grid(t: torch.Tensor) -> torch.Tensor:
    """Rows (all leading dimensions) by the last dimension."""
    return t.reshape(-1, t.shape[-1]) if t.dim() >= 2 else t.reshape(1, -1)


def _blocks(rows: int, cols: int, width: int = WIDTH) -> tuple[int, int]:
    """Rows and columns of elements one character stands for, for a map at most ``width`` x ``HEIGHT``."""
    return -(-rows // HEIGHT), -(-cols // width)


def _draw(grid: torch.Tensor, width: int, character) -> list[str]:
    """One line per band of rows, one ``character(block)`` per block of elements."""
    rows, cols = grid.shape
    block_rows, block_cols = _blocks(rows, cols, width)
    return ["".join(character(grid[r:r + block_rows, c:c + block_cols]) for c in range(0, cols, block_cols))
            for r in range(0, rows, block_rows)]


def _scale(rows: int, cols: int, width: int = WIDTH) -> str:
    block_rows, block_cols = _blocks(rows, cols, width)
    size = f"{rows} row{'s' * (rows != 1)} x {cols} column{'s' * (cols != 1)}"
    return size + (f" (one character: {block_rows} x {block_cols} elements)" if block_rows * block_cols > 1 else "")


def text_map(counts: torch.Tensor, verb: str = "wrote", outside: torch.Tensor | None = None,
             contiguous: bool = True) -> str:
    """How many times each element was loaded or stored (``verb``: "read" or "wrote"), as characters:
    # once, . never, 2 more than once, : a block with several of these; ! where the kernel tried to go
    past the tensor's first or last element (``outside``: element offsets from its first element, drawn
    on a line before or after the map when the tensor is contiguous)."""
    grid = _as_grid(counts)
    rows, cols = grid.shape
    _, block_cols = _blocks(rows, cols)
    lines = _draw(grid, WIDTH, lambda block: "#" if bool((block == 1).all()) else "." if bool((block == 0).all())
                  else "2" if bool((block >= 1).all()) else ":")
    notes = []
    if outside is not None and outside.numel():
        before, after = outside[outside < 0], outside[outside >= rows * cols]
        width = len(lines[0])
        if contiguous:
            for offsets, where, put in ((before, "before the start", 0), (after, "past the end", None)):
                if offsets.numel():
                    marks = [" "] * width
                    for c in set((offsets % cols // block_cols).tolist()):
                        marks[c] = "!"
                    lines.insert(len(lines) if put is None else put, "".join(marks) + f" <- {where}")
        else:
            notes.append(f"(and {outside.numel()} element(s) tried outside it, not drawn: the tensor is a view)")
    legend = (f"# {verb} once, . never, 2 more than once, : a block partly so"
              + (", ! tried out of bounds" if outside is not None and outside.numel() else ""))
    return "\n".join([f"what the kernel {verb}, {_scale(rows, cols)}; {legend}:", *lines, *notes])


def program_map(programs: torch.Tensor, width: int = WIDTH) -> list[str]:
    """Which program (tl.program_id(0) + tl.program_id(1) * grid[0] + ...) last touched each element,
    one character per element or block, at most ``width`` wide: ``PROGRAM_LEGEND``."""
    def character(block: torch.Tensor) -> str:
        seen = block.unique()
        return ("*" if seen.numel() > 1 else "." if int(seen[0]) < 0
                else PROGRAM_DIGITS[int(seen[0]) % len(PROGRAM_DIGITS)])

    return _draw(_as_grid(programs), width, character)


PROGRAM_LEGEND = ("0-9 a-z A-Z: programs 0-61 (then from 0 again), numbered tl.program_id(0) + tl.program_id(1) *"
                  " grid[0]; . none; * a block of several")


def programs_side_by_side(left: tuple[str, torch.Tensor], right: tuple[str, torch.Tensor]) -> str:
    """Two program maps of tensors of one shape next to each other, within 80 columns: which program did
    what, where."""
    half = (80 - 4) // 2
    (left_title, left_programs), (right_title, right_programs) = left, right
    a, b = program_map(left_programs, half), program_map(right_programs, half)
    width = max(len(left_title), *(len(line) for line in a))
    rows = [f"{left_title:<{width}}    {right_title}"]
    rows += [f"{x:<{width}}    {y}" for x, y in zip(a + [""] * (len(b) - len(a)), b + [""] * (len(a) - len(b)))]
    return "\n".join([f"which program touched each element of a {_scale(*_as_grid(left_programs).shape, half)} tensor;"
                      f" {PROGRAM_LEGEND}:", *rows])


# ------------------------------------------------------------------------------ what to draw when

def unwritten(maps: dict, arg: str) -> str:
    """The map of ``arg``'s stores, where some element was not written exactly once, else ''."""
    record = maps.get(arg)
    if record is None or "stores" not in record or bool((record["stores"] == 1).all()):
        return ""
    return "\n" + text_map(record["stores"], "wrote", record.get("stores_outside"), record["contiguous"])


def unread(maps: dict, args: list[str]) -> str:
    """Where an input the kernel should read whole has elements it never loaded: a hint and its map."""
    for arg in args:
        record = maps.get(arg)
        if record is not None and "loads" in record and bool((record["loads"] == 0).any()):
            never = int((record["loads"] == 0).sum())
            if never == record["loads"].numel():
                return f"; the kernel never loaded {arg}"
            return (f"; the kernel never loaded {never} of {record['loads'].numel()} elements of {arg} (a row or column"
                    f" from the wrong stride, or a mask or loop that stops short):\n" + text_map(record["loads"], "read"))
    return ""


def crossed(maps: dict, output: str, inputs: list[str]) -> str:
    """For an elementwise kernel: where an element of ``output`` was stored by another program than the
    one that loaded an input at the same place, a hint and both program maps side by side, else ''."""
    record = maps.get(output)
    if record is None or "store_programs" not in record:
        return ""
    writer = record["store_programs"]
    for arg in inputs:
        source = maps.get(arg)
        if source is None or "load_programs" not in source or source["load_programs"].shape != writer.shape:
            continue
        # Only where the input was loaded once: a broadcast row is loaded by every program, rightly.
        reader = source["load_programs"].masked_fill(source["loads"] != 1, -1)
        differ = (writer >= 0) & (reader >= 0) & (writer != reader)
        if bool(differ.any()):
            return (f"; {int(differ.sum())} of {writer.numel()} elements of {output} were stored by another program"
                    f" than the one that loaded {arg} at the same place (each program must store the rows and"
                    f" columns it loaded):\n"
                    + programs_side_by_side((f"{output}: stored by", writer), (f"{arg}: loaded by", reader)))
    return ""


def for_error(error: dict) -> str:
    """After an out-of-bounds access: the map of the tensor it was nearest to, with the picture."""
    maps = accept(error.get("map"))
    for arg, record in maps.items():
        for access, verb in (("store", "wrote"), ("load", "read")):
            outside = record.get(f"{access}s_outside")
            if outside is not None and outside.numel() and f"{access}s" in record:
                drawn = f"\n{arg}: " + text_map(record[f"{access}s"], verb, outside, record["contiguous"])
                return drawn + save_picture(maps)
    return ""


def explain(record: object, output: str, inputs: list[str], elementwise: bool = False) -> str:
    """What a test that failed on ``output`` adds from the probe's ``record`` (checked here by ``accept``):
    the map of its stores where some element was not written exactly once; else an input with elements
    never loaded, and its map; else, for an ``elementwise`` kernel, the programs that stored elements
    they did not load. With the picture of every tensor when a map was drawn; '' when the record shows
    nothing wrong. Only the parameters of the kernel that takes ``output`` and ``inputs`` are drawn."""
    maps = accept(record, parameters_of(output, *inputs))
    drawn = unwritten(maps, output) or unread(maps, inputs) or (crossed(maps, output, inputs) if elementwise else "")
    return drawn + save_picture(maps) if "\n" in drawn else drawn


# ------------------------------------------------------------------------------------ the picture

def save_picture(maps: dict, name: str | None = None) -> str:
    """A PNG of every tensor in ``maps``, each element coloured by the program that stored it (or, for
    a tensor only read, that loaded it); ' (picture: PATH)', or '' without matplotlib or a place to write."""
    if not maps or os.environ.get(KERNEL_MAPS_ENV) == "0":
        return ""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ""
    name = name or os.environ.get("PYTEST_CURRENT_TEST", "kernel").split(" ")[0].split("::")[-1]
    path = KERNEL_MAPS / (re.sub(r"[^\w.-]+", "_", name)[:100] + ".png")
    figure, axes = plt.subplots(1, len(maps), figsize=(3.2 * len(maps), 3.2), squeeze=False)
    for ax, (arg, record) in zip(axes[0], maps.items()):
        access = "store" if "stores" in record else "load"
        programs = _as_grid(record[f"{access}_programs"]).double()
        rows, cols = programs.shape
        picture = torch.where(programs < 0, torch.nan, programs % 20)  # tab20: 20 colours, then again
        outside = record.get(f"{access}s_outside")
        top = 0
        if outside is not None and outside.numel() and record["contiguous"]:
            # A row before and a row after the tensor, red where the kernel tried to go.
            red = torch.full((rows + 2, cols), torch.nan, dtype=torch.float64)
            places = outside.clamp(-cols, rows * cols + cols - 1) + cols
            red.view(-1)[places] = 0.0  # autumn: 0 is red
            ax.imshow(red.numpy(), cmap="autumn", vmin=0, vmax=1, interpolation="nearest", aspect="auto",
                      extent=(-0.5, cols - 0.5, rows + 0.5, -1.5))
            picture = torch.cat([torch.full((1, cols), torch.nan), picture, torch.full((1, cols), torch.nan)])
            top = 1
        ax.imshow(picture.numpy(), cmap="tab20", vmin=0, vmax=19, interpolation="nearest", aspect="auto",
                  extent=(-0.5, cols - 0.5, rows - 0.5 + top, -0.5 - top))
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.set_title(f"{arg}: {'stored' if access == 'store' else 'loaded'} by", fontsize=9)
        ax.set_xlabel("column (white: never" + ("; red: out of bounds)" if top else ")"), fontsize=8)
        ax.set_ylabel("row", fontsize=8)
    figure.suptitle("each colour is one program (tl.program_id)", fontsize=9)
    figure.tight_layout()
    try:
        KERNEL_MAPS.mkdir(exist_ok=True)
        figure.savefig(path, dpi=80)
    except OSError:
        return ""
    finally:
        plt.close(figure)
    shown = os.path.relpath(path)
    return f"\n(picture: {path if shown.startswith('..') else shown})"
