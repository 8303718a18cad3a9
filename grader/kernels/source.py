"""The student's Triton kernels, taken out of their file and put into trusted launch code.

The Triton suites grade the kernels themselves: the kernels an exercise names (``KernelExercise``; for
the fused SwiGLU ``_swiglu_forward_kernel`` and ``_swiglu_backward_kernel``, for the gated projection
``_gated_projection_kernel``) are read from the file without running it (``ast``), checked to be Triton
language only and to keep the parameters the stub gives, and written into a copy of the reference's
launch code in place of its own ``@triton.jit`` functions. The suite runs that copy in a process of its
own, so the tensors the kernel tests judge were computed by the student's kernels, launched by trusted
code on tensors the test picked; no Python of the student's runs there, because under the
interpreter a kernel body is plain Python and anything outside Triton's language
(``grader/kernels/language.py``) is refused before it runs.

The copy is written from the checked syntax trees, never from the student's text: each statement is
unparsed onto the line it started on in the student's file (a statement written over several lines
takes the first), so an out-of-bounds message that says ``triton_swiglu.py:42`` still means line 42 of
the student's file. Comments are not copied. The copy is parsed again before anything runs it, and
must be exactly the header, the checked kernels (with the module-level constants they read, written from
their values: ``grader/kernels/constants.py``) and the launch code (``check_assembled``): no
character of the student's file (a line separator Python keeps inside a comment, say) can put a
statement of theirs into it (``grader/kernels/writing.py``).

A kernel that cannot be taken (still the stub, missing, another signature, not Triton language) is
reported per kernel (``Assembled.problems``): the other kernel is still graded.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from pathlib import Path

from grader.kernels.constants import constant_statement, module_bindings, module_constants
from grader.kernels.language import KernelSourceError, allowed_attributes, check_body, source_excerpt
from grader.kernels.writing import check_assembled, written


@dataclass(frozen=True)
class KernelExercise:
    """What an exercise's kernel tests take from the student (``kernels``, by name, with their TODO) and
    from the reference (everything else, but ``not_copied``: its answers to the TODOs the kernel tests do
    not judge); ``launchers``: the launch function of each kernel, which raises if the kernel could not
    be taken; ``ops``: the kernel each value of a probe's ``op`` launches (none: every probe may launch
    every kernel), so that a kernel the grader refused is told only where it was needed."""

    exercise: str
    kernels: dict[str, str]
    launchers: dict[str, str]
    not_copied: frozenset[str]
    ops: tuple[tuple[str, str], ...] = ()

    def kernels_of(self, probe_arguments: dict) -> list[str]:
        """The kernels a probe with these arguments launches (``op``, or each case's)."""
        if not self.ops:
            return list(self.kernels)
        ops = ([probe_arguments["op"]] if "op" in probe_arguments
               else [case["op"] for case in probe_arguments.get("cases", [])])
        return [dict(self.ops)[op] for op in ops]


SWIGLU = KernelExercise("triton_swiglu", {"_swiglu_forward_kernel": "TODO 1", "_swiglu_backward_kernel": "TODO 2"},
                        {"_swiglu_forward_kernel": "swiglu_forward", "_swiglu_backward_kernel": "swiglu_backward"},
                        frozenset({"SwiGLUFunction", "swiglu", "FusedSwiGLU"}),
                        (("forward", "_swiglu_forward_kernel"), ("backward", "_swiglu_backward_kernel")))
GATED = KernelExercise("triton_gated_mlp", {"_gated_projection_kernel": "TODO 1"},
                       {"_gated_projection_kernel": "_launch_gated_kernel"},
                       frozenset({"gated_projection", "gated_projection_combined", "GatedProjectionFunction",
                                  "FusedGatedMLP"}))
KERNEL_EXERCISES = {spec.exercise: spec for spec in (SWIGLU, GATED)}
HEADER = "from __future__ import annotations; import triton; import triton.language as tl"

_JIT = ("triton.jit", "jit")
# What @triton.jit(...) may be given: options that change how the kernel compiles, as literals.
_JIT_OPTIONS = {"do_not_specialize", "do_not_specialize_on_alignment", "noinline", "debug"}
# Names a helper may not take: Python's builtins (the launch code calls isinstance, len, ...), dunders,
# and the names the header binds. Together with the launch code's own names (module_names), no name of
# the student's can stand in for one the launch code means.
_RESERVED = set(dir(builtins)) | {"jit", "triton", "tl", "torch"}


@dataclass
class Assembled:
    source: str  # the launch code with the kernels that could be taken; "" when none could
    problems: dict[str, KernelSourceError] = field(default_factory=dict)  # kernel name -> why not
    student_lines: int = 0  # lines 1..student_lines are the student's kernels, on their own line numbers


def _is_jit_decorator(decorator: ast.expr) -> bool:
    """``@triton.jit``, or ``@triton.jit(...)`` with options (checked by _check_decorators)."""
    called = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(called) in _JIT


def is_jit(node: ast.FunctionDef) -> bool:
    """Decorated with ``@triton.jit``, plain or with options."""
    return any(_is_jit_decorator(d) for d in node.decorator_list)


def _literal_value(node: ast.expr) -> bool:
    """Whether ``node`` is a literal (numbers, strings, lists of them): nothing runs when it is evaluated."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _check_decorators(node: ast.FunctionDef) -> None:
    others = [ast.unparse(d) for d in node.decorator_list if not _is_jit_decorator(d)]
    if others:
        raise KernelSourceError(f"{node.name} is decorated with {', '.join('@' + o for o in others)}: the tests"
                                " launch the kernel with the stub's launch code, which picks BLOCK_SIZE, so use"
                                " plain @triton.jit")
    for call in (d for d in node.decorator_list if isinstance(d, ast.Call)):
        if call.args or any(k.arg not in _JIT_OPTIONS or not _literal_value(k.value) for k in call.keywords):
            raise KernelSourceError(f"{node.name} is decorated with @{source_excerpt(call)}: @triton.jit takes here only"
                                    f" the options {', '.join(sorted(_JIT_OPTIONS))}, each a literal value")


def _is_empty(node: ast.FunctionDef) -> bool:
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
               for s in node.body)


CONSTEXPR = "tl.constexpr"
CONSTEXPR_SPELLINGS = {CONSTEXPR, "triton.language.constexpr"}


def _parameters(node: ast.FunctionDef) -> list[str]:
    """Each parameter as written: its name, and its annotation (``tl.constexpr`` however spelled)."""
    def shown(a: ast.arg) -> str:
        if a.annotation is None:
            return a.arg
        annotation = ast.unparse(a.annotation)
        return f"{a.arg}: {CONSTEXPR if annotation in CONSTEXPR_SPELLINGS else source_excerpt(a.annotation)}"
    return [shown(a) for a in node.args.posonlyargs + node.args.args]


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


def _definition_problem(node: ast.FunctionDef, stub: ast.FunctionDef | None, display: str, todo: str = ""
                        ) -> KernelSourceError | None:
    """What of the ``def`` line would run Python when the file is imported: default values,
    annotations other than ``tl.constexpr``, a return annotation, ``*args``/``**kwargs``. A kernel
    must have the stub's exact parameters (no defaults, as the stub has none); a helper may give a
    parameter a literal default."""
    args = node.args
    where = f"{node.name} ({display}:{node.lineno})"
    rule = (f"keep the signature the stub gives ({todo})" if stub is not None else
            "a @triton.jit helper takes plain parameters, each optionally `: tl.constexpr`")
    for arg in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
        if arg.annotation is not None and ast.unparse(arg.annotation) not in CONSTEXPR_SPELLINGS:
            return KernelSourceError(f"{where}: parameter {arg.arg} is annotated `{source_excerpt(arg.annotation)}`;"
                                     f" the only annotation a kernel parameter may have is `{CONSTEXPR}` ({rule})")
    if node.returns is not None:
        return KernelSourceError(f"{where} has a return annotation `-> {source_excerpt(node.returns)}`: remove it ({rule})")
    stub_defaults = {} if stub is None else {name: ast.unparse(d) for name, d in _defaults(stub).items()}
    for name, default in _defaults(node).items():
        if stub_defaults.get(name) == ast.unparse(default):
            continue
        if stub is not None:
            return KernelSourceError(f"{where}: parameter {name} has a default value (`= {source_excerpt(default)}`),"
                                     f" which the stub's does not; the launch code passes every argument ({rule})")
        if not _literal(default):
            return KernelSourceError(f"{where}: parameter {name} has a default that is not a literal"
                                     f" (`= {source_excerpt(default)}`): write a number such as 0 or 1.0, or no default")
    return None


def _signature_problem(node: ast.FunctionDef, stub: ast.FunctionDef, display: str, todo: str) -> KernelSourceError | None:
    got, want = _parameters(node), _parameters(stub)
    extra = [f"*{node.args.vararg.arg}"] if node.args.vararg else []
    extra += [a.arg for a in node.args.kwonlyargs] + ([f"**{node.args.kwarg.arg}"] if node.args.kwarg else [])
    if [p.split(":")[0] for p in got] == [p.split(":")[0] for p in want] and not extra:
        problem = _definition_problem(node, stub, display, todo)  # the names are right: say what else is wrong
        if problem is not None:
            return problem
    if got != want or extra:
        return KernelSourceError(
            f"{node.name} in {display} takes ({', '.join(got + extra)}), expected ({', '.join(want)}): the tests"
            f" launch it with the stub's launch code, so keep the signature the stub gives ({todo})")
    return None


def _span(node: ast.FunctionDef) -> tuple[int, int]:
    return min([d.lineno for d in node.decorator_list] + [node.lineno]), node.end_lineno


def assemble(student: str, reference: str, display: str, spec: KernelExercise = SWIGLU) -> Assembled:
    """The reference's launch code with the student's kernels (see the module docstring)."""
    try:
        tree = ast.parse(student)
    except SyntaxError as exc:
        problem = KernelSourceError(f"could not import {display}: SyntaxError: {exc.msg} (line {exc.lineno})")
        return Assembled("", dict.fromkeys(spec.kernels, problem))
    except (RecursionError, MemoryError):
        return Assembled("", {name: _too_deep(name, todo, display) for name, todo in spec.kernels.items()})
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    jitted = {name for name, n in functions.items() if is_jit(n)}
    ref_tree = ast.parse(reference)
    ref_functions = {n.name: n for n in ref_tree.body if isinstance(n, ast.FunctionDef)}
    launch_tree = ast.Module(body=[n for n in ref_tree.body if not _replaced(n, spec)], type_ignores=[])
    ref_names = module_names(launch_tree)
    attributes = allowed_attributes()
    helpers = jitted - set(spec.kernels)
    try:
        constants, not_constants = module_constants(tree)
    except (RecursionError, MemoryError, ValueError):  # a module level too deep or too large to read: none taken
        constants, not_constants = {}, {}
    problems: dict[str, KernelSourceError] = {}
    taken: set[str] = set()
    constants_taken: set[str] = set()
    for name, todo in spec.kernels.items():
        node = functions.get(name)
        try:
            if node is None or name not in jitted:
                raise KernelSourceError(f"{display} defines no @triton.jit function {name}: write it ({todo}) with"
                                        " the signature the stub gives; the tests launch it with the stub's launch code")
            if _is_empty(node):
                raise _unwritten(name, todo, display)
            problem = _signature_problem(node, ref_functions[name], display, todo)
            if problem is not None:
                raise problem
            wanted, queue, read = set(), [name], set()
            while queue:
                current = queue.pop()
                if current in wanted:
                    continue
                if current != name and current in ref_names:
                    raise KernelSourceError(f"the @triton.jit function {current} of {display} clashes with"
                                            f" {ref_names[current]} in the stub's launch code, which the tests"
                                            " run with your kernels: rename your function")
                if current in _RESERVED or current.startswith("__"):
                    raise KernelSourceError(f"the @triton.jit function {current} of {display} is named like"
                                            f" Python's or Triton's own {current}, which the stub's launch code"
                                            " uses: rename your function")
                wanted.add(current)
                _check_decorators(functions[current])
                if current != name:
                    problem = _definition_problem(functions[current], None, display)
                    if problem is not None:
                        raise problem
                used = check_body(functions[current], helpers, attributes, display, frozenset(constants), not_constants)
                queue += sorted(used & helpers)
                read |= used - helpers
                ast.dump(ast.parse(ast.unparse(functions[current])))  # what writing it will do: as deep as allowed?
            for constant in sorted(read):
                if constant in ref_names or constant in _RESERVED or constant.startswith("__"):
                    raise KernelSourceError(f"the constant {constant} of {display}, which {name} reads, clashes with"
                                            f" {ref_names.get(constant, 'a name of Python or Triton')} in the stub's"
                                            " launch code, which the tests run with your kernels: rename it")
        except KernelSourceError as problem:
            problems[name] = problem
            continue
        except (RecursionError, MemoryError, ValueError):  # ValueError: a literal of more digits than str() writes
            problems[name] = _too_deep(name, todo, display)
            continue
        taken |= wanted
        constants_taken |= read
    if len(problems) == len(spec.kernels):
        return Assembled("", problems)
    # Each constant as a statement written from its value, on the student's line (grader/kernels/constants.py).
    read = sorted(constants_taken, key=lambda name: constants[name][2])  # in the file's order, whatever the set's
    statements = [ast.parse(constant_statement(name, *constants[name][:2])).body[0] for name in read]
    for statement, name in zip(statements, read):
        ast.increment_lineno(statement, constants[name][2][0] - 1)
    kept = sorted([*(functions[name] for name in taken), *statements], key=lambda n: n.lineno)
    kernels = written(kept, HEADER)
    launch = _launch_code(reference, ref_tree, set(problems), spec)
    source = "\n".join(kernels) + "\n\n" + launch
    check_assembled(source, HEADER, kept, launch)
    return Assembled(source, problems, len(kernels))


def _unwritten(name: str, todo: str, display: str) -> KernelSourceError:
    return KernelSourceError(f"{name}: {todo} in {display} (its body is still empty)", not_implemented=True)


def _too_deep(name: str, todo: str, display: str) -> KernelSourceError:
    return KernelSourceError(f"{name} ({todo} in {display}) holds an expression nested too deeply or a number too"
                             " long to be checked (thousands of terms in one line, or of digits?): split it into"
                             " several assignments")


def _replaced(node: ast.stmt, spec: KernelExercise) -> bool:
    """Whether the reference's ``node`` stays out of the launch code: its @triton.jit functions (the
    student's kernels and helpers take their place), its answers to the other TODOs, its docstring and
    its ``from __future__`` (the header has it)."""
    if isinstance(node, ast.FunctionDef) and (is_jit(node) or node.name in spec.kernels):
        return True
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in spec.not_copied:
        return True
    docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    return docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__")


def module_names(tree: ast.Module) -> dict[str, str]:
    """The names the launch code binds at module level, each with what it is there ("the function
    swiglu_forward (line 120)"). Only these can clash with a helper kernel put beside them: names bound
    inside its functions are those functions' locals."""
    names = {"tl": "the imported name tl", "triton": "the imported name triton"}
    for name, how, node in module_bindings(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            names[name] = f"the {kind} {name} (line {node.lineno})"
        elif how == "defined":
            names[name] = f"the imported name {name} (line {node.lineno})"
        else:
            names.setdefault(name, f"the module-level name {name} (line {node.lineno})")
    return names


def _launch_code(reference: str, ref_tree: ast.Module, missing: set[str], spec: KernelExercise) -> str:
    """The reference without what ``_replaced`` leaves out; the launchers of the kernels that could not be
    taken (``missing``, by kernel name) raise instead."""
    lines = reference.splitlines()
    for node in ref_tree.body:
        if _replaced(node, spec):
            start, end = _span(node) if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else (node.lineno,
                                                                                                  node.end_lineno)
            lines[start - 1:end] = [""] * (end - start + 1)
    stubs = "".join(f"\n\ndef {spec.launchers[name]}(*args, **kwargs):\n    raise NotImplementedError({name!r})\n"
                    for name in sorted(missing))
    return "\n".join(lines) + "\n" + stubs


def stub_launch_code(stub: str, spec: KernelExercise) -> str:
    """The stub as trusted launch code (the student release has no reference): the stub with the
    lines its launchers tell the student to delete once the kernels are written. Both exercises give
    their kernels' launch code, so the release launches a kernel as the course's grader does."""
    tree = ast.parse(stub)
    lines = stub.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in spec.launchers.values():
            for raised in (n for n in ast.walk(node) if isinstance(n, ast.Raise)):
                if "NotImplementedError" in ast.unparse(raised):
                    lines[raised.lineno - 1:raised.end_lineno] = [""] * (raised.end_lineno - raised.lineno + 1)
    return "\n".join(lines) + "\n"


def assemble_file(student: Path, reference: Path, display: str, out: Path, spec: KernelExercise = SWIGLU) -> Assembled:
    """Assemble into ``out`` (written only when a kernel could be taken)."""
    if not student.is_file():
        return Assembled("", dict.fromkeys(spec.kernels, KernelSourceError(f"no file {display}")))
    assembled = assemble(student.read_text(), reference.read_text(), display, spec)
    if assembled.source:
        out.write_text(assembled.source)
    return assembled
