"""Checks of the checks: the graded suites must fail every known wrong implementation and pass
every correct one, the stubs must fail with their not-implemented messages, and the reference must
reject bad arguments. Run by the maintainer command, not by a student's plain ``pytest``."""

import ast
import functools
import threading


def _one_parse_at_a_time(parse):
    """``ast.parse`` under one lock, for every caller in a self-check's process (the grader's modules parse too):
    variants run from threads, and two of Python 3.11's parses at once fail ("AST constructor recursion depth
    mismatch"). Re-entrant: a parse that starts another in the same thread (a finalizer) does not hang."""
    lock = threading.RLock()

    @functools.wraps(parse)
    def locked(*args, **kwargs):
        with lock:
            return parse(*args, **kwargs)

    locked.one_at_a_time = True
    return locked


if not getattr(ast.parse, "one_at_a_time", False):  # once, however often this package is imported
    ast.parse = _one_parse_at_a_time(ast.parse)
