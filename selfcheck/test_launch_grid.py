"""The grid the student's process reports for its launch is untrusted input to the kernels' process: only
1-3 positive ints with at most MAX_PROGRAMS programs in all are taken, anything else is ignored (the
launch is then judged on the given launch code's grid alone). What it is used for is checked end to end
by the gated variant ``program_axes_swapped`` (``ONLY_NAMED``): a kernel and launch that agree on another
grid lose the kernel's formula tests and nothing else."""

from __future__ import annotations

import pytest

pytest.importorskip("triton", reason="Triton is not installed (Linux only)")

from grader.judge.gated_launch import launch_grid, MAX_PROGRAMS  # noqa: E402

pytestmark = [pytest.mark.swiglu, pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks


@pytest.mark.parametrize("grid", [[3], [2, 5], (1, 1, 1), [MAX_PROGRAMS], [32, 32]])
def test_a_plain_grid_is_taken(grid):
    assert launch_grid({"grid": grid}) == tuple(grid)


@pytest.mark.parametrize("grid", [None, [], [0], [-1, 4], [2, 2, 2, 2], [MAX_PROGRAMS + 1], [64, 64], [2.0],
                                  [True], ["4"], "44", {"0": 4}, [[2]], [10 ** 30]])
def test_anything_else_is_ignored(grid):
    assert launch_grid({"grid": grid}) is None


def test_no_grid_reported():
    assert launch_grid({}) is None
