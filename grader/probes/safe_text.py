"""Text that came from submission code, made safe for every place a grade is shown.

A submission controls its exception messages, so it controls part of every failure message. Shown
raw, a terminal escape could rewrite the grader's table ("Total: 98/98"), a carriage return could
overwrite a line, a right-to-left override could reorder it, and a leading "=" could make a
spreadsheet run a formula. Each report goes through these functions on the way out.
"""

from __future__ import annotations

import unicodedata

_BIDI = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069",
         "\u200e", "\u200f", "\u061c"}


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """Control characters and the Unicode controls that reorder text, shown as escapes instead of acting."""
    out = []
    for ch in text:
        if keep_newlines and ch in "\n\t":
            out.append(ch)
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn"):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def csv_cell(value: object) -> object:
    """A CSV cell a spreadsheet shows as text: no formula can start it."""
    if not isinstance(value, str):
        return value
    value = printable(value)
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def markdown_cell(text: str) -> str:
    """One table cell of Markdown: one line, no column breaks, no HTML, no code-span escapes."""
    text = printable(" ".join(text.split()))
    for ch in "\\`*_[]<>|":
        text = text.replace(ch, "\\" + ch)
    return text


def file_name(text: str, *, limit: int = 100) -> str:
    """A name that is safe as a file name and a CSV cell: letters, digits, spaces and ``._-`` only.

    Anything else (slashes, control characters, quotes) becomes ``_``; it never starts with a dot, a
    dash or a space (no hidden file, no option, no formula), and it may come out empty.
    """
    text = unicodedata.normalize("NFC", " ".join(printable(text).split()))
    kept = "".join(ch if ch.isalnum() or ch in " ._-" else "_" for ch in text)
    return kept.strip(" ._-")[:limit].rstrip(" ._-")


def shorten(text: str, limit: int, mark: str = " …") -> str:
    """``text`` cut to at most ``limit`` characters, ``mark`` included, where a reader would stop: at a
    space, never inside a word or a number, and never inside a code span (`like this`)."""
    if len(text) <= limit:
        return text
    room = max(limit - len(mark), 0)
    cut = text.rfind(" ", 0, room + 1)
    if cut > 0 and text.count("`", 0, cut) % 2:  # inside a code span: stop before it opens
        cut = text.rfind("`", 0, cut)
    if cut <= 0:  # one long word: stop between two characters that are not both of a word or a number
        cut = room
        while cut > 0 and _in_word(text[cut - 1]) and _in_word(text[cut]):
            cut -= 1
        cut = cut or room
    return text[:cut].rstrip(" ,;:(") + mark


def _in_word(ch: str) -> bool:
    return ch.isalnum() or ch in "._+-"  # 3.8e-06 and n_cols are one word each
