"""The reference's answers, recorded, so the suites run where the reference is not shipped.

The graded suites compare the code under test with the ``reference`` fixture, which answers two
kinds of question for data the tests pick: a probe's evidence (outputs, gradients, parameter
counts, FLOPs) and the outputs of known mistakes (``reference.mistakes``, for the hints). Where
``solution/hidden/`` is present (instructors, CI, the grader) they are computed live. The student
release has no ``solution/``: there they come from ``tests/snapshots/reference.pt``, recorded from
the reference on the data of ``--seed 0`` (the snapshot pattern: golden outputs stored per input).

Regenerate the snapshot after changing the reference or the tests' data, where ``solution/`` is
present::

    python -m grader.judge.snapshot

``python -m selfcheck`` fails when the snapshot and the live reference disagree.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from grader.backend import Backend
from grader.paths import (KNOWN_MISTAKES, REPO, SNAPSHOT, SNAPSHOT_SEED, launch_code_file, reference_file,
                          reference_present)
from grader.judge.seam import LocalBackend, Reference

FORMAT = "mlp-block-reference-snapshot/3"  # 2: each known mistake with its cause; 3: and whether it is in __init__
REGENERATE = "python -m grader.judge.snapshot"

# What the code under test reports about itself (its input before and after the call): the tests
# never ask the reference for it, and it would be most of the snapshot's size.
UNUSED_EVIDENCE = frozenset({"x_before", "x_after"})

# Arguments that do not change the reference's answer: the snapshot was recorded on the CPU, and
# float64 results from another device agree far inside the tests' tolerances.
IGNORED_ARGUMENTS = frozenset({"device"})


def _canonical(value, out: list) -> None:
    """Append a canonical text form of ``value`` to ``out``: equal data, equal text."""
    if isinstance(value, torch.Tensor):
        flat = value.detach().cpu().contiguous().reshape(-1)
        digest = hashlib.sha256(flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b"").hexdigest()
        out.append(f"tensor({value.dtype},{list(value.shape)},{digest})")
    elif isinstance(value, dict):
        out.append("{")
        for key in sorted(value, key=str):
            out.append(repr(key))
            _canonical(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for item in value:
            _canonical(item, out)
        out.append("]")
    else:
        out.append(repr(value))


def key(*parts) -> str:
    """The snapshot's key for a question: a digest of its kind and all of its data."""
    out: list = []
    _canonical(parts, out)
    return hashlib.sha256("\x00".join(out).encode()).hexdigest()[:32]


def probe_key(exercise: str, probe_name: str, kwargs: dict) -> str:
    return key("probe", exercise, probe_name, {k: v for k, v in kwargs.items() if k not in IGNORED_ARGUMENTS})


def mistakes_key(block_name: str, weights: dict, x: torch.Tensor, activation: str | None) -> str:
    return key("mistakes", block_name, weights, x, activation)


def _detached(value):
    """A copy to store: tensors cut from whatever larger storage they view, nothing else changed."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().clone()
    if isinstance(value, dict):
        return {k: _detached(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_detached(v) for v in value]
    return value


# -------------------------------------------------------------------------- the three backends

class LiveReference(Backend):
    """The instructor's reference, run in this process, and its known mistakes."""

    def __init__(self) -> None:
        self.local = LocalBackend("reference")
        self._mistakes = None

    def describe(self, exercise: str) -> str:
        return self.local.describe(exercise)

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        return self.local.call(exercise, probe_name, **kwargs)

    def mistakes(self, block_name: str, weights: dict, x: torch.Tensor, activation: str | None) -> list:
        if self._mistakes is None:
            from grader.probes import load_module

            self._mistakes = load_module(str(KNOWN_MISTAKES),
                                         "_reference_known_mistakes")
        from grader.probes.activations import ACTIVATIONS

        return self._mistakes.known_mistakes(block_name, weights, x, activation, ACTIVATIONS[activation or "gelu"])


