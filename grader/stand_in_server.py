"""The trusted side of the stand-in kernels (``grader/probes/stand_ins.py``): each launch the code under
test makes of an exercise kernel while a test asks for stand-ins is sent here, checked, served values
computed with coefficients drawn for that launch alone, and logged. The log goes into the probe's
evidence under ``LOG_KEY``, set here whatever the code under test sent back, and the tests judge the
result against it (``grader/judge/stand_in_log.py``).

The coefficients come from the operating system's randomness, not the grade's seed: the seed is derived
from the submission and the suites' data, which a file could imitate. They never affect a verdict on a
right file: every one drawn makes a stand-in no right kernel computes.

What a call's requests cost this process is bounded over the call, not only per request: every request,
refused or not, counts toward ``MAX_LAUNCHES`` and its bytes toward what one reply may hold, and past
either the call ends (nothing more of it is read); the values served count toward ``MAX_OUTPUT`` and
``MAX_WORK``; and the log keeps what the judge reads and nothing else. The time it takes is the call's,
counted against the submission's budget (``grader/sandbox/backend.py``)."""

from __future__ import annotations

import io
import math
import secrets

import torch

from grader import evidence as evidence_checks
from grader.probes.stand_ins import GATED_ACTIVATIONS, KERNELS, serve

LOG_KEY = "stand_in_launches"
MAX_LAUNCHES = 64  # requests per probe call, refused ones too: the suites' calls launch each kernel once or twice
MAX_WORK = 1 << 24  # multiply-adds of one call's gated launches together (the suites' most: about 7 * 10^4)
MAX_OUTPUT = 1 << 22  # elements of the values one call's launches are served together (the suites' most: about 10^4)
# What one request may hold besides its tensors' bytes: a kernel's name, two flags, five tensors (the
# suites': under 600 bytes of pickle, 10 values, 110 characters). Each costs this process time to read.
REQUEST = evidence_checks.Structure(pickle_bytes=1 << 12, items=64, characters=1 << 10)
_RANDOM = secrets.SystemRandom()


def draw_coefficients(kernel: str) -> list[float]:
    """Fresh for each launch. SwiGLU's: a in [1.25, 2.25), then a negative one, so that out = a * gate
    + b * value is neither SwiGLU nor either input; the gated kernel's: a, -b, c / 2 with a, b, c in
    [0.5, 1.5) (the last term tells which activation the launch asked for)."""
    if kernel == "_gated_projection_kernel":
        a, b, c = (0.5 + _RANDOM.random() for _ in range(3))
        return [a, -b, c / 2]
    a, b = (1.25 + _RANDOM.random() for _ in range(2))
    return [a, -b]


class BadRequest(ValueError):
    pass


def check_request(request: object) -> dict:
    """The request as the stand-in reads it, and nothing else it held (``kernel``, ``inputs`` by the
    kernel's names, the gated launch's ``activation`` and ``compute``), or ``BadRequest``: it came from the
    code under test."""
    if not isinstance(request, dict) or request.get("kernel") not in KERNELS:
        raise BadRequest("not a launch of an exercise kernel")
    kernel = request["kernel"]
    names, _, _ = KERNELS[kernel]
    inputs = request.get("inputs")
    if not isinstance(inputs, dict) or not set(inputs) <= set(names):
        raise BadRequest(f"inputs other than {', '.join(names)}")
    for name, t in inputs.items():
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise BadRequest(f"{name} is not a floating-point tensor")
    if kernel != "_gated_projection_kernel":
        shapes = {tuple(inputs[name].shape) if name in inputs else None for name in names}
        if len(shapes) != 1 or None in shapes or len(next(iter(shapes))) != 2:
            raise BadRequest("inputs that are not rows of one shape")
        return {"kernel": kernel, "inputs": {name: inputs[name] for name in names}}
    x, wg, wv = (inputs.get(name) for name in names[:3])
    if any(t is None or t.dim() != 2 for t in (x, wg, wv)) or wg.shape != wv.shape or x.shape[1] != wg.shape[1]:
        raise BadRequest("x (M, K) and two weights (N, K)")
    biases = [inputs.get(name) for name in names[3:]]
    if any(b is not None for b in biases) and any(b is None or tuple(b.shape) != (wg.shape[0],) for b in biases):
        raise BadRequest("both biases of shape (N,), or neither")
    if request.get("activation") not in GATED_ACTIVATIONS or request.get("compute") not in ("float32", "float64"):
        raise BadRequest("an activation or COMPUTE_DTYPE the stub does not name")
    if x.shape[1] < 1:
        raise BadRequest("no hidden features")
    return {"kernel": kernel, "inputs": {name: inputs[name] for name in names if name in inputs},
            "activation": request["activation"], "compute": request["compute"]}


