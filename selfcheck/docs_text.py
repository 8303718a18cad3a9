"""What the documents say, read as data for ``selfcheck/test_docs.py``: the commands they show, their
code spans, and the lists written in their text.

A command is a line of a fenced block (not ``json``) that starts like one, a trailing backslash
joining the next line to it and the comment after `` # `` kept apart, or a `code span` in the text that
starts like one. Fenced blocks are whole commands; a span may name a command by its option alone
("`python -m instructor --batch`").
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from grader.paths import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "benchmarks" / "README.md"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
ENV = r"(?:[A-Z_]+=(?:\"[^\"]*\"|\S*)\s+)*"  # VAR=value in front of a command
COMMAND = re.compile(ENV + r"(?:time )?(?:python|pytest|pip|jupyter|jupytext|mkdir|unzip|cp|cat|cd|bash|sudo|\.ci/run)\b")
# In the text, only what cannot be a mere word: "the student's own `pytest`" names no command.
SPAN_COMMAND = re.compile(ENV + r"(?:time )?(?:python3? |pytest |pip |jupytext |sudo |\.ci/run)")


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    text: str          # the command, continuation lines joined, its comment left out
    comment: str
    fenced: bool       # a line of a fenced block (a whole command), not a span in the text

    def where(self) -> str:
        return f"{self.doc}:{self.line}: {self.text}"

    def words(self) -> tuple[dict[str, str], list[str]]:
        """(the environment set in front of it, its words); ``python -m pytest`` is ``pytest``."""
        words = shlex.split(self.text)
        env = {}
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            name, value = words.pop(0).split("=", 1)
            env[name] = value
        words = words[1:] if words[:1] == ["time"] else words
        return env, ["pytest", *words[3:]] if words[:3] == ["python", "-m", "pytest"] else words


def prose(path: Path) -> str:
    """The document with its fenced blocks blanked out, newlines kept, so offsets still give lines."""
    return FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), path.read_text())


def flat(text: str) -> str:
    """Newlines as spaces (the same length, so offsets still hold): a sentence or span may wrap."""
    return text.replace("\n", " ")


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def spans(doc: Path) -> list[tuple[int, str]]:
    """(line, text) of each code span in the text, its wrapping undone."""
    body = prose(doc)
    return [(line_of(body, m.start()), re.sub(r"\s+", " ", m.group(1)).strip())
            for m in re.finditer(r"`([^`]+)`", flat(body))]


def fenced_commands(doc: str, text: str) -> list[Command]:
    found = []
    for block in FENCE.finditer(text):
        if block.group(1) == "json":
            continue
        pending, start = "", 0
        for number, line in enumerate(block.group(2).splitlines(), line_of(text, block.start(2))):
            start = start if pending else number
            if line.rstrip().endswith("\\"):  # the command goes on on the next line
                pending += line.rstrip()[:-1] + " "
                continue
            command, _, comment = (pending + line).partition(" # ")
            pending = ""
            if COMMAND.match(command.strip()):
                found.append(Command(doc, start, re.sub(r"\s+", " ", command.strip()), comment.strip(), True))
    return found


def doc_commands() -> list[Command]:
    found = []
    for path in DOCS:
        doc = path.relative_to(REPO).as_posix()
        found += fenced_commands(doc, path.read_text())
        found += [Command(doc, line, text, "", False) for line, text in spans(path) if SPAN_COMMAND.match(text)]
    return found


def enumerations(text: str, names: list[str]) -> list[list[str]]:
    """Runs of ``names`` written as a list ("`mlp`, `glu` and `cost`", "mlp, glu, swiglu"), in order."""
    name = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    item = rf"`?(?:{name})`?"
    runs = re.finditer(rf"(?<![\w/-]){item}(?:(?:,| and| or|, and|, or) {item})+(?![\w-])", flat(text))
    return [re.findall(name, run.group(0)) for run in runs]


def paragraphs(doc: Path) -> list[str]:
    """The paragraphs of ``doc``'s text, unwrapped."""
    return [re.sub(r"\s+", " ", part) for part in prose(doc).split("\n\n")]


def paragraph_with(doc: Path, words: str) -> str:
    """The paragraph of ``doc``'s text that holds ``words``."""
    return next(part for part in paragraphs(doc) if words in part)


def listed(span: str) -> list[str]:
    """``"a, b, c"`` -> ["a", "b", "c"]."""
    return [word.strip() for word in span.split(",")]
