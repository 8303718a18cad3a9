"""Maps of what a kernel touched, for the failure messages of the Triton suites.

The probes record, under Triton's interpreter, how many times each element of each tensor a kernel
was given was loaded and stored, by which program, and where an access outside every tensor went
(``grader/probes/triton_map.py``), as grids of rows x columns in the shapes the test made the tensors.
That record comes from the process that ran the submission, so ``accept`` checks it before anything is
drawn: well formed, and named as a pointer parameter of one of the exercises' kernels, whose signatures
the trusted side reads itself (``kernel_parameters``). It only ever adds a map to a test that has
already failed on its own evidence. ``text_map`` draws one tensor in at most ``WIDTH`` x ``HEIGHT``
characters (larger tensors by blocks), ``program_map`` which program touched each element, and
``pictures.save_picture`` every tensor as a PNG coloured by program, where matplotlib is installed.
"""

from __future__ import annotations

import ast
from functools import lru_cache

import torch

from grader.kernels import pictures
from grader.kernels.source import is_jit
from grader.paths import EXERCISES, reference_file
from grader.probes.triton_map import MAX_ELEMENTS, MAX_OUTSIDE  # what the probes keep: nothing larger is drawn
from grader.tasks import TRITON_EXERCISES

WIDTH, HEIGHT = 60, 24  # with " <- before the start" after the widest line: 80 columns
MAX_TENSORS = 16
PROGRAMS = 2**40  # program numbers a record may hold: far more than any test launches under the interpreter
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
    pointer parameter: ``parameters_of``): {argument: {loads, stores, load_programs, store_programs,
    loads_outside, stores_outside, contiguous, shared, same_memory_as}}, counts and programs as rows x
    columns (programs -1 where an access never happened). Anything else is left out: a map is only ever
    decoration on a failure, so a malformed or misnamed one is simply not drawn."""
    if not isinstance(maps, dict):
        return {}
    names = parameters_of() if names is None else names
    kept = {}
    for arg, record in list(maps.items())[:MAX_TENSORS]:
        if isinstance(arg, str) and arg in names and isinstance(record, dict):
            checked = _checked_record(record, names)
            if checked:
                kept[arg] = checked
    return kept


def _integers(t: object, shape: torch.Size | None = None) -> bool:
    return (isinstance(t, torch.Tensor) and t.dtype in INTEGER_DTYPES and t.dim() == 2
            and 0 < t.numel() <= MAX_ELEMENTS and (shape is None or t.shape == shape))


def _checked_record(record: dict, names: frozenset[str]) -> dict | None:
    loads, stores = record.get("loads"), record.get("stores")
    if not (_integers(loads) and _integers(stores, loads.shape)):
        return None
    checked: dict[str, object] = {"contiguous": record.get("contiguous") is True, "loads": loads.long(),
                                  "stores": stores.long()}
    for access in ("load", "store"):
        counts, programs = checked[f"{access}s"], record.get(f"{access}_programs")
        if programs is None and not bool(counts.any()):
            programs = torch.full(counts.shape, -1)  # sent only where the access happened
        if not _integers(programs, counts.shape) or not -1 <= int(programs.min()) <= int(programs.max()) < PROGRAMS:
            return None
        checked[f"{access}_programs"] = programs.long()
        if access == "load":  # the first loader (optional: then the last stands for it)
            first = record.get("first_load_programs")
            checked["first_load_programs"] = (first.long() if _integers(first, counts.shape)
                                              and -1 <= int(first.min()) <= int(first.max()) < PROGRAMS
                                              else programs.long())
        outside = record.get(f"{access}s_outside")
        if isinstance(outside, torch.Tensor) and outside.dtype == torch.int64 and outside.dim() == 1 \
                and outside.numel() <= MAX_OUTSIDE:
            checked[f"{access}s_outside"] = outside
    shared, twin = record.get("shared"), record.get("same_memory_as")
    if type(shared) is int and 1 < shared <= MAX_ELEMENTS:
        checked["shared"] = shared
    if isinstance(twin, str) and twin in names:
        checked["same_memory_as"] = twin
    return checked


# ------------------------------------------------------------------------------------- text maps

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
             contiguous: bool = True, shared: int = 1) -> str:
    """How many times each element of a rows x columns grid was loaded or stored (``verb``: "read" or
    "wrote"), as characters: # once, . never, 2 more than once, : a block with several of these; ! where
    the kernel tried to go past the tensor's first or last element (``outside``: element offsets from its
    first element, drawn on a line before or after the map where the grid is ``contiguous`` in memory, so
    that an offset is a place in the rows continued). ``shared``: the grid is a broadcast view's memory,
    each place standing for that many of its elements."""
    grid = counts if counts.dim() == 2 else counts.reshape(1, -1)
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
            notes.append(f"(and {outside.numel()} element(s) tried outside it, not drawn: its rows are not one"
                         " after another in memory)")
    legend = (f"# {verb} once, . never, 2 more than once, : a block partly so"
              + (", ! tried out of bounds" if outside is not None and outside.numel() else ""))
    per_address = f", per address: a broadcast view (stride 0), {shared} of its elements at each" if shared > 1 else ""
    return "\n".join([f"what the kernel {verb}, {_scale(rows, cols)}{per_address}; {legend}:", *lines, *notes,
                      *_few_elements(grid, verb)])


FEW = 6  # elements listed by index below a map: where a block character (":") hides which ones they are


def _few_elements(grid: torch.Tensor, verb: str) -> list[str]:
    """A line naming the elements never touched (and, for stores, touched more than once) where they are
    few and the map draws blocks: one ':' among '#'s does not say it is column 0 of row 0."""
    rows, cols = grid.shape
    if _blocks(rows, cols) == (1, 1):
        return []  # one character per element: the map itself shows each
    participle = "written" if verb == "wrote" else "read"
    said = []
    for what, where in ((f"never {participle}", grid == 0),
                        (f"{participle} more than once", grid > 1 if verb == "wrote" else None)):
        if where is None or not bool(where.any()):
            continue
        places = where.nonzero().tolist()
        if len(places) > FEW:
            return []
        said.append(f"{what}: " + ", ".join(f"element {c}" if rows == 1 else f"(row {r}, column {c})" for r, c in places))
    return [f"({'; '.join(said)})"] if said else []


def drawn(arg: str, record: dict, access: str) -> str:
    """``text_map`` of ``arg``'s loads or stores (``access``), named."""
    verb = "wrote" if access == "store" else "read"
    return f"\n{arg}: " + text_map(record[f"{access}s"], verb, record.get(f"{access}s_outside"),
                                    record["contiguous"], record.get("shared", 1))


