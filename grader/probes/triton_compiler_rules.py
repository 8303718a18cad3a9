"""A patch to Triton's interpreter: refuse what Triton's compiler refuses, so that a kernel's verdict on
the CPU is its verdict on a GPU.

The interpreter runs a kernel as Python, so a loop whose carried variable changes type runs there
(``acc = tl.zeros(..., tl.float32)`` then ``acc += tl.dot(x, w)`` on float64 tiles: numpy promotes
``acc`` to float64), while the compiler refuses the same loop ("Loop-carried variable acc has initial
type fp32 but is re-assigned to fp64 in loop"). Here every ``for`` and ``while`` loop of a jit function
is rewritten, in the interpreter's own rewrite of its syntax tree, to check the types of the variables
it carries at each iteration and after it, and to raise the compiler's error where one changed. Loops
over ``tl.static_range`` are left alone: the compiler unrolls them, so their variables may change type.

It replaces a private part of Triton (``triton.runtime.interpreter.FunctionRewriter``), as
``triton_bf16`` does: the version check there covers both.
"""

from __future__ import annotations

import ast
import itertools

CHECK, ENTRY = "_grader_loop_check", "_grader_loop_entry"  # what the rewritten loops call
_counter = itertools.count()


def loop_entry(scope: dict, names: tuple[str, ...]) -> dict:
    """The types, before the loop, of the names it assigns that already hold a tensor."""
    return {name: scope[name].type for name in names if hasattr(scope.get(name), "type")}


def loop_check(scope: dict, before: dict) -> None:
    """Raise the compiler's error where a carried variable's type is no longer what it was before the loop
    (the error's place, the kernel's line, is the loop's)."""
    for name, initial in before.items():
        now = getattr(scope.get(name), "type", initial)
        if now != initial:
            raise TypeError(
                f"Loop-carried variable {name} has initial type {initial} but is re-assigned to {now} in loop:"
                f" Triton's compiler refuses this loop on a GPU. Keep {name}'s type the same in every iteration:"
                f" start it in the type it ends in, or convert what you assign to it with"
                f" .to({_tl_name(getattr(initial, 'scalar', initial))})")


def _tl_name(dtype) -> str:
    """``tl.float32`` for the dtype fp32 (its name in Triton's language, as a kernel writes it)."""
    import triton.language as tl

    return next((f"tl.{name}" for name in dir(tl) if getattr(tl, name, None) is dtype), str(dtype))


def _assigned(statements: list[ast.stmt]) -> set[str]:
    return {node.id for statement in statements for node in ast.walk(statement)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _unrolled(loop: ast.AST) -> bool:
    """A ``for ... in tl.static_range(...)`` loop: unrolled by the compiler, nothing is carried."""
    return (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call)
            and isinstance(loop.iter.func, ast.Attribute) and loop.iter.func.attr == "static_range")


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _locals() -> ast.Call:
    return _call("locals")


def checked_loops(transformer_class: type) -> type:
    """A subclass of the interpreter's syntax-tree transformer whose loops check their carried types."""

    class LoopCheckingTransformer(transformer_class):
        def _checked(self, loop: ast.For | ast.While):
            loop = self.generic_visit(loop)
            if _unrolled(loop):
                return loop
            targets = _assigned([ast.Assign(targets=[loop.target], value=ast.Constant(0))]) if isinstance(
                loop, ast.For) else set()
            names = sorted(_assigned(loop.body) - targets)
            if not names:
                return loop
            saved = f"_grader_carried_{next(_counter)}"
            entry = ast.Assign(targets=[ast.Name(id=saved, ctx=ast.Store())],
                               value=_call(ENTRY, _locals(), ast.Tuple(elts=[ast.Constant(n) for n in names],
                                                                       ctx=ast.Load())))
            check = ast.Expr(_call(CHECK, _locals(), ast.Name(id=saved, ctx=ast.Load())))
            loop.body = [ast.copy_location(check, loop), *loop.body]
            after = ast.Expr(_call(CHECK, _locals(), ast.Name(id=saved, ctx=ast.Load())))
            return [ast.copy_location(entry, loop), loop, ast.copy_location(after, loop)]

        def visit_For(self, node):
            return self._checked(node)

        def visit_While(self, node):
            return self._checked(node)

    return LoopCheckingTransformer


def refuse_what_the_compiler_refuses(interpreter) -> None:
    """Install the loop checks into the interpreter (once; ``interpreter`` is triton.runtime.interpreter)."""
    rewriter = interpreter.FunctionRewriter
    if getattr(rewriter.ast_transformer, "_grader_checks_loops", False):
        return
    transformer = checked_loops(type(rewriter.ast_transformer))()
    transformer._grader_checks_loops = True
    rewriter.ast_transformer = transformer
    # The rewritten functions run with the interpreter module's globals added to theirs: the checks live there.
    setattr(interpreter, ENTRY, loop_entry)
    setattr(interpreter, CHECK, loop_check)
