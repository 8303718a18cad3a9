"""The known mistakes' hints in the recorded answers: one file, ``tests/snapshots/hints.json``, for every task.

A task's answer file holds each known mistake's cause and output for the data its tests asked about; the words a
student reads for that cause live here, once per block, activation and cause::

    {"format": "mlp-block-mistake-hints/1",
     "hints": {"GLU": {"no biases": "the output is the block's without biases: ...",
                       "hard-coded ReLU": {"silu": "the output uses ReLU although activation_fn=silu ...", ...}}}}

(a hint that names the activation asked for, one per activation), so that a hint reworded in
``solution/hidden/known_mistakes.py`` is one line of this file per block (and per activation where it names it), however
many tests and tasks meet that mistake (GLU's are asked by the GLU suite and by the SwiGLU block's). Recording writes it whole
from the reference, for the mistakes every task file holds (``made``), so no hint outlives its mistake.
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.judge import answer_files

FORMAT = "mlp-block-mistake-hints/1"
NO_ACTIVATION = "none given"  # the key of a block built without activation_fn (no activation's name has a space)


class HintsError(ValueError):
    """A hints file that cannot be read, or a hint that cannot be written once."""


def activation_key(activation: str | None) -> str:
    return NO_ACTIVATION if activation is None else activation


def made(task_files: list[dict], mistakes) -> dict:
    """The hints file's data for the mistakes entries of ``task_files`` (answer files' data), each entry's
    hints asked of ``mistakes(block_name, weights, x, activation)`` (the live reference's), on its inputs."""
    hints: dict[str, dict[str, dict[str, str]]] = {}  # block -> cause -> activation key -> hint
    for data in task_files:
        for entry in data.get("mistakes", {}).values():
            inputs = answer_files.decode(entry["inputs"])
            block, activation = inputs["block_name"], inputs["activation"]
            for cause, hint, *_ in mistakes(block, inputs["weights"], inputs["x"], activation):
                table = hints.setdefault(block, {}).setdefault(cause, {})
                if table.setdefault(activation_key(activation), hint) != hint:
                    raise HintsError(f"{block}'s mistake {cause!r} (activation {activation_key(activation)}) has two"
                                     f" hints, {table[activation_key(activation)]!r} and {hint!r}: a hint may depend on"
                                     " the block, the activation and the cause only, so that the release holds it once")
    return {"format": FORMAT, "hints": {block: {cause: once(by_act) for cause, by_act in sorted(causes.items())}
                                        for block, causes in sorted(hints.items())}}


def once(by_activation: dict[str, str]) -> str | dict[str, str]:
    """A cause's hints: one text where every activation gets the same, else the text of each."""
    texts = set(by_activation.values())
    return texts.pop() if len(texts) == 1 else dict(sorted(by_activation.items()))


def read(path: Path) -> dict[str, dict[str, str | dict[str, str]]]:
    """The hints by block and cause (and activation key, where they name it)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise HintsError(f"{path.name}: not a file of recorded hints ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("hints"), dict):
        raise HintsError(f"{path.name} is not a file of recorded hints of this version ({FORMAT})")
    return data["hints"]


def joined(entry: list, hints: dict, block: str, activation: str | None) -> list | None:
    """An answer file's mistakes (``[cause, output, in_init]`` each, decoded) as the reference gives them,
    ``(cause, hint, output, in_init)``; None where ``hints`` lacks one of them."""
    found = []
    for cause, output, in_init in entry:
        hint = hints.get(block, {}).get(cause)
        if isinstance(hint, dict):  # a hint that names the activation: this activation's
            hint = hint.get(activation_key(activation))
        if hint is None:
            return None
        found.append((cause, hint, output, in_init))
    return found
