"""The reference's answers, recorded, so the suites run where the reference is not shipped.

The graded suites compare the code under test with the ``reference`` fixture, which answers two
kinds of question for data the tests pick: a probe's evidence (outputs, gradients, parameter
counts, FLOPs) and the outputs of known mistakes (``reference.mistakes``, for the hints). Where
``solution/hidden/`` is present (instructors, CI, the grader) they are computed live. The student
release has no ``solution/``: there they come from ``tests/snapshots/<task>.json``, one readable file
per task (``grader/judge/answer_files.py``), recorded from the reference on the data of ``--seed 0``
(the snapshot pattern: golden outputs stored per input). A test reads only its own task's file, and the
known mistakes' hints from ``tests/snapshots/hints.json``, where each is written once (``answer_hints.py``).

Record them again after changing the reference or the tests' data, where ``solution/`` is present::

    python -m grader.judge.snapshot              # every task's file, rewritten whole
    python -m grader.judge.snapshot --task cost  # one task's

Recording runs the suites twice, on the reference and on the stubs, and refuses a test that asks the
reference a question on the stubs that it did not ask on the reference: the release has only the answers
to the reference's run, so a test must ask the same questions whatever the code under test answers.

``python -m selfcheck`` fails when the snapshot and the live reference disagree.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from grader.backend import Backend
from grader.paths import (HINTS_NAME, KNOWN_MISTAKES, REPO, SNAPSHOT_SEED, SNAPSHOTS, answer_file, display_path, hints_file,
                          launch_code_file, reference_file, reference_present)
from grader.judge import answer_files, answer_hints
from grader.judge.seam import LocalBackend, Reference
from grader.tasks import TASK_NAMES

# 3: each known mistake with its cause and whether it is in __init__; 4: one JSON file per task; 5: the hints in
# hints.json, once (grader/judge/answer_hints.py)
FORMAT = "mlp-block-reference-answers/5"
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

    def known(self):
        """The reference's list of known mistakes (solution/hidden/known_mistakes.py), loaded once."""
        if self._mistakes is None:
            from grader.probes import load_module

            self._mistakes = load_module(str(KNOWN_MISTAKES), "_reference_known_mistakes")
        return self._mistakes

    def knows_mistakes(self, block_name: str) -> bool:
        """Whether the reference names mistakes of ``block_name`` (its BLOCKS): the recorder asks for those only."""
        return block_name in getattr(self.known(), "BLOCKS", ())

    def mistakes(self, block_name: str, weights: dict, x: torch.Tensor, activation: str | None) -> list:
        from grader.probes.activations import ACTIVATIONS

        return self.known().known_mistakes(block_name, weights, x, activation, ACTIVATIONS[activation or "gelu"])


class RecordingReference(LiveReference):
    """The live reference, writing down every answer it gives, under the task and test that asked it
    (``python -m grader.judge.snapshot``). ``task`` and ``asking`` are set before each test (tests/conftest.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.task, self.asking = "", ""
        self.answers: dict[str, dict[str, dict]] = {}  # task -> key -> entry
        self.mistake_outputs: dict[str, dict[str, dict]] = {}

    def _entry(self, table: dict, key: str, make) -> None:
        entries = table.setdefault(self.task, {})
        if key not in entries:
            entries[key] = {"asked_by": [], **make()}
        if self.asking not in entries[key]["asked_by"]:
            entries[key]["asked_by"].append(self.asking)

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        evidence = super().call(exercise, probe_name, **kwargs)
        kept = {k: v for k, v in evidence.items() if k not in UNUSED_EVIDENCE}
        asked = {k: v for k, v in kwargs.items() if k not in IGNORED_ARGUMENTS}
        self._entry(self.answers, probe_key(exercise, probe_name, kwargs),
                    lambda: {"exercise": exercise, "probe": probe_name, "question": answer_files.described(asked),
                             "answer": answer_files.encode(_detached(kept))})
        if probe_name == "run_block" and kwargs["x"].dtype == torch.float64 and self.knows_mistakes(kwargs["cls_name"]):
            # Record the mistakes for every float64 block run, not only those a wrong submission
            # happens to reach: in the release, any wrong block meets the same data.
            from grader.judge.checks import diagnosis_input

            activation = kwargs["ctor"].get("activation")
            self.mistakes(kwargs["cls_name"], kwargs["state_dict"], diagnosis_input(kwargs["x"]), activation)
        return evidence

    def mistakes(self, block_name: str, weights: dict, x: torch.Tensor, activation: str | None) -> list:
        found = super().mistakes(block_name, weights, x, activation)
        inputs = {"block_name": block_name, "weights": weights, "x": x, "activation": activation}
        self._entry(self.mistake_outputs, mistakes_key(block_name, weights, x, activation),
                    lambda: {"inputs": answer_files.encode(_detached(inputs)),
                             "mistakes": answer_files.encode([[cause, output.detach().clone(), in_init]  # hints: hints.json
                                                              for cause, _, output, in_init in found])})
        return found

    def save(self, folder: Path, tasks: list[str]) -> None:
        """Each of ``tasks``' answer files, written whole (a task whose tests asked nothing gets an empty one)."""
        for task in tasks:
            answer_files.write(answer_file(task, folder), {
                "format": FORMAT, "seed": SNAPSHOT_SEED, "task": task,
                "answers": dict(sorted(self.answers.get(task, {}).items())),
                "mistakes": dict(sorted(self.mistake_outputs.get(task, {}).items()))})


