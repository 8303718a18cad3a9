"""What a wrong gated projection is: its output compared, in float64, with what each mistake students
make would have computed on the very same inputs, each named in a GEMM's terms (which of M, N, K; which
operand) and sent to the TODO where it is made.

M is the tokens (rows of x), N the intermediate width (rows of each weight), K the hidden width (the
sum's length), walked in tiles of ``BLOCK_K`` (the reference's launch code, which the kernel tests use).
"""

from __future__ import annotations

import torch

from grader.judge.checks import ulp
from grader.judge.gated_stores import (BLOCK_N, NAMED_RTOL, ROUNDED_RTOL, STORED_PAST_N, STORED_WITH_X_STRIDES,
                                       STORED_WITH_X_STRIDES_HINT, rounded_to_16_bits, stored_past_n, stored_with_strides)
from grader.probes.activations import ACTIVATIONS as BY_NAME

BLOCK_K = 16  # the reference's tiles: the kernel tests launch the student's kernel with its launch code
TF32 = "tf32"  # the cause of a result whose only fault is tl.dot's TF32 products
TF32_RTOL = 2.0**-14  # TF32's own error is about 1e-3: matched far closer than that, but looser than float32's


def _act(name: str):
    return BY_NAME[name]()


def _parts(case: dict) -> tuple[torch.Tensor, ...]:
    """x, Wg, Wv, bg, bv in float64 (zero biases where there are none)."""
    x, wg, wv = (case[n].double() for n in ("x", "gate_weight", "value_weight"))
    x = x.reshape(-1, x.shape[-1])
    bg, bv = (case[n].double() if case.get(n) is not None else torch.zeros(wg.shape[0], dtype=torch.float64)
              for n in ("gate_bias", "value_bias"))
    return x, wg, wv, bg, bv


