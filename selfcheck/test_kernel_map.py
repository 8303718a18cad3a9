"""The maps of what a kernel touched (``grader/probes/triton_map.py`` records, ``grader/kernels/maps.py``
draws): recorded right, drawn right within 80 columns, refused when malformed, and shown when a kernel
test fails on where it read or wrote, pointing at the mistake of each variant whose mistake is an address."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from grader.kernels import maps as kernel_map
from grader.kernels.maps import HEIGHT, WIDTH, text_map
from grader.paths import KERNEL_MAPS_ENV, REPO
from grader.probes.triton_map import MemoryMap
from selfcheck.harness import VARIANTS, run_variant
from selfcheck.variant_checks import FAST


def lines(counts: torch.Tensor, **options) -> list[str]:
    return text_map(counts, **options).splitlines()[1:]


def drawn_map(detail: str, title: str) -> list[str]:
    """The lines of the map whose header starts with ``title``, up to the next non-map line."""
    start = detail.index(title)
    found = []
    for line in detail[start:].splitlines()[1:]:
        if not re.fullmatch(r"[#.2:!* 0-9a-zA-Z]+( <- (before the start|past the end))?", line):
            break
        found.append(line)
    return found


# ----------------------------------------------------------------------------------- drawing

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
    assert "one character: 5 x 17 elements" in text_map(counts)


def test_attempts_out_of_bounds_are_drawn_where_the_rows_would_go_on():
    counts = torch.zeros(3, 10, dtype=torch.int32)
    before = lines(counts, outside=torch.tensor([-1]))
    assert before[0] == " " * 9 + "! <- before the start" and before[1:] == ["." * 10] * 3
    after = lines(counts, outside=torch.tensor([30, 31, 32]))
    assert after[-1] == "!!!" + " " * 7 + " <- past the end"
    wide = lines(torch.zeros(4, 5000, dtype=torch.int32), outside=torch.arange(-10, 0))
    assert all(len(line) <= 80 for line in wide) and wide[0].endswith("! <- before the start")
    view = text_map(counts, outside=torch.tensor([40]), contiguous=False)
    assert "1 element(s) tried outside it, not drawn: the tensor is a view" in view


def test_two_program_maps_fit_side_by_side_in_80_columns():
    writer = torch.arange(20).repeat_interleave(200).reshape(20, 200)
    reader = writer.flip(0)
    drawn = kernel_map.programs_side_by_side(("out_ptr: stored by", writer), ("gate_ptr: loaded by", reader))
    rows = drawn.splitlines()[2:]
    assert all(len(line) <= 80 for line in drawn.splitlines()[1:])
    assert "20 rows x 200 columns (one character: 1 x 6 elements)" in drawn.splitlines()[0]  # 200 in 38: 34 wide
    assert len(rows) == 20 and [set(half) for half in rows[0].split()] == [{"0"}, {"j"}]  # program 19 is "j"
    assert [set(half) for half in rows[19].split()] == [{"j"}, {"0"}]


# ------------------------------------------------------------------------------------ recording

def addresses(t: torch.Tensor, index) -> np.ndarray:
    """Byte addresses of ``t[index]``'s elements."""
    offsets = torch.as_strided(torch.arange(t.untyped_storage().nbytes() // t.element_size()), t.shape, t.stride(),
                               t.storage_offset())[index]
    return (t.untyped_storage().data_ptr() + offsets.reshape(-1).numpy() * t.element_size()).astype(np.int64)


def test_the_record_finds_a_views_elements_by_address_and_names_the_program():
    h = torch.zeros(4, 6)
    gate, value = h.chunk(2, dim=-1)
    memory = MemoryMap()
    memory.launched("k", [("gate_ptr", gate), ("value_ptr", value)])
    memory.accessed("k", "load", addresses(gate, (1,)), program=7)  # row 1 of gate
    memory.accessed("k", "load", addresses(value, (slice(None), 0)), program=3)  # column 0 of value
    memory.accessed("k", "load", addresses(value, (slice(None), 0)), program=4)
    record = kernel_map.accept(memory.evidence("k"))
    assert record["gate_ptr"]["loads"].tolist() == [[0, 0, 0], [1, 1, 1], [0, 0, 0], [0, 0, 0]]
    assert record["gate_ptr"]["load_programs"][1].tolist() == [7, 7, 7]
    assert record["value_ptr"]["loads"][:, 0].tolist() == [2] * 4 and int(record["value_ptr"]["loads"][:, 1:].sum()) == 0
    assert record["value_ptr"]["load_programs"][:, 0].tolist() == [4] * 4  # the last program to load it


def test_elements_stored_by_another_program_than_loaded_them_are_shown_side_by_side():
    gate, out = torch.zeros(3, 4), torch.zeros(3, 4)
    memory = MemoryMap()
    memory.launched("k", [("gate_ptr", gate), ("out_ptr", out)])
    for row in range(3):  # program r loads row r and stores it into row 2 - r
        memory.accessed("k", "load", addresses(gate, (row,)), program=row)
        memory.accessed("k", "store", addresses(out, (2 - row,)), program=row)
    maps = kernel_map.accept(memory.evidence("k"))
    hint = kernel_map.crossed(maps, "out_ptr", ["gate_ptr"])
    assert "8 of 12 elements of out_ptr were stored by another program than the one that loaded gate_ptr" in hint
    assert hint.splitlines()[-4:] == [f"{title:<18}    {right}" for title, right in (
        ("out_ptr: stored by", "gate_ptr: loaded by"), ("2222", "0000"), ("1111", "1111"), ("0000", "2222"))]
    assert kernel_map.unwritten(maps, "out_ptr") == "" and kernel_map.unread(maps, ["gate_ptr"]) == ""


def test_a_malformed_record_is_not_drawn():
    good = {"contiguous": True, "stores": torch.ones(2, 3, dtype=torch.int32),
            "store_programs": torch.zeros(2, 3, dtype=torch.int32)}
    assert set(kernel_map.accept({"out_ptr": good})) == {"out_ptr"}
    bad = [
        "not a dict",
        {"out_ptr": {**good, "stores": torch.ones(2, 3)}},  # float counts
        {"out_ptr": {**good, "store_programs": torch.zeros(3, 2, dtype=torch.int32)}},  # shapes differ
        {"out_ptr": {**good, "stores": torch.ones(200_001, dtype=torch.int32),
                     "store_programs": torch.zeros(200_001, dtype=torch.int32)}},  # larger than any kept
        {"out ptr\n": good},  # a name no kernel argument has
        {"out_ptr": {"contiguous": True}},  # nothing recorded
    ]
    for maps in bad:
        assert kernel_map.accept(maps) == {}, maps
    assert kernel_map.for_error({"message": "x", "map": {"out_ptr": "garbage"}}) == ""


def test_the_names_a_map_may_have_are_the_pointer_parameters_of_the_stubs_kernels():
    """Read from the kernels' signatures on the trusted side (the reference here), never restated: the
    stubs' kernels take the same pointers, so a map a student's own checkout draws has the same names."""
    stubs = {}
    for exercise in ("triton_swiglu", "triton_gated_mlp"):
        stubs.update(kernel_map.kernels_in((REPO / "exercises" / f"{exercise}.py").read_text()))
    assert kernel_map.kernel_parameters() == stubs
    assert stubs["_swiglu_forward_kernel"] == {"gate_ptr", "value_ptr", "out_ptr"}
    assert "_activation" not in stubs and "n_cols" not in kernel_map.parameters_of()  # no helper, no integer
    assert kernel_map.parameters_of("grad_gate_ptr") == stubs["_swiglu_backward_kernel"]


def test_a_record_under_a_look_alike_name_is_not_drawn(monkeypatch):
    """A name is drawn only if it is a kernel's own pointer parameter: a look-alike (a Cyrillic o, fullwidth
    letters, a zero-width space) would draw a map of a tensor that does not exist, and is left out."""
    monkeypatch.setenv(KERNEL_MAPS_ENV, "0")  # no picture
    unwritten = {"contiguous": True, "stores": torch.zeros(2, 3, dtype=torch.int32),
                 "store_programs": torch.full((2, 3), -1, dtype=torch.int32)}
    look_alikes = ["\u043eut_ptr", "\uff4f\uff55\uff54_\uff50\uff54\uff52", "out_ptr\u200b", "OUT_PTR", "out_ptr[0]",
                   "n_cols", "k"]
    for name in look_alikes:
        assert kernel_map.accept({name: unwritten}) == {}, ascii(name)
        assert kernel_map.explain({name: unwritten}, "out_ptr", ["gate_ptr", "value_ptr"]) == "", ascii(name)
        assert kernel_map.for_error({"message": "x", "map": {name: {**unwritten, "stores_outside": torch.tensor([6])}}}) == ""
    maps = {name: unwritten for name in [*look_alikes, "out_ptr", "x_ptr"]}
    assert set(kernel_map.accept(maps)) == {"out_ptr", "x_ptr"}
    # A test that failed on the forward kernel draws that kernel's tensors only, not the gated kernel's x_ptr.
    assert set(kernel_map.accept(maps, kernel_map.parameters_of("out_ptr", "gate_ptr", "value_ptr"))) == {"out_ptr"}
    drawn = kernel_map.explain(maps, "out_ptr", ["gate_ptr", "value_ptr"])
    assert drawn.startswith("\nwhat the kernel wrote, 2 rows x 3 columns;") and drawn.count("what the kernel") == 1, drawn


# --------------------------------------------------------------- variants whose mistake is an address

def outcomes_of(suite: str, folder: str, variant: str, tests: list[str], **options) -> dict:
    pytest.importorskip("triton", reason="Triton is not installed (Linux only)")
    _, outcomes = run_variant(suite, folder, VARIANTS / folder / f"{variant}.py", only=tests, **{**FAST, **options})
    return {test: outcomes[test].detail for test in tests}


def test_a_missing_mask_shows_the_block_running_past_the_end():
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "missing_mask",
                          ["test_memory_stays_in_bounds[forward]"])
    drawn = drawn_map(details["test_memory_stays_in_bounds[forward]"], "gate_ptr: what the kernel read, 1 row x 1000")
    # One block of 1024 from element 0: nothing was read (the load stopped), 24 elements past the end.
    # 17 elements a character: 59 characters.
    assert drawn[0] == "." * 59 and drawn[1] == "!!" + " " * 57 + " <- past the end", drawn


