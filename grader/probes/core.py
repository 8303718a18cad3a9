"""Probes' common ground: the registry, stages, and turning the code under test's exceptions into evidence.

Loading a file and running a probe on it (``running``) sit a layer above this and Triton's side
(``triton_watch``), which both import from here."""

from __future__ import annotations

import os
import sys
import traceback
from types import ModuleType
from typing import Callable

import torch

from grader.probes.errors import error_evidence
from grader.probes.safe_text import shorten


PROBES: dict[str, Callable[..., dict]] = {}


def probe(fn: Callable[..., dict]) -> Callable[..., dict]:
    PROBES[fn.__name__] = fn
    return fn


# ---------------------------------------------------------------------------- loading the target

class EmptyFile(AttributeError):
    """The file defines no function or class at all: one cause, whichever of its names a test asked for."""


def missing(module: ModuleType, what: str, name: str) -> AttributeError:
    """The error for a function or class the file does not define, told by the file's name (never the
    module name the grader imported it under); ``EmptyFile`` where it defines none at all."""
    shown = os.path.basename(getattr(module, "__file__", None) or module.__name__)
    own = [value for value in vars(module).values()
           if callable(value) and getattr(value, "__module__", None) == module.__name__]
    if not own:
        return EmptyFile(f"{shown} defines no function or class at all: is it empty, or not saved? Start again"
                         " from the exercise file as handed out, which has every function and class the tests"
                         " call, each with its TODO")
    return AttributeError(f"{shown} defines no {what} {name}: was {name} renamed? The tests call it by the name"
                          " the exercise file gives")


class CodeUnderTestError(Exception):
    """Raised by code under test; carries the stage and a one-line description."""

    def __init__(self, stage: str, exc: BaseException) -> None:
        self.stage = stage
        self.evidence = describe_exception(stage, exc)
        super().__init__(self.evidence["message"])


# The grader's own package, wherever it runs from (in the sandbox: its private copy, /grader-child/grader):
# none of its frames is a place for a student to look, and its path would only show the sandbox's insides.
GRADER_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _student_frame(exc: BaseException) -> str:
    """'file.py:LINE in func' of the deepest frame outside torch and the grader's package: where to look."""
    if isinstance(exc, SyntaxError):  # its traceback is the importer's; the place is on the exception
        return ""  # the message already reads "invalid syntax (file.py, line N)"
    where = ""
    # Triton's interpreter re-raises a kernel's error as InterpreterError from the original: the
    # kernel's own line is in the original's traceback, the launch in the wrapper's.
    frames = traceback.extract_tb(exc.__traceback__)
    if exc.__cause__ is not None and type(exc).__name__ == "InterpreterError":
        frames += traceback.extract_tb(exc.__cause__.__traceback__)
    for frame in frames:
        path = os.path.abspath(frame.filename)
        if (path.startswith(GRADER_PACKAGE) or frame.filename.startswith("<") or f"{os.sep}torch{os.sep}" in path
                or f"{os.sep}triton{os.sep}" in path or f"{os.sep}importlib{os.sep}" in path):
            continue
        shown = os.path.relpath(path)
        where = f"{path if shown.startswith('..') else shown}:{frame.lineno} in {frame.name}"
    return where


COMPILER_RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "triton_compiler_rules.py")


def _is_compilation_error(exc: BaseException) -> bool:
    return any(cls.__name__ == "CompilationError" for cls in type(exc).__mro__)


def _causes(exc: BaseException):
    """``exc``, then its cause, its cause's cause...: each once (a cycle ends it)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__


def _raised_in_triton_language(exc: BaseException) -> bool:
    """Raised by Triton's own code outside its runtime (the language's checks), or by
    ``triton_compiler_rules``: what the compiler checks as it compiles."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return False
    raised_in = os.path.abspath(frames[-1].filename)
    triton = sys.modules.get("triton")
    package = os.path.dirname(os.path.abspath(triton.__file__)) + os.sep if getattr(triton, "__file__", None) else None
    return raised_in == COMPILER_RULES or (package is not None and raised_in.startswith(package)
                                          and not raised_in.startswith(os.path.join(package, "runtime") + os.sep))


