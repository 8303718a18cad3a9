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


# Classes that Triton's code generator treats as language (loops, compile-time values, a NaN policy);
# every other class under tl (tl.tuple, tl.tuple_type, tl.tensor, ...) is Python machinery.
_LANGUAGE_CLASSES = ("range", "static_range", "constexpr", "condition", "PropagateNan", "pointer_type")
# The namespaces a kernel may name things through: tl and tl.math (as triton.language and its math).
_NAMESPACES = {("tl",): "tl", ("tl", "math"): "tl.math", ("triton", "language"): "tl",
               ("triton", "language", "math"): "tl.math"}


def language_object(obj: object) -> bool:
    """Whether ``obj`` is part of Triton's language as Triton defines it: a builtin (``@builtin``), a
    ``@triton.jit`` function of its standard library (interpreter on or not), a dtype, a compile-time
    constant, one of the classes its code generator treats as language, or a member of its NaN policy. A
    Python function that a module of Triton happens to import (``tl.math.wraps`` is ``functools.wraps``),
    a module or any other class is not."""
    import enum

    import triton.language as tl
    from triton.language.core import is_builtin
    from triton.runtime.jit import JITFunction

    # A @triton.jit function is a JITFunction, or an InterpretedFunction where the interpreter was switched
    # on before triton was imported.
    from triton.runtime.interpreter import InterpretedFunction

    if is_builtin(obj) or isinstance(obj, (JITFunction, InterpretedFunction, tl.dtype, tl.constexpr)):
        return True
    if isinstance(obj, (bool, int, float)):  # tl.TRITON_MAX_TENSOR_NUMEL
        return True
    if any(obj is getattr(tl, name, None) for name in _LANGUAGE_CLASSES):
        return True
    return isinstance(obj, enum.Enum) and isinstance(obj, getattr(tl, "PropagateNan", ()))


def _what(obj: object) -> str:
    import inspect
    import types

    if isinstance(obj, types.ModuleType):
        return f"the module {obj.__name__}"
    if inspect.isclass(obj):
        return f"the class {obj.__module__}.{obj.__qualname__}"
    if callable(obj):
        return f"the Python function {getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"
    return f"a Python {type(obj).__name__}"


def resolve_language_name(chain: list[str]) -> str:
    """'' where ``chain`` (``["tl", "math", "exp"]``) names a part of Triton's language, else why not.
    Only tl and tl.math are namespaces: a name is looked up in them and nowhere else."""
    import triton.language as tl

    namespaces = {"tl": tl, "tl.math": tl.math}
    for length in range(len(chain) - 1, 0, -1):
        namespace = _NAMESPACES.get(tuple(chain[:length]))
        if namespace is not None:
            break
    else:
        return f"{'.'.join(chain)}, which is not a name of Triton's language (tl.* and tl.math.* are; tl.cdiv for triton.cdiv)"
    obj = namespaces[namespace]
    for position, name in enumerate(chain[length:], length):
        obj = _unpatched(getattr(obj, name, _MISSING))
        if obj is _MISSING:
            # Names nothing, so reaches nothing: Triton's own error, where a launch compiles it (a branch
            # or helper it never compiles costs nothing).
            return ""
        if not language_object(obj) and not (position + 1 < len(chain) and obj is getattr(tl, "PropagateNan", None)):
            return f"{'.'.join(chain[:position + 1])}, which is {_what(obj)}, not part of Triton's language"
    return ""


_MISSING = object()


def language_function(node: ast.expr) -> str | None:
    """``tl.math.exp`` (as the kernels-only file writes it, in tl's name) where ``node`` is a chain naming a builtin
    or a ``@triton.jit`` function of Triton's language through tl or tl.math (``triton.language.math.exp`` too),
    which Triton's compiler lets a kernel call through a module-level alias (``fast_exp = tl.math.exp``); None
    for anything else: a dtype, a class, a constant, a Python function a module of Triton imports, no name at all."""
    import triton.language as tl
    from triton.language.core import is_builtin
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    if not isinstance(node, ast.Attribute):
        return None
    chain = _chain(node)
    if chain[0] not in ("tl", "triton") or resolve_language_name(chain) != "":
        return None
    length = next((n for n in range(len(chain) - 1, 0, -1) if tuple(chain[:n]) in _NAMESPACES), None)
    if length is None:
        return None
    obj = {"tl": tl, "tl.math": tl.math}[_NAMESPACES[tuple(chain[:length])]]
    for name in chain[length:]:
        obj = _unpatched(getattr(obj, name, _MISSING))
    if obj is _MISSING or not (is_builtin(obj) or isinstance(obj, (JITFunction, InterpretedFunction))):
        return None
    return ".".join([_NAMESPACES[tuple(chain[:length])], *chain[length:]])


def _unpatched(obj: object) -> object:
    """What Triton defines under a name, where its interpreter has patched it in this process: a launch (or a
    jit function called from Python) replaces each builtin of tl with a Python lambda holding the builtin as
    its ``member`` default, and a device call never puts it back. The check judges the language, not this
    process's patches (triton.runtime.interpreter's _patch_attr, Triton 3.8-3.9)."""
    if callable(obj) and getattr(obj, "__module__", "") == "triton.runtime.interpreter":
        original = (getattr(obj, "__kwdefaults__", None) or {}).get("member", _MISSING)
        if original is not _MISSING:
            return original
    return obj