def test_a_store_one_column_left_shows_the_attempt_before_the_start():
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "store_offset_before_out",
                          ["test_forward_float32[2d]"])
    drawn = drawn_map(details["test_forward_float32[2d]"], "out_ptr: what the kernel wrote")
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
    pytest.importorskip("matplotlib", reason="the pictures need matplotlib")
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "contiguity_assumed",
                          ["test_forward_noncontiguous[chunk]"], pictures=True)
    shown = re.search(r"\(picture: (\S+\.png)\)", details["test_forward_noncontiguous[chunk]"])
    assert shown, details
    picture = REPO / shown.group(1)
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    pixels = matplotlib.image.imread(picture)[..., :3]
    # Three panels (gate, value, out), coloured by program: many distinct colours, white where never read.
    assert len(np.unique(pixels.reshape(-1, 3).round(2), axis=0)) > 20


def test_grad_out_read_at_gates_stride_shows_every_other_row_and_the_overrun():
    details = outcomes_of("test_triton_swiglu.py", "triton_swiglu", "grad_out_indexed_with_gate_stride",
                          ["test_backward_noncontiguous[chunk]"])
    drawn = drawn_map(details["test_backward_noncontiguous[chunk]"], "grad_out_ptr: what the kernel read, 24 rows")
    # gate's rows are twice as far apart as grad_out's: programs 0-11 read rows 0, 2, ..., 22; program 12 runs past.
    assert drawn[:24] == ["#" * 45, "." * 45] * 12 and drawn[24] == "!" * 45 + " <- past the end", drawn


def test_the_maps_sent_back_stay_within_their_budget_whatever_the_launch_is_given():
    from grader.probes import triton_map

    scratch = [torch.zeros(100_000) for _ in range(8)]  # a launch given eight large scratch tensors
    memory = MemoryMap()
    memory.launched("k", [(f"t{i}_ptr", t) for i, t in enumerate(scratch)])
    for i, t in enumerate(scratch):
        memory.accessed("k", "store", addresses(t, (slice(None),)), program=i)
    sent = memory.evidence("k")
    assert 0 < sum(t.numel() for record in sent.values() for t in record.values()
                   if isinstance(t, torch.Tensor)) <= triton_map.MAX_SENT
    assert list(sent) == ["t0_ptr", "t1_ptr"]  # the first ones in the kernel's argument order
