"""The student's Triton kernels, taken out of their file and put into the reference's launch code.

The fused SwiGLU suite grades the kernels themselves: ``_swiglu_forward_kernel`` and
``_swiglu_backward_kernel`` are read from the file without running it (``ast``), checked to be Triton
language only and to keep the parameters the stub gives, and written into a copy of the reference's
launch code (``swiglu_forward``, ``swiglu_backward`` and their helpers) in place of its own kernels.
The suite runs that copy in a process of its own, so the tensors the kernel tests judge were computed
by the student's kernels, launched by trusted code on tensors the test picked; no Python of the
student's runs there, because under the interpreter a kernel body is plain Python and anything
outside the whitelist below is refused before it runs.

The copy keeps the student's line numbers: the kernels (and the ``@triton.jit`` helpers they call)
stay on their own lines, every other line of the student's file is left blank, and the launch code
follows below. An out-of-bounds message that says ``triton_swiglu.py:42`` means line 42 of the
student's file.

A kernel that cannot be taken (still the stub, missing, another signature, not Triton language) is
reported per kernel (``Assembled.problems``): the other kernel is still graded.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from pathlib import Path

KERNELS = {"_swiglu_forward_kernel": "TODO 1", "_swiglu_backward_kernel": "TODO 2"}
LAUNCHERS = {"_swiglu_forward_kernel": "swiglu_forward", "_swiglu_backward_kernel": "swiglu_backward"}
# What the kernel tests need of the reference: the launch code. Not its answers to TODO 3-7.
NOT_COPIED = {"SwiGLUFunction", "swiglu", "FusedSwiGLU"}
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
    """Why a kernel cannot be graded; ``not_implemented`` when it is still the stub."""

    def __init__(self, message: str, not_implemented: bool = False) -> None:
        super().__init__(message)
        self.not_implemented = not_implemented


@dataclass
class Assembled:
    source: str  # the launch code with the kernels that could be taken; "" when neither could
    problems: dict[str, KernelSourceError] = field(default_factory=dict)  # kernel name -> why not


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
    return any(ast.unparse(d) in ("triton.jit", "jit") for d in node.decorator_list)


def _check_decorators(node: ast.FunctionDef) -> None:
    others = [ast.unparse(d) for d in node.decorator_list if ast.unparse(d) not in ("triton.jit", "jit")]
    if others:
        raise KernelSourceError(f"{node.name} is decorated with {', '.join('@' + o for o in others)}: the tests"
                                " launch the kernel with the stub's launch code, which picks BLOCK_SIZE, so use"
                                " plain @triton.jit")


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
                what = f"Python's {sub.id}" if hasattr(builtins, sub.id) else f"the name {sub.id}, defined outside it"
                raise KernelSourceError(
                    f"{where} uses {what}: a kernel may use only tl.*, its own parameters and local names,"
                    " and other @triton.jit functions of the file (write a constant as a literal)")
            if isinstance(sub, ast.Name) and sub.id in helpers:
                used.add(sub.id)
            if isinstance(sub, ast.Attribute) and sub.attr not in attributes:
                raise KernelSourceError(f"{where} uses .{sub.attr}, which is not part of Triton's language")
    return used


CONSTEXPR = "tl.constexpr"
CONSTEXPR_SPELLINGS = {CONSTEXPR, "triton.language.constexpr"}


def _parameters(node: ast.FunctionDef) -> list[str]:
    """Each parameter as written: its name, and its annotation (``tl.constexpr`` however spelled)."""
    def shown(a: ast.arg) -> str:
        if a.annotation is None:
            return a.arg
        annotation = ast.unparse(a.annotation)
        return f"{a.arg}: {CONSTEXPR if annotation in CONSTEXPR_SPELLINGS else _shown(a.annotation)}"
    return [shown(a) for a in node.args.posonlyargs + node.args.args]


def _shown(node: ast.AST, limit: int = 60) -> str:
    """Source text for a message, cut short: what the student wrote, not all of it."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _literal(node: ast.expr) -> bool:
    """A number, string, True/False/None, or a negated number: nothing that runs when evaluated."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant)


def _defaults(node: ast.FunctionDef) -> dict[str, ast.expr]:
    """Each parameter's default value, by parameter name."""
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return defaults