def program_map(programs: torch.Tensor, width: int = WIDTH) -> list[str]:
    """Which program (tl.program_id(0) + tl.program_id(1) * grid[0] + ...) last touched each element,
    one character per element or block, at most ``width`` wide: ``PROGRAM_LEGEND``."""
    def character(block: torch.Tensor) -> str:
        seen = block.unique()
        return ("*" if seen.numel() > 1 else "." if int(seen[0]) < 0
                else PROGRAM_DIGITS[int(seen[0]) % len(PROGRAM_DIGITS)])

    return _draw(programs if programs.dim() == 2 else programs.reshape(1, -1), width, character)


PROGRAM_LEGEND = ("0-9 a-z A-Z: programs 0-61 (then from 0 again), numbered tl.program_id(0) + tl.program_id(1) *"
                  " grid[0]; . none; * a block of several")


def programs_side_by_side(left: tuple[str, torch.Tensor], right: tuple[str, torch.Tensor]) -> str:
    """Two program maps of tensors with as many rows next to each other, within 80 columns: which program
    did what, where."""
    half = (80 - 4) // 2
    (left_title, left_programs), (right_title, right_programs) = left, right
    a, b = program_map(left_programs, half), program_map(right_programs, half)
    width = max(len(left_title), *(len(line) for line in a))
    rows = [f"{left_title:<{width}}    {right_title}"]
    rows += [f"{x:<{width}}    {y}" for x, y in zip(a + [""] * (len(b) - len(a)), b + [""] * (len(a) - len(b)))]
    shapes = [t.shape if t.dim() == 2 else (1, t.numel()) for t in (left_programs, right_programs)]
    what = (f"a {_scale(*shapes[0], half)} tensor" if shapes[0] == shapes[1]
            else f"tensors of {_scale(*shapes[0], half)} and {_scale(*shapes[1], half)}")
    return "\n".join([f"which program touched each element of {what}; {PROGRAM_LEGEND}:", *rows])


