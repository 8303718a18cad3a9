"""What the blocks' known mistakes output, each with the hint that fixes it: instructor side.

``grader/judge/checks.py`` (``diagnose``) compares a wrong output with these to name the mistake. They are
the block's formula with one thing changed, so they live with the reference: the student release
gets them, for the tests' own weights and inputs, from the recorded snapshot (``grader/judge/snapshot.py``).
"""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F


def _linear(w: dict, layer: str, x: torch.Tensor) -> torch.Tensor:
    return F.linear(x, w[f"{layer}.weight"], w[f"{layer}.bias"])


def known_formula(block_name: str, w: dict, x: torch.Tensor, act: Callable) -> torch.Tensor:
    """The block's own formula on weights ``w``: Wo(act(Wi(x))), or Wo(act(Wg(x)) * Wv(x))."""
    if block_name == "MLP":
        return _linear(w, "Wo", act(_linear(w, "Wi", x)))
    return _linear(w, "Wo", act(_linear(w, "Wg", x)) * _linear(w, "Wv", x))


TRUNCATED = "tanh GELU with sqrt(2/pi) cut to 0.79788456"
# The blocks whose mistakes this file knows. Any other block (a task's own) has none named here: its wrong
# outputs are told by the shared helpers' general pointer until it has a list of its own.
BLOCKS = ("MLP", "GLU")


def known_mistakes(block_name: str, w: dict, x: torch.Tensor, activation: str | None,
                   make_activation: Callable[[], Callable]) -> list[tuple[str, str, torch.Tensor]]:
    """Outputs of the mistakes students make with ``block_name`` ("MLP" or "GLU") on weights ``w``
    and input ``x``, asked for ``activation`` (None: the default GELU), each as (cause, hint, output,
    in_init): the cause a stable id of the mistake, the same whatever the activation asked for; in_init
    whether the mistake is made in ``__init__`` (the activation or the layers built there), which tells
    the suites which of the block's TODOs it costs.
    ``make_activation`` builds that activation (the suites' table of them, passed in so that this
    file imports nothing of the project)."""
    if block_name not in BLOCKS:
        return []
    act = make_activation()
    gelu, gelu_tanh = F.gelu, lambda t: F.gelu(t, approximate="tanh")
    # Megatron-LM's and BLOOM's tanh GELU: sqrt(2/pi) written as 0.79788456, 6e-10 from tanh GELU's output.
    cut = lambda t: t * 0.5 * (1.0 + torch.tanh(0.79788456 * t * (1.0 + 0.044715 * t * t)))
    requested = "GELU" if activation in (None, "gelu") else activation
    mistakes: list[tuple[str, str, Callable]] = []
    in_init = {"no biases"}  # and every hard-coded activation, added below
    if block_name == "MLP":
        def mlp(a):
            return lambda: _linear(w, "Wo", a(_linear(w, "Wi", x)))
        mistakes += [
            ("no activation", "the output matches Wo(Wi(x)) with no activation: apply act() between Wi and Wo",
             mlp(lambda t: t)),
            ("activation after Wo too", "the activation is applied after Wo as well; it belongs only between Wi and Wo",
             lambda: act(_linear(w, "Wo", act(_linear(w, "Wi", x))))),
        ]
        forms = {"exact GELU": mlp(gelu), "tanh-approximate GELU": mlp(gelu_tanh), "ReLU": mlp(F.relu),
                 "SiLU": mlp(F.silu), TRUNCATED: mlp(cut)}
        residual = lambda: x + _linear(w, "Wo", act(_linear(w, "Wi", x)))
    else:  # GLU
        def glu(a_gate, a_value):
            return lambda: _linear(w, "Wo", a_gate(_linear(w, "Wg", x)) * a_value(_linear(w, "Wv", x)))
        ident = lambda t: t
        mistakes += [
            ("activation on the value path", "the activation is on the value path Wv; it belongs on the gate path"
             " only: Wo(act(Wg(x)) * Wv(x))", glu(ident, act)),
            ("activation on both paths", "the activation is on both paths; only the gate Wg gets it:"
             " Wo(act(Wg(x)) * Wv(x))", glu(act, act)),
            ("no activation", "there is no activation: the gate path needs act(Wg(x))", glu(ident, ident)),
            ("sigmoid gate", "the gate uses sigmoid; use the module that activation_fn() returns",
             glu(torch.sigmoid, ident)),
            ("activation on the product", "the activation is applied to the product Wg(x) * Wv(x); it belongs on the"
             " gate alone: Wo(act(Wg(x)) * Wv(x))",
             lambda: _linear(w, "Wo", act(_linear(w, "Wg", x) * _linear(w, "Wv", x)))),
        ]
        forms = {"exact GELU": glu(gelu, ident), "tanh-approximate GELU": glu(gelu_tanh, ident),
                 "ReLU": glu(F.relu, ident), "SiLU": glu(F.silu, ident), TRUNCATED: glu(cut, ident)}
        residual = lambda: x + _linear(w, "Wo", act(_linear(w, "Wg", x)) * _linear(w, "Wv", x))
    names = {"gelu": "exact GELU", "gelu_tanh": "tanh-approximate GELU", "relu": "ReLU", "silu": "SiLU"}
    wanted = names.get(activation or "gelu")
    for form, fn in forms.items():
        if form == wanted:
            continue
        if activation is None:
            hint = (f"with no activation_fn given the output uses {form}, not the default nn.GELU: build the"
                    " activation by calling activation_fn() rather than hard-coding one, and make the"
                    " default nn.GELU (exact, not approximate='tanh')")
        else:
            hint = (f"the output uses {form} although activation_fn={requested} was passed: build the "
                    "activation by calling activation_fn(), don't hard-code one")
        if form == TRUNCATED:
            hint += "; where you write tanh GELU yourself, write the constant as math.sqrt(2 / math.pi)"
        mistakes.append((f"hard-coded {form}", hint, fn))
        in_init.add(f"hard-coded {form}")
    mistakes.append(("residual inside", "the output includes the input x: the residual connection belongs outside"
                     " the block", residual))
    unbiased = {k: torch.zeros_like(v) if k.endswith(".bias") else v for k, v in w.items()}
    correct_without_biases = known_formula(block_name, unbiased, x, act)
    mistakes.append(("no biases", "the output is the block's without biases: build every layer as"
                     " nn.Linear(..., bias=True), the default", lambda: correct_without_biases))
    return [(cause, hint, fn(), cause in in_init) for cause, hint, fn in mistakes]
