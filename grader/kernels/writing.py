"""The kernels-only file written from the checked syntax trees, and checked again before anything runs it.

``grader/kernels/source.py`` decides what may be taken out of a student's file; this writes it. Never
from the student's text: each statement is unparsed onto the line it started on in the student's
file (or the next free one), so a message that names a line still means the student's line, and
the file is parsed again and compared, statement for statement, with what was checked.
"""

from __future__ import annotations

import ast


class _Lines:
    """Text written line by line, each at the line asked for or, where that is taken, the next free one."""

    def __init__(self, first: int) -> None:
        self.text: list[str] = [""] * (first - 1)

    def put(self, line: int, text: str) -> None:
        assert "\n" not in text and "\r" not in text, text  # unparse writes one statement's head on one line
        self.text += [""] * (line - 1 - len(self.text))
        self.text.append(text)


def written(functions: list[ast.FunctionDef | ast.Assign], header: str) -> list[str]:
    """The checked functions (and the constants they read, one-line assignments) as text, from their
    trees: the header on line 1, then each statement on the line it started on in the student's file
    (or the next free one)."""
    out = _Lines(2)
    for node in functions:
        if isinstance(node, ast.Assign):
            out.put(node.lineno, ast.unparse(node))
            continue
        for decorator in node.decorator_list:
            out.put(decorator.lineno, "@" + ast.unparse(decorator))
        head = ast.FunctionDef(name=node.name, args=node.args, body=[ast.Pass()], decorator_list=[],
                               returns=node.returns, type_comment=None)
        out.put(node.lineno, ast.unparse(ast.fix_missing_locations(head)).split("\n")[0])
        _write_body(node.body, 1, out)
    out.text[0] = header
    return out.text


def _write_body(statements: list[ast.stmt], depth: int, out: _Lines) -> None:
    pad = "    " * depth
    for s in statements:
        if isinstance(s, ast.If):
            keyword = "if"
            while True:  # an else holding only an if is written as elif: the same tree
                out.put(s.lineno, f"{pad}{keyword} {ast.unparse(s.test)}:")
                _write_body(s.body, depth + 1, out)
                if len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If):
                    s, keyword = s.orelse[0], "elif"
                    continue
                break
            orelse = s.orelse
        elif isinstance(s, ast.For):
            out.put(s.lineno, f"{pad}for {ast.unparse(s.target)} in {ast.unparse(s.iter)}:")
            _write_body(s.body, depth + 1, out)
            orelse = s.orelse
        elif isinstance(s, ast.While):
            out.put(s.lineno, f"{pad}while {ast.unparse(s.test)}:")
            _write_body(s.body, depth + 1, out)
            orelse = s.orelse
        else:
            out.put(s.lineno, pad + ast.unparse(s))
            continue
        if orelse:
            out.put(orelse[0].lineno - 1, f"{pad}else:")
            _write_body(orelse, depth + 1, out)


class AssemblyError(RuntimeError):
    """The assembled file is not exactly what was checked: a defect of the grader, never run."""


def check_assembled(source: str, header: str, kernels: list[ast.FunctionDef | ast.Assign], launch: str) -> None:
    """Parse the assembled file again and require, statement for statement: the header, the checked
    functions (their trees, positions aside) and the launch code. Anything else is refused before
    anything runs it."""
    want = ast.parse(header).body + kernels + ast.parse(launch).body
    got = ast.parse(source).body
    if len(got) != len(want) or any(ast.dump(g) != ast.dump(w) for g, w in zip(got, want)):
        raise AssemblyError("the kernels-only file differs from the checked kernels and launch code; not run")