def _epilogue(activation: str, gate: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    return _act(activation)(gate) * value


def _k_steps(k: int) -> list[tuple[int, int]]:
    return [(start, min(BLOCK_K, k - start)) for start in range(0, k, BLOCK_K)]


def _frozen_sum(x: torch.Tensor, w: torch.Tensor, frozen: str) -> torch.Tensor:
    """x @ w.T with one operand's pointer never advanced: its first K tile at every step."""
    total = torch.zeros(x.shape[0], w.shape[0], dtype=torch.float64)
    for start, width in _k_steps(x.shape[1]):
        xs = x[:, :width] if frozen == "x" else x[:, start:start + width]
        ws = w[:, :width] if frozen == "w" else w[:, start:start + width]
        total += xs @ ws.T
    return total


def _tf32(t: torch.Tensor, rounded: bool) -> torch.Tensor:
    """float32 values cut (or rounded to nearest) to TF32's 10 bits of mantissa."""
    bits = t.float().view(torch.int32)
    if rounded:
        bits = bits + 0x1000
    return (bits & ~0x1FFF).view(torch.float32).double()


def kernel_mistakes(case: dict, activation: str) -> list[tuple[str, str, torch.Tensor, float]]:
    """(cause, hint, output, rtol) of each known kernel mistake (TODO 1) on ``case``."""
    x, wg, wv, bg, bv = _parts(case)
    m, k = x.shape
    n = wg.shape[0]
    g, v = x @ wg.T, x @ wv.T
    steps = len(_k_steps(k))
    act = _act(activation)

    def first_k(cut: int) -> torch.Tensor:
        return _epilogue(activation, x[:, :cut] @ wg[:, :cut].T + bg, x[:, :cut] @ wv[:, :cut].T + bv)

    found = [
        ("activation_on_value", "the activation is on the value: act(x Wv^T + bv) * (x Wg^T + bg); the gate"
         " gets it", _epilogue(activation, v + bv, g + bg)),
        ("gate_bias_after_activation", "the gate's bias is added after the activation; it belongs inside:"
         " act(x Wg^T + bg)", (act(g) + bg) * (v + bv)),
        ("biases_swapped", "the biases are swapped: the gate's sum gets value_bias and the value's gate_bias;"
         " gate_bias_ptr goes with the gate's (N,) columns, value_bias_ptr with the value's", _epilogue(
             activation, g + bv, v + bg)),
        ("bias_every_k_step", f"the biases are added at every step of the K loop ({steps} times here): add them"
         " once, after the loop, before the activation", _epilogue(activation, g + steps * bg, v + steps * bv)),
        ("biases_never_added", "the biases never reach the output: with HAS_BIAS, add gate_bias and value_bias"
         " (each (N,), one per column of the tile) to the sums after the K loop, before the activation",
         _epilogue(activation, g, v)),
        ("k_remainder_dropped", "the last, partial step of the K loop is missing: loop over range(0, K, BLOCK_K)"
         " and mask the ks past K (loading 0 there), so the remainder still counts",
         first_k((k // BLOCK_K) * BLOCK_K)),
    ]
    def overlapping(w: torch.Tensor) -> torch.Tensor:  # steps at k0 = 0, 1, 2, ...: the tile's index as its offset
        return sum(x[:, k0:k0 + BLOCK_K] @ w[:, k0:k0 + BLOCK_K].T for k0 in range(-(-k // BLOCK_K)))

    found.append(("k_offset_is_the_tile_index", "the K loop's offset is the tile's index: range(cdiv(K, BLOCK_K))"
                  " counts tiles, so step k0 reads ks = k0 + arange(BLOCK_K) and the steps overlap (0-15, then 1-16,"
                  " ...) instead of moving BLOCK_K along; loop over range(0, K, BLOCK_K), or multiply the index by"
                  " BLOCK_K", _epilogue(activation, overlapping(wg) + bg, overlapping(wv) + bv)))
    # A tile's (BLOCK_N,) bias vector broadcast with [:, None]: row i of the tile gets the bias of its i-th column
    # (the given launch's square 16 x 16 tiles let it through), 0 past N.
    index = (torch.arange(n) // BLOCK_N * BLOCK_N)[None, :] + (torch.arange(m) % BLOCK_N)[:, None]

    def along_rows(b: torch.Tensor) -> torch.Tensor:
        return torch.cat([b, b.new_zeros(BLOCK_N)])[index]

    found.append(("bias_broadcast_along_rows", "the biases are broadcast down the tile's rows ([:, None]), so row i of a"
                  " tile gets the bias of its i-th column; each bias is one per column: load it with the tile's cols"
                  " and broadcast it along the rows, [None, :]", _epilogue(activation, g + along_rows(bg),
                                                                              v + along_rows(bv))))
    for size, name, what in ((m, "M", "the tokens, x's rows"), (n, "N", "the intermediate width")):
        if size < k:  # only then does it cut the sum short
            found.append((f"k_masked_against_{name.lower()}", f"the K offsets are masked against {name} ({what},"
                          f" {size}) instead of K ({k}): only the first {size} of the K products are summed; the"
                          f" K dimension of x's (M, K) tile and of the weights' (K, N) tiles is masked with ks < K",
                          first_k(size)))
    for frozen, operand in (("x", "x's (M, K) tile"), ("gate", "the gate weight's (K, N) tile"),
                            ("value", "the value weight's (K, N) tile")):
        gate = _frozen_sum(x, wg, "x" if frozen == "x" else "w" if frozen == "gate" else "")
        value = _frozen_sum(x, wv, "x" if frozen == "x" else "w" if frozen == "value" else "")
        found.append((f"{frozen}_pointer_not_advanced", f"{operand} is read from the first K step at every step:"
                      f" its pointers are never advanced along K (add BLOCK_K times its K stride each step, or"
                      f" recompute them from k0)", _epilogue(activation, gate + bg, value + bv)))
    per_step = torch.zeros_like(g)
    running_gate, running_value = torch.zeros_like(g), torch.zeros_like(v)
    cumulative = torch.zeros_like(g)
    for start, width in _k_steps(k):
        step_gate, step_value = x[:, start:start + width] @ wg[:, start:start + width].T, \
            x[:, start:start + width] @ wv[:, start:start + width].T
        per_step += _epilogue(activation, step_gate + bg, step_value + bv)
        running_gate, running_value = running_gate + step_gate, running_value + step_value
        cumulative += _epilogue(activation, running_gate + bg, running_value + bv)
    epilogue_hint = ("the activation and the product are taken inside the K loop, on partial sums, and added up:"
                     " accumulate both sums over every K step first, then apply bias, activation and product once,"
                     " after the loop")
    found += [("epilogue_inside_k_loop", epilogue_hint, per_step),
              ("epilogue_inside_k_loop", epilogue_hint, cumulative)]
    wrong_forms = {"gelu": ("gelu_tanh", "the tanh approximation of GELU where exact GELU (erf) is asked:"
                            " 0.5 * g * (1 + erf(g / sqrt(2)))"),
                   "gelu_tanh": ("gelu", "exact GELU (erf) where its tanh approximation is asked")}
    if activation in wrong_forms:
        other, hint = wrong_forms[activation]
        found.append(("wrong_gelu", hint, _epilogue(other, g + bg, v + bv)))
    # An epilogue that applies one activation whatever ACTIVATION asks (SiLU, say): one cause on every
    # activation it gets wrong, after the two GELUs' own.
    for other in BY_NAME:
        if other != activation and other != wrong_forms.get(activation, ("",))[0]:
            found.append((ANOTHER_ACTIVATION, f"the output is {other}(x Wg^T + bg) * (x Wv^T + bv) where ACTIVATION"
                          f" is {activation!r}: the epilogue applies {other} whatever the launch asks; apply"
                          " _activation(gate, ACTIVATION), the activation the launch passes",
                          _epilogue(other, g + bg, v + bv)))
    found += _overwritten(activation, x, wg, wv, bg, bv)
    named = [(cause, hint, out, NAMED_RTOL) for cause, hint, out in found]
    if case["x"].dtype == torch.float32:  # what a GPU's tl.dot computes without input_precision="ieee"
        tf32_hint = ("tl.dot multiplied the float32 tiles in TF32 (10 bits of mantissa, about 1e-3 relative), as it"
                     " does on a GPU unless told otherwise: pass input_precision=\"ieee\" to tl.dot")
        for rounded in (False, True):
            cut = [_tf32(case[n], rounded) for n in ("x", "gate_weight", "value_weight")]
            xt = cut[0].reshape(-1, cut[0].shape[-1])
            named.append((TF32, tf32_hint, _epilogue(activation, xt @ cut[1].T + bg, xt @ cut[2].T + bv), TF32_RTOL))
            # `acc = tl.dot(x, w)` is often written without input_precision too: the overwrite, in TF32, is
            # still the overwrite (its own cause on every dtype; TF32 is told once it is fixed)
            named += [(cause, hint, out, TF32_RTOL) for cause, hint, out in _overwritten(activation, xt, *cut[1:], bg, bv)]
    return named


ANOTHER_ACTIVATION = "another activation applied"  # the epilogue ignores ACTIVATION
OVERWRITTEN = "accumulator_overwritten"  # one cause for the gate's sum, the value's or both, in any dtype


def _overwritten(activation: str, x: torch.Tensor, wg: torch.Tensor, wv: torch.Tensor, bg: torch.Tensor,
                 bv: torch.Tensor) -> list[tuple[str, str, torch.Tensor]]:
    """(cause, hint, output) of a K loop that assigns each step's tl.dot to a sum instead of adding it
    (``gate = tl.dot(x, wg)``): that sum is the last K step's products alone. Only where there are two steps or
    more: with one, overwriting and adding are the same."""
    steps = _k_steps(x.shape[1])
    if len(steps) < 2:
        return []
    last = slice(steps[-1][0], x.shape[1])
    g, v = x @ wg.T, x @ wv.T
    g_last, v_last = x[:, last] @ wg[:, last].T, x[:, last] @ wv[:, last].T
    found = []
    for which, gate, value in (("both sums", g_last, v_last), ("the gate's sum", g_last, v),
                               ("the value's sum", g, v_last)):
        found.append((OVERWRITTEN, f"each step of the K loop overwrites {which} with its own tl.dot (acc = tl.dot(x,"
                      f" w)), so only the last of the {len(steps)} steps counts: add each step's products to the"
                      " sum, acc = tl.dot(x, w, acc) (or acc += tl.dot(x, w))", _epilogue(activation, gate + bg,
                                                                                        value + bv)))
    return found


_SPLITS = {"swapped": "swapped (its rows [0, intermediate) are the gate's, [intermediate, 2 * intermediate) the"
                      " value's)",
           "interleaved": "read interleaved (the gate's at even rows, the value's at odd): the gate's are its"
                          " first intermediate rows, the value's the next intermediate, one block after the other",
           # one half read for both (a slice copied from the line above and left unchanged): {0} names the tensor
           "gate's half twice": "the value's {0} is {0}[:intermediate], the gate's half: the value's is"
                                " {0}[intermediate:], rows [intermediate, 2 * intermediate)",
           "value's half twice": "the gate's {0} is {0}[intermediate:], the value's half: the gate's is"
                                 " {0}[:intermediate], rows [0, intermediate)"}


def _split(t: torch.Tensor, how: str) -> tuple[torch.Tensor, torch.Tensor]:
    n = t.shape[0] // 2
    return {"right": (t[:n], t[n:]), "swapped": (t[n:], t[:n]), "interleaved": (t[0::2], t[1::2]),
            "gate's half twice": (t[:n], t[:n]), "value's half twice": (t[n:], t[n:])}[how]


def combined_mistakes(case: dict, activation: str) -> list[tuple[str, str, torch.Tensor, float]]:
    """(cause, hint, output, rtol) of each way of taking the combined weight's or bias's halves wrongly (TODO 3)."""
    x, wg, wv, bg, bv = _parts(case)
    weight, bias = torch.cat([wg, wv]), torch.cat([bg, bv])
    found = []
    for weight_how in ("right", *_SPLITS):
        for bias_how in ("right", *_SPLITS):
            if weight_how == bias_how == "right" or (case.get("gate_bias") is None and bias_how != "right"):
                continue
            (gw, vw), (gb, vb) = _split(weight, weight_how), _split(bias, bias_how)
            if weight_how == bias_how == "swapped":
                hint = "the halves are swapped: rows [0, intermediate) of weight and bias are the gate's"
            else:
                hint = "; ".join(f"the {what}'s halves are {_SPLITS[how]}" if how == "swapped" else
                                 f"the {what} is {_SPLITS[how]}" if how == "interleaved" else _SPLITS[how].format(what)
                                 for what, how in (("weight", weight_how), ("bias", bias_how)) if how != "right")
            found.append((f"combined weight {weight_how}, bias {bias_how}", f"{hint} (TODO 3)",
                          _epilogue(activation, x @ gw.T + gb, x @ vw.T + vb), NAMED_RTOL))
    return found


def activation_off(got: torch.Tensor, case: dict, activation: str) -> bool:
    """Whether ``got`` is (some function f of the gate's sum) * (the value's sum) with f near act but not it,
    smoothly so (a constant of the activation off, not rounding): where |value| is not small, got / value
    against act(gate), its deviation a smooth function of the gate."""
    x, wg, wv, bg, bv = _parts(case)
    gate, value = (x @ wg.T + bg).reshape(-1), (x @ wv.T + bv).reshape(-1)
    chosen = value.abs() > 0.1 * value.abs().max()
    if got.numel() != gate.numel() or chosen.sum() < 50:
        return False
    right = _act(activation)(gate[chosen])
    deviation = got.double().reshape(-1)[chosen] / value[chosen] - right
    scale = right.abs().max().item()
    size = deviation.abs().max().item()
    if not (1e-4 * scale < size <= 0.05 * scale):
        return False
    ordered = deviation[gate[chosen].argsort()]
    return ordered.diff().abs().mean().item() < 0.3 * (ordered - ordered.mean()).abs().mean().item()


def read_as_contiguous(got: torch.Tensor, own: torch.Tensor, case: dict, activation: str, operand: str,
                       layout: str) -> bool:
    """Whether ``got`` is what a kernel computes that reads ``operand`` ("x" or "weights"), laid out in
    ``layout``, as contiguous rows: a transposed view's memory row by row, or, strided, the NaN the
    probe keeps between its elements, where the kernel's ``own`` output on contiguous tensors has none (a
    kernel that leaves tiles unwritten leaves them NaN on any layout)."""
    if layout == "strided":
        return bool((torch.isnan(got) & ~torch.isnan(own)).any()) if got.shape == own.shape else False
    x, wg, wv, bg, bv = _parts(case)

    def memory_as_rows(t: torch.Tensor) -> torch.Tensor:
        return t.T.contiguous().reshape(t.shape)

    if operand == "x":
        x = memory_as_rows(x)
    else:
        wg, wv = memory_as_rows(wg), memory_as_rows(wv)
    candidate = _epilogue(activation, x @ wg.T + bg, x @ wv.T + bv)
    return _is(got.reshape(candidate.shape), candidate)


def _is(got: torch.Tensor, candidate: torch.Tensor) -> bool:
    """Whether ``got`` is ``candidate``, a named mistake's output, to float32 precision (NAMED_RTOL)."""
    return got.shape == candidate.shape and bool(torch.allclose(
        got.double(), candidate, rtol=NAMED_RTOL, atol=NAMED_RTOL * candidate.abs().max().item()))


def weight_read_with_the_others_strides(got: torch.Tensor, case: dict, activation: str) -> str:
    """With the gate's weight a transposed view and the value's contiguous (test_forward_weights_each_by_its_strides):
    "value" where ``got`` is what a kernel computes that reads the value's tile with the gate's strides,
    "gate" where it reads the gate's with the value's, else ""."""
    x, wg, wv, bg, bv = _parts(case)
    n, k = wg.shape
    candidates = {"value": (wg, wv.reshape(k, n).T),  # Wv's rows read a column apart: its memory as (K, N)
                  "gate": (wg.T.contiguous().reshape(n, k), wv)}  # the transposed view's memory as rows
    for which, (gate_weight, value_weight) in candidates.items():
        if _is(got, _epilogue(activation, x @ gate_weight.T + bg, x @ value_weight.T + bv)):
            return which
    return ""


STORED_16BIT = "16-bit store"  # the result rounded to float16 or bfloat16 on its way to a wider output


def stored_in_16_bits(got: torch.Tensor, case: dict, activation: str) -> str:
    """"float16" or "bfloat16" where ``got`` (on float32 or float64 x) is the formula rounded to that dtype: every
    element one of its numbers, and within one of its units in the last place of the right value (a truncation
    too); else "". Whatever the kernel computes in between, only its last rounding is 16 bits wide."""
    if case["x"].dtype not in (torch.float32, torch.float64) or not torch.isfinite(got).all():
        return ""
    x, wg, wv, bg, bv = _parts(case)
    want = _epilogue(activation, x @ wg.T + bg, x @ wv.T + bv)
    if got.shape != want.shape:
        return ""
    for dtype, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        if torch.equal(got.to(dtype).double(), got) and bool(
                ((got - want).abs() <= ulp(want, dtype) + 2.0**-20 * want.abs().max()).all()):  # float32 sums
            return name
    return ""


def likely_mistake(got: torch.Tensor, case: dict, activation: str, todo: str = "TODO 1",
                   rtol: float = 0.0) -> tuple[str, str]:
    """(cause, hint): the named mistake ``got`` matches (each to its own precision, or ``rtol`` where the
    test's dtype is coarser), or a general pointer into ``todo``."""
    got = got.double().reshape(-1, got.shape[-1])
    candidates = combined_mistakes(case, activation) if todo == "TODO 3" else []
    for cause, hint, candidate, own in candidates + kernel_mistakes(case, activation):
        tolerance = max(own, rtol)
        if got.shape == candidate.shape and torch.allclose(got, candidate, rtol=tolerance,
                                                           atol=tolerance * candidate.abs().max().item()):
            return cause, hint
    narrow = stored_in_16_bits(got, case, activation)
    if narrow:
        wide = str(case["x"].dtype).removeprefix("torch.")
        return STORED_16BIT, (f"the result is right but rounded to {narrow} at every element, where x and out are"
                              f" {wide}: it is converted to tl.{narrow} before tl.store (as Triton's matmul tutorial"
                              " does for its float16 output); convert it to out's own dtype,"
                              " out.to(out_ptr.dtype.element_ty)")
    x, wg, wv, bg, bv = _parts(case)
    want = _epilogue(activation, x @ wg.T + bg, x @ wv.T + bv)
    if case["x"].dim() == 2 and stored_with_strides(got, want, case["x"].stride(), max(rtol, NAMED_RTOL)):
        return STORED_WITH_X_STRIDES, STORED_WITH_X_STRIDES_HINT
    if stored_past_n(got, want, max(rtol, NAMED_RTOL)):
        return STORED_PAST_N, (f"only the first {-got.shape[-1] % BLOCK_N} columns of rows after the first are wrong:"
                               " the tl.store has no N mask, so each row's last tile writes its columns past N into"
                               " the start of the next row (out is (M, N), row after row); mask the store with"
                               " cols < N as well as rows < M")
    rounded = rounded_to_16_bits(got, case)
    if rounded is not None:  # a mistake, and the 16-bit store too: the mistake is the cause, the store told beside it
        tolerance = ROUNDED_RTOL[rounded]
        for cause, hint, candidate, _ in candidates + kernel_mistakes(case, activation):
            if got.shape == candidate.shape and torch.allclose(got, candidate, rtol=tolerance,
                                                               atol=tolerance * candidate.abs().max().item()):
                return cause, (f"{hint}; and every element is rounded to {str(rounded).removeprefix('torch.')} on its"
                               " way to out: convert the result to out's own dtype, out.to(out_ptr.dtype.element_ty)")
    if torch.isnan(got).any():
        return "never_written", ("some elements were never written (NaN, what fresh memory holds in these tests): does every"
                " program store its whole tile? The given _launch_gated_kernel launches a grid of (cdiv(M, BLOCK_M),"
                " cdiv(N, BLOCK_N)) programs, program (tl.program_id(0), tl.program_id(1)) computing tile (pid_m, pid_n)")
    if activation_off(got, case, activation):
        return "activation_off", (f"the output is f(x Wg^T + bg) * (x Wv^T + bv) with f close to {activation} but not it:"
                                  " a constant of the activation is off (exact GELU's 1/sqrt(2) = 0.7071067811865476;"
                                  " tanh GELU's sqrt(2/pi) = 0.7978845608028654 and 0.044715): use _activation as given")
    if todo == "TODO 3":
        return "unexplained", ("check the views in TODO 3: the gate's are weight[:intermediate] and bias[:intermediate],"
                               " the value's weight[intermediate:] and bias[intermediate:], passed to gated_projection"
                               " as they are (with their strides)")
    return "unexplained", ("check the K loop (x's (M, K) tile and both weights' (K, N) tiles, each advanced by BLOCK_K"
                           " along K), the tiles' offsets and strides, and the epilogue (bias, activation, product)"
                           f" in {todo}")


# ------------------------------------------------------------------------------------ the block (TODO 5)

APPLY_ORDER = "GatedProjectionFunction.apply's arguments"  # what FusedGatedMLP.forward hands the given forward

