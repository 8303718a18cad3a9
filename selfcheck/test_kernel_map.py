"""The maps of what a kernel touched (``grader/probes/triton_map.py`` records, ``grader/kernels/maps.py``
draws, ``grader/kernels/pictures.py`` paints): recorded right, every tensor in the shape the test made it
and per address, drawn right within 80 columns, refused when malformed. How they show in the suites'
failure messages, for variants whose mistake is an address: ``test_kernel_map_failures.py``."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from grader.kernels import maps as kernel_map
from grader.kernels.maps import HEIGHT, WIDTH, text_map
from grader.paths import KERNEL_MAPS_ENV, REPO
from grader.probes.triton_map import MemoryMap

pytestmark = [pytest.mark.swiglu, pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks


@pytest.fixture(autouse=True)
def no_pictures(monkeypatch):
    """Maps drawn in this process save no picture (the suites' runs below say for themselves)."""
    monkeypatch.setenv(KERNEL_MAPS_ENV, "0")


def lines(counts: torch.Tensor, **options) -> list[str]:
    return text_map(counts, **options).splitlines()[1:]


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


def test_a_few_elements_hidden_in_a_block_are_named_by_index():
    # A column offset one late (cols + 1, masked) leaves only the first element unwritten: at 2 x 3 elements a
    # character, one ':' among the '#'s, which does not say it is column 0. The line under the map does.
    counts = torch.ones(37, 129, dtype=torch.int32)
    counts[0, 0], counts[5, 7] = 0, 2
    assert lines(counts)[0][0] == ":"
    assert lines(counts)[-1] == "(never written: (row 0, column 0); written more than once: (row 5, column 7))"
    flat = torch.ones(1, 3001, dtype=torch.int32)
    flat[0, 0] = 0
    assert lines(flat, verb="read")[-1] == "(never read: element 0)"
    counts[:, 0] = 0  # a whole column: more than a few, and the map's left edge shows it
    assert not lines(counts)[-1].startswith("(")
    assert not lines(torch.zeros(3, 5, dtype=torch.int32))[-1].startswith("(")  # one character each: drawn


def test_attempts_out_of_bounds_are_drawn_where_the_rows_would_go_on():
    counts = torch.zeros(3, 10, dtype=torch.int32)
    before = lines(counts, outside=torch.tensor([-1]))
    assert before[0] == " " * 9 + "! <- before the start" and before[1:] == ["." * 10] * 3
    after = lines(counts, outside=torch.tensor([30, 31, 32]))
    assert after[-1] == "!!!" + " " * 7 + " <- past the end"
    wide = lines(torch.zeros(4, 5000, dtype=torch.int32), outside=torch.arange(-10, 0))
    assert all(len(line) <= 80 for line in wide) and wide[0].endswith("! <- before the start")
    view = text_map(counts, outside=torch.tensor([40]), contiguous=False)
    assert "1 element(s) tried outside it, not drawn: its rows are not one after another in memory" in view


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


def test_a_tiled_kernel_is_charged_only_for_rows_read_by_programs_that_stored_none_of_them():
    """out (4 x 4) in tiles of 2 x 2, program pid_m + 2 * pid_n; x (4 x 3) and a weight (4 x 3) whose rows
    are out's rows and columns. M == N, so the weight's rows could be either: charged only if neither fits."""
    def record(programs, access="load"):
        programs = torch.tensor(programs)
        counts = (programs >= 0).int()
        other = "store" if access == "load" else "load"
        return {"contiguous": True, f"{access}s": counts, f"{access}_programs": programs,
                f"{other}s": torch.zeros_like(counts)}

    out = record([[0, 0, 2, 2], [0, 0, 2, 2], [1, 1, 3, 3], [1, 1, 3, 3]], "store")
    x = record([[2] * 3] * 2 + [[3] * 3] * 2)  # rows 0-1 last loaded by program 2 (tile 0, 1), 2-3 by 3
    weight = record([[1] * 3] * 2 + [[3] * 3] * 2)  # rows 0-1 (out's columns 0-1) by program 1 (tile 1, 0)
    maps = kernel_map.accept({"out_ptr": out, "x_ptr": x, "gate_weight_ptr": weight})
    assert kernel_map.misread(maps, "out_ptr", ["x_ptr", "gate_weight_ptr"]) == ""
    # Rows 0 and 3 last read by programs of no tile of theirs, as rows or as columns (rows fit best).
    reversed_rows = kernel_map.accept({"out_ptr": out, "x_ptr": record([[3] * 3, [2] * 3, [1] * 3, [0] * 3])})
    drawn = kernel_map.misread(reversed_rows, "out_ptr", ["x_ptr"])
    assert drawn.startswith("; 6 of 12 elements of x_ptr were loaded, first and last, by programs that stored nothing"
                            " in their row of out_ptr"), drawn
    assert drawn.splitlines()[-5:] == [f"{left:<18}    {right}" for left, right in (
        ("out_ptr: stored by", "x_ptr: loaded by"), ("0022", "333"), ("0022", "222"), ("1133", "111"), ("1133", "000"))]


def test_rows_loaded_again_by_another_program_after_their_own_are_no_misread():
    """The matmul tutorial's wrap-around offsets (offs % M): the last program of a column of tiles loads rows
    0.. again, rows whose values it never stores. Their own program loaded them first: nothing to tell."""
    x, out = torch.zeros(3, 4), torch.zeros(3, 5)
    memory = MemoryMap()
    memory.launched("k", [("x_ptr", x), ("out_ptr", out)])
    for program, rows in ((0, (0, 1)), (1, (2, 0))):  # tiles of 2 rows: program 1 owns row 2 and wraps to row 0
        for row in rows:
            memory.accessed("k", "load", addresses(x, (row,)), program=program)
        for row in rows[:1] if program == 1 else rows:
            memory.accessed("k", "store", addresses(out, (row,)), program=program)
    maps = kernel_map.accept(memory.evidence("k"))
    assert bool((maps["x_ptr"]["load_programs"][0] == 1).all())  # row 0 was last loaded by program 1
    assert kernel_map.misread(maps, "out_ptr", ["x_ptr"]) == ""
    # Judged by the last loaders alone (a record without first loaders), row 0 would be charged.
    older = {arg: {k: v for k, v in record.items() if k != "first_load_programs"}
             for arg, record in memory.evidence("k").items()}
    assert kernel_map.misread(kernel_map.accept(older), "out_ptr", ["x_ptr"]).startswith("; 4 of 12 elements of x_ptr")


def test_an_output_the_kernel_never_touched_is_sent_and_drawn_as_never_written():
    """An output nobody stored into is the mistake to see (a kernel that stores nothing, or stores its
    result through another pointer): its map is sent like any other, and drawn all '.'."""
    gate, out = torch.zeros(2, 5), torch.zeros(2, 5)
    memory = MemoryMap()
    memory.launched("_swiglu_forward_kernel", [("gate_ptr", gate), ("out_ptr", out)])
    memory.accessed("_swiglu_forward_kernel", "load", addresses(gate, (slice(None),)), program=0)
    sent = memory.evidence("_swiglu_forward_kernel")
    assert sent["out_ptr"]["stores"].tolist() == [[0] * 5] * 2 and "store_programs" not in sent["out_ptr"]
    drawn = kernel_map.explain(sent, "out_ptr", ["gate_ptr"], elementwise=True)
    assert drawn.splitlines()[1:] == ["out_ptr: " + text_map(torch.zeros(2, 5, dtype=torch.long)).splitlines()[0],
                                      ".....", ".....", "the kernel stored nothing at all, into none of the 2"
                                      " tensors it was given"], drawn


def test_an_input_never_loaded_is_named_with_the_input_loaded_in_its_place():
    gate, value, out = torch.zeros(3, 4), torch.zeros(3, 4), torch.zeros(3, 4)
    memory = MemoryMap()
    memory.launched("_swiglu_forward_kernel", [("gate_ptr", gate), ("value_ptr", value), ("out_ptr", out)])
    for row in range(3):  # value loaded through gate_ptr: gate twice, value never
        for _ in range(2):
            memory.accessed("_swiglu_forward_kernel", "load", addresses(gate, (row,)), program=row)
        memory.accessed("_swiglu_forward_kernel", "store", addresses(out, (row,)), program=row)
    drawn = kernel_map.explain(memory.evidence("_swiglu_forward_kernel"), "out_ptr", ["gate_ptr", "value_ptr"], True)
    assert drawn == "; the kernel never loaded value_ptr, and loaded gate_ptr more than once at 12 of 12 elements"


def test_a_flattened_tensor_is_drawn_in_the_shape_the_test_made_it():
    """The launch code hands the kernel a contiguous tensor as one row of numel elements: drawn in the
    probe's shape for that memory instead (rows x last dimension), so a '!' past the end lands under the
    column where the next row would start, not under the start of a row of 105."""
    gate, out = torch.zeros(3, 5, 7), torch.zeros(3, 5, 7)
    memory = MemoryMap()
    memory.launched("_swiglu_forward_kernel", [("gate_ptr", gate.view(1, -1)), ("out_ptr", out.view(1, -1))])
    memory.accessed("_swiglu_forward_kernel", "load", addresses(gate, (slice(None),)), program=0)
    memory.outside("_swiglu_forward_kernel", "gate_ptr", "load", addresses(gate, (2, 4))[:3] + 7 * 4)
    known = kernel_map.accept(memory.evidence("_swiglu_forward_kernel", [gate, out]))
    assert known["gate_ptr"]["loads"].shape == (15, 7) and known["out_ptr"]["stores"].shape == (15, 7)
    drawn = kernel_map.for_error({"map": memory.evidence("_swiglu_forward_kernel", [gate, out])})
    assert "gate_ptr: what the kernel read, 15 rows x 7 columns;" in drawn
    assert drawn.splitlines()[-1] == "!!!     <- past the end", drawn
    # The output, unknown to the probe when an access fails mid-launch, takes an input's shape of as many elements.
    assert kernel_map.accept(memory.evidence("_swiglu_forward_kernel", [gate]))["out_ptr"]["stores"].shape == (15, 7)
    assert kernel_map.accept(memory.evidence("_swiglu_forward_kernel"))["gate_ptr"]["loads"].shape == (1, 105)


def test_a_broadcast_view_is_drawn_per_address_with_the_reads_past_its_row():
    """grad_out as one row broadcast over 5 x 7 rows (stride 0): its memory is 9 elements. A kernel that
    addresses it with another tensor's row stride reads row 0, then past it: drawn as the one row, read
    once, with the reads past it, rather than as 35 rows all '#'."""
    buffer = torch.zeros(40)
    grad_out = buffer[10:19].expand(5, 7, 9)
    launched = grad_out.reshape(-1, 9)  # what the launch code hands the kernel: (35, 9), row stride 0
    memory = MemoryMap()
    memory.launched("_swiglu_backward_kernel", [("grad_out_ptr", launched)])
    memory.accessed("_swiglu_backward_kernel", "load", addresses(launched, (0,)), program=0)
    memory.outside("_swiglu_backward_kernel", "grad_out_ptr", "load", addresses(buffer, (slice(19, 28),)))
    for known in ([grad_out], []):  # known to the probe in its shape, or not: the same memory
        drawn = kernel_map.for_error({"map": memory.evidence("_swiglu_backward_kernel", known)})
        assert ("grad_out_ptr: what the kernel read, 1 row x 9 columns, per address: a broadcast view (stride 0),"
                " 35 of its elements at each;") in drawn
        assert drawn.splitlines()[-2:] == ["#" * 9, "!" * 9 + " <- past the end"], drawn


def test_an_output_given_an_inputs_memory_is_named():
    """Launch code that allocates grad_gate as gate itself: the kernel's stores into grad_gate_ptr are
    stores into gate, and the record says whose memory it is."""
    gate = torch.zeros(3, 4)
    memory = MemoryMap()
    memory.launched("_swiglu_backward_kernel", [("gate_ptr", gate), ("grad_gate_ptr", gate)])
    memory.accessed("_swiglu_backward_kernel", "store", addresses(gate, (slice(0, 2),)), program=0)
    sent = memory.evidence("_swiglu_backward_kernel")
    assert sent["grad_gate_ptr"]["same_memory_as"] == "gate_ptr" and "same_memory_as" not in sent["gate_ptr"]
    drawn = kernel_map.inputs_stored(sent, ["grad_out_ptr", "gate_ptr", "value_ptr"])
    assert drawn.startswith("; the kernel stored into gate_ptr at 8 of 12 elements (grad_gate_ptr is the memory"
                            " of gate_ptr: the output was allocated as the input itself):"), drawn
    assert drawn.splitlines()[-3:] == ["####", "####", "...."]
    assert "grad_gate_ptr is the memory of gate_ptr" in kernel_map.explain(sent, "grad_gate_ptr", ["gate_ptr"])


def test_a_picture_numbers_rows_and_columns_with_whole_numbers_even_one_row_high():
    pytest.importorskip("matplotlib", reason="the pictures need matplotlib")
    import matplotlib.pyplot as plt

    from grader.kernels import pictures

    one_row = {"contiguous": True, "loads": torch.ones(1, 3, dtype=torch.int32),
               "load_programs": torch.zeros(1, 3, dtype=torch.int32), "stores": torch.zeros(1, 3, dtype=torch.int32),
               "loads_outside": torch.tensor([3])}
    untouched = {"contiguous": True, "loads": torch.zeros(1, 1, dtype=torch.int32),
                 "stores": torch.zeros(1, 1, dtype=torch.int32)}
    figure = pictures.figure_of(kernel_map.accept({"gate_ptr": one_row, "out_ptr": untouched}))
    figure.canvas.draw()
    for ax in figure.axes:
        for ticks, limits in ((ax.get_xticks(), ax.get_xlim()), (ax.get_yticks(), ax.get_ylim())):
            shown = [t for t in ticks if min(limits) <= t <= max(limits)]
            assert shown and all(float(t).is_integer() for t in shown), (ax.get_title(), shown)
    assert [ax.get_title() for ax in figure.axes] == ["gate_ptr: loaded by", "out_ptr: never loaded or stored"]
    plt.close(figure)


def test_the_pictures_of_the_tests_about_to_run_are_removed_first(tmp_path, monkeypatch):
    from grader.kernels import pictures

    monkeypatch.setattr(pictures, "KERNEL_MAPS", tmp_path)
    ran, other = "tests/test_triton_swiglu.py::test_forward_float32[2d]", "tests/test_triton_gated_mlp.py::test_x"
    for nodeid in (ran, other):
        pictures.picture_path(nodeid).write_bytes(b"an earlier run's")
    assert pictures.picture_path(ran).name == "test_triton_swiglu.test_forward_float32_2d_.png"
    monkeypatch.setenv(KERNEL_MAPS_ENV, "0")  # pictures off (the grader's runs): nothing is touched
    pictures.clear_pictures([ran])
    assert pictures.picture_path(ran).exists()
    monkeypatch.setenv(KERNEL_MAPS_ENV, "1")
    pictures.clear_pictures([ran])
    assert not pictures.picture_path(ran).exists() and pictures.picture_path(other).exists()


def test_a_malformed_record_is_not_drawn():
    good = {"contiguous": True, "loads": torch.zeros(2, 3, dtype=torch.int32),
            "stores": torch.ones(2, 3, dtype=torch.int32), "store_programs": torch.zeros(2, 3, dtype=torch.int32)}
    accepted = kernel_map.accept({"out_ptr": good})["out_ptr"]
    assert accepted["load_programs"].tolist() == [[-1] * 3] * 2  # loads never happened: no program sent
    bad = [
        "not a dict",
        {"out_ptr": {**good, "stores": torch.ones(2, 3)}},  # float counts
        {"out_ptr": {**good, "store_programs": torch.zeros(3, 2, dtype=torch.int32)}},  # shapes differ
        {"out_ptr": {**good, "loads": torch.zeros(3, 2, dtype=torch.int32)}},
        {"out_ptr": {**good, "store_programs": None}},  # stores happened, by no program
        {"out_ptr": {**good, "store_programs": torch.full((2, 3), 2**62)}},  # no grid has so many programs
        {"out_ptr": {**good, "store_programs": torch.full((2, 3), -2)}},
        {"out_ptr": {**good, "stores": torch.ones(1, 200_001, dtype=torch.int32),
                     "store_programs": torch.zeros(1, 200_001, dtype=torch.int32)}},  # larger than any kept
        {"out_ptr": {**good, "stores": torch.ones(6, dtype=torch.int32)}},  # not rows x columns
        {"out ptr\n": good},  # a name no kernel argument has
        {"out_ptr": {"contiguous": True}},  # nothing recorded
    ]
    for maps in bad:
        assert kernel_map.accept(maps) == {}, maps
    # Extras that are not what they should be are left out, the record kept.
    odd = kernel_map.accept({"out_ptr": {**good, "shared": "35", "same_memory_as": "\u043eut_ptr"}})["out_ptr"]
    assert "shared" not in odd and "same_memory_as" not in odd
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


def test_a_record_under_a_look_alike_name_is_not_drawn():
    """A name is drawn only if it is a kernel's own pointer parameter: a look-alike (a Cyrillic o, fullwidth
    letters, a zero-width space) would draw a map of a tensor that does not exist, and is left out."""
    unwritten = {"contiguous": True, "loads": torch.zeros(2, 3, dtype=torch.int32),
                 "stores": torch.zeros(2, 3, dtype=torch.int32)}
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
    assert drawn.startswith("\nout_ptr: what the kernel wrote, 2 rows x 3 columns;"), drawn
    assert drawn.count("what the kernel") == 1, drawn


def test_the_maps_sent_back_stay_within_their_budget_whatever_the_launch_is_given():
    from grader.probes import triton_map

    scratch = [torch.zeros(50_000) for _ in range(8)]  # a launch given eight large scratch tensors
    memory = MemoryMap()
    memory.launched("k", [(f"t{i}_ptr", t) for i, t in enumerate(scratch)])
    for i, t in enumerate(scratch):
        memory.accessed("k", "store", addresses(t, (slice(None),)), program=i)
    sent = memory.evidence("k")
    assert 0 < sum(t.numel() for record in sent.values() for t in record.values()
                   if isinstance(t, torch.Tensor)) <= triton_map.MAX_SENT
    assert list(sent) == ["t0_ptr", "t1_ptr"]  # the first ones in the kernel's argument order