def allowed_attributes() -> set[str]:
    """The attributes a kernel may take of its own values (tensors, pointers, dtypes): a tensor's builtin
    methods and properties, a dtype's and a type's public attributes, and a tensor's ``type``; never
    ``handle`` (the interpreter's numpy array behind a tensor, through which Python could compute
    instead of Triton). What a kernel names through ``tl`` is checked by ``resolve_language_name``."""
    import triton.language as tl

    names = {"type", "shape", "dtype", "numel"}  # set on each tl.tensor, so not in dir(tl.tensor)
    for thing in (tl.tensor, tl.dtype, tl.float32, tl.pointer_type(tl.float32), tl.block_type(tl.float32, [1])):
        names.update(n for n in dir(thing) if not n.startswith("_"))
    return names - {"handle"}


def _local_names(node: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


def check_body(node: ast.FunctionDef, helpers: set[str], attributes: set[str], display: str,
               constants: frozenset[str] = frozenset(), not_constants: dict[str, str] | None = None) -> set[str]:
    """Refuse anything but Triton language; returns the helpers and module-level ``constants`` (see
    grader/kernels/constants.py) the function names. ``not_constants``: the file's other module-level
    names, each with why a kernel may not read it."""
    local = _local_names(node)  # once: a hostile kernel may hold thousands of attribute chains
    known = local | {"tl", "triton"} | _BUILTINS | helpers | constants
    used = set()
    for statement in node.body:
        # The outer node of each tl.a.b chain: a chain is judged whole, by what it names.
        inner = {id(sub.value) for sub in ast.walk(statement) if isinstance(sub, ast.Attribute)}
        module_as_value = ""  # told last: a chain such as tl.math.wraps(...)(tl) is told by the name it reaches
        for sub in ast.walk(statement):
            where = f"{node.name} ({display}:{getattr(sub, 'lineno', node.lineno)})"
            if not isinstance(sub, _NODES):
                raise KernelSourceError(
                    f"{where} uses {type(sub).__name__}, which is not Triton language: a kernel body may hold"
                    " assignments, if/for/while, and calls of tl.* functions and of other @triton.jit"
                    " functions of the file")
            if isinstance(sub, ast.Name) and sub.id not in known and sub.id in (not_constants or {}):
                raise KernelSourceError(
                    f"{where} uses {sub.id}, a module-level name of the file that is no constant a kernel may read:"
                    f" {not_constants[sub.id]}. A kernel may read constants written"
                    f" `{sub.id} = tl.constexpr(1.5)` (a number, a bool or a short string) and dtypes"
                    f" (`{sub.id} = tl.float32`), as Triton's compiler does")
            if isinstance(sub, ast.Name) and sub.id not in known:
                what = f"Python's {sub.id}" if hasattr(builtins, sub.id) else f"the name {sub.id}, defined outside it"
                raise KernelSourceError(
                    f"{where} uses {what}: a kernel may use only tl.*, its own parameters and local names,"
                    " and other @triton.jit functions of the file (write a constant as a literal)")
            if isinstance(sub, ast.Name) and sub.id in ("tl", "triton") and id(sub) not in inner:
                module_as_value = module_as_value or (f"{where} uses {sub.id} itself as a value: a kernel may call"
                                                      " what tl names (tl.load, tl.exp, ...), not hand the module around")
            if isinstance(sub, ast.Name) and (sub.id in helpers or (sub.id in constants and sub.id not in local)):
                used.add(sub.id)
            if isinstance(sub, ast.Attribute) and id(sub) not in inner:
                chain = _chain(sub)
                if chain[0] in ("tl", "triton") and chain[0] not in local:
                    why = resolve_language_name(chain)
                    if why:
                        raise KernelSourceError(f"{where} uses {why}: a kernel may use Triton's builtins"
                                                " (tl.load, tl.sigmoid, ...) and its own @triton.jit functions")
                else:
                    for attr in chain[1:]:
                        if attr not in attributes:
                            raise KernelSourceError(f"{where} uses .{attr}, which is not part of Triton's language")
            if isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(sub.ctx, ast.Store):
                raise KernelSourceError(f"{where} assigns to `{source_excerpt(sub)}`: Triton tensors cannot be changed in"
                                        " place; assign a new value to a name, and write memory with tl.store")
        if module_as_value:
            raise KernelSourceError(module_as_value)
    return used


def _chain(node: ast.Attribute) -> list[str]:
    """``tl.math.exp`` as ["tl", "math", "exp"]; a chain on anything but a name starts with "" (``f(x).T``)."""
    names = []
    current: ast.AST = node
    while isinstance(current, ast.Attribute):
        names.append(current.attr)
        current = current.value
    names.append(current.id if isinstance(current, ast.Name) else "")
    return names[::-1]


def source_excerpt(node: ast.AST, limit: int = 60) -> str:
    """Source text for a message, cut short: what the student wrote, not all of it."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