def _definition_problem(node: ast.FunctionDef, stub: ast.FunctionDef | None, display: str) -> KernelSourceError | None:
    """What of the ``def`` line would run Python when the file is imported: default values,
    annotations other than ``tl.constexpr``, a return annotation, ``*args``/``**kwargs``. A kernel
    must have the stub's exact parameters (no defaults, as the stub has none); a helper may give a
    parameter a literal default."""
    args = node.args
    where = f"{node.name} ({display}:{node.lineno})"
    rule = (f"keep the signature the stub gives ({KERNELS[node.name]})" if node.name in KERNELS else
            "a @triton.jit helper takes plain parameters, each optionally `: tl.constexpr`")
    for arg in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
        if arg.annotation is not None and ast.unparse(arg.annotation) not in CONSTEXPR_SPELLINGS:
            return KernelSourceError(f"{where}: parameter {arg.arg} is annotated `{_shown(arg.annotation)}`;"
                                     f" the only annotation a kernel parameter may have is `{CONSTEXPR}` ({rule})")
    if node.returns is not None:
        return KernelSourceError(f"{where} has a return annotation `-> {_shown(node.returns)}`: remove it ({rule})")
    stub_defaults = {} if stub is None else {name: ast.unparse(d) for name, d in _defaults(stub).items()}
    for name, default in _defaults(node).items():
        if stub_defaults.get(name) == ast.unparse(default):
            continue
        if stub is not None:
            return KernelSourceError(f"{where}: parameter {name} has a default value (`= {_shown(default)}`),"
                                     f" which the stub's does not; the launch code passes every argument ({rule})")
        if not _literal(default):
            return KernelSourceError(f"{where}: parameter {name} has a default that is not a literal"
                                     f" (`= {_shown(default)}`): write a number such as 0 or 1.0, or no default")
    return None


def _signature_problem(node: ast.FunctionDef, stub: ast.FunctionDef, display: str) -> KernelSourceError | None:
    got, want = _parameters(node), _parameters(stub)
    extra = [f"*{node.args.vararg.arg}"] if node.args.vararg else []
    extra += [a.arg for a in node.args.kwonlyargs] + ([f"**{node.args.kwarg.arg}"] if node.args.kwarg else [])
    if [p.split(":")[0] for p in got] == [p.split(":")[0] for p in want] and not extra:
        problem = _definition_problem(node, stub, display)  # the names are right: say what else is wrong
        if problem is not None:
            return problem
    if got != want or extra:
        return KernelSourceError(
            f"{node.name} in {display} takes ({', '.join(got + extra)}), expected ({', '.join(want)}): the tests"
            f" launch it with the stub's launch code, so keep the signature the stub gives ({KERNELS[node.name]})")
    return None


def _span(node: ast.FunctionDef) -> tuple[int, int]:
    return min([d.lineno for d in node.decorator_list] + [node.lineno]), node.end_lineno


