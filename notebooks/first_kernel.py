"""A first Triton kernel, for notebooks/kernel_maps.ipynb: one program per row of x, each scaling its row
into out. Small enough to read beside its maps."""

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
