"""Triton's own error messages that mean something a student can act on, matched here and nowhere else.

Each is an id and a pattern on the error's one line (Triton's words, which a Triton release may change:
the maintainers' self-checks make each error under the interpreter and check that its pattern still
matches). A suite says what an id means for its kernel (which TODO, which dtype rule); none matches
Triton's words itself.
"""

from __future__ import annotations

import re

TRITON_ERRORS = (
    # tl.sigmoid, tl.exp and their kin take float32 and float64 only: the kernel computes in 16 bits
    ("math on 16-bit values", r"Expected dtype \[.*\] but got (fp16|bf16)"),
    # tl.dot's out_dtype is the dtype it accumulates in; bfloat16 is not one
    ("tl.dot out_dtype", r"out_dtype=\w+ is unsupported"),
)
IDS = frozenset(name for name, _ in TRITON_ERRORS)


def triton_error(message: str) -> str | None:
    """The id of the Triton error ``message`` is, or None."""
    return next((name for name, pattern in TRITON_ERRORS if re.search(pattern, message)), None)