def assemble(student: str, reference: str, display: str) -> Assembled:
    """The reference's launch code with the student's kernels (see the module docstring)."""
    try:
        tree = ast.parse(student)
    except SyntaxError as exc:
        problem = KernelSourceError(f"could not import {display}: SyntaxError: {exc.msg} (line {exc.lineno})")
        return Assembled("", dict.fromkeys(KERNELS, problem))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    jitted = {name for name, n in functions.items() if _is_jit(n)}
    ref_tree = ast.parse(reference)
    ref_functions = {n.name: n for n in ref_tree.body if isinstance(n, ast.FunctionDef)}
    ref_names = module_names(ref_tree)
    attributes = _allowed_attributes()
    helpers = jitted - set(KERNELS)
    problems: dict[str, KernelSourceError] = {}
    taken: set[str] = set()
    for name, todo in KERNELS.items():
        node = functions.get(name)
        try:
            if node is None or name not in jitted:
                raise KernelSourceError(f"{display} defines no @triton.jit function {name}: write it ({todo}) with"
                                        " the signature the stub gives; the tests launch it with the stub's launch code")
            if _is_empty(node):
                raise KernelSourceError(f"{name}: {todo} in {display} (its body is still empty)", not_implemented=True)
            problem = _signature_problem(node, ref_functions[name], display)
            if problem is not None:
                raise problem
            wanted, queue = set(), [name]
            while queue:
                current = queue.pop()
                if current in wanted:
                    continue
                if current != name and current in ref_names:
                    raise KernelSourceError(f"the @triton.jit function {current} of {display} clashes with"
                                            f" {ref_names[current]} in the stub's launch code, which the tests"
                                            " run with your kernels: rename your function")
                wanted.add(current)
                _check_decorators(functions[current])
                if current != name:
                    problem = _definition_problem(functions[current], None, display)
                    if problem is not None:
                        raise problem
                queue += sorted(_check_body(functions[current], helpers, attributes, display))
        except KernelSourceError as problem:
            problems[name] = problem
            continue
        taken |= wanted
    if len(problems) == len(KERNELS):
        return Assembled("", problems)
    lines = student.splitlines()
    kept = [""] * len(lines)
    for name in taken:
        start, end = _span(functions[name])
        kept[start - 1:end] = lines[start - 1:end]
    if kept and kept[0]:
        kept.insert(0, "")  # a kernel on the first line: the header needs it (line numbers shift by one)
    kept = kept or [""]
    kept[0] = HEADER
    return Assembled("\n".join(kept) + "\n\n" + _launch_code(reference, ref_tree, set(problems)), problems)


def module_names(tree: ast.Module) -> dict[str, str]:
    """The names the launch code binds at module level, each with what it is there ("the function
    swiglu_forward (line 120)"). Only these can clash with a helper kernel put beside them: names bound
    inside its functions are those functions' locals."""
    names = {"tl": "the imported name tl", "triton": "the imported name triton"}

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            names[node.name] = f"the {kind} {node.name} (line {node.lineno})"
            return  # its body is a scope of its own
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound = (alias.asname or alias.name).split(".")[0]
                names[bound] = f"the imported name {bound} (line {node.lineno})"
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.setdefault(node.id, f"the module-level name {node.id} (line {node.lineno})")
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in tree.body:
        visit(statement)
    return names


def _launch_code(reference: str, ref_tree: ast.Module, missing: set[str]) -> str:
    """The reference without its kernels, its docstring and what the kernel tests do not run; the
    launcher of a kernel that could not be taken raises instead."""
    lines = reference.splitlines()
    for node in ref_tree.body:
        name = getattr(node, "name", None)
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node is ref_tree.body[0]
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if name in KERNELS or name in NOT_COPIED or docstring or future:
            start, end = _span(node) if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else (node.lineno,
                                                                                                  node.end_lineno)
            lines[start - 1:end] = [""] * (end - start + 1)
    stubs = "".join(f"\n\ndef {LAUNCHERS[name]}(*args, **kwargs):\n    raise NotImplementedError({name!r})\n"
                    for name in sorted(missing))
    return "\n".join(lines) + "\n" + stubs


def stub_launch_code(stub: str) -> str:
    """The stub as trusted launch code (the student release has no reference): the stub with the
    lines its launchers tell the student to delete once the kernels are written."""
    tree = ast.parse(stub)
    lines = stub.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in LAUNCHERS.values():
            for raised in (n for n in ast.walk(node) if isinstance(n, ast.Raise)):
                if "NotImplementedError" in ast.unparse(raised):
                    lines[raised.lineno - 1:raised.end_lineno] = [""] * (raised.end_lineno - raised.lineno + 1)
    return "\n".join(lines) + "\n"


def assemble_file(student: Path, reference: Path, display: str, out: Path) -> Assembled:
    """Assemble into ``out`` (written only when a kernel could be taken)."""
    if not student.is_file():
        return Assembled("", dict.fromkeys(KERNELS, KernelSourceError(f"no file {display}")))
    assembled = assemble(student.read_text(), reference.read_text(), display)
    if assembled.source:
        out.write_text(assembled.source)
    return assembled