class SnapshotReference(Backend):
    """The reference's recorded answers (the student release): each test's from its own task's file."""

    def __init__(self, folder: Path = SNAPSHOTS) -> None:
        if not folder.is_dir() or not any(folder.glob("*.json")):
            raise pytest.UsageError(f"no reference to compare with: neither solution/hidden/ nor the recorded answers"
                                    f" {display_path(folder)}/<task>.json are here")
        self.folder = folder
        self.task = ""
        self._files: dict[str, dict] = {}
        self._hints: dict | None = None

    def _file(self, task: str) -> dict:
        if task not in self._files:
            path = answer_file(task, self.folder)
            if not path.is_file():
                pytest.fail(f"no recorded answers for task {task or '(none)'}: {display_path(path)} is not here"
                            f" (`{REGENERATE} --task {task}` where solution/ is present)", pytrace=False)
            try:
                data = answer_files.read(path)
            except answer_files.AnswerFileError as exc:
                raise pytest.UsageError(str(exc)) from None
            if data.get("format") != FORMAT:
                raise pytest.UsageError(f"{path.name} is not a file of recorded answers of this version"
                                        f" ({data.get('format')})")
            self._files[task] = data
        return self._files[task]

    def describe(self, exercise: str) -> str:
        return f"the recorded reference for {exercise}"

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        found = self._file(self.task)["answers"].get(probe_key(exercise, probe_name, kwargs))
        if found is None:
            pytest.fail(f"the recorded answers have no answer for this test's data: they hold --seed"
                        f" {SNAPSHOT_SEED} only, and the tests' data or the answers changed since they were"
                        f" recorded (`{REGENERATE} --task {self.task}` where solution/ is present)", pytrace=False)
        return answer_files.decode(found["answer"])  # a new copy each time: the tests add to what they get

    def mistakes(self, block_name: str, weights: dict, x: torch.Tensor, activation: str | None) -> list:
        # No entry only means no named mistake: diagnose then gives its general hint.
        found = self._file(self.task)["mistakes"].get(mistakes_key(block_name, weights, x, activation))
        if found is None:
            return []
        if self._hints is None:
            try:
                self._hints = answer_hints.read(hints_file(self.folder))
            except answer_hints.HintsError as exc:
                raise pytest.UsageError(f"{exc} (`{REGENERATE}` where solution/ is present)") from None
        joined = answer_hints.joined(answer_files.decode(found["mistakes"]), self._hints, block_name, activation)
        if joined is None:
            pytest.fail(f"the recorded hints ({display_path(hints_file(self.folder))}) lack a mistake of {block_name} that"
                        f" {self.task}'s answers hold (`{REGENERATE} --task {self.task}` where solution/ is present)",
                        pytrace=False)
        return joined


def triton_launch_code(exercise: str) -> Path:
    """The file ``exercise``'s kernel tests take their trusted launch code from."""
    reference = reference_file(exercise)
    return reference if reference.is_file() else launch_code_file(exercise)


