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
# A program map says instead which program touched each element: `0`-`9`, `a`-`z`, `A`-`Z` for
# programs 0 to 61, numbered `tl.program_id(0) + tl.program_id(1) * grid[0]`.
#
# **Which kernels** run is decided by `notebooks/exercise_code.py`: the reference where the instructor's
# `solution/` is present, otherwise **yours** from `exercises/triton_swiglu.py` and
# `exercises/triton_gated_mlp.py`. The outputs stored in this notebook were drawn from the course's own,
# right kernels, so you can read them before you write a line: run the notebook again once a TODO is
# done and the maps are drawn from yours (while it is not, its section says which and moves on, and
# the stored maps are replaced by that line).

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
from notebooks import exercise_code  # noqa: E402  which kernels: the reference, or yours

# Not imported here: load_module switches Triton's interpreter on (without a GPU) before the first import.
HAS_TRITON = importlib.util.find_spec("triton") is not None  # Linux only
if not HAS_TRITON:
    print("Triton is not installed here (it is Linux only): the maps below cannot be drawn on this machine.")


def run(exercise: str, probe: str, **arguments) -> dict:
    """The maps of what the kernel did when ``probe`` ran it on ``arguments`` (empty if it could not run)."""
    if not HAS_TRITON:
        return {}
    path = exercise_code.locate(exercise)
    module = load_module(str(path), f"notebook_{exercise}")  # switches the interpreter on, watches every launch
    evidence = call(module, exercise, probe, **arguments)
    if "error" in evidence:
        error = evidence["error"]
        print(f"Not run yet: {error['stage']} says {error['message']}\n-> Come back once that TODO is done.")
        return {}
    whose = "the course's own" if path == reference_file(exercise) else "yours, " + str(path.relative_to(REPO))
    print(f"the kernel: {whose}")
    return kernel_map.accept(evidence["maps"])


# %% [markdown]
# ## 1. The SwiGLU forward kernel, row by row
#
# `swiglu_forward(gate, value)` on 5 rows of 37 columns, with gate and value the two halves of
# `h.chunk(2, dim=-1)`: each row of gate and of value is 74 elements after the one before it, not 37.
# The launch code hands the kernel one program per block of a row; a block of 64 covers a row of 37,
# so here that is one program per row. A right kernel loads every element of gate and value once and
# stores every element of out once, and the program that stores an element of out is the one that
# loaded gate and value there.

# %%
generator = torch.Generator().manual_seed(0)
h = torch.randn(5, 74, generator=generator)
maps = run("triton_swiglu", "swiglu_kernels", op="forward", gate=h[:, :37].contiguous(),
           value=h[:, 37:].contiguous(), layout="chunk")
for arg, record in maps.items():
    print(kernel_map.drawn(arg, record, "store" if record["stores"].any() else "load"))
if maps:
    print("\n" + kernel_map.programs_side_by_side(("out_ptr: stored by", maps["out_ptr"]["store_programs"]),
                                                 ("gate_ptr: loaded by", maps["gate_ptr"]["load_programs"])))

# %% [markdown]
# ## 2. The same kernel, launched with a grid that rounds down
#
# Rows of 1,100 columns (the halves of `h.chunk(2, dim=-1)` again, so the launch code keeps the rows)
# take blocks of 1,024: two programs per row, the second masked after 76 columns. Here the launch code
# is changed to start `n_cols // BLOCK_SIZE` programs per row instead of `triton.cdiv(n_cols,
# BLOCK_SIZE)`: 6 programs for 12 blocks. The kernel itself is right, and it numbers blocks row by row
# (program 2 * row + block), so the programs that exist cover the first three rows whole and nobody
# writes the last three: not the last block of each row, as one might guess. The map shows what
# happened. This is the picture `test_kernels_launched` shows for that mistake (`test_autograd_gradients`
# says it in words).

