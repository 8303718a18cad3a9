"""The stub as handed out, so that the hand-in holds one real exercise file beside its links (a hand-in
of links alone is skipped whole by the batch's intake, which names them)."""

BASE = "exercises/mlp_block.py"
EDITS = []
