# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # What a Triton kernel touched: memory maps
#
# The hardest Triton bugs are about *where* a kernel reads and writes: a mask off by one, a row that
# uses another tensor's stride, a grid that skips the last block. When a kernel test fails on where a
# kernel read or wrote, `tests/test_triton_swiglu.py` and `tests/test_triton_gated_mlp.py` draw a
# map of it in the failure message (and save a PNG of every tensor, coloured by program, where
# matplotlib is installed, under `kernel_maps/`, one per failing test; a run first removes the pictures of
# the tests it runs). This notebook draws the same maps for kernels that are right, so that you know the
# right picture before you need to read a wrong one.
#
# Under Triton's interpreter (on a machine without a GPU) every `tl.load` and `tl.store` goes through
# the grader's checked memory, which counts, element by element, how many times each tensor was
# loaded and stored, and which program did it. The maps draw those counts, one character per element
# (or per block of elements, for tensors wider than 60 columns or taller than 24 rows), every tensor
# in the shape the test made it: rows (all leading dimensions) by the last dimension:
#
# | character | the element was |
# |---|---|
# | `#` | loaded (or stored) once |
# | `.` | never |
# | `2` | more than once |
# | `:` | a block where some elements were and some were not |
# | `!` | where the kernel tried to go outside the tensor (a line before or after the map) |
#
# A program map says instead which program touched each element last: `0`-`9`, `a`-`z`, `A`-`Z` for
# programs 0 to 61, numbered `tl.program_id(0) + tl.program_id(1) * grid[0]`.
#
# **Which kernels.** Sections 0 and 3 draw small kernels of their own (`notebooks/first_kernel.py`). The
# others draw the course's own, right kernels first, and then **yours**, from `exercises/triton_swiglu.py`
# and `exercises/triton_gated_mlp.py`, beside them: the course's maps stay whatever yours do, so you can
# read them before you write a line, and compare once you have (while a TODO is not done, the cell for
# yours says which and the notebook moves on).

# %%
import importlib.util
import sys
from pathlib import Path

import torch


