"""The kernel maps in the failure messages of the Triton suites, for variants whose mistake is an address:
each map points at the mistake (the record and its drawing alone: ``test_kernel_map.py``). Every check
here grades a variant (``selfcheck/variants/``) on the few tests it names and reads their messages."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from grader.kernels import maps as kernel_map
from grader.paths import KERNEL_MAPS_ENV, REPO, reference_file
from selfcheck.harness import VARIANTS, materialize, run_variant
from selfcheck.variant_checks import FAST

pytestmark = [pytest.mark.swiglu, pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks


def drawn_map(detail: str, title: str) -> list[str]:
    """The lines of the map whose header starts with ``title``, up to the next non-map line."""
    start = detail.index(title)
    found = []
    for line in detail[start:].splitlines()[1:]:
        if not re.fullmatch(r"[#.2:!* 0-9a-zA-Z]+( <- (before the start|past the end))?", line):
            break
        found.append(line)
    return found


# --------------------------------------------------------------- variants whose mistake is an address

def outcomes_of(suite: str, folder: str, variant: str, tests: list[str], **options) -> dict:
    pytest.importorskip("triton", reason="Triton is not installed (Linux only)")
    _, outcomes = run_variant(suite, folder, VARIANTS / folder / f"{variant}.py", only=tests, **{**FAST, **options})
    return {test: outcomes[test].detail for test in tests}


def test_a_missing_mask_shows_the_block_running_past_the_end():
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "missing_mask",
                          ["test_memory_stays_in_bounds[forward]"])
    drawn = drawn_map(details["test_memory_stays_in_bounds[forward]"], "gate_ptr: what the kernel read, 1 row x 1000")
    # One block of 1024 from element 0: all 1000 elements read (the lanes outside are left out, the load
    # runs), 24 elements past the end. 17 elements a character: 59 characters.
    assert drawn[0] == "#" * 59 and drawn[1] == "!!" + " " * 57 + " <- past the end", drawn


def test_a_store_one_column_left_shows_the_attempt_before_the_start():
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "store_offset_before_out",
                          ["test_forward_float32[2d]"])
    # out as the test made it, 37 x 129 (not one row of 4773): the store before the start is at the end of
    # the row before the first, where column -1 would be.
    drawn = drawn_map(details["test_forward_float32[2d]"], "out_ptr: what the kernel wrote, 37 rows x 129 columns")
    assert drawn[0].endswith("! <- before the start") and set(drawn[0][:-len("! <- before the start")]) == {" "}


def test_rows_read_at_the_wrong_stride_show_which_rows_were_never_read():
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "contiguity_assumed",
                          ["test_forward_noncontiguous[chunk]"])
    detail = details["test_forward_noncontiguous[chunk]"]
    assert "the kernel never loaded 495 of 1080 elements of gate_ptr" in detail
    drawn = drawn_map(detail, "what the kernel read, 24 rows x 45 columns")
    # Rows are read at row * n_cols instead of row * 2 * n_cols (gate's from gate's start, value's from
    # 45 elements further): only gate's rows 0 to 12 are ever loaded, the last 11 never.
    assert all("." not in line for line in drawn[:13]) and drawn[13:] == ["." * 45] * 11, drawn


def test_a_k_loop_that_stops_short_shows_the_columns_of_x_never_read():
    details = outcomes_of("test_triton_gated_mlp.py", "triton_gated_mlp", "k_loop_drops_remainder",
                          ["test_forward_float32[silu]"])
    drawn = drawn_map(details["test_forward_float32[silu]"], "what the kernel read, 37 rows x 45 columns")
    # K = 45 in tiles of 32: the remainder's 13 columns are never loaded, in every row.
    assert drawn and all(re.fullmatch(r"[^.]{32}\.{13}", line) for line in drawn), drawn


def test_a_k_mask_left_out_shows_the_load_past_the_end_of_x():
    details = outcomes_of("test_triton_gated_mlp.py", "triton_gated_mlp", "k_mask_missing",
                          ["test_forward_float32[silu]"])  # the tests after it wait on it, told without its map
    drawn = drawn_map(details["test_forward_float32[silu]"], "x_ptr: what the kernel read, 37 rows x 45 columns")
    assert drawn[-1] == "!!!" + " " * 42 + " <- past the end", drawn


def test_a_grid_that_rounds_down_is_shown_as_the_rows_it_skipped():
    details = outcomes_of("test_triton_gated_mlp_launch.py", "triton_gated_mlp", "grid_rounds_down",
                          ["test_kernel_does_the_work"])  # the grid is the launch code's (TODO 2)
    drawn = drawn_map(details["test_kernel_does_the_work"], "what the kernel wrote, 37 rows x 29 columns")
    # 37 rows drawn two to a line: rows 0-31 (two whole tiles of 16) written, rows 32-36 never.
    assert drawn[:16] == ["#" * 29] * 16 and drawn[16:19] == ["." * 29] * 3, drawn


def test_a_failing_kernel_test_saves_a_picture_of_every_tensor():
    """And a run first removes the pictures of the tests it runs: one that passes now leaves none."""
    pytest.importorskip("matplotlib", reason="the pictures need matplotlib")
    from grader.kernels.pictures import picture_path

    failing, passing = "test_forward_noncontiguous[chunk]", "test_forward_float32[2d]"
    earlier = {test: picture_path(f"tests/test_triton_swiglu.py::{test}") for test in (failing, passing)}
    for path in earlier.values():
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"an earlier run's picture")
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "contiguity_assumed", [failing, passing],
                          pictures=True)
    assert details[passing] == "" and not earlier[passing].exists()
    shown = re.search(r"\(picture: (\S+\.png)\)", details[failing])
    assert shown, details
    picture = REPO / shown.group(1)
    assert picture == earlier[failing]
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    pixels = matplotlib.image.imread(picture)[..., :3]
    # Three panels (gate, value, out), coloured by program: many distinct colours, white where never read.
    assert len(np.unique(pixels.reshape(-1, 3).round(2), axis=0)) > 20


def test_grad_out_read_at_gates_stride_shows_every_other_row_and_the_overrun():
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "grad_out_indexed_with_gate_stride",
                          ["test_backward_noncontiguous[chunk]", "test_backward_noncontiguous[grad_out_broadcast_row]"])
    drawn = drawn_map(details["test_backward_noncontiguous[chunk]"], "grad_out_ptr: what the kernel read, 24 rows")
    # gate's rows are twice as far apart as grad_out's: programs 0-11 read rows 0, 2, ..., 22; program 12 runs past.
    assert drawn[:24] == ["#" * 45, "." * 45] * 12 and drawn[24] == "!" * 45 + " <- past the end", drawn
    # A broadcast grad_out (5 x 7 rows of one row of 9, row stride 0) is 9 elements of memory: program 0 read
    # them, program 1 read the 9 after them, past the end.
    drawn = drawn_map(details["test_backward_noncontiguous[grad_out_broadcast_row]"],
                      "grad_out_ptr: what the kernel read, 1 row x 9 columns, per address: a broadcast view")
    assert drawn == ["#" * 9, "!" * 9 + " <- past the end"], drawn


def test_a_kernel_that_stores_nothing_shows_its_outputs_never_written():
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "kernels_write_nothing",
                          ["test_forward_float32[2d]", "test_backward_float32[3d]"])
    detail = details["test_forward_float32[2d]"]
    drawn = drawn_map(detail, "out_ptr: what the kernel wrote, 37 rows x 129 columns (one character: 2 x 3 elements)")
    assert drawn == ["." * 43] * 19 and "the kernel stored nothing at all, into none of the 3 tensors" in detail, drawn
    detail = details["test_backward_float32[3d]"]  # 3 x 17 x 65: 51 rows of 65
    assert drawn_map(detail, "grad_gate_ptr: what the kernel wrote, 51 rows x 65 columns") == ["." * 33] * 17


def test_a_gradient_stored_through_the_other_output_shows_where_it_went():
    detail = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "backward_stores_gate_gradient_into_value",
                         ["test_backward_float32[2d]"])["test_backward_float32[2d]"]
    assert drawn_map(detail, "grad_gate_ptr: what the kernel wrote, 37 rows x 129") == ["." * 43] * 19, detail
    assert "the kernel stored into grad_value_ptr more than once at 4773 of 4773 elements" in detail


def test_a_gradient_stored_into_an_input_shows_the_input_written():
    detail = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "backward_stores_into_gate",
                         ["test_backward_float32[2d]"])["test_backward_float32[2d]"]
    assert drawn_map(detail, "grad_gate_ptr: what the kernel wrote, 37 rows x 129") == ["." * 43] * 19, detail
    assert "the kernel stored into gate_ptr, an input, at 4773 of 4773 elements" in detail


def probe_variant(folder, exercise: str, variant: str, probe: str, **arguments) -> dict:
    """What ``probe`` reports for ``variant`` of ``exercise`` (or the reference), run in a child process as
    the suites run it."""
    pytest.importorskip("triton", reason="Triton is not installed (Linux only)")
    from grader.judge.seam import make_backend

    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{exercise}.py").write_text(reference_file(exercise).read_text() if variant == "reference"
                                           else materialize(VARIANTS / exercise / f"{variant}.py", exercise))
    backend = make_backend(str(folder))
    try:
        return backend.call(exercise, probe, **arguments)
    finally:
        backend.backend_for(exercise).close()


@pytest.fixture
def no_pictures(monkeypatch):
    monkeypatch.setenv(KERNEL_MAPS_ENV, "0")  # maps drawn here, in this process: no picture


def test_a_backward_handed_its_inputs_as_outputs_shows_the_inputs_written(tmp_path, no_pictures):
    """The launch code of backward_in_place allocates grad_gate as gate itself: what the probe records
    says so, for a test that fails because the inputs changed (``inputs_stored``)."""
    data = torch.Generator().manual_seed(0)
    gate, value, grad_out = (torch.randn(4, 6, 45, generator=data) for _ in range(3))
    evidence = probe_variant(tmp_path, "triton_swiglu", "backward_in_place", "swiglu_kernels", op="backward",
                             gate=gate, value=value, grad_out=grad_out)
    assert evidence["inputs_changed"] == ["gate", "value"], evidence.get("error")
    drawn = kernel_map.inputs_stored(evidence["maps"], ["grad_out_ptr", "gate_ptr", "value_ptr"])
    assert drawn.startswith("; the kernel stored into gate_ptr at 1080 of 1080 elements (grad_gate_ptr is the"
                            " memory of gate_ptr: the output was allocated as the input itself):"), drawn
    assert drawn_map(drawn, "gate_ptr: what the kernel wrote, 24 rows x 45 columns") == ["#" * 45] * 24, drawn


def projection_maps(tmp_path, variant: str, layout: str) -> dict:
    """The record of the gated projection kernel of ``variant`` (or the reference) on a 37 x 45 x in
    ``layout``."""
    data = torch.Generator().manual_seed(0)
    case = {"x": torch.randn(37, 45, generator=data), "gate_weight": torch.randn(29, 45, generator=data),
            "value_weight": torch.randn(29, 45, generator=data)}
    evidence = probe_variant(tmp_path / f"{variant}-{layout}", "triton_gated_mlp", variant, "gated_projection_run",
                             **case, layout=layout)
    assert {"x_ptr", "out_ptr"} <= set(evidence.get("maps", {})), evidence.get("error")
    return evidence["maps"]


def test_a_tiled_kernel_reading_x_with_the_wrong_strides_shows_which_programs_read_it(tmp_path, no_pictures):
    """x transposed, read as if contiguous: every element is read (a permutation), every output written
    once, but the rows of x are read by the programs of other rows' tiles: both program maps."""
    inputs = ["x_ptr", "gate_weight_ptr", "value_weight_ptr"]
    drawn = kernel_map.explain(projection_maps(tmp_path, "x_read_as_contiguous", "transposed"), "out_ptr", inputs)
    assert re.match(r"; \d+ of 1665 elements of x_ptr were loaded, first and last, by programs that stored nothing"
                    r" in their row of out_ptr", drawn), drawn
    side = drawn.splitlines()[2:]
    assert side[0].split() == ["out_ptr:", "stored", "by", "x_ptr:", "loaded", "by"] and len(side) == 1 + 19, drawn
    # Tiles of 16 rows: out's rows 0-15 by programs 0 and 3 (two tiles of columns); x's by others too.
    assert set(side[1].split()[0]) == {"0", "3"} and set(side[1].split()[1]) - {"0", "3"}, drawn


