"""The judging engine of the graded suites (``tests/``): what a test asks of the code under test, and
how its evidence becomes a verdict a student can act on.

``seam`` (targets and backends: where the code under test runs), ``checks`` (verdicts: ``fail``, the
comparisons and their messages), ``kernel_target`` (the Triton suites' second target, the student's
kernels under trusted launch code, and ``rests_on``), ``block_runs``, ``block_evidence`` and
``block_dropout`` (the MLP/GLU probes, their diagnoses, the dropout runs), ``swiglu_support``/
``swiglu_diagnosis`` and ``gated_support``/``gated_diagnosis``/``gated_launch`` (the two Triton
exercises), ``snapshot`` (the reference's answers recorded for the student release: ``python -m
grader.judge.snapshot``). The tests import from here; the grader's own command runs those tests, and
imports nothing from here itself.
"""
