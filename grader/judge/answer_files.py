"""The reference's recorded answers as text: one JSON file per task, ``tests/snapshots/<task>.json``.

A file is rewritten whole each time it is recorded, so no entry outlives the test that asked it, and a
review reads what changed: each entry names the tests that asked it (``asked_by``), the question in words
(the probe and its arguments, a tensor by its dtype and shape), and the answer, one tensor a line::

    "3f2a...": {
     "asked_by": ["tests/test_cost.py::test_param_count[MLP]"],
     "exercise": "mlp_cost",
     "probe": "cost_function",
     "question": {"function": "mlp_param_count", "kwargs": {"bias": true, ...}},
     "answer": {"value": 4, "type": "int", ...}
    }

A tensor is ``{"tensor": dtype, "shape": [...], "values": [...]}``, its values flat: JSON's numbers hold
a float64 exactly (Python writes the shortest text that reads back the same float), and every float32,
float16 or bfloat16 value is one of those.

Recorded again, an entry whose answer differs from the file's only in float64 rounding keeps the file's text
(``steadied``): the reference's float64 arithmetic differs in its last bits between CPUs (the kernels a BLAS
picks), and a diff of a recording must show what changed, not which machine recorded it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import torch

from grader.paths import REPO

TENSOR = "tensor"  # the key that marks an encoded tensor: no answer's own dict may use it
# How far a float64 answer may move and still be the same answer, of its tensor's largest value: about nine
# float64 roundings, four times what two CPUs' sums here differed by (4.5e-16). No looser: a kept output of a known
# mistake is judged at a thousand times its distance (NEARER in grader/judge/block_evidence.py), and moved by
# 3e-14 the mistake nearest the reference (tanh GELU with sqrt(2/pi) cut to 8 digits) was no longer named on
# some of 300 seeds.
ROUNDING = 2e-15


class AnswerFileError(ValueError):
    """An answer that this format cannot hold, or a file that is not one of its files."""


def encode(value, where: str = "answer"):
    """``value`` (evidence: tensors, numbers, text, lists, dicts with text keys) as plain JSON data."""
    if isinstance(value, torch.Tensor):
        flat = value.detach().cpu().contiguous().reshape(-1)
        return {TENSOR: str(flat.dtype).removeprefix("torch."), "shape": list(value.shape), "values": flat.tolist()}
    if isinstance(value, dict):
        bad = [k for k in value if not isinstance(k, str) or k == TENSOR]
        if bad:
            raise AnswerFileError(f"{where}: the key {bad[0]!r} cannot be written (keys are text, never {TENSOR!r})")
        return {k: encode(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise AnswerFileError(f"{where}: a {type(value).__name__} cannot be written as an answer")


def decode(value):
    """The inverse of ``encode``: tensors back as tensors, lists as lists."""
    if isinstance(value, dict):
        if TENSOR in value:
            dtype = getattr(torch, value[TENSOR])
            return torch.tensor(value["values"], dtype=dtype).reshape(value["shape"])
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def same_answer(new, old) -> bool:
    """Whether two encoded answers are the same but for float64 rounding: everything else (shapes, dtypes,
    text, numbers of any other dtype) exactly equal."""
    if isinstance(new, dict) and isinstance(old, dict):
        if TENSOR in new and new.get(TENSOR) == "float64" and old.get(TENSOR) == "float64":
            if new["shape"] != old["shape"] or len(new["values"]) != len(old["values"]):
                return False
            a, b = (torch.tensor(v["values"], dtype=torch.float64) for v in (new, old))
            finite = a.isfinite()
            if not torch.equal(finite, b.isfinite()) or not torch.equal(a[~finite].nan_to_num(), b[~finite].nan_to_num()):
                return False  # an infinity or NaN is the same only where the other has the same one
            scale = float(b[finite].abs().max()) if bool(finite.any()) else 0.0
            return bool(((a[finite] - b[finite]).abs() <= ROUNDING * scale).all())
        return new.keys() == old.keys() and all(same_answer(new[k], old[k]) for k in new)
    if isinstance(new, list) and isinstance(old, list):
        return len(new) == len(old) and all(same_answer(a, b) for a, b in zip(new, old))
    return type(new) is type(old) and new == old


def steady(new, old):
    """``new``, with ``old``'s text kept for every part of it that is the same answer (``same_answer``): an entry
    whose answer changed in one part (one output of several) shows that part's change alone."""
    if same_answer(new, old):
        return old
    if isinstance(new, dict) and isinstance(old, dict) and TENSOR not in new:
        return {k: steady(v, old[k]) if k in old else v for k, v in new.items()}
    if isinstance(new, list) and isinstance(old, list) and len(new) == len(old):
        return [steady(a, b) for a, b in zip(new, old)]
    return new