@pytest.mark.parametrize("variant", ["reference", "correct_split_k_in_program", "correct_pointer_advancing_loop"])
def test_a_right_tiled_kernel_draws_nothing(tmp_path, no_pictures, variant):
    """The check of which program read which row must not charge a right kernel, however it tiles."""
    for layout in ("transposed", "contiguous"):
        maps = projection_maps(tmp_path, variant, layout)
        assert kernel_map.explain(maps, "out_ptr", ["x_ptr", "gate_weight_ptr", "value_weight_ptr"]) == "", layout


def test_the_autograd_probe_sends_both_kernels_maps(tmp_path, no_pictures):
    """swiglu(...).backward() through launch code whose grid rounds down: the forward's and the backward's
    maps both come back (``forward_maps``, ``backward_maps``), the elements nobody wrote drawn in each."""
    data = torch.Generator().manual_seed(0)
    gate, value, grad_out = (torch.randn(3, 5, 1100, generator=data) for _ in range(3))
    evidence = probe_variant(tmp_path, "triton_swiglu", "grid_rounds_down", "swiglu_autograd", gate=gate,
                             value=value, grad_out=grad_out)
    for maps, output, inputs in ((evidence["forward_maps"], "out_ptr", ["gate_ptr", "value_ptr"]),
                                 (evidence["backward_maps"], "grad_gate_ptr", ["grad_out_ptr", "gate_ptr", "value_ptr"])):
        drawn = kernel_map.explain(maps, output, inputs, elementwise=True)
        lines = drawn_map(drawn, f"{output}: what the kernel wrote, 15 rows x 1100 columns (one character: 1 x 19")
        # Contiguous: the launch code hands the kernel one row of 16500, 16 whole blocks of 1024 and 116
        # elements no program of 16500 // 1024 has, at the end of the last row (drawn as the test made it).
        assert lines[:14] == ["#" * 58] * 14 and re.fullmatch(r"#{51}:\.{6}", lines[14]), drawn
