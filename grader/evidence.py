"""Evidence from the child is hostile input: check its size and shape before anything computes on it.

The child runs submission code, so what it sends back may be anything a ``torch.save`` can hold,
crafted to cost the grader's own process memory or time: a compressed archive entry that inflates
to gigabytes, a stride-0 view whose few stored bytes stand for 10^10 elements, a small view of a
huge storage (``torch.save`` writes the whole storage), deep nesting, huge strings, one long string
referred to thousands of times, huge integers. ``load`` refuses all of that before ``torch.load`` builds
a single tensor, and then bounds what was built against what the probe was asked for (the request's
tensors), so that the tests' comparisons on it, and the checks themselves, cost about what they cost on
honest evidence.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass

import torch

from grader.probes.core import owns_its_storage
from grader.probes.errors import from_child
from grader.probes.safe_text import printable

ALLOWED_DTYPES = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool,
                            torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64})
MAX_ENTRIES = 4096        # archive members (one per tensor storage, plus a few)
# zipfile reads the whole central directory, in Python, before it can count the members: 64 MB of empty
# members cost it about 5 s. torch.save's entries take about 70 bytes each.
MAX_DIRECTORY = 256 * MAX_ENTRIES
MAX_ITEMS = 20_000        # values in the evidence, all levels together
MAX_DEPTH = 12
MAX_STRING = 4096         # characters in one string; messages are cut to far less by the probes
MAX_TEXT = 1 << 16        # characters in all the strings together (honest evidence: under 5,000)
MAX_INT = 1 << 64         # integers are counts, shapes and seeds: a longer one only costs the grader
# The pickle (the archive's structure; tensors' bytes are members of their own) is read by torch's
# weights-only unpickler, in Python, about 3 s for each 10 MB before any check could refuse it. Honest
# evidence's: under 25 KB; MAX_ITEMS values with MAX_TEXT characters fit in far less than this.
MAX_PICKLE = 1 << 20
MAX_DIMS = 8
MIN_ELEMENT_ALLOWANCE = 1 << 20  # elements any evidence may hold, whatever the request was


class BadEvidence(ValueError):
    """The reply is not evidence the grader will look at; the message says why, in a few words."""


@dataclass(frozen=True)
class Structure:
    """How much structure one archive may hold, besides its tensors' elements: the pickle's bytes, its
    values (all levels together) and the characters of its strings (all together)."""
    pickle_bytes: int
    items: int
    characters: int


EVIDENCE = Structure(pickle_bytes=MAX_PICKLE, items=MAX_ITEMS, characters=MAX_TEXT)


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


def check_archive(payload: bytes, max_bytes: int, max_pickle: int = MAX_PICKLE) -> None:
    """A torch.save archive whose members are stored, not compressed, and add up to at most max_bytes,
    with a pickle of at most max_pickle bytes."""
    directory = _directory_size(payload)
    if directory > MAX_DIRECTORY:
        raise BadEvidence(f"an archive directory of {directory} bytes (at most {MAX_DIRECTORY})")
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
        if info.filename.endswith(".pkl") and info.file_size > max_pickle:
            raise BadEvidence(f"a pickle of {info.file_size} bytes (at most {max_pickle})")
        total += info.file_size
    if total > max_bytes:
        raise BadEvidence(f"{total >> 20} MB once unpacked (at most {max_bytes >> 20} MB)")


def _directory_size(payload: bytes) -> int:
    """The central directory's size, as the archive's end record gives it (0 where there is none: zipfile
    then refuses the archive itself). Read with zipfile's own reader of that record, a private name of the
    standard library's, since Python 2."""
    try:
        end = zipfile._EndRecData(io.BytesIO(payload))
    except (zipfile.BadZipFile, OSError, ValueError, struct.error):
        return 0
    return 0 if end is None else end[zipfile._ECD_SIZE]


def load(payload: bytes, *, max_bytes: int, max_elements: int, structure: Structure = EVIDENCE) -> object:
    """Check the archive, load it as plain data, and check every value in it."""
    check_archive(payload, max_bytes, structure.pickle_bytes)
    try:
        evidence = torch.load(io.BytesIO(payload), weights_only=True, map_location="cpu")
    except Exception as exc:  # never unpickle anything but plain data from the child
        raise BadEvidence(f"not plain evidence ({type(exc).__name__})") from None
    budget = {"items": structure.items, "elements": max_elements, "characters": structure.characters, "text": {}}
    return _checked(evidence, 0, budget)


def _checked(value: object, depth: int, budget: dict) -> object:
    budget["items"] -= 1
    if budget["items"] < 0:
        raise BadEvidence("more values than the grader reads")
    if depth > MAX_DEPTH:
        raise BadEvidence(f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, (bool, float)):
        return value
    if isinstance(value, int):
        if not -MAX_INT < value < MAX_INT:
            raise BadEvidence(f"an integer of {value.bit_length()} bits")
        return value
    if isinstance(value, str):
        return _checked_text(value, budget)
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


def _checked_text(value: str, budget: dict) -> str:
    """Each string object is measured and escaped once (``budget["text"]``, by identity): a pickle may refer
    to one string any number of times for a few bytes each."""
    if id(value) in budget["text"]:
        return budget["text"][id(value)]
    if len(value) > MAX_STRING:
        raise BadEvidence(f"a string of {len(value)} characters")
    budget["characters"] -= len(value)
    if budget["characters"] < 0:
        raise BadEvidence("more characters of text than the grader reads")
    budget["text"][id(value)] = printable(value)
    return budget["text"][id(value)]


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
    # Every element must have bytes of its own, and every byte be an element: a stride-0 or overlapping
    # view would make the grader's comparisons touch far more elements than were sent, and a small view
    # of a large storage would have the grader keep the whole storage for a few counted elements.
    if not owns_its_storage(t):
        raise BadEvidence(f"a tensor of {t.numel()} elements (strides {tuple(t.stride())[:MAX_DIMS]}, offset"
                          f" {t.storage_offset()}) in a storage of {t.untyped_storage().nbytes()} bytes")
