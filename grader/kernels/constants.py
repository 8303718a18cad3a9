"""Module-level constants a student's kernel may read: the ones Triton's compiler lets a kernel read.

Triton compiles a kernel that reads a global only where the global is a ``tl.constexpr`` instance
(``LOG2E = tl.constexpr(1.4426950408889634)``) or a dtype (``ACC = tl.float32``); a plain global
(``LOG2E = 1.44``, or one only annotated ``LOG2E: tl.constexpr = 1.44``) it refuses. The kernel tests
run no Python of the student's file, so a constant's value must be readable from the syntax tree: a
number, a bool or a short string, or arithmetic on numbers (``2.0 ** 127``, ``-1e30``), bound once at
module level. Such a constant goes into the kernels-only file as a statement written from its value
(``constant_statement``), never from the student's text. A constant whose value Python computes
(``tl.constexpr(os.environ.get(...) == "1")``, a branch on a flag) is refused, and the message says why.
"""

from __future__ import annotations

import ast
import operator

CONSTEXPR_CALLS = {"tl.constexpr", "triton.language.constexpr"}
_MAX_INT = 2**63  # a constant beyond int64 is no kernel's, and bounds the work of evaluating one
_MAX_TEXT = 32
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.Pow: operator.pow}


DEFINED = ast.Pass()  # the binding of an import, a def or a class


class NotAConstant(ValueError):
    """Why a module-level binding is no constant a kernel may read (the message's end)."""


def literal(node: ast.expr) -> int | float | bool | str:
    """The value of a constant expression, computed without running anything of the student's:
    numbers, bools, short strings, + - * / ** on numbers. Raises NotAConstant otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        value = node.value
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        if len(node.value) > _MAX_TEXT:
            raise NotAConstant(f"its text is longer than {_MAX_TEXT} characters")
        return node.value
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = literal(node.operand)
        if isinstance(operand, str):
            raise NotAConstant("its value is not a number")
        value = -operand if isinstance(node.op, ast.USub) else +operand
    elif isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = literal(node.left), literal(node.right)
        if isinstance(left, str) or isinstance(right, str):
            raise NotAConstant("its value is arithmetic on text")
        if isinstance(node.op, ast.Pow) and isinstance(left, int) and isinstance(right, int) and not (
                0 <= right <= 64 and abs(left) <= 2**32):
            raise NotAConstant("its value is a power too large for a kernel's constant")
        try:
            value = _OPERATORS[type(node.op)](left, right)
        except (ArithmeticError, ValueError) as error:
            raise NotAConstant(f"its value cannot be computed ({type(error).__name__})") from None
    else:
        raise NotAConstant(f"its value, `{ast.unparse(node)[:60]}`, is computed by Python when the file runs")
    if isinstance(value, complex) or (isinstance(value, int) and not -_MAX_INT <= value < _MAX_INT):
        raise NotAConstant("its value is no number a kernel can hold")
    return value


def _value(node: ast.stmt, dtypes: set[str]) -> tuple[str, object]:
    """("constexpr", value) or ("dtype", name) of a module-level ``NAME = ...``; raises NotAConstant."""
    value = node.value
    if isinstance(node, ast.AnnAssign) and ast.unparse(node.annotation) in CONSTEXPR_CALLS and value is not None \
            and not (isinstance(value, ast.Call) and ast.unparse(value.func) in CONSTEXPR_CALLS):
        raise NotAConstant(f"it is only annotated tl.constexpr, which Triton's compiler does not accept for a"
                           f" global: write `{ast.unparse(node.target)} = tl.constexpr({ast.unparse(value)[:40]})`")
    if isinstance(value, ast.Call) and ast.unparse(value.func) in CONSTEXPR_CALLS:
        if len(value.args) != 1 or value.keywords:
            raise NotAConstant("tl.constexpr takes one value")
        return "constexpr", literal(value.args[0])
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "tl" \
            and value.attr in dtypes:
        return "dtype", value.attr
    raise NotAConstant("it is a plain Python value, which Triton's compiler does not let a kernel read: write"
                       f" `{ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node.target)}"
                       f" = tl.constexpr(...)` around a number, or the number itself in the kernel")


def module_constants(tree: ast.Module) -> tuple[dict[str, tuple[str, object, int]], dict[str, str]]:
    """The file's module-level constants a kernel may read, name -> (kind, value, line), and the other
    names bound at module level outside functions and classes, name -> why a kernel may not read them."""
    import triton.language as tl

    dtypes = {name for name in dir(tl) if isinstance(getattr(tl, name), tl.dtype)}
    # None: bound by Python otherwise than by `NAME = value`; DEFINED: an import, a def or a class, which
    # the generic message covers (a kernel may not use names defined outside it)
    bindings: dict[str, list[ast.stmt | None]] = {}

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bindings.setdefault(node.name, []).append(DEFINED)
            return  # its body is a scope of its own
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bindings.setdefault((alias.asname or alias.name).split(".")[0], []).append(DEFINED)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bindings.setdefault(node.id, []).append(None)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None \
                and len(targets) == 1 and isinstance(targets[0], ast.Name):
            bindings.setdefault(targets[0].id, []).append(statement)
            visit(statement.value)
        else:
            visit(statement)
    constants, refused = {}, {}
    for name, statements in bindings.items():
        if DEFINED in statements:
            continue
        if len(statements) > 1:
            refused[name] = "it is bound more than once in the file, so its value is Python's to decide"
        elif statements[0] is None:
            refused[name] = "it is bound by Python (a loop, a branch, a tuple), not by `NAME = value`"
        else:
            try:
                kind, value = _value(statements[0], dtypes)
                constants[name] = (kind, value, statements[0].lineno)
            except NotAConstant as why:
                refused[name] = str(why)
    return constants, refused


def constant_statement(name: str, kind: str, value: object) -> str:
    """The statement the kernels-only file gets for a constant: written from its value."""
    return f"{name} = tl.{value}" if kind == "dtype" else f"{name} = tl.constexpr({value!r})"
