"""A recording again keeps the answer files' text where only another CPU's float64 rounding changed
(``grader.judge.answer_files.steadied``), and shows every other change: a diff is what changed."""

from __future__ import annotations

import math

import pytest
import torch

from grader.judge.answer_files import ROUNDING, decode, encode, same_answer, steadied


def tensor(values, dtype=torch.float64):
    return encode(torch.tensor(values, dtype=dtype))


def test_float64_rounding_is_the_same_answer():
    old = tensor([1.0, -2.5, 3.25])
    new = tensor([1.0 + 2.2e-16, -2.5, 3.25 - 4.4e-16])
    assert same_answer(new, old)


def test_a_change_a_mistake_could_make_is_a_new_answer():
    # sqrt(2/pi) cut to 8 digits moves a GELU by about 6e-10: far above what counts as rounding
    assert 6e-10 > 1000 * ROUNDING
    assert not same_answer(tensor([1.0 + 6e-10, 2.0]), tensor([1.0, 2.0]))


def test_every_other_dtype_text_and_shape_must_be_equal():
    assert not same_answer(tensor([1.0, 2.0], torch.float32), tensor([1.0 + 1e-7, 2.0], torch.float32))
    assert same_answer(tensor([1.0, 2.0], torch.float32), tensor([1.0, 2.0], torch.float32))
    assert not same_answer(encode(torch.zeros(2, 3, dtype=torch.float64)), encode(torch.zeros(3, 2, dtype=torch.float64)))
    assert not same_answer(["no biases", 1.0], ["no bias", 1.0])
    assert not same_answer({"value": 4}, {"value": 4.0})


def test_infinities_and_nans_are_the_same_only_where_they_were():
    assert same_answer(tensor([math.nan, 1.0]), tensor([math.nan, 1.0]))
    assert not same_answer(tensor([math.nan, 1.0]), tensor([1.0, math.nan]))
    assert not same_answer(tensor([math.inf, 1.0]), tensor([-math.inf, 1.0]))


def test_no_entry_outlives_its_test_and_a_rounding_keeps_the_text():
    old_out, new_out = tensor([0.5, 1.5]), tensor([0.5 + 1e-16, 1.5])
    old = {"answers": {"a": {"asked_by": ["t1"], "answer": {"out": old_out}},
                       "gone": {"asked_by": ["t0"], "answer": {"out": old_out}}},
           "mistakes": {"m": {"inputs": {}, "mistakes": [["no biases", old_out, True]]}}}
    new = {"answers": {"a": {"asked_by": ["t1", "t2"], "answer": {"out": new_out}}},
           "mistakes": {"m": {"inputs": {}, "mistakes": [["no biases", new_out, False]]}}}
    kept = steadied(new, old)
    assert set(kept["answers"]) == {"a"}, "an entry no test asks any more was kept"
    assert kept["answers"]["a"]["asked_by"] == ["t1", "t2"]
    assert kept["answers"]["a"]["answer"]["out"] is old_out
    assert kept["mistakes"]["m"]["mistakes"] == [["no biases", old_out, False]]


def known(block, weights, x, activation):
    """A stand-in for the reference's known mistakes: one hint names the activation, the other does not."""
    return [("no biases", "use biases", None, True), ("hard-coded ReLU", f"ReLU although {activation} was passed", None, False)]


def entry(activation):
    return {"inputs": encode({"block_name": "GLU", "weights": {}, "x": torch.zeros(1), "activation": activation}),
            "mistakes": [["no biases", tensor([1.0]), True], ["hard-coded ReLU", tensor([2.0]), False]]}


def test_a_hint_is_written_once_and_once_per_activation_where_it_names_it():
    """A reworded hint is one line of hints.json, whichever tasks' files hold its mistake."""
    from grader.judge import answer_hints

    files = [{"mistakes": {"k1": entry("silu"), "k2": entry(None)}}, {"mistakes": {"k3": entry("silu")}}]
    hints = answer_hints.made(files, known)["hints"]
    assert hints == {"GLU": {"hard-coded ReLU": {"none given": "ReLU although None was passed",
                                                 "silu": "ReLU although silu was passed"},
                             "no biases": "use biases"}}
    joined = answer_hints.joined(decode(entry("silu")["mistakes"]), hints, "GLU", "silu")
    assert [(cause, hint) for cause, hint, _, _ in joined] == [("no biases", "use biases"),
                                                               ("hard-coded ReLU", "ReLU although silu was passed")]
    assert answer_hints.joined(decode(entry("relu")["mistakes"]), hints, "GLU", "relu") is None, "a hint made up"


def test_a_hint_that_depends_on_the_data_is_refused():
    from grader.judge import answer_hints

    calls = iter(["one text", "another text"])
    with pytest.raises(answer_hints.HintsError, match="has two hints"):
        answer_hints.made([{"mistakes": {"k1": entry("silu"), "k2": entry("silu")}}],
                          lambda *args: [("no biases", next(calls), None, True)])


def test_a_file_that_cannot_be_read_is_replaced_whole(tmp_path):
    """A merge's conflict markers in an answer file: recording again is the remedy, so it must not fail on them."""
    from grader.judge.answer_files import write
    from grader.judge.answer_files import steadied_file

    made, target = tmp_path / "made.json", tmp_path / "glu.json"
    data = {"format": 1, "seed": 0, "task": "glu", "answers": {"a": {"asked_by": ["t"], "answer": tensor([1.0])}},
            "mistakes": {}}
    write(made, data)
    target.write_text("<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> theirs\n")
    assert steadied_file(made, target) == data
    write(target, {**data, "seed": 1, "answers": {"a": {"asked_by": ["t"], "answer": tensor([1.0 + 1e-16])}}})
    assert steadied_file(made, target) == data, "a file of another seed was steadied against"