def find_repo_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds the exercises."""
    for folder in (start, *start.parents):
        if (folder / "exercises" / "mlp_block.py").is_file():
            return folder
    raise FileNotFoundError(f"no repository root above {start}: open the notebook inside the repository")


REPO = find_repo_root(Path.cwd().resolve())
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from grader.paths import reference_file  # noqa: E402  where the course's own kernels are
from grader.kernels import maps as kernel_map  # noqa: E402  the maps the suites draw
from grader.probes import call, load_module  # noqa: E402  the suites' way to run a kernel, watched

# Not imported here: load_module switches Triton's interpreter on (without a GPU) before the first import.
HAS_TRITON = importlib.util.find_spec("triton") is not None  # Linux only
if not HAS_TRITON:
    print("Triton is not installed here (it is Linux only): only the course's stored maps can be drawn.")


# %% [markdown]
# ## 0. A first kernel, its code beside its maps
#
# Four words first, with the smallest kernel that has them all (`notebooks/first_kernel.py`, printed
# below): each program scales one row of `x` into `out`.
#
# * **A program** is one run of the kernel's body. The launch starts many, and each asks
#   `tl.program_id(0)` which one it is; here program `row` handles row `row`.
# * **The grid** is how many programs the launch starts: `scale_rows_kernel[grid](...)` with
#   `grid = (n_rows,)`, one per row. Too small a grid leaves rows nobody handles (section 2). A 2-d grid,
#   one program per tile of rows and columns, comes in section 3.
# * **A block** is the lanes one program handles at once: `tl.arange(0, BLOCK_SIZE)`, a power of two, so 64
#   lanes for a row of 37. **The mask** `cols < n_cols` switches off the 27 lanes past the row's end: a
#   masked lane neither loads nor stores.
# * **A stride** is how far apart, in elements, one row starts from the one before. Here `x` is the first 37
#   columns of a 5 x 50 tensor, so its rows start 50 elements apart, not 37: the kernel is handed
#   `x.stride(0)` (50) and `out.stride(0)` (37) and adds `row * stride` to each pointer.
#
# The maps: every element of `x` read once (`#`), every element of `out` written once, and the program map
# shows program `r` handled row `r` in both.

# %%
if HAS_TRITON:
    import inspect

    first = load_module(str(REPO / "notebooks" / "first_kernel.py"), "notebook_first_kernel")
    print(inspect.getsource(first.scale_rows_kernel.fn))  # .fn: the Python function behind @triton.jit
    print(inspect.getsource(first.scale_rows))
    from grader.probes.triton_watch import TritonWatch  # records what each launch loaded and stored

    def scaled_and_watched(kernel: str, scale, x: torch.Tensor) -> dict:
        """The maps of x and out when ``scale(x, 2.0)`` runs ``kernel`` (checked to compute x * 2)."""
        with TritonWatch(first) as watch:
            out = scale(x, 2.0)
        assert torch.equal(out, x * 2)
        return kernel_map.accept(watch.memory.evidence(kernel, [x, out]), frozenset({"x_ptr", "out_ptr"}))

    x = torch.randn(5, 50, generator=torch.Generator().manual_seed(0))[:, :37]  # rows 50 elements apart
    print(f"x: shape {tuple(x.shape)}, strides {x.stride()}\n")
    first_maps = scaled_and_watched("scale_rows_kernel", first.scale_rows, x)
    print(kernel_map.drawn("x_ptr", first_maps["x_ptr"], "load"))
    print(kernel_map.drawn("out_ptr", first_maps["out_ptr"], "store"))
    print("\n" + kernel_map.programs_side_by_side(("out_ptr: stored by", first_maps["out_ptr"]["store_programs"]),
                                                 ("x_ptr: loaded by", first_maps["x_ptr"]["load_programs"])))

# %% [markdown]
# The same kernel handed the wrong stride for `x`: 37 (its number of columns) instead of 50. Each program
# now starts reading 37 elements after the one before, so the reads fall behind the rows more and more:
# the map of `x` shows the last row never read and the one before it partly, and `out` holds the wrong
# numbers although it is written in full. Some reads (39 of the 185) land in the 13 columns of the 5 x 50
# tensor between `x`'s rows: they are no element of `x`, so its map cannot draw them, and they are no `!`
# either, being inside `x`'s memory. This is one picture of a row stride ignored.

# %%
if HAS_TRITON:
    out = torch.empty(5, 37)
    with TritonWatch(first) as watch:
        first.scale_rows_kernel[(5,)](x, out, 37, 37, out.stride(0), 2.0, BLOCK_SIZE=64)  # 37: x.stride(0) ignored
    wrong_maps = kernel_map.accept(watch.memory.evidence("scale_rows_kernel", [x, out]),
                                   frozenset({"x_ptr", "out_ptr"}))
    print(kernel_map.drawn("x_ptr", wrong_maps["x_ptr"], "load"))
    print(kernel_map.drawn("out_ptr", wrong_maps["out_ptr"], "store"))
    drawn_reads = int(wrong_maps["x_ptr"]["loads"].sum())
    print(f"\nout == 2 * x: {torch.equal(out, x * 2)}; reads drawn in x's map: {drawn_reads} of {5 * 37}")
    assert not torch.equal(out, x * 2) and not wrong_maps["x_ptr"]["loads"][-1].any()
    assert (wrong_maps["out_ptr"]["stores"] == 1).all() and drawn_reads == 5 * 37 - 39

# %% [markdown]
# ## The course's maps, and yours beside them
#
# From section 1 on, each section draws first **the course's maps**: those of the reference kernels,
# drawn here where they are present and checked against the copy stored in
# `notebooks/kernel_maps_course.json`, or read from that copy where they are not (the student repository).
# They are there whatever your kernels do, so read them before you write a line. The cell after each
# draws **yours** from `exercises/triton_swiglu.py` or `exercises/triton_gated_mlp.py` with the same inputs,
# and says where they differ from the course's; while the TODO it needs is not done it says which. (nbval
# compares the course's cells only: yours change as you work.)

# %%
from grader.paths import EXERCISES  # noqa: E402
from notebooks import course_maps  # noqa: E402  the course's maps: drawn from the reference, or stored


def watched(module, exercise: str, probe: str, **arguments) -> dict:
    """The maps of what the kernel did when ``probe`` ran ``module``'s kernels on ``arguments``."""
    evidence = call(module, exercise, probe, **arguments)
    if "error" in evidence:
        raise RuntimeError(f"{evidence['error']['stage']} says {evidence['error']['message']}")
    return kernel_map.accept(evidence["maps"])