def steadied(new: dict, old: dict) -> dict:
    """``new`` (a recorded file's data), each entry's answer (an answer's "answer", a mistakes entry's
    "mistakes") steadied against ``old``'s (``steady``); which entries there are, and who asked them, are
    ``new``'s alone, so nothing stale survives."""
    kept = dict(new)
    for section, field in (("answers", "answer"), ("mistakes", "mistakes")):
        entries, before = dict(new.get(section, {})), old.get(section, {})
        for key, entry in entries.items():
            was = before.get(key)
            if isinstance(was, dict) and field in was and field in entry:
                entries[key] = {**entry, field: steady(entry[field], was[field])}
        kept[section] = entries
    return kept


def described(value):
    """A question's arguments for a reader: tensors by dtype and shape, the rest as it is."""
    if isinstance(value, torch.Tensor):
        return f"tensor({str(value.dtype).removeprefix('torch.')}, {list(value.shape)})"
    if isinstance(value, dict):
        return {str(k): described(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [described(v) for v in value]
    return value if value is None or isinstance(value, (bool, int, float, str)) else repr(value)


def _text(value, depth: int) -> str:
    """JSON with a line per dict entry down to the tensors, each tensor (and each list of plain values) on one."""
    if isinstance(value, dict) and value and TENSOR not in value:
        pad = " " * (depth + 1)
        inner = ",\n".join(f"{pad}{json.dumps(k)}: {_text(v, depth + 1)}" for k, v in value.items())
        return "{\n" + inner + "\n" + " " * depth + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        pad = " " * (depth + 1)
        return "[\n" + ",\n".join(pad + _text(v, depth + 1) for v in value) + "\n" + " " * depth + "]"
    return json.dumps(value)


def write(path: Path, data: dict) -> None:
    """``data`` (already encoded) into ``path``, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_text(data, 0) + "\n")


def read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise AnswerFileError(f"{path.name}: not a file of recorded answers ({exc})") from None


def steadied_file(made: Path, target: Path) -> dict:
    """The new recording ``made``, steadied (float64 rounding of another CPU is no change:
    ``answer_files.steadied``) against the file it replaces and then against that file as last committed, so
    that a change recorded and then undone leaves no diff; whole where neither is readable (a merge's conflict
    markers: recording is the remedy) or of this format and seed."""
    data = read(made)
    for old in (target.read_text() if target.is_file() else None, committed_text(target)):
        try:
            old = json.loads(old) if old is not None else None
        except ValueError:
            old = None
        if isinstance(old, dict) and (old.get("format"), old.get("seed")) == (data.get("format"), data.get("seed")):
            data = steadied(data, old)
    return data


def readable(path: Path) -> dict | None:
    """An answer file's data, or None where there is none to read (a merge's conflict markers, no file)."""
    try:
        return read(path) if path.is_file() else None
    except AnswerFileError:
        return None


def committed_text(path: Path) -> str | None:
    """``path`` as git's HEAD holds it, or None (no git, no commit, a file outside this checkout or never committed)."""
    try:
        relative = path.resolve().relative_to(REPO)
        shown = subprocess.run(["git", "show", f"HEAD:{relative.as_posix()}"], cwd=REPO, capture_output=True, text=True,
                               timeout=30)
    except (ValueError, OSError, subprocess.SubprocessError):
        return None
    return shown.stdout if shown.returncode == 0 else None
