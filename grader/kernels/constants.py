"""Module-level constants a student's kernel may read: the ones Triton's compiler lets a kernel read.

Triton compiles a kernel that reads a global only where the global is a ``tl.constexpr`` instance
(``LOG2E = tl.constexpr(1.4426950408889634)``) or a dtype (``ACC = tl.float32``); a plain global
(``LOG2E = 1.44``, or one only annotated ``LOG2E: tl.constexpr = 1.44``) it refuses. The kernel tests
run no Python of the student's file, so a constant's value must be readable from the syntax tree: a
number (``float('-inf')`` included), a bool or a short string, or arithmetic on numbers (``2.0 ** 127``,
``1 << 10``, ``-1e30``), bound once at module level; or an alias of a function of Triton's language
(``fast_exp = tl.math.exp``), which the compiler lets a kernel call. Such a constant goes into the kernels-only file as a
statement written from its value (``constant_statement``), never from the student's text. A constant
whose value Python computes (``tl.constexpr(os.environ.get(...) == "1")``, a branch on a flag) is
refused, and the message says why.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Iterator

from grader.kernels.language import language_function

CONSTEXPR_CALLS = {"tl.constexpr", "triton.language.constexpr"}
_INT_RANGE = (-2**63, 2**64)  # int64's least to uint64's greatest: what a kernel's integer can hold
_MAX_TEXT = 32
_MAX_SHIFT = 64
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
              ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_NON_FINITE = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan"}

class NotAConstant(ValueError):
    """Why a module-level binding is no constant a kernel may read (the message's end)."""


def _shown(node: ast.AST, limit: int = 60) -> str:
    """The expression for a message, cut short; never a failure of its own (a 5,000-digit literal)."""
    try:
        text = " ".join(ast.unparse(node).split())
    except (ValueError, RecursionError):
        return "an expression too large to show"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def literal(node: ast.expr) -> int | float | bool | str:
    """The value of a constant expression, computed without running anything of the student's:
    numbers (and ``float('inf')``, ``float('nan')``), bools, short strings, + - * / // % ** << >> on
    numbers. Raises NotAConstant otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        value = node.value
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        if len(node.value) > _MAX_TEXT:
            raise NotAConstant(f"its text is longer than {_MAX_TEXT} characters")
        return node.value
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
          and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
          and isinstance(node.args[0].value, str) and node.args[0].value.strip().lower() in _NON_FINITE):
        value = float(node.args[0].value)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = literal(node.operand)
        if isinstance(operand, str):
            raise NotAConstant("its value is not a number")
        value = -operand if isinstance(node.op, ast.USub) else +operand
    elif isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = literal(node.left), literal(node.right)
        if isinstance(left, str) or isinstance(right, str):
            raise NotAConstant("its value is arithmetic on text")
        whole = isinstance(left, int) and isinstance(right, int)
        if isinstance(node.op, ast.Pow) and whole and not (abs(right) <= 64 and abs(left) <= 2**32):
            raise NotAConstant("its value is a power too large for a kernel's constant")
        if isinstance(node.op, (ast.LShift, ast.RShift)) and not (whole and 0 <= right <= _MAX_SHIFT):
            raise NotAConstant(f"its value shifts by more than {_MAX_SHIFT} bits, or not by a whole number")
        try:
            value = _OPERATORS[type(node.op)](left, right)
        except (ArithmeticError, ValueError) as error:
            raise NotAConstant(f"its value cannot be computed ({type(error).__name__})") from None
    else:
        raise NotAConstant(f"its value, `{_shown(node)}`, is computed by Python when the file runs")
    if isinstance(value, complex) or (isinstance(value, int) and abs(value) >= 2**128):  # bounds the work
        raise NotAConstant("its value is no number a kernel can hold")
    return value


def _held(value: int | float | bool | str) -> int | float | bool | str:
    """``value``, where a kernel's constant can hold it: an integer from int64's least to uint64's greatest."""
    if isinstance(value, int) and not isinstance(value, bool) and not _INT_RANGE[0] <= value < _INT_RANGE[1]:
        raise NotAConstant("its value is no number a kernel can hold")
    return value


def _dtype(node: ast.expr, dtypes: set[str]) -> str | None:
    """``float32`` for ``tl.float32`` or ``triton.language.float32``, else None."""
    if isinstance(node, ast.Attribute) and node.attr in dtypes and _shown(node.value) in ("tl", "triton.language"):
        return node.attr
    return None


def _value(node: ast.Assign | ast.AnnAssign, dtypes: set[str]) -> tuple[str, object]:
    """("constexpr", value) or ("dtype", name) of a module-level ``NAME = ...``; raises NotAConstant."""
    value = node.value
    call = isinstance(value, ast.Call) and _shown(value.func) in CONSTEXPR_CALLS
    if call:
        if len(value.args) != 1 or value.keywords:
            raise NotAConstant("tl.constexpr takes one value")
        inner = value.args[0]
        dtype = _dtype(inner, dtypes)
        return ("dtype", dtype) if dtype else ("constexpr", _held(literal(inner)))
    dtype = _dtype(value, dtypes)
    if dtype:
        return "dtype", dtype
    function = language_function(value)
    if function:
        return "function", function
    target = _shown(node.targets[0] if isinstance(node, ast.Assign) else node.target)
    if isinstance(node, ast.AnnAssign) and _shown(node.annotation) in CONSTEXPR_CALLS:
        raise NotAConstant(f"it is only annotated tl.constexpr, which Triton's compiler does not accept for a"
                           f" global: write `{target} = tl.constexpr({_shown(value, 40)})`")
    raise NotAConstant(f"it is a plain Python value, which Triton's compiler does not let a kernel read: write"
                       f" `{target} = tl.constexpr(...)` around a number, or the number itself in the kernel")


def module_bindings(tree: ast.Module) -> Iterator[tuple[str, str, ast.AST]]:
    """Each binding of a name at module level, in the file's order: (name, how, node), how one of
    "assigned" (``NAME = value``, the node that statement), "defined" (an import, a def, a class) or
    "bound" (any other: a loop, a branch, a tuple, ``del``, ``except ... as``, ``:=``). The bodies of defs
    and classes are scopes of their own. Walked with a stack, not recursion: a module-level expression
    may nest thousands deep."""
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    comprehensions = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    for statement in tree.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None \
                and len(targets) == 1 and isinstance(targets[0], ast.Name):
            yield targets[0].id, "assigned", statement
            stack = [statement.value]
        else:
            stack = [statement]
        while stack:
            node = stack.pop()
            if isinstance(node, scopes):
                yield node.name, "defined", node
                stack.extend(reversed(node.decorator_list))
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    yield (alias.asname or alias.name).split(".")[0], "defined", node
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                yield node.id, "bound", node
            if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                yield node.name, "bound", node
            if isinstance(node, comprehensions):  # only := binds at module level from inside one
                stack.extend(reversed([n.target for n in ast.walk(node) if isinstance(n, ast.NamedExpr)]))
                continue
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def module_constants(tree: ast.Module) -> tuple[dict[str, tuple[str, object, tuple[int, int]]], dict[str, str]]:
    """The file's module-level constants a kernel may read, name -> (kind, value, (line, column)), and the
    other names bound at module level by assignment, name -> why a kernel may not read them."""
    import triton.language as tl

    dtypes = {name for name in dir(tl) if isinstance(getattr(tl, name), tl.dtype)}
    bindings: dict[str, list[tuple[str, ast.AST]]] = {}
    for name, how, node in module_bindings(tree):
        bindings.setdefault(name, []).append((how, node))
    constants, refused = {}, {}
    for name, ways in bindings.items():
        if any(how == "defined" for how, _ in ways):
            continue  # a kernel may not use names defined outside it: the general message says so
        (how, statement), *more = ways
        if more:
            refused[name] = "it is bound more than once in the file, so its value is Python's to decide"
        elif how == "bound":
            refused[name] = ("it is bound by Python (a loop, a branch, a tuple, several names at once), not by"
                             " `NAME = value`")
        else:
            try:
                kind, value = _value(statement, dtypes)
                constants[name] = (kind, value, (statement.lineno, statement.col_offset))
            except NotAConstant as why:
                refused[name] = str(why)
            except (RecursionError, MemoryError, ValueError):
                refused[name] = "its value is too large or nested too deeply to read"
    return constants, refused


def constant_statement(name: str, kind: str, value: object) -> str:
    """The statement the kernels-only file gets for a constant: written from its value (``float`` is
    a builtin no constant or helper may be named, so ``float('inf')`` means infinity there)."""
    if kind == "dtype":
        return f"{name} = tl.{value}"
    if kind == "function":  # tl.math.exp: names only, each checked by language_function to be Triton's
        return f"{name} = {value}"
    if isinstance(value, float) and not math.isfinite(value):
        value = f"float({str(value)!r})"  # repr writes inf and nan as bare names
    else:
        value = repr(value)
    return f"{name} = tl.constexpr({value})"
