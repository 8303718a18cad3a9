"""First Triton kernels, for notebooks/kernel_maps.ipynb, each small enough to read beside its maps: one
program per row of x, each scaling its row into out; then the same on a 2-d grid, one program per tile."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, scale, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)  # which program this is; the launch starts one per row
    cols = tl.arange(0, BLOCK_SIZE)  # the block's lanes, 0 .. BLOCK_SIZE - 1, all handled at once
    mask = cols < n_cols  # lanes past the row's end must neither load nor store
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask)  # row `row` starts x_row_stride elements on
    tl.store(out_ptr + row * out_row_stride + cols, x * scale, mask=mask)


def scale_rows(x: torch.Tensor, scale: float) -> torch.Tensor:
    """x * scale for a 2-d x whose rows may be strided (each row's elements consecutive)."""
    if x.dim() != 2 or x.stride(1) != 1:
        raise ValueError(f"x must be 2-d with consecutive elements in each row, got strides {x.stride()}")
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    grid = (n_rows,)  # how many programs the launch starts
    scale_rows_kernel[grid](x, out, n_cols, x.stride(0), out.stride(0), scale,
                            BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return out


@triton.jit
def scale_tiles_kernel(x_ptr, out_ptr, n_rows, n_cols, x_row_stride, out_row_stride, scale,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tile_row, tile_col = tl.program_id(0), tl.program_id(1)  # a 2-d grid: one program per tile
    rows = tile_row * BLOCK_M + tl.arange(0, BLOCK_M)  # the tile's rows ...
    cols = tile_col * BLOCK_N + tl.arange(0, BLOCK_N)  # ... and columns
    # rows[:, None] and cols[None, :] broadcast to a BLOCK_M x BLOCK_N block of offsets and of mask lanes
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * x_row_stride + cols[None, :], mask=mask)
    tl.store(out_ptr + rows[:, None] * out_row_stride + cols[None, :], x * scale, mask=mask)


def scale_tiles(x: torch.Tensor, scale: float, block_m: int = 4, block_n: int = 8) -> torch.Tensor:
    """x * scale, one program per block_m x block_n tile of x (the last tiles masked where x ends)."""
    if x.dim() != 2 or x.stride(1) != 1:
        raise ValueError(f"x must be 2-d with consecutive elements in each row, got strides {x.stride()}")
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, block_m), triton.cdiv(n_cols, block_n))  # tiles down, tiles across
    scale_tiles_kernel[grid](x, out, n_rows, n_cols, x.stride(0), out.stride(0), scale,
                             BLOCK_M=block_m, BLOCK_N=block_n)
    return out