def _compiler_refusal(exc: BaseException) -> BaseException | None:
    """The error that says why Triton's compiler refuses what raised ``exc``, on the interpreter as on a
    GPU; None if it does not. A GPU raises CompilationError for every error of Triton's language (its checks
    run as the kernel is compiled; one CompilationError per jit function on the way, the reason on the
    innermost); the interpreter raises InterpreterError (one per jit function) from the same error (they
    run as the kernel runs), or from a rule of the compiler's that it lacks (``triton_compiler_rules``).
    One kind and one reason on both, so a verdict's cause is the same wherever the kernel ran."""
    if _is_compilation_error(exc):
        with_reason = [e for e in _causes(exc) if _is_compilation_error(e) and getattr(e, "error_message", None)]
        return with_reason[-1] if with_reason else exc
    if type(exc).__name__ != "InterpreterError":
        return None
    innermost = list(_causes(exc))[-1]
    return innermost if innermost is not exc and _raised_in_triton_language(innermost) else None


def _reason(exc: BaseException) -> str:
    """The refusal's own words. A CompilationError's text is the kernel's source up to the failing line,
    then the reason: the reason first, or the line's cut would leave only source."""
    reason = getattr(exc, "error_message", None)
    if isinstance(reason, str) and reason and _is_compilation_error(exc):
        line = getattr(getattr(exc, "node", None), "lineno", None)
        return f"{reason} (line {line} of the kernel, counted from its def)" if line else reason
    return str(exc)


def describe_exception(stage: str, exc: BaseException) -> dict:
    refusal = _compiler_refusal(exc)
    kind, text = ("CompilationError", _reason(refusal)) if refusal is not None else (type(exc).__name__, str(exc))
    # One line: multi-line messages (load_state_dict lists every mismatch) are folded, then cut.
    message = " ".join(text.split())
    return error_evidence(stage, kind, shorten(message, 400), _student_frame(exc),
                          not_implemented=isinstance(exc, NotImplementedError), empty_file=isinstance(exc, EmptyFile))


# Set by grader/probes/child.py when the probes run in a child process: told the name of each stage as it
# starts, so a crash that kills the process (segfault, exit) is still reported against the method
# that was running. In-process (plain pytest) it stays None.
STAGE_LISTENER: Callable[[str], None] | None = None


# Set by grader/probes/child.py (or, for a probe run in the grader's own process, by the seam while it runs):
# sends a launch's request for the grader's stand-in values (grader/probes/stand_ins.py) to the trusted
# process, which draws the coefficients, and returns what it served.
STAND_IN_SERVER: Callable[[dict], dict] | None = None


def run_stage(stage: str, fn: Callable, *args, **kwargs):
    if STAGE_LISTENER is not None:
        STAGE_LISTENER(stage)
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # anything the code under test raises is evidence, not a crash
        raise CodeUnderTestError(stage, exc) from exc


def kernel_device() -> str:
    """Where a probe places the tensors it hands Triton kernels: the GPU where there is one (compiled
    kernels take no CPU tensor), else the CPU, for Triton's interpreter."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def to_cpu(t: object) -> object:
    """A tensor as evidence: on the CPU, and contiguous, since the grader refuses views whose elements
    share storage (``grader/evidence.py``); a forward that returns ``.expand(...)`` is then judged on
    its values like any other."""
    return t.detach().cpu().contiguous() if isinstance(t, torch.Tensor) else None


def owns_its_storage(t: torch.Tensor) -> bool:
    """Whether ``t``'s storage holds its elements and nothing else, each once. ``torch.save`` writes a
    tensor's whole storage, so a (2, 3) view of a 60 MB storage would carry, and leave the grader
    keeping, 60 MB: the grader takes no other tensor from the child (``grader/evidence.py``)."""
    if t.storage_offset() != 0 or t.untyped_storage().nbytes() != t.numel() * t.element_size():
        return False
    if t.numel() == 0:
        return True
    expected = 1  # dense and without overlaps: the strides, smallest first, are the sizes' running products
    for stride, size in sorted((stride, size) for size, stride in zip(t.shape, t.stride()) if size != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def compacted(value: object, _copies: dict | None = None) -> object:
    """``value`` (evidence, or a launch's request) with each tensor that does not own its storage replaced
    by a copy that does (``owns_its_storage``): what the child sends, so that honest evidence is never
    refused for a view. One copy per tensor, however often it is referred to."""
    copies = {} if _copies is None else _copies
    if isinstance(value, torch.Tensor):
        if id(value) not in copies:
            copies[id(value)] = value if owns_its_storage(value) else value.clone(memory_format=torch.contiguous_format)
        return copies[id(value)]
    if isinstance(value, dict):
        return {key: compacted(item, copies) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(compacted(item, copies) for item in value)
    return value