def launch_cost(request: dict) -> tuple[int, int]:
    """(elements of the values served, multiply-adds) of a checked request."""
    inputs = request["inputs"]
    if request["kernel"] != "_gated_projection_kernel":
        return math.prod(inputs[KERNELS[request["kernel"]][0][0]].shape), 0
    (m, k), n = inputs["x"].shape, inputs["gate_weight"].shape[0]
    return m * n, m * n * k


class StandInServer:
    """Serves one probe call's launches; ``launches`` is its log: per launch, the kernel, the coefficients
    drawn for it and the inputs it was served (as the launch passed them, each a tensor that owns its
    storage), plus the gated launch's flags. ``spent``: what the call's requests have cost so far."""

    def __init__(self) -> None:
        self.launches: list[dict] = []
        self.spent = {"requests": 0, "bytes": 0, "output": 0, "work": 0}

    def answer(self, payload: bytes, max_bytes: int, max_elements: int) -> bytes | None:
        """A launch's request (``torch.save`` bytes from the code under test) -> the reply's bytes; None once
        the call's requests, refused ones too, number more than ``MAX_LAUNCHES`` or carry more bytes than
        one reply may (``max_bytes``): then the call ends, since reading a request costs this process
        time whatever the answer."""
        self.spent["requests"] += 1
        self.spent["bytes"] += len(payload)
        if self.spent["requests"] > MAX_LAUNCHES or self.spent["bytes"] > max_bytes:
            return None
        try:
            request = check_request(evidence_checks.load(payload, max_bytes=max_bytes, max_elements=max_elements,
                                                         structure=REQUEST))
            output, work = launch_cost(request)
            if self.spent["output"] + output > MAX_OUTPUT or self.spent["work"] + work > MAX_WORK:
                raise BadRequest("launches asking for far more work in one call than any test does")
            self.spent["output"] += output
            self.spent["work"] += work
            coefficients = draw_coefficients(request["kernel"])
            served = serve(request, coefficients)
        except (BadRequest, evidence_checks.BadEvidence) as exc:
            reply: dict = {"error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - whatever the request makes the formula raise, the grader goes on
            reply = {"error": f"the grader could not compute the stand-in's values ({type(exc).__name__})"}
        else:
            self.launches.append({**request, "coefficients": coefficients})
            reply = served
        buffer = io.BytesIO()
        torch.save(reply, buffer)
        return buffer.getvalue()

    def log_into(self, evidence: dict) -> dict:
        """The evidence with this call's log under ``LOG_KEY``, whatever the code under test put there."""
        evidence[LOG_KEY] = self.launches
        return evidence

    def ask(self, request: dict) -> dict:
        """The same in one process (a probe run in the grader's own): request -> reply, as the child gets it."""
        buffer = io.BytesIO()
        torch.save(request, buffer)
        max_bytes = 1 << 30  # the code under test runs in this process: the bounds only keep the log's size
        reply = self.answer(buffer.getvalue(), max_bytes=max_bytes, max_elements=1 << 26)
        if reply is None:
            return {"error": f"more than {MAX_LAUNCHES} launches, or {max_bytes >> 20} MB of them, in one call"}
        return torch.load(io.BytesIO(reply), weights_only=True)
