"""What a wrong gated projection's output says of its tl.store: rows stored through x's strides, a tile's
columns past N spilled into the next row, every element rounded to 16 bits. Each is told from the output
alone, compared with the right values (``grader/judge/gated_diagnosis.py`` asks, in its order).
"""

from __future__ import annotations

import torch

BLOCK_N = 16  # the given launch's tiles (BLOCK_M too: they are square)
NAMED_RTOL = 1e-4  # a mistake's output matched to float32 precision: the mistakes differ by far more


STORED_PAST_N = "store past column N"  # a tl.store without its N mask, whose spill lands in the next row


def stored_past_n(got: torch.Tensor, want: torch.Tensor, tolerance: float) -> bool:
    """Whether every element of ``got`` (M, N) that is not ``want`` lies in the first columns of a row after the
    first, as many as the last tile's columns past N: what a tl.store without its N mask leaves, where the
    columns n >= N of one row's last tile land at n - N in the next row (out is (M, N), one row after another)."""
    n = got.shape[-1]
    spill = -n % BLOCK_N
    if spill == 0 or got.shape != want.shape or got.shape[0] < 2:
        return False
    off = ~torch.isclose(got, want, rtol=tolerance, atol=tolerance * want.abs().max().item())
    return bool(off.any()) and not off[0].any() and not off[:, spill:].any()


STORED_WITH_X_STRIDES = "out stored with x's strides"  # tl.store's offsets built with stride_xm, stride_xk
STORED_WITH_X_STRIDES_HINT = ("the output is stored through x's strides: each row lands stride_xm elements after the"
                              " last (leaving the rest NaN, never written) instead of out's; build tl.store's offsets"
                              " with stride_om and stride_on, out's own strides")


def stored_with_strides(got: torch.Tensor, want: torch.Tensor, strides: tuple[int, int],
                        tolerance: float = NAMED_RTOL) -> bool:
    """Whether ``got`` (M, N, contiguous) is what storing ``want`` element (m, n) at m * strides[0] + n * strides[1]
    leaves: those inside out's memory written, the rest NaN (fresh memory in these tests), where that differs
    from out's own strides."""
    m, n = want.shape
    if got.shape != want.shape or tuple(strides) == (n, 1):
        return False
    index = (torch.arange(m)[:, None] * strides[0] + torch.arange(n)[None, :] * strides[1]).reshape(-1)
    inside = (index >= 0) & (index < m * n)
    if index[inside].unique().numel() != int(inside.sum()):  # two elements at one address: which one lands is unknown
        return False
    stored = torch.full((m * n,), float("nan"), dtype=torch.float64)
    stored[index[inside]] = want.reshape(-1)[inside]
    return bool(torch.allclose(got.double().reshape(-1), stored, rtol=tolerance, atol=tolerance * want.abs().max().item(),
                               equal_nan=True))


# A 16-bit store on top of another mistake: every element is a 16-bit number, so each named mistake is matched
# to that dtype's rounding (and TF32's, which the same kernels often add) instead of float32's.
ROUNDED_RTOL = {torch.float16: 2.0**-8, torch.bfloat16: 2.0**-6}


def rounded_to_16_bits(got: torch.Tensor, case: dict) -> torch.dtype | None:
    """The 16-bit dtype every element of ``got`` (on float32 or float64 x) is a number of, or None."""
    if case["x"].dtype not in (torch.float32, torch.float64) or not torch.isfinite(got).all() or not got.abs().max() > 0:
        return None
    return next((dtype for dtype in ROUNDED_RTOL if torch.equal(got.to(dtype).double(), got)), None)
