"""The map of what a kernel wrote (``grader/probes/triton_map.py``): drawn right, and shown when a kernel
test fails on where it wrote, pointing at the mistake."""

from __future__ import annotations

import pytest
import torch

from grader.probes.triton_map import HEIGHT, WIDTH, text_map
from selfcheck.harness import VARIANTS, run_variant
from selfcheck.variant_checks import FAST


def lines(counts: torch.Tensor) -> list[str]:
    return text_map(counts).splitlines()[1:]


def test_each_element_is_a_character_until_the_map_is_full():
    counts = torch.ones(5, 7, dtype=torch.int32)
    counts[3:] = 0
    counts[0, 2] = 2
    assert lines(counts) == ["##2####", "#######", "#######", ".......", "......."]
    assert "5 rows x 7 columns;" in text_map(counts)


def test_a_large_tensor_is_drawn_by_blocks_within_the_terminal():
    counts = torch.ones(100, 1000, dtype=torch.int32)
    counts[:, 500:] = 0
    counts[0, 0] = 0  # one element missing makes its block partly written
    drawn = lines(counts)
    assert len(drawn) <= HEIGHT and all(len(line) <= WIDTH for line in drawn)
    assert drawn[0][0] == ":" and set(drawn[1][: len(drawn[1]) // 2]) == {"#"} and drawn[1].endswith(".")
    assert "one character: 5 x 16 elements" in text_map(counts)


def test_a_grid_that_rounds_down_is_shown_as_the_rows_it_skipped():
    pytest.importorskip("triton", reason="Triton is not installed (Linux only)")
    variant = VARIANTS / "triton_gated_mlp" / "grid_rounds_down.py"
    _, outcomes = run_variant("test_triton_gated_mlp.py", "triton_gated_mlp", variant,
                              only=["test_forward_without_bias"], **FAST)
    detail = outcomes["test_forward_without_bias"].detail
    start = detail.index("what the kernel wrote, 37 rows x 29 columns")
    drawn = [line.strip() for line in detail[start:].splitlines()[1:] if line.strip()][:19]
    # 37 rows drawn two to a line: rows 0-31 (two whole tiles of 16) written, rows 32-36 never.
    assert drawn[:16] == ["#" * 29] * 16, drawn
    assert drawn[16:19] == ["." * 29] * 3, drawn