class RecordingReference(LiveReference):
    """The live reference, writing down every answer it gives (``python -m grader.judge.snapshot``)."""

    def __init__(self) -> None:
        super().__init__()
        self.probes: dict[str, dict] = {}
        self.mistake_outputs: dict[str, list] = {}

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        evidence = super().call(exercise, probe_name, **kwargs)
        kept = {k: v for k, v in evidence.items() if k not in UNUSED_EVIDENCE}
        self.probes[probe_key(exercise, probe_name, kwargs)] = _detached(kept)
        if exercise == "mlp_block" and probe_name == "run_block" and kwargs["x"].dtype == torch.float64:
            # Record the mistakes for every float64 block run, not only those a wrong submission
            # happens to reach: in the release, any wrong block meets the same data.
            from grader.judge.checks import diagnosis_input

            activation = kwargs["ctor"].get("activation")
            self.mistakes(kwargs["cls_name"], kwargs["state_dict"], diagnosis_input(kwargs["x"]), activation)
        return evidence

    def mistakes(self, block_name: str, weights: dict, x: torch.Tensor, activation: str | None) -> list:
        found = super().mistakes(block_name, weights, x, activation)
        self.mistake_outputs[mistakes_key(block_name, weights, x, activation)] = {
            "inputs": _detached({"block_name": block_name, "weights": weights, "x": x, "activation": activation}),
            "mistakes": [[cause, hint, output.detach().clone(), in_init] for cause, hint, output, in_init in found]}
        return found

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"format": FORMAT, "seed": SNAPSHOT_SEED, "probes": dict(sorted(self.probes.items())),
                    "mistakes": dict(sorted(self.mistake_outputs.items()))}, path)


class SnapshotReference(Backend):
    """The reference's recorded answers (the student release)."""

    def __init__(self, path: Path = SNAPSHOT) -> None:
        if not path.is_file():
            raise pytest.UsageError(f"no reference to compare with: neither solution/hidden/ nor the snapshot"
                                    f" {path.relative_to(REPO) if path.is_relative_to(REPO) else path} is here")
        data = torch.load(path, weights_only=True)
        if data.get("format") != FORMAT:
            raise pytest.UsageError(f"{path.name} is not a reference snapshot of this version ({data.get('format')})")
        self.probes, self.mistake_outputs = data["probes"], data["mistakes"]

    def describe(self, exercise: str) -> str:
        return f"the recorded reference for {exercise}"

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        found = self.probes.get(probe_key(exercise, probe_name, kwargs))
        if found is None:
            pytest.fail(f"the reference snapshot has no answer for this test's data: it holds --seed"
                        f" {SNAPSHOT_SEED} only, and the tests' data or the snapshot changed since it was"
                        f" recorded (`{REGENERATE}` where solution/ is present)", pytrace=False)
        return dict(found)  # the tests add to the evidence they get: keep the recorded entry as it was

    def mistakes(self, block_name: str, weights: dict, x: torch.Tensor, activation: str | None) -> list:
        # No entry only means no named mistake: diagnose then gives its general hint.
        found = self.mistake_outputs.get(mistakes_key(block_name, weights, x, activation))
        return [] if found is None else found["mistakes"]


def triton_launch_code(exercise: str) -> Path:
    """The file ``exercise``'s kernel tests take their trusted launch code from."""
    reference = reference_file(exercise)
    return reference if reference.is_file() else launch_code_file(exercise)


def record(path: Path = SNAPSHOT) -> int:
    """Run every graded suite on the reference, recording its answers into ``path``."""
    command = [sys.executable, "-m", "pytest", str(REPO / "tests"), "--target=reference", f"--seed={SNAPSHOT_SEED}",
               f"--reference=record:{path}", "-q", "-p", "no:cacheprovider"]
    return subprocess.call(command, cwd=REPO)



# -------------------------------------------------------------------------- which one the tests get

REFERENCE_MODES = ("auto", "live", "snapshot")
RECORD_PREFIX = "record:"


def uses_snapshot(mode: str) -> bool:
    return mode == "snapshot" or (mode == "auto" and not reference_present())


def check_reference_available(mode: str, seed: int) -> None:
    if uses_snapshot(mode) and seed != SNAPSHOT_SEED:
        raise pytest.UsageError(f"--seed {seed} needs the reference itself (solution/hidden/), which is not here:"
                                f" its recorded answers are for --seed {SNAPSHOT_SEED} only")


def make_reference(mode: str, seed: int) -> Reference:
    """The reference for ``--reference``: live where solution/hidden/ is present, else the snapshot."""
    if mode.startswith(RECORD_PREFIX):
        return Reference(RecordingReference())
    check_reference_available(mode, seed)
    if uses_snapshot(mode):
        return Reference(SnapshotReference())
    return Reference(LiveReference())


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(prog=REGENERATE, description="Record the reference's answers into"
                            f" {SNAPSHOT.relative_to(REPO)}: every graded suite run on the reference, --seed"
                            f" {SNAPSHOT_SEED}.").parse_args()
    code = record()
    print(f"wrote {SNAPSHOT.relative_to(REPO)}" if code == 0 else f"recording failed (pytest exit {code})")
    raise SystemExit(code)