# %%
if HAS_TRITON:
    swiglu_module = load_module(str(exercise_code.locate("triton_swiglu")), "notebook_triton_swiglu")
    right_launch = swiglu_module._launch_config

    def rounds_down(n_rows: int, n_cols: int):
        (_,), block_size, num_warps = right_launch(n_rows, n_cols)
        return (n_rows * (n_cols // block_size),), block_size, num_warps

    swiglu_module._launch_config = rounds_down
    evidence = call(swiglu_module, "triton_swiglu", "swiglu_kernels", op="forward",
                    gate=torch.randn(6, 1100, generator=generator), value=torch.randn(6, 1100, generator=generator),
                    layout="chunk")
    wrong = kernel_map.accept(evidence.get("maps"))
    if "out_ptr" in wrong:
        print("out_ptr: " + kernel_map.text_map(wrong["out_ptr"]["stores"], "wrote"))
    else:
        print(f"Not run yet: {evidence.get('error', {}).get('message', 'no map')}")

# %% [markdown]
# ## 3. The gated projection kernel, tile by tile
#
# `gated_projection(x, Wg, Wv, bg, bv)` with x of 37 tokens by 45 features and 29 outputs. The launch
# code starts a grid of tiles, `cdiv(M, BLOCK_M) x cdiv(N, BLOCK_N)`, and each program sums over K in
# steps of `BLOCK_K`. Now elements are loaded several times, rightly: a row of x by every tile of its
# rows (one per block of outputs), a row of Wg and Wv by every tile of their columns. What must hold
# is that every element of out is stored once, each tile by one program, and that nothing is left
# unread.

# %%
x = torch.randn(37, 45, generator=generator)
weights = {name: torch.randn(29, 45, generator=generator) * 0.1 for name in ("gate_weight", "value_weight")}
biases = {name: torch.randn(29, generator=generator) for name in ("gate_bias", "value_bias")}
maps = run("triton_gated_mlp", "gated_projection_run", x=x, **weights, **biases, activation="silu")
for arg in ("x_ptr", "gate_weight_ptr", "out_ptr"):
    if arg in maps:
        access, verb = ("stores", "wrote") if arg == "out_ptr" else ("loads", "read")
        print(f"\n{arg}: " + kernel_map.text_map(maps[arg][access], verb))
if "out_ptr" in maps:
    print(f"\nout_ptr: which program stored each element; {kernel_map.PROGRAM_LEGEND}:")
    print("\n".join(kernel_map.program_map(maps["out_ptr"]["store_programs"])))

# %% [markdown]
# ## 4. The backward kernel, with grad_out one row broadcast over the others
#
# A loss such as `(out.sum(dim=0) * v).sum()` hands the backward a `grad_out` whose rows are all one
# row: `v.expand(5, 37)`, row stride 0. Its memory is that one row, and the map draws the memory, one
# character per address: every program reads the same 37 elements, so each is read 5 times (`2`), as it
# should be. A kernel that addresses grad_out with another tensor's row stride would read row 0 once,
# then past its end (`!` under the map).

# %%
grad_out_row = torch.randn(37, generator=generator).expand(5, 37)
maps = run("triton_swiglu", "swiglu_kernels", op="backward", gate=torch.randn(5, 37, generator=generator),
           value=torch.randn(5, 37, generator=generator), grad_out=grad_out_row.contiguous(),
           grad_out_layout="broadcast_row")
if "grad_out_ptr" in maps:
    print(kernel_map.drawn("grad_out_ptr", maps["grad_out_ptr"], "load"))

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
# * `.` in an input: the kernel never read those elements; rows read at the wrong stride leave every
#   other row (or the second half) unread.
# * `!` before or after the map: an access outside the tensor, stopped before it happened. After the
#   map: a missing mask (the last block runs past the end). Before it: an offset below zero.
# * Two program maps side by side that differ: an element stored by another program than the one
#   that loaded its inputs. For the gated kernel, rows of x read by the programs of other tiles (x's
#   strides ignored: the bands of x run across where out's run along).
