"""Triton's interpreter, spared work that changes nothing it computes.

At each launch the interpreter swaps ``triton.language``'s functions for interpreted ones, and puts them
back when the launch ends. It also swaps them again at every call of a ``@triton.jit`` function from
inside a kernel (a helper of the student's, or ``tl.cdiv`` and ``tl.sigmoid``, which are such functions),
though the launch has swapped them already: a scan of the whole language each time, about a
millisecond. A kernel that calls ``tl.cdiv`` in each of 2,048 programs spent a fifth of its time there
(FusedSwiGLU's dropout test on such a kernel: 9.3 s before, 7.3 s after; the reference's Triton suites,
whose kernels call a helper or two: 9.1 s before, 8.6 s after), in the grader as on a student's laptop.

Here a call inside a launch skips the swap when the language modules it sees are those the launch (or
an earlier call in it) swapped already. What the kernel computes is the same; only the repeated swap
is gone. A Triton whose interpreter is laid out otherwise is left as it is.

The interpreter also checks every ``+``, ``-`` and ``*`` of 32-bit integers for overflow: it redoes the
operation in 64 bits, compares the result with the type's bounds, and hands the comparison to
``device_assert``, which throws it away unless the kernel runs in debug mode, and the interpreter never
does (as a GPU's compiled kernel, where that code is removed as dead). The reference's gated suite spent
a third of its kernels' time on it (``pytest tests -m gated --target reference``: 6.1 s before, 4.6 s
after; the self-checks' 38 gated variants, one after another: 123 s before, 82 s after).
``skip_dead_overflow_checks`` turns the check off where its verdict could not be seen; in debug mode it
stays.
"""

from __future__ import annotations

import dataclasses
import inspect

MARK = "_grader_swaps_language_once_per_launch"


class _NothingToRestore:
    def restore(self) -> None:
        pass


def swap_language_once_per_launch(interpreter) -> None:
    """Install into ``interpreter`` (``triton.runtime.interpreter``), once."""
    swap = getattr(interpreter, "_patch_lang", None)
    executor = getattr(interpreter, "GridExecutor", None)
    language = getattr(interpreter, "tl", None)
    if getattr(interpreter, MARK, False) or None in (swap, executor, language):
        return
    swapped: list[set[int] | None] = [None]  # the language modules the running launch swapped; None outside one

    def seen_by(fn) -> set[int]:
        return {id(value) for value in fn.__globals__.values()
                if inspect.ismodule(value) and value in (language, language.core)}

    def swap_once(fn):
        done = swapped[0]
        if done is not None:
            modules = seen_by(fn)
            if modules and modules <= done:
                return _NothingToRestore()
        scope = swap(fn)
        if done is not None:
            done |= seen_by(fn)
        return scope

    launch = executor.__call__

    def launch_swapping_once(self, *args, **kwargs):
        outer, swapped[0] = swapped[0], set()
        try:
            return launch(self, *args, **kwargs)
        finally:
            swapped[0] = outer

    interpreter._patch_lang = swap_once
    executor.__call__ = launch_swapping_once
    setattr(interpreter, MARK, True)


def skip_dead_overflow_checks(interpreter) -> None:
    """Install into ``interpreter``: no overflow check whose result ``device_assert`` would discard."""
    builder = getattr(interpreter, "interpreter_builder", None)
    options = getattr(builder, "options", None)
    if not dataclasses.is_dataclass(options) or {"debug", "sanitize_overflow"} - set(vars(options)):
        return
    if not options.debug and options.sanitize_overflow:
        builder.options = dataclasses.replace(options, sanitize_overflow=False)
