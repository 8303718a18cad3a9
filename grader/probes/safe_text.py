"""Text that came from submission code, made safe for every place a grade is shown.

A submission controls its exception messages, so it controls part of every failure message, and a
student controls the names in a hand-in (its files, its zips' members), so notes and refusals that name
them. Shown raw, a terminal escape could rewrite the grader's table ("Total: 98/98"), a carriage return
could overwrite a line, a right-to-left override could reorder it, a leading "=" could make a spreadsheet
run a formula, and a tag or a link could turn feedback into a page of the student's. Each untrusted text
goes out through its format's one function here:

* a terminal, plain text, JSON's and XML's strings (whose serializers quote their own syntax): ``printable``;
* Markdown (a line or a table cell): ``markdown_cell``;
* HTML: ``html_text``;
* CSV: ``csv_cell``;
* a file name: ``file_name``.
"""

from __future__ import annotations

import html
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
    """Markdown that shows ``text`` as it is, in a line or a table cell: one line, each character that could
    start markup backslash-escaped (no link, no HTML, no emphasis, no code span, no entity, no column break)."""
    text = printable(" ".join(text.split()))
    for ch in "\\`*_[]<>|&~":
        text = text.replace(ch, "\\" + ch)
    return text


def html_text(text: str) -> str:
    """HTML that shows ``text`` as it is: no tag, no entity, no attribute's end, no control character."""
    return html.escape(printable(text))


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
