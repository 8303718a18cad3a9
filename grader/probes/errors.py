"""Error evidence: what a probe sends back, as ``{"error": ...}``, where the code under test raised or
could not run. Its fields are defined here once, for every place that builds one (the probes in the
child, the child's own last resort, the grader's side of a child that died or ran out of time, a
kernel source the grader refused) and for the one place that reads one back from a child
(``grader/evidence.py``). The tests read the fields, never the words of the message.
"""

from __future__ import annotations

# field -> what it says
FIELDS = {
    "stage": "the method or step that was running (``GLU.forward``, ``import mlp_block.py``)",
    "type": "the exception's class name, or what the grader saw (``Timeout``, ``SIGSEGV``)",
    "message": "one line, already cut short",
    "where": "``file.py:LINE in function``: the student's deepest frame, or empty",
    "not_implemented": "a stub's NotImplementedError: the TODO is not done yet",
    "empty_file": "the exercise file holds no code at all",
    "out_of_time": "not run: the task's time budget was used up by earlier calls",
    "as_is": "the message is already one line for the student: show it as it is",
}
# Present only where there is one: a kernel's memory map at an out-of-bounds access (grader/probes/
# triton_watch.py), checked by its reader (grader/kernels/maps.py) before anything is drawn from it.
OPTIONAL = {"map": "what the kernel read and wrote, per tensor, when it went out of bounds",
            "pointer": "the kernel's pointer argument whose tensor that access ran past (``grad_out_ptr``)"}
# Present only where there is one, and taken as text (the hint that reads it names no more than the attributes):
UNCALLED = "uncalled_modules"  # the block's attributes that hold a module's class, comma-separated (blocks.py)
ENTERED = "layers_entered"  # the block's linear layers whose forward began before its forward raised (blocks.py)
FLAGS = ("not_implemented", "empty_file", "out_of_time", "as_is")
# Set only by the grader's own process: a child that sends them has them cleared (``from_child``).
GRADER_ONLY = frozenset({"out_of_time", "as_is"})


def error_evidence(stage: str, kind: str, message: str, where: str = "", *, not_implemented: bool = False,
                   empty_file: bool = False, out_of_time: bool = False, as_is: bool = False) -> dict:
    """The error's fields, every one of them present (see ``FIELDS``)."""
    return {"stage": stage, "type": kind, "message": message, "where": where, "not_implemented": not_implemented,
            "empty_file": empty_file, "out_of_time": out_of_time, "as_is": as_is}


def from_child(error: object) -> dict:
    """An error as the child sent it, as the grader takes it: the known fields only, text as text, each
    flag a bool, and the flags only the grader may set cleared (the child's process runs the student's
    code, so what it claims about itself is not believed)."""
    fields = error if isinstance(error, dict) else {}

    def text(name: str) -> str:
        value = fields.get(name, "")
        if isinstance(value, str):
            return value
        # A number as its digits; a container as its type alone: its text would be every string it
        # refers to, once per reference, though the evidence's checks measured each string once.
        return str(value) if value is None or isinstance(value, (bool, int, float)) else f"a {type(value).__name__}"

    flags = {name: fields.get(name) is True and name not in GRADER_ONLY for name in FLAGS}
    error = error_evidence(text("stage"), text("type") or "error", text("message"), text("where"), **flags)
    for name in (UNCALLED, ENTERED):
        if text(name):
            error[name] = text(name)[:200]
    return {**error, **{name: fields[name] for name in OPTIONAL if name in fields}}
