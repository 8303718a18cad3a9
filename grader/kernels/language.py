"""What a student's kernel body may hold: Triton's language, and nothing through which Python of the
student's could run where the kernels are judged (``grader/kernels/source.py`` takes the kernels).
"""

from __future__ import annotations

import ast
import builtins


class KernelSourceError(Exception):
    """Why a kernel cannot be graded; ``not_implemented`` when it is still the stub."""

    def __init__(self, message: str, not_implemented: bool = False) -> None:
        super().__init__(message)
        self.not_implemented = not_implemented


# What a kernel body may be made of: Triton's language is a subset of Python's expressions and
# statements. No imports, no definitions, no comprehensions or lambdas, no try/with/raise.
_NODES = (
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.If, ast.For, ast.While, ast.Return, ast.Pass,
    ast.Break, ast.Continue, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.Attribute,
    ast.Name, ast.Constant, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.IfExp, ast.keyword,
    ast.operator, ast.cmpop, ast.unaryop, ast.boolop, ast.expr_context, ast.arguments, ast.arg, ast.Assert,
)
_BUILTINS = {"range", "min", "max", "abs", "float", "int", "bool", "len", "True", "False", "None"}


def allowed_attributes() -> set[str]:
    """Public names of Triton's language, its tensors and dtypes, and a tensor's ``type``; never ``handle``
    (the interpreter's numpy array behind a tensor, through which Python could compute instead of
    Triton), nor the modules ``tl`` holds besides ``tl.math`` (``tl.core``, ``tl.semantic``, ...: ways to
    the interpreter's Python)."""
    import types

    import triton.language as tl

    names = {"type", "shape", "dtype", "numel"}  # set on each tl.tensor, so not in dir(tl.tensor)
    for thing in (tl, tl.math, tl.tensor, tl.dtype, tl.float32, tl.pointer_type(tl.float32),
                  tl.block_type(tl.float32, [1]), tl.constexpr):
        names.update(n for n in dir(thing) if not n.startswith("_"))
    modules = {n for n in dir(tl) if isinstance(getattr(tl, n, None), types.ModuleType)} - {"math"}
    return names - {"handle"} - modules


def _local_names(node: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


def check_body(node: ast.FunctionDef, helpers: set[str], attributes: set[str], display: str) -> set[str]:
    """Refuse anything but Triton language; returns the helpers the function calls."""
    known = _local_names(node) | {"tl", "triton"} | _BUILTINS | helpers
    used = set()
    for statement in node.body:
        for sub in ast.walk(statement):
            where = f"{node.name} ({display}:{getattr(sub, 'lineno', node.lineno)})"
            if not isinstance(sub, _NODES):
                raise KernelSourceError(
                    f"{where} uses {type(sub).__name__}, which is not Triton language: a kernel body may hold"
                    " assignments, if/for/while, and calls of tl.* functions and of other @triton.jit"
                    " functions of the file")
            if isinstance(sub, ast.Name) and sub.id not in known:
                what = f"Python's {sub.id}" if hasattr(builtins, sub.id) else f"the name {sub.id}, defined outside it"
                raise KernelSourceError(
                    f"{where} uses {what}: a kernel may use only tl.*, its own parameters and local names,"
                    " and other @triton.jit functions of the file (write a constant as a literal)")
            if isinstance(sub, ast.Name) and sub.id in helpers:
                used.add(sub.id)
            if isinstance(sub, ast.Attribute) and sub.attr not in attributes:
                raise KernelSourceError(f"{where} uses .{sub.attr}, which is not part of Triton's language")
            if isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(sub.ctx, ast.Store):
                raise KernelSourceError(f"{where} assigns to `{source_excerpt(sub)}`: Triton tensors cannot be changed in"
                                        " place; assign a new value to a name, and write memory with tl.store")
    return used


def source_excerpt(node: ast.AST, limit: int = 60) -> str:
    """Source text for a message, cut short: what the student wrote, not all of it."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
