"""The interpreter spared work that changes nothing it computes (``grader/probes/triton_speed.py``): inside
a launch it swaps triton.language for its interpreted functions once, not again at every call of a
``@triton.jit`` helper, and it skips the integer-overflow checks whose verdict ``device_assert`` throws
away outside debug mode. The same results, and the language put back after the launch. Run in a process
of its own, because the interpreter must be switched on before triton is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from grader.paths import REPO

pytestmark = [pytest.mark.swiglu, pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks

pytest.importorskip("triton", reason="Triton installs on Linux only")

SCRIPT = textwrap.dedent('''
    import json, os
    os.environ["TRITON_INTERPRET"] = "1"
    import torch, triton, triton.language as tl
    from triton.runtime import interpreter

    @triton.jit
    def _scaled(x, factor):
        return x * factor

    @triton.jit
    def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        keep = offsets < n
        blocks = tl.cdiv(n, BLOCK)  # a jit function of triton.language's own
        x = tl.load(x_ptr + offsets, mask=keep)
        tl.store(out_ptr + offsets, _scaled(x, 2.0) + tl.sigmoid(x) * 0 + blocks * 0, mask=keep)

    def run():
        x = torch.arange(100, dtype=torch.float32)
        out = torch.empty_like(x)
        scale[(triton.cdiv(100, 8),)](x, out, 100, BLOCK=8)
        return out

    swaps = []
    def counting(original):
        def swap(fn):
            swaps.append(fn.__name__)
            return original(fn)
        return swap

    asserts = []
    semantic = interpreter.interpreter_semantic
    checking = semantic.device_assert
    semantic.device_assert = lambda *args: asserts.append(args[1]) or checking(*args)

    original_load = tl.load
    interpreter._patch_lang = counting(interpreter._patch_lang)
    plain, plain_swaps, plain_asserts = run(), len(swaps), len(asserts)
    from grader.probes.triton_watch import guard_triton
    guard_triton()  # installs the grader's watch, the swap once per launch, no dead overflow checks
    swaps.clear()
    asserts.clear()
    watched = run()
    load_after = tl.load is original_load
    print(json.dumps({"plain_swaps": plain_swaps, "watched_swaps": len(swaps), "same": torch.equal(plain, watched),
                      "right": torch.equal(watched, torch.arange(100, dtype=torch.float32) * 2),
                      "load_restored": load_after, "programs": triton.cdiv(100, 8),
                      "plain_asserts": plain_asserts, "watched_asserts": asserts,
                      "debug": interpreter.interpreter_builder.options.debug}))
''')


@pytest.fixture(scope="module")
def got() -> dict:
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_language_is_swapped_once_per_launch(got):
    # Without it: the launch's swap, then one per helper call per program (_scaled, cdiv, sigmoid).
    assert got["plain_swaps"] >= 1 + 3 * got["programs"], got
    # With it: the launch's own, and one where a helper first sees another module of the language
    # (triton.language.standard's see triton.language.core, the kernel triton.language): not one per program.
    assert got["watched_swaps"] <= 2, got
    assert got["same"] and got["right"], got
    assert got["load_restored"], got  # the kernel's language is put back when the launch ends


def test_overflow_checks_whose_verdict_is_discarded_are_skipped(got):
    # Plain, each program's integer +, * (offsets, masks, cdiv) ends in a device_assert that does nothing
    # outside debug mode; with the grader's guard, none is built, and the kernel computes the same.
    assert not got["debug"], got
    assert got["plain_asserts"] >= got["programs"], got
    assert got["watched_asserts"] == [], got
    assert got["same"] and got["right"], got


def test_overflow_checks_stay_in_debug_mode():
    from dataclasses import dataclass, replace

    from grader.probes.triton_speed import skip_dead_overflow_checks

    @dataclass(frozen=True)
    class Options:
        debug: bool
        sanitize_overflow: bool = True

    class Interpreter:
        class interpreter_builder:
            options = Options(debug=True)

    skip_dead_overflow_checks(Interpreter)
    assert Interpreter.interpreter_builder.options.sanitize_overflow
    Interpreter.interpreter_builder.options = replace(Interpreter.interpreter_builder.options, debug=False)
    skip_dead_overflow_checks(Interpreter)
    assert not Interpreter.interpreter_builder.options.sanitize_overflow