def course(section: str, exercise: str, probe: str, args: tuple[str, ...], patch=None, **arguments) -> dict:
    """The course's maps of ``args``: the reference's, drawn now and checked against the stored ones, where the
    reference (and Triton) is here; the stored ones otherwise. ``patch`` changes the module before the run."""
    if not (HAS_TRITON and reference_file(exercise).is_file()):
        return course_maps.stored(section)
    module = load_module(str(reference_file(exercise)), f"course_{exercise}")
    if patch:
        patch(module)
    live = watched(module, exercise, probe, **arguments)
    return course_maps.checked(section, {arg: live[arg] for arg in args})


def yours(exercise: str, probe: str, course_maps_: dict, patch=None, **arguments) -> dict:
    """Your kernel's maps for the same inputs, and where they differ from the course's (empty while the
    TODO they need is not done, or without Triton)."""
    path = EXERCISES / f"{exercise}.py"
    where = path.relative_to(REPO)
    if not HAS_TRITON:
        print(f"yours ({where}): not drawn, Triton is not installed here")
        return {}
    try:
        module = load_module(str(path), f"your_{exercise}")
        if patch:
            patch(module)
        maps = watched(module, exercise, probe, **arguments)
    except Exception as error:  # noqa: BLE001  a stub, or a kernel that does not run yet: one line
        print(f"yours ({where}): not drawn yet: {error}\n-> Come back once that TODO is done.")
        return {}
    differ = [f"{arg} {what}" for arg, record in course_maps_.items() for what in ("loads", "stores")
              if arg not in maps or not torch.equal(maps[arg][what], record[what])]
    print(f"yours ({where}): " + (f"differs from the course's in {', '.join(differ)}" if differ
                                  else "the same counts as the course's for every tensor"))
    return maps


# %% [markdown]
# ## 1. The SwiGLU forward kernel, row by row
#
# `swiglu_forward(gate, value)` on 5 rows of 37 columns, with gate and value the two halves of
# `h.chunk(2, dim=-1)`: each row of gate and of value is 74 elements after the one before it, not 37.
# The launch code hands the kernel one program per block of a row; a block of 64 covers a row of 37,
# so here that is one program per row. A right kernel loads every element of gate and value once and
# stores every element of out once, and the program that stores an element of out is the one that
# loaded gate and value there (gate's program map is shown; value's is the same, which the cell checks).

# %%
generator = torch.Generator().manual_seed(0)
h = torch.randn(5, 74, generator=generator)
# The probe is handed the halves' numbers and the layout's name, and rebuilds h.chunk(2, -1) from them
# where the kernel runs (a view does not survive the trip to the process that runs a submission's
# kernels): the kernel gets the two strided halves of one (5, 74) tensor, as the text says.
forward_inputs = dict(op="forward", gate=h[:, :37].contiguous(), value=h[:, 37:].contiguous(), layout="chunk")
forward_maps = course("swiglu_forward", "triton_swiglu", "swiglu_kernels", ("gate_ptr", "value_ptr", "out_ptr"),
                      **forward_inputs)
print("the course's kernel:")
for arg, record in forward_maps.items():
    print(kernel_map.drawn(arg, record, "store" if record["stores"].any() else "load"))
print("\n" + kernel_map.programs_side_by_side(("out_ptr: stored by", forward_maps["out_ptr"]["store_programs"]),
                                             ("gate_ptr: loaded by", forward_maps["gate_ptr"]["load_programs"])))
assert (forward_maps["value_ptr"]["load_programs"] == forward_maps["gate_ptr"]["load_programs"]).all()

# %%
# NBVAL_IGNORE_OUTPUT
# Yours, beside the course's: this output changes as you write the kernel, so nbval does not compare it.
mine = yours("triton_swiglu", "swiglu_kernels", forward_maps, **forward_inputs)
for arg, record in mine.items():
    print(kernel_map.drawn(arg, record, "store" if record["stores"].any() else "load"))