def record(tasks: list[str] | None = None, folder: Path = SNAPSHOTS) -> int:
    """Run ``tasks``' suites (None: every task's) on the reference, recording its answers, then on the stubs,
    refusing a test that asks there what it did not ask on the reference. The files go into ``folder`` only
    when both runs pass: a refused recording leaves the files as they were."""
    import os
    import tempfile

    chosen = tasks or list(TASK_NAMES)
    base = [sys.executable, "-m", "pytest", str(REPO / "tests"), f"--seed={SNAPSHOT_SEED}", "-q", "-p", "no:cacheprovider",
            "-m", " or ".join(chosen)]
    with tempfile.TemporaryDirectory() as tmp:
        made, report = Path(tmp) / "answers", Path(tmp) / "refused.json"
        code = subprocess.call([*base, "--target=reference", f"--reference={RECORD_PREFIX}{made}"], cwd=REPO)
        if code != 0:
            return code
        # The same questions whatever the code under test answers: on the stubs, every question must be one the
        # reference's run asked (the stubs stop early, so they ask fewer).
        subprocess.call([*base, "--target=exercises", f"--reference={AUDIT_PREFIX}{made}"], cwd=REPO,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, AUDIT_REPORT_ENV: str(report)})
        refused = json.loads(report.read_text()) if report.is_file() else None
        if refused is None:
            print("refused: the run on the stubs did not finish, so the answers' questions were not checked",
                  file=sys.stderr)
            return 1
        if refused:
            lines = "\n".join(f"  {test}: asked {question}" for test, question in sorted(refused.items()))
            print(f"refused: these tests asked the reference, on the stubs, questions they did not ask on the reference;"
                  f" the student release could not answer them. Ask the reference the same questions whatever the"
                  f" code under test returns (nothing was written):\n{lines}", file=sys.stderr)
            return 1
        # Every file's data first, then the writes: nothing is written where one of them cannot be made.
        written = {folder / path.name: answer_files.steadied_file(path, folder / path.name)
                   for path in sorted(made.glob("*.json"))}
        # The hints of every task's mistakes, those not recorded now included.
        kept = [data for task in TASK_NAMES if answer_file(task, folder) not in written
                for data in [answer_files.readable(answer_file(task, folder))] if data]
        try:
            written[hints_file(folder)] = answer_hints.made([*written.values(), *kept], LiveReference().mistakes)
        except answer_hints.HintsError as exc:
            print(f"refused: {exc} (nothing was written)", file=sys.stderr)
            return 1
        folder.mkdir(parents=True, exist_ok=True)
        for target, data in written.items():
            answer_files.write(target, data)
    return 0


AUDIT_REPORT_ENV = "GRADER_ANSWERS_AUDIT"  # where the run on the stubs writes the tests it refused (JSON)


class AuditingReference(SnapshotReference):
    """The recorded answers, noting every test that asks a question its task's file does not hold (a test whose
    questions depend on what the code under test returns), answered live so that the run goes on."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.asking = ""
        self.refused: dict[str, str] = {}
        self.live = LiveReference()

    def call(self, exercise: str, probe_name: str, **kwargs) -> dict:
        if probe_key(exercise, probe_name, kwargs) not in self._file(self.task)["answers"]:
            self.refused.setdefault(self.asking, f"{exercise}'s {probe_name}")
            return self.live.call(exercise, probe_name, **kwargs)
        return super().call(exercise, probe_name, **kwargs)

    def save_report(self) -> None:
        import json
        import os

        Path(os.environ[AUDIT_REPORT_ENV]).write_text(json.dumps(self.refused))


# -------------------------------------------------------------------------- which one the tests get

REFERENCE_MODES = ("auto", "live", "snapshot")
RECORD_PREFIX = "record:"  # record:FOLDER, the recorder's run on the reference
AUDIT_PREFIX = "audit:"  # audit:FOLDER, its run on the stubs


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
    if mode.startswith(AUDIT_PREFIX):
        return Reference(AuditingReference(Path(mode[len(AUDIT_PREFIX):])))
    check_reference_available(mode, seed)
    if uses_snapshot(mode):
        return Reference(SnapshotReference())
    return Reference(LiveReference())


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=REGENERATE, description="Record the reference's answers into"
                                     f" {display_path(SNAPSHOTS)}/<task>.json, each file rewritten whole: the task's"
                                     f" suites run on the reference, --seed {SNAPSHOT_SEED}, then on the stubs (a test"
                                     " that asks other questions there is refused, by name).")
    parser.add_argument("--task", action="append", choices=TASK_NAMES, help="only this task's file (repeat for more)")
    args = parser.parse_args(argv)
    if not reference_present():
        parser.error("recording needs the reference (solution/hidden/): this is the student release")
    code = record(args.task)
    tasks = args.task or list(TASK_NAMES)
    if code == 0 and not args.task:  # a file of a task no longer in the registry would never be read again
        for stale in SNAPSHOTS.glob("*.json"):
            if stale.stem not in (*TASK_NAMES, HINTS_NAME):
                stale.unlink()
    print(f"wrote {', '.join(display_path(p) for p in [*map(answer_file, tasks), hints_file()])}" if code == 0 else
          f"recording failed (pytest exit {code})")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
