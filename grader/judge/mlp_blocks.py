"""The MLP and GLU tasks' blocks (``exercises/mlp_block.py``), declared as the shared block helpers take a
block (``grader.judge.checks.Block``: its layers, which TODO builds and which runs it, its parameter count).
The helpers (``block_runs``, ``block_evidence``, ``checks``) name no block of their own: a task whose
exercise is a block (linear layers, with biases or without, and any other parameters) declares its ``Block``
beside its suite, as these are, and its known
mistakes, if any, in the reference's ``solution/hidden/known_mistakes.py`` (its ``BLOCKS``).
"""

from __future__ import annotations

from grader.judge.checks import Block

BLOCKS = {
    "MLP": Block(
        "MLP", "mlp_block", "TODO 1", "TODO 2",
        {"Wi": ("hidden", "intermediate"), "Wo": ("intermediate", "hidden")},
        "2*hidden*intermediate + intermediate + hidden",
        lambda h, i: 2 * h * i + i + h,
        output_layer="Wo",
    ),
    "GLU": Block(
        "GLU", "mlp_block", "TODO 3", "TODO 4",
        {"Wv": ("hidden", "intermediate"), "Wg": ("hidden", "intermediate"),
         "Wo": ("intermediate", "hidden")},
        "3*hidden*intermediate + 2*intermediate + hidden",
        lambda h, i: 3 * h * i + 2 * i + h,
        output_layer="Wo",
    ),
}