# ------------------------------------------------------------------------------ what to draw when

def _share(counts: torch.Tensor) -> str:
    return f"{int(counts.sum())} of {counts.numel()} elements"


def stored_elsewhere(maps: dict, arg: str, inputs: list[str]) -> str:
    """Where the stores went that ``arg`` did not get: into an input, more than once into another
    tensor, into ``arg``'s memory under another name, or nowhere at all; '' when none of these."""
    said = []
    twin = maps.get(arg, {}).get("same_memory_as")
    if twin:
        said.append(f"{arg} is the memory of {twin}: the launch code hands the kernel the same tensor twice")
    for other, record in maps.items():
        if other == arg:
            continue
        stores = record["stores"]
        if other in inputs and bool(stores.any()):
            said.append(f"the kernel stored into {other}, an input, at {_share(stores > 0)}")
        elif bool((stores > 1).any()):
            said.append(f"the kernel stored into {other} more than once at {_share(stores > 1)}")
    if not said and not any(bool(record["stores"].any()) for record in maps.values()):
        said.append(f"the kernel stored nothing at all, into none of the {len(maps)} tensors it was given")
    return "\n" + "; ".join(said) if said else ""


def unwritten(maps: dict, arg: str, inputs: list[str] = ()) -> str:
    """The map of ``arg``'s stores, where some element was not written exactly once (all '.': never
    written), with where the stores went instead; else ''."""
    record = maps.get(arg)
    if record is None or bool((record["stores"] == 1).all()):
        return ""
    return drawn(arg, record, "store") + stored_elsewhere(maps, arg, list(inputs))


def inputs_stored(record: object, inputs: list[str]) -> str:
    """For a test that failed because the kernel changed an input: the map of the first input in
    ``inputs`` it stored into, and which output has that input's memory, if one has; else ''."""
    maps = accept(record, parameters_of(*inputs))
    for arg in inputs:
        if arg in maps and bool(maps[arg]["stores"].any()):
            twins = [other for other, r in maps.items() if arg in (r.get("same_memory_as"), other) and other != arg]
            why = (f" ({', '.join(twins)} {'is' if len(twins) == 1 else 'are'} the memory of {arg}: the output was"
                   f" allocated as the input itself)") if twins else ""
            return (f"; the kernel stored into {arg} at {_share(maps[arg]['stores'] > 0)}{why}:"
                    + drawn(arg, maps[arg], "store") + pictures.save_picture(maps))
    return ""


def unread(maps: dict, args: list[str], elementwise: bool = False) -> str:
    """Where an input the kernel should read whole has elements it never loaded: a hint and its map. For
    an ``elementwise`` kernel that never loaded an input at all, the input it loaded more than once
    instead, if one (not a broadcast view, which every program reads rightly)."""
    for arg in args:
        record = maps.get(arg)
        if record is not None and bool((record["loads"] == 0).any()):
            never = int((record["loads"] == 0).sum())
            if never == record["loads"].numel():
                again = [other for other in args if elementwise and other in maps and "shared" not in maps[other]
                         and bool((maps[other]["loads"] > 1).any())]
                return f"; the kernel never loaded {arg}" + "".join(
                    f", and loaded {other} more than once at {_share(maps[other]['loads'] > 1)}" for other in again[:1])
            return (f"; the kernel never loaded {never} of {record['loads'].numel()} elements of {arg} (a row or column"
                    f" from the wrong stride, or a mask or loop that stops short):" + drawn(arg, record, "load"))
    return ""