# %% [markdown]
# ### 1.1 What the fusion saves
#
# Why write this kernel at all, when `F.silu(gate) * value` is one line? Eagerly, PyTorch runs it as two
# kernels, and each goes through memory: `silu` reads gate and writes its result, `mul` reads that result
# and value and writes out. Counted as Triton's fused-softmax tutorial counts it (each kernel reads its
# inputs once and writes its output once, the least it can do), that is 5 reads and writes per element,
# against the fused kernel's 3, which the maps above count: each element of gate and value read once, of
# out written once. An operation that does a few FLOPs per element runs at the speed of its memory
# traffic, so the fused kernel can be up to 5/3 as fast. The cell counts the eager traffic by recording
# the bytes each of PyTorch's kernels reads and writes (on the `meta` device: shapes, no numbers, no
# memory), at the size of a LLaMA-7B gated block on a batch of 4,096 tokens in bfloat16, and the fused
# kernel's from the maps.

# %%
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_leaves  # noqa: E402


class Traffic(TorchDispatchMode):
    """Each PyTorch kernel run inside it: its name and the bytes of its inputs and outputs."""

    def __init__(self):
        super().__init__()
        self.kernels = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        tensors = [t for t in tree_leaves((args, kwargs, out)) if isinstance(t, torch.Tensor)]
        self.kernels.append((str(func.overloadpacket.__name__), sum(t.numel() * t.element_size() for t in tensors)))
        return out


TOKENS, INTERMEDIATE, DTYPE = 4096, 11008, torch.bfloat16  # LLaMA-7B's gated width, a batch of 4,096 tokens
n = TOKENS * INTERMEDIATE
gate_meta, value_meta = (torch.empty(TOKENS, INTERMEDIATE, dtype=DTYPE, device="meta") for _ in range(2))
with Traffic() as eager:
    torch.nn.functional.silu(gate_meta) * value_meta
eager_bytes = sum(moved for _, moved in eager.kernels)
per_element = sum(int(forward_maps[arg][what].sum()) for arg in forward_maps for what in ("loads", "stores"))
per_element /= forward_maps["out_ptr"]["stores"].numel()  # reads and writes per element of out, from the maps
fused_bytes = per_element * n * DTYPE.itemsize
size = DTYPE.itemsize
print(f"n = {TOKENS} x {INTERMEDIATE} = {n:,} elements of {str(DTYPE).removeprefix('torch.')}, {size} bytes each")
for name, moved in eager.kernels:
    print(f"  eager {name:5} {moved / 1e6:7.1f} MB  ({moved // (n * size)} n reads and writes)")
print(f"eager, {len(eager.kernels)} kernels: {eager_bytes / 1e6:7.1f} MB = {eager_bytes // (n * size)} n x {size} bytes")
print(f"fused, 1 kernel:  {fused_bytes / 1e6:7.1f} MB = {per_element:g} n x {size} bytes (the maps: gate, value"
      f" read once, out written once)")
print(f"the fusion saves {(eager_bytes - fused_bytes) / 1e6:.1f} MB per call, {1 - fused_bytes / eager_bytes:.0%}"
      " of the traffic")
assert [name for name, _ in eager.kernels] == ["silu", "mul"]
assert eager_bytes == 5 * n * size and per_element == 3

# %% [markdown]
# ## 2. The same kernel, launched with a grid that rounds down
#
# Rows of 1,100 columns (the halves of `h.chunk(2, dim=-1)` again, so the launch code keeps the rows)
# take blocks of 1,024: two programs per row, the second masked after 76 columns. Here the launch code
# is changed to start `n_cols // BLOCK_SIZE` programs per row instead of `triton.cdiv(n_cols,
# BLOCK_SIZE)`: 6 programs for 12 blocks. The kernel itself is right, and it numbers blocks row by row
# (program 2 * row + block), so the programs that exist cover the first three rows whole and nobody
# writes the last three: not the last block of each row, as one might guess. The map shows what
# happened. `test_kernels_launched` catches the same mistake on other inputs: its long rows are
# contiguous, which the launch code flattens into one long row, so there only the tail of the last row
# is left unwritten (and rows shorter than a block get no program at all); its map shows that.

