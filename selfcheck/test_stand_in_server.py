"""The trusted side of the stand-in kernels holds against what the process running the student's code sends
it: a request is answered (an error at worst) whatever it holds, the work one launch can ask for is bounded,
every launch gets coefficients of its own, and a child that stops reading cannot hold the grader past the
call's deadline."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import pytest
import torch

from grader.sandbox.launch import ChildFailure, ChildProcess
from grader.stand_in_server import StandInServer


def ask(server: StandInServer, request: object) -> dict:
    buffer = io.BytesIO()
    torch.save(request, buffer)
    return torch.load(io.BytesIO(server.answer(buffer.getvalue(), max_bytes=1 << 26, max_elements=1 << 22)),
                      weights_only=True)


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