def crossed(maps: dict, output: str, inputs: list[str]) -> str:
    """For an elementwise kernel: where an element of ``output`` was stored by another program than the
    one that loaded an input at the same place, a hint and both program maps side by side, else ''."""
    record = maps.get(output)
    if record is None:
        return ""
    writer = record["store_programs"]
    for arg in inputs:
        source = maps.get(arg)
        if source is None or source["load_programs"].shape != writer.shape:
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


def _outsiders(reader: torch.Tensor, writers: torch.Tensor) -> torch.Tensor:
    """Where ``reader`` (the last program to load each element of an input) is no program that stored
    into the same line (row i of ``reader`` against row i of ``writers``) of the output."""
    line = torch.arange(writers.shape[0])[:, None] * PROGRAMS  # (line, program) as one number: no overflow
    return (reader >= 0) & ~torch.isin(line + reader, (line + writers)[writers >= 0])


def misread(maps: dict, output: str, inputs: list[str]) -> str:
    """For a kernel that computes tiles of ``output`` from whole rows of its inputs (a matmul: the rows
    of x are out's rows, the rows of a weight are out's columns): an input whose elements were loaded by
    programs that stored nothing in the row or column of ``output`` they belong to (the input read
    with another tensor's strides, or its rows and columns swapped), with both program maps; else ''.
    An input with as many rows as both is charged only when it fits neither."""
    record = maps.get(output)
    if record is None or not bool(record["stores"].any()):
        return ""
    writer = record["store_programs"]
    for arg in inputs:
        source = maps.get(arg)
        if source is None or "shared" in source or not bool(source["loads"].any()):
            continue
        reader, first = source["load_programs"], source["first_load_programs"]
        # An element counts only where its first loader stored nothing in its line either: a row loaded by its
        # own program and again by another (wrap-around offsets, whose values are never stored) is no misread.
        found = [(int((_outsiders(reader, lines) & _outsiders(first, lines)).sum()), along, lines) for along, lines in
                 (("row", writer), ("column", writer.T)) if lines.shape[0] == reader.shape[0]]
        if found and min(count for count, *_ in found):
            count, along, lines = min(found, key=lambda f: f[0])
            shown = f"{output}: stored by" + (" (transposed)" if along == "column" else "")
            return (f"; {count} of {reader.numel()} elements of {arg} were loaded, first and last, by programs that"
                    f" stored nothing in their {along} of {output} (a program loads the rows of its own tile, at {arg}'s own"
                    f" strides):\n" + programs_side_by_side((shown, lines), (f"{arg}: loaded by", reader)))
    return ""


def for_error(error: dict) -> str:
    """After an out-of-bounds access: the map of the tensor it was nearest to, with the picture."""
    maps = accept(error.get("map"))
    for arg, record in maps.items():
        for access in ("store", "load"):
            outside = record.get(f"{access}s_outside")
            if outside is not None and outside.numel():
                return drawn(arg, record, access) + pictures.save_picture(maps)
    return ""


def explain(record: object, output: str, inputs: list[str], elementwise: bool = False) -> str:
    """What a test that failed on ``output`` adds from the probe's ``record`` (checked here by ``accept``):
    the map of its stores where some element was not written exactly once (never, for an output the
    kernel did not touch), with where the stores went instead; else an input with elements never loaded,
    and its map; else, for an ``elementwise`` kernel, the programs that stored elements they did not
    load, and for a tiled one (a matmul), the programs that loaded rows they stored nothing of. With the
    picture of every tensor of the kernel when a map was drawn; '' when the record shows nothing wrong.
    Only the parameters of the kernel that takes ``output`` and ``inputs`` are drawn."""
    maps = accept(record, parameters_of(output, *inputs))
    found = (unwritten(maps, output, inputs) or unread(maps, inputs, elementwise)
             or (crossed if elementwise else misread)(maps, output, inputs))
    return found + pictures.save_picture(maps) if "\n" in found else found
