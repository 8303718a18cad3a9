"""Evidence from the child is hostile input: check its size and shape before anything computes on it.

The child runs submission code, so what it sends back may be anything a ``torch.save`` can hold,
crafted to cost the grader's own process memory or time: a compressed archive entry that inflates
to gigabytes, a stride-0 view whose few stored bytes stand for 10^10 elements, deep nesting, huge
strings. ``load`` refuses all of that before ``torch.load`` builds a single tensor, and then bounds
what was built against what the probe was asked for (the request's tensors), so that the tests'
comparisons on it cost about what they cost on honest evidence.
"""

from __future__ import annotations

import io
import zipfile

import torch

from grader.probes.errors import from_child
from grader.probes.safe_text import printable

ALLOWED_DTYPES = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool,
                            torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64})
MAX_ENTRIES = 4096        # archive members (one per tensor storage, plus a few)
MAX_ITEMS = 20_000        # values in the evidence, all levels together
MAX_DEPTH = 12
MAX_STRING = 4096         # characters in one string; messages are cut to far less by the probes
MAX_DIMS = 8
MIN_ELEMENT_ALLOWANCE = 1 << 20  # elements any evidence may hold, whatever the request was


class BadEvidence(ValueError):
    """The reply is not evidence the grader will look at; the message says why, in a few words."""


def element_allowance(request: object) -> int:
    """How many elements the evidence may hold in all: a few times what the probe was given."""
    return max(MIN_ELEMENT_ALLOWANCE, 8 * _request_elements(request, 0))


def _request_elements(value: object, depth: int) -> int:
    if depth > MAX_DEPTH:
        return 0
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, dict):
        return sum(_request_elements(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_request_elements(v, depth + 1) for v in value)
    return 0


def check_archive(payload: bytes, max_bytes: int) -> None:
    """A torch.save archive whose members are stored, not compressed, and add up to at most max_bytes."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(payload))
        members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise BadEvidence(f"not a torch.save archive ({type(exc).__name__})") from None
    if len(members) > MAX_ENTRIES:
        raise BadEvidence(f"{len(members)} archive members (at most {MAX_ENTRIES})")
    total = 0
    for info in members:
        # torch.save never compresses; a compressed member only serves to inflate in the grader.
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            raise BadEvidence(f"compressed archive member {info.filename[:60]!r}")
        total += info.file_size
    if total > max_bytes:
        raise BadEvidence(f"{total >> 20} MB once unpacked (at most {max_bytes >> 20} MB)")


def load(payload: bytes, *, max_bytes: int, max_elements: int) -> object:
    """Check the archive, load it as plain data, and check every value in it."""
    check_archive(payload, max_bytes)
    try:
        evidence = torch.load(io.BytesIO(payload), weights_only=True, map_location="cpu")
    except Exception as exc:  # never unpickle anything but plain data from the child
        raise BadEvidence(f"not plain evidence ({type(exc).__name__})") from None
    budget = {"items": MAX_ITEMS, "elements": max_elements}
    return _checked(evidence, 0, budget)


def _checked(value: object, depth: int, budget: dict) -> object:
    budget["items"] -= 1
    if budget["items"] < 0:
        raise BadEvidence(f"more than {MAX_ITEMS} values")
    if depth > MAX_DEPTH:
        raise BadEvidence(f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise BadEvidence(f"a string of {len(value)} characters")
        return printable(value)
    if isinstance(value, torch.Tensor):
        _check_tensor(value, budget)
        return value
    if isinstance(value, dict):
        checked = {}
        for key, item in value.items():
            if not isinstance(key, (str, int)):
                raise BadEvidence(f"a {type(key).__name__} as a dict key")
            checked[_checked(key, depth + 1, budget)] = _checked(item, depth + 1, budget)
        if "error" in checked:  # error evidence, wherever it sits: its own fields, as the grader believes them
            checked["error"] = from_child(checked["error"])
        return checked
    if isinstance(value, (list, tuple)):
        return type(value)(_checked(item, depth + 1, budget) for item in value)
    raise BadEvidence(f"a {type(value).__name__}")


def _check_tensor(t: torch.Tensor, budget: dict) -> None:
    if t.layout != torch.strided or t.is_quantized or t.is_nested:
        raise BadEvidence(f"a tensor with layout {t.layout}")
    if t.dtype not in ALLOWED_DTYPES:
        raise BadEvidence(f"a tensor of dtype {t.dtype}")
    if t.dim() > MAX_DIMS or any(s < 0 for s in t.stride()):
        raise BadEvidence(f"a tensor of {t.dim()} dimensions, strides {tuple(t.stride())[:MAX_DIMS]}")
    budget["elements"] -= t.numel()
    if budget["elements"] < 0:
        raise BadEvidence("more tensor elements than the probe could have produced from its inputs")
    if t.numel() == 0:
        return
    # Every element must have bytes of its own: a stride-0 or overlapping view would make the
    # grader's comparisons touch far more elements than were ever sent.
    extent = 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))  # elements from the first to the last
    if extent < t.numel():
        raise BadEvidence(f"a tensor view whose {t.numel()} elements share {extent} stored ones")
    if t.storage_offset() + extent > t.untyped_storage().nbytes() // t.element_size():
        raise BadEvidence("a tensor reaching past its storage")
