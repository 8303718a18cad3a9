"""The student's Triton kernels, taken out of their file and put into the reference's launch code.

The fused SwiGLU suite grades the kernels themselves: ``_swiglu_forward_kernel`` and
``_swiglu_backward_kernel`` are read from the file without running it (``ast``), checked to be Triton
language only, and written into a copy of the reference in place of its own kernels. The suite then
runs that copy, so the tensors the kernel tests judge were computed by the student's kernels,
launched by trusted code on tensors the test picked; no Python of the student's runs there, because
under the interpreter a kernel body is plain Python and anything outside the whitelist below is
refused before it runs.

The copy keeps the student's line numbers: the kernels (and the ``@triton.jit`` helpers they call)
stay on their own lines, every other line of the student's file is left blank, and the reference's
launch code follows below. An out-of-bounds message that says ``triton_swiglu.py:42`` means line 42
of the student's file.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

KERNELS = {"_swiglu_forward_kernel": "TODO 1", "_swiglu_backward_kernel": "TODO 2"}
LAUNCHERS = {"_swiglu_forward_kernel": "swiglu_forward", "_swiglu_backward_kernel": "swiglu_backward"}
HEADER = "from __future__ import annotations; import triton; import triton.language as tl"

# What a kernel body may be made of: Triton's language is a subset of Python's expressions and
# statements. No imports, no definitions, no comprehensions or lambdas, no try/with/raise.
_NODES = (
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.If, ast.For, ast.While, ast.Return, ast.Pass,
    ast.Break, ast.Continue, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.Attribute,
    ast.Name, ast.Constant, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.IfExp, ast.keyword,
    ast.operator, ast.cmpop, ast.unaryop, ast.boolop, ast.expr_context, ast.arguments, ast.arg,
)
_BUILTINS = {"range", "min", "max", "abs", "float", "int", "bool", "len", "True", "False", "None"}


class KernelSourceError(Exception):
    """Why the kernels cannot be graded; ``not_implemented`` when a kernel is still the stub."""

    def __init__(self, message: str, not_implemented: bool = False) -> None:
        super().__init__(message)
        self.not_implemented = not_implemented


def _allowed_attributes() -> set[str]:
    """Public names of Triton's language, its tensors and dtypes; never ``handle`` (the interpreter's
    numpy array behind a tensor, through which Python could compute instead of Triton)."""
    import triton.language as tl

    names = set()
    for thing in (tl, tl.math, tl.tensor, tl.dtype, tl.float32, tl.pointer_type(tl.float32),
                  tl.block_type(tl.float32, [1]), tl.constexpr):
        names.update(n for n in dir(thing) if not n.startswith("_"))
    return names - {"handle"}


def _is_jit(node: ast.FunctionDef) -> bool:
    for decorator in node.decorator_list:
        text = ast.unparse(decorator)
        if text in ("triton.jit", "jit"):
            return True
    return False


def _check_decorators(node: ast.FunctionDef) -> None:
    others = [ast.unparse(d) for d in node.decorator_list if ast.unparse(d) not in ("triton.jit", "jit")]
    if others:
        raise KernelSourceError(f"{node.name} is decorated with {', '.join('@' + o for o in others)}: the tests"
                                " launch the kernel themselves with the exercise's launch code, so use plain"
                                " @triton.jit (no autotune: the launch code picks BLOCK_SIZE)")


def _is_empty(node: ast.FunctionDef) -> bool:
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
               for s in node.body)


def _local_names(node: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in node.args.args}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


def _check_body(node: ast.FunctionDef, helpers: set[str], attributes: set[str], display: str) -> set[str]:
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
                if hasattr(builtins, sub.id):
                    what = f"Python's {sub.id}"
                else:
                    what = f"the name {sub.id}, defined outside the kernel"
                raise KernelSourceError(
                    f"{where} uses {what}: a kernel may use only tl.*, its own arguments and local names,"
                    " and other @triton.jit functions of the file (pass anything else as an argument)")
            if isinstance(sub, ast.Name) and sub.id in helpers:
                used.add(sub.id)
            if isinstance(sub, ast.Attribute) and sub.attr not in attributes:
                raise KernelSourceError(f"{where} uses .{sub.attr}, which is not part of Triton's language")
    return used


def _signature(node: ast.FunctionDef) -> list[str]:
    return [f"{a.arg}: {ast.unparse(a.annotation)}" if a.annotation else a.arg for a in node.args.args]


def assemble(student: str, reference: str, display: str) -> str:
    """The reference with its kernels replaced by the student's (see the module docstring)."""
    try:
        tree = ast.parse(student)
    except SyntaxError as exc:
        raise KernelSourceError(f"cannot read {display}: {exc}") from None
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    jitted = {name for name, n in functions.items() if _is_jit(n)}
    ref_tree = ast.parse(reference)
    ref_functions = {n.name: n for n in ref_tree.body if isinstance(n, ast.FunctionDef)}
    ref_names = {t.id for n in ref_tree.body for t in ast.walk(n) if isinstance(t, ast.Name)
                 and isinstance(t.ctx, ast.Store)} | set(ref_functions) | {
                     n.name for n in ref_tree.body if isinstance(n, ast.ClassDef)}
    attributes = _allowed_attributes()
    helpers = jitted - set(KERNELS)
    clash = sorted(helpers & ref_names)
    if clash:
        raise KernelSourceError(f"the @triton.jit function(s) {', '.join(clash)} of {display} share a name with"
                                " the exercise's scaffolding: rename them")
    wanted, queue, stubs = set(), [], []
    for name in KERNELS:
        node = functions.get(name)
        if node is None or name not in jitted:
            raise KernelSourceError(f"{display} defines no @triton.jit function {name} ({KERNELS[name]})")
        if _is_empty(node):  # the other kernel can still be graded; this one's launcher says why not
            stubs.append(f"\n\ndef {LAUNCHERS[name]}(*args, **kwargs):\n    raise NotImplementedError("
                         f"{f'{name}: {KERNELS[name]} in {display} (its body is still empty)'!r})\n")
            continue
        queue.append(name)
        if _signature(node) != _signature(ref_functions[name]) or node.args.defaults or node.args.vararg \
                or node.args.kwarg or node.args.kwonlyargs:
            raise KernelSourceError(
                f"{name} in {display} takes ({', '.join(_signature(node))}), but the exercise's launch code"
                f" passes ({', '.join(_signature(ref_functions[name]))}): the tests launch your kernel"
                f" themselves, so keep the parameters of the exercise ({KERNELS[name]})")
    while queue:
        name = queue.pop()
        if name in wanted:
            continue
        wanted.add(name)
        _check_decorators(functions[name])
        queue += sorted(_check_body(functions[name], helpers, attributes, display))
    lines = student.splitlines()
    kept = [""] * len(lines)
    for name in wanted:
        node = functions[name]
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        kept[start - 1:node.end_lineno] = lines[start - 1:node.end_lineno]
    if kept and kept[0]:
        kept.insert(0, "")  # a kernel on the first line: the header needs it (line numbers shift by one)
    kept[0] = HEADER
    return "\n".join(kept) + "\n\n" + _without_kernels(reference, ref_functions) + "".join(stubs)


def _without_kernels(reference: str, ref_functions: dict) -> str:
    lines = reference.splitlines()
    for name in KERNELS:
        node = ref_functions[name]
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        lines[start - 1:node.end_lineno] = [""] * (node.end_lineno - start + 1)
    return "\n".join(line for line in lines if line.strip() != "from __future__ import annotations") + "\n"


def assemble_file(student: Path, reference: Path, display: str, out: Path) -> Path:
    """Write the assembled copy to ``out``; raises KernelSourceError."""
    if not student.is_file():
        raise KernelSourceError(f"no file {display}")
    out.write_text(assemble(student.read_text(), reference.read_text(), display))
    return out
