"""Checks of the checks: the graded suites must fail every known wrong implementation and pass
every correct one, the stubs must fail with their not-implemented messages, and the reference must
reject bad arguments. Run by the maintainer command, not by a student's plain ``pytest``."""
