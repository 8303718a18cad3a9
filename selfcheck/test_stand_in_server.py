"""The trusted side of the stand-in kernels holds against what the process running the student's code sends
it: a request is answered (an error at worst) whatever it holds, what one call's requests cost the grader
(bytes read and kept, values served, CPU) is bounded over the call, every launch gets coefficients of its
own, and a child that stops reading cannot hold the grader past the call's deadline. The same bounds on
the evidence itself (``grader/evidence.py``) are checked here too: they are the requests' checks."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import time

import pytest
import torch

from grader import evidence
from grader.probes.errors import from_child
from grader.sandbox.launch import ChildFailure, ChildProcess
from grader.stand_in_server import MAX_LAUNCHES, MAX_WORK, StandInServer

MAX_BYTES = 1 << 26  # what one reply may hold: the grader's default (Limits.max_reply_mb)


def saved(value: object) -> bytes:
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


def ask(server: StandInServer, request: object) -> dict | None:
    """The reply, or None where the server ends the call."""
    reply = server.answer(request if isinstance(request, bytes) else saved(request), max_bytes=MAX_BYTES,
                          max_elements=1 << 22)
    return None if reply is None else torch.load(io.BytesIO(reply), weights_only=True)


def forward(gate: torch.Tensor, **more) -> dict:
    return {"kernel": "_swiglu_forward_kernel", "inputs": {"gate": gate, "value": torch.ones_like(gate)}, **more}


def kept_bytes(value: object) -> int:
    """The bytes of the storages ``value`` holds on to, each once."""
    storages = {}
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            storages[item.untyped_storage().data_ptr()] = item.untyped_storage().nbytes()
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return sum(storages.values())


def gated(x: torch.Tensor, n: int) -> dict:
    k = x.shape[1]
    return {"kernel": "_gated_projection_kernel", "activation": "silu", "compute": "float64",
            "inputs": {"x": x, "gate_weight": torch.ones(n, k, dtype=torch.float64),
                       "value_weight": torch.ones(n, k, dtype=torch.float64)}}


@pytest.mark.parametrize("request_", [
    "not a dict", {"kernel": "os.system"}, {"kernel": "_swiglu_forward_kernel", "inputs": {"gate": torch.ones(2, 3)}},
    {"kernel": "_swiglu_forward_kernel", "inputs": {"gate": torch.ones(2, 3), "value": torch.ones(3, 2)}},
    {"kernel": "_swiglu_forward_kernel", "inputs": {"gate": torch.ones(2, 3, dtype=torch.int64), "value": torch.ones(2, 3)}},
    gated(torch.ones(4096, 0, dtype=torch.float64), 4096),  # no hidden features: an output of any size for free
    gated(torch.ones(8192, 1, dtype=torch.float64), 8192),  # 2^26 output elements
], ids=["not-a-dict", "unknown-kernel", "missing-input", "shapes-differ", "integer-input", "k-zero", "huge-output"])
def test_bad_requests_get_an_error_and_are_not_logged(request_):
    server = StandInServer()
    reply = ask(server, request_)
    assert set(reply) == {"error"} and server.launches == [], reply


def test_every_launch_draws_its_own_coefficients():
    server = StandInServer()
    request = {"kernel": "_swiglu_forward_kernel", "inputs": {"gate": torch.ones(1, 1), "value": torch.zeros(1, 1)}}
    first, second = ask(server, request)["out"], ask(server, request)["out"]
    assert not torch.equal(first, second)
    assert [launch["coefficients"][0] for launch in server.launches] == [float(first), float(second)]


def test_a_small_view_of_a_large_storage_is_refused_in_requests_and_evidence():
    """torch.save writes a tensor's whole storage: a (2, 3) view of 32 MB would carry 32 MB for 6 counted
    elements, and the log would keep them, 64 launches a call (4 GB of 60 MB views before this check)."""
    view = torch.zeros(1 << 22, dtype=torch.float64)[:6].view(2, 3)
    server = StandInServer()
    assert set(ask(server, forward(view))) == {"error"} and server.launches == []
    with pytest.raises(evidence.BadEvidence, match="in a storage of"):
        evidence.load(saved({"out": view}), max_bytes=MAX_BYTES, max_elements=1 << 20)
    # Honest evidence and requests never hold one: the child sends a copy of each such view.
    from grader.probes.core import compacted, owns_its_storage

    sent = compacted({"gate": view, "again": view, "t": torch.ones(3, 4).T})
    assert all(map(owns_its_storage, sent.values())) and sent["gate"] is sent["again"] and kept_bytes(sent) == 96


def test_the_log_keeps_only_what_the_judge_reads():
    server = StandInServer()
    reply = ask(server, forward(torch.ones(2, 3), junk=torch.zeros(1 << 20, dtype=torch.float64), kernel_too="x"))
    assert "out" in reply, reply
    assert [set(launch) for launch in server.launches] == [{"kernel", "inputs", "coefficients"}]
    assert set(server.launches[0]["inputs"]) == {"gate", "value"} and kept_bytes(server.launches) == 48


def test_every_request_counts_toward_the_cap_and_costs_little():
    """Refused requests count too (before, a child could send 57 MB frames that fail once loaded for as long
    as its call lasted: 52 s of the grader's CPU in one grade): past the cap the call ends, nothing more of
    it read (``ChildProcess.receive``); under it, each request's structure is bounded before loading."""
    server = StandInServer()
    refused = saved({"kernel": "_swiglu_forward_kernel", "inputs": {"gate": torch.zeros(1 << 10, dtype=torch.int64)}})
    started = time.process_time()
    for _ in range(MAX_LAUNCHES):
        assert set(ask(server, refused)) == {"error"}
    assert ask(server, forward(torch.ones(2, 3))) is None and server.launches == []
    assert time.process_time() - started < 1.0  # about 0.05 s


def test_a_calls_requests_are_bounded_together():
    """In bytes (what one reply may hold, over all the call's requests) and in the work served."""
    server = StandInServer()
    big = forward(torch.ones(1 << 10, 1 << 11, dtype=torch.float64))  # 32 MB of inputs
    assert "out" in ask(server, big) and ask(server, big) is None
    server, k = StandInServer(), 64
    x = torch.ones(MAX_WORK // (k * 1024), k, dtype=torch.float64)
    wide = {"kernel": "_gated_projection_kernel", "activation": "silu", "compute": "float64",
            "inputs": {"x": x, "gate_weight": torch.ones(1024, k, dtype=torch.float64),
                       "value_weight": torch.ones(1024, k, dtype=torch.float64)}}
    assert "out" in ask(server, wide) and "error" in ask(server, wide)


def test_text_is_measured_once_per_string_and_in_all():
    """19,900 references to one 4,096-emoji string: 58 KB of pickle, and before 10 s of CPU and 300 MB
    (the text check escaped the string once per reference). Now each string object is checked once, the
    text of an evidence is bounded in all, a request holds a few values, and an error's text field that is
    a container is shown as its type."""
    emoji = "\U0001F600" * evidence.MAX_STRING
    flood = saved({"error": {"message": [emoji] * 19_900}, "again": [emoji] * 50})
    started = time.process_time()
    checked = evidence.load(flood, max_bytes=MAX_BYTES, max_elements=1 << 20)
    assert time.process_time() - started < 1.0 and checked["again"][49] is checked["again"][0]
    assert from_child({"message": [emoji] * 19_900})["message"] == "a list"
    assert from_child({"uncalled_modules": [emoji] * 19_900})["uncalled_modules"] == "a list"  # a hint's text, cut
    assert len(from_child({"uncalled_modules": "act," * 10_000})["uncalled_modules"]) == 200
    with pytest.raises(evidence.BadEvidence, match="characters of text"):
        evidence.load(saved([f"{i:04}" + emoji[4:] for i in range(17)]), max_bytes=MAX_BYTES, max_elements=1 << 20)
    server = StandInServer()
    assert set(ask(server, forward(torch.ones(2, 3), junk=[emoji] * 19_900))) == {"error"} and server.launches == []


# An archive whose end record gives its directory as 64 MB: zipfile would read it all, entry by entry.
LARGE_DIRECTORY = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 65535, 65535, 64 << 20, 0, 0)


@pytest.mark.parametrize("payload", [saved({"pickle": [0] * (1 << 20)}), saved({"count": 1 << 70}), LARGE_DIRECTORY],
                         ids=["pickle", "integer", "directory"])
def test_what_costs_the_grader_more_than_it_reads_is_refused(payload):
    """Refused before it is read: a 2 MB pickle (torch's unpickler reads it in Python, about 0.6 s), the
    directory of 800,000 empty members (zipfile reads it in Python, about 5 s). A huge integer is no count
    nor shape."""
    started = time.process_time()
    with pytest.raises(evidence.BadEvidence):
        evidence.load(payload, max_bytes=MAX_BYTES, max_elements=1 << 20)
    assert time.process_time() - started < 0.1


def test_a_call_past_its_requests_ends_and_reads_no_more(tmp_path):
    """Where the server gives no answer (the call's requests are spent), the call ends at once, though the
    child goes on sending requests."""
    from grader.probes.child import HEADER

    frame = HEADER.pack(b"Q", 1024) + b"x" * 1024
    proc = subprocess.Popen([sys.executable, "-c", f"import sys\nwhile True: sys.stdout.buffer.write({frame!r})"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    child = ChildProcess(proc, tmp_path / "stderr", max_reply=1 << 20)
    answered = []
    try:
        with pytest.raises(ChildFailure) as failure:
            child.receive(b"R", time.monotonic() + 30, "timed out", answer=lambda payload: answered.append(payload))
        assert failure.value.kind == "ChildExited" and len(answered) == 1, failure.value.message
    finally:
        child.kill()


def test_a_child_that_stops_reading_cannot_hold_the_grader(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    child = ChildProcess(proc, tmp_path / "stderr", max_reply=1 << 20)
    started = time.monotonic()
    try:
        with pytest.raises(ChildFailure) as failure:
            child.send(b"C", b"x" * (4 << 20), started + 1.0, "stopped reading")  # far more than a pipe holds
        assert failure.value.kind == "Timeout" and time.monotonic() - started < 10, failure.value.message
    finally:
        child.kill()