# %%
def rounds_down(module) -> None:
    """The module's launch code, changed to start n_cols // BLOCK_SIZE programs per row."""
    right_launch = module._launch_config

    def launch(n_rows: int, n_cols: int):
        (_,), block_size, num_warps = right_launch(n_rows, n_cols)
        return (n_rows * (n_cols // block_size),), block_size, num_warps

    module._launch_config = launch


rounding_inputs = dict(op="forward", gate=torch.randn(6, 1100, generator=generator),
                       value=torch.randn(6, 1100, generator=generator), layout="chunk")
rounded = course("rounds_down", "triton_swiglu", "swiglu_kernels", ("out_ptr",), patch=rounds_down, **rounding_inputs)
print("the course's kernel, launched with a grid that rounds down:")
print("out_ptr: " + kernel_map.text_map(rounded["out_ptr"]["stores"], "wrote"))
assert rounded["out_ptr"]["stores"][:3].eq(1).all() and not rounded["out_ptr"]["stores"][3:].any()

# %%
# NBVAL_IGNORE_OUTPUT
mine = yours("triton_swiglu", "swiglu_kernels", rounded, patch=rounds_down, **rounding_inputs)
if "out_ptr" in mine:
    print("out_ptr: " + kernel_map.text_map(mine["out_ptr"]["stores"], "wrote"))

# %% [markdown]
# ## 3. Tiles: a 2-d grid, before the gated kernel
#
# The gated kernel of section 4 covers its output in *tiles*, blocks of rows by columns, on a 2-d grid.
# First the idea on its own, with the row-scaling kernel of section 0 made 2-d (`scale_tiles_kernel` in
# `notebooks/first_kernel.py`, printed below): x of 10 x 13, tiles of 4 x 8, so a grid of
# `cdiv(10, 4) x cdiv(13, 8)` = 3 x 2 programs. Program (`tile_row`, `tile_col`) builds its rows and its
# columns, and `rows[:, None]`, `cols[None, :]` broadcast them to a 4 x 8 block of offsets; the mask is the
# same broadcast, so the tiles of the last row and column, which hang over x's edge, switch their extra
# lanes off. The program map numbers each tile `tile_row + tile_col * 3` (`tl.program_id(0) +
# tl.program_id(1) * grid[0]`): down the first column of tiles 0, 1, 2, then 3, 4, 5.

# %%
if HAS_TRITON:
    print(inspect.getsource(first.scale_tiles_kernel.fn))
    tile_maps = scaled_and_watched("scale_tiles_kernel", first.scale_tiles,
                                   torch.randn(10, 13, generator=torch.Generator().manual_seed(0)))
    print(kernel_map.drawn("out_ptr", tile_maps["out_ptr"], "store"))
    print("\n" + kernel_map.programs_side_by_side(("out_ptr: stored by", tile_maps["out_ptr"]["store_programs"]),
                                                 ("x_ptr: loaded by", tile_maps["x_ptr"]["load_programs"])))
    programs = tile_maps["out_ptr"]["store_programs"]
    assert (tile_maps["out_ptr"]["stores"] == 1).all() and programs.unique().tolist() == list(range(6))
    assert programs[0, 0] == 0 and programs[4, 0] == 1 and programs[8, 0] == 2 and programs[0, 8] == 3

# %% [markdown]
# ## 4. The gated projection kernel, tile by tile
#
# `gated_projection(x, Wg, Wv, bg, bv)` with x of 37 tokens by 45 features and 29 outputs. The launch
# code starts a grid of tiles, `cdiv(M, BLOCK_M) x cdiv(N, BLOCK_N)`, and each program sums over K in
# steps of `BLOCK_K`. Now elements are loaded several times, rightly: a row of x by every tile of its
# rows (one per block of outputs), a row of Wg and Wv by every tile of their columns. Their maps would be
# `2` from end to end, so the cell counts instead: each element of x read as many times as out has
# columns of tiles, each element of Wg, Wv and of both biases as many times as out has rows of tiles (all
# read from the program map of out). What must hold is that every element of out is stored once, each
# tile by one program, and that nothing is left unread. The maps of out draw 2 rows per character (its
# header says so), so its tiles of 16 rows show as 8 lines.

# %%
GATED_INPUTS = ("x_ptr", "gate_weight_ptr", "value_weight_ptr", "gate_bias_ptr", "value_bias_ptr")
x = torch.randn(37, 45, generator=generator)
weights = {name: torch.randn(29, 45, generator=generator) * 0.1 for name in ("gate_weight", "value_weight")}
biases = {name: torch.randn(29, generator=generator) for name in ("gate_bias", "value_bias")}
gated_inputs = dict(x=x, **weights, **biases, activation="silu")
gated = course("gated_projection", "triton_gated_mlp", "gated_projection_run", ("out_ptr", *GATED_INPUTS),
               **gated_inputs)


def tile_counts(maps: dict) -> None:
    print("out_ptr: " + kernel_map.text_map(maps["out_ptr"]["stores"], "wrote"))
    programs = maps["out_ptr"]["store_programs"]
    tile_columns, tile_rows = len(set(programs[0].tolist())), len(set(programs[:, 0].tolist()))
    for arg, tiles, along in zip(GATED_INPUTS, (tile_columns, *[tile_rows] * 4), ("columns", *["rows"] * 4)):
        reads = set(maps[arg]["loads"].flatten().tolist())
        print(f"\n{arg}: every element read {sorted(reads)} time(s); out has {tiles} {along} of tiles")
        assert reads == {tiles}
    print(f"\nout_ptr: which program stored each element; {kernel_map.PROGRAM_LEGEND}:")
    print("\n".join(kernel_map.program_map(programs)))


print("the course's kernel:")
tile_counts(gated)

# %%
# NBVAL_IGNORE_OUTPUT
mine = yours("triton_gated_mlp", "gated_projection_run", gated, **gated_inputs)
if "out_ptr" in mine:
    try:
        tile_counts(mine)
    except (AssertionError, KeyError) as error:  # a map, but not the course's counts: say so and run on
        print(f"yours reads other counts than the course's: {error!r}")

# %% [markdown]
# ## 5. The backward kernel, with grad_out one row broadcast over the others
#
# A loss such as `(out.sum(dim=0) * v).sum()` hands the backward a `grad_out` whose rows are all one
# row: `v.expand(5, 37)`, row stride 0. Its memory is that one row, and the map draws the memory, one
# character per address: every program reads the same 37 elements, so each is read more than once (`2`):
# 5 times, one per program, as the cell checks. A kernel that addresses grad_out with another tensor's row
# stride would read row 0 once,
# then past its end (`!` under the map).

# %%
grad_out_row = torch.randn(37, generator=generator).expand(5, 37)
# As in section 1, the probe gets plain numbers and the layout's name: "broadcast_row" makes grad_out
# the expanded view (row stride 0) again where the kernel runs.
backward_inputs = dict(op="backward", gate=torch.randn(5, 37, generator=generator),
                       value=torch.randn(5, 37, generator=generator), grad_out=grad_out_row.contiguous(),
                       grad_out_layout="broadcast_row")
backward = course("swiglu_backward", "triton_swiglu", "swiglu_kernels", ("grad_out_ptr",), **backward_inputs)
print("the course's kernel:")
print(kernel_map.drawn("grad_out_ptr", backward["grad_out_ptr"], "load"))
reads = sorted(set(backward["grad_out_ptr"]["loads"].flatten().tolist()))
print(f"times each element was read: {reads}")
assert reads == [5]

# %%
# NBVAL_IGNORE_OUTPUT
mine = yours("triton_swiglu", "swiglu_kernels", backward, **backward_inputs)
if "grad_out_ptr" in mine:
    print(kernel_map.drawn("grad_out_ptr", mine["grad_out_ptr"], "load"))

# %% [markdown]
# ## Reading a failing test's map
#
# * `.` where a `#` should be: elements nobody wrote. A whole band of rows or columns: the grid
#   rounds down, or the K loop stops before the remainder. A few at the end of every row: the last
#   block of a row is not stored.
# * `2` in an output: two programs wrote the same element (overlapping blocks, a missing mask that
#   spills into the next row).
# * An output all `.`: the kernel never stored into it. The line under the map says where its stores
#   went instead: into an input, a second time into another output, or nowhere at all.
# * `.` in an input: the kernel never read those elements; rows read at the wrong stride leave rows or
#   parts of rows unread: the last rows and part of the one before (section 0), every other row, or the second
#   half.
# * `!` before or after the map: an access outside the tensor, stopped before it happened. After the
#   map: a missing mask (the last block runs past the end). Before it: an offset below zero.
# * Two program maps side by side that differ: an element stored by another program than the one
#   that loaded its inputs. For the gated kernel, rows of x read by the programs of other tiles (x's
#   strides ignored: the bands of x run across where out's run along).
