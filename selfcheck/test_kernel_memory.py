"""Every memory access a kernel makes under the interpreter is checked before it happens
(``grader/probes/triton_watch.py``): loads and stores, and the atomics, which read and write. Lanes outside
the launch's tensors are left out and the first is told (an atomic_cas, with no mask, is stopped). Run in a
process of its own, because the interpreter must be switched on before triton is imported."""

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
    import json, os, sys
    os.environ["TRITON_INTERPRET"] = "1"
    import torch, triton, triton.language as tl
    from grader.probes.triton_watch import OutOfBoundsAccess, TritonWatch, guard_triton

    guard_triton()

    @triton.jit
    def add_at(x_ptr, out_ptr, shift, n, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        tl.atomic_add(out_ptr + offsets + shift, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)

    @triton.jit
    def swap_at(out_ptr, shift):
        tl.atomic_cas(out_ptr + shift, 0.0, 1.0)

    @triton.jit
    def max_at(out_ptr, shift, BLOCK: tl.constexpr):
        offsets = tl.arange(0, BLOCK)
        tl.atomic_max(out_ptr + offsets + shift, tl.full((BLOCK,), 5.0, tl.float32))

    results = {}
    memory = torch.zeros(4096)
    x, out = memory[1200:1216], memory[2000:2016]
    x.fill_(1.0)
    before = memory.clone()
    for name, launch in {
        "add_inside": lambda: add_at[(1,)](x, out, 0, 16, BLOCK=16),
        "add_before_x": lambda: add_at[(1,)](x, out, -1900, 16, BLOCK=16),
        "cas_past_end": lambda: swap_at[(1,)](out, 40),
        "max_past_end": lambda: max_at[(1,)](out, 8, BLOCK=16),
    }.items():
        try:
            with TritonWatch(sys.modules[__name__]) as watch:
                launch()
            results[name] = watch.violation or "ran"
        except OutOfBoundsAccess as exc:
            results[name] = str(exc)
        except Exception as exc:
            cause = exc.__cause__ or exc.__context__
            results[name] = str(cause) if isinstance(cause, OutOfBoundsAccess) else f"{type(exc).__name__}: {exc}"
    changed = (memory != before).nonzero().flatten().tolist()
    print(json.dumps({"results": results, "changed": changed}))
''')


@pytest.fixture(scope="module")
def launched() -> dict:
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_an_atomic_inside_its_tensor_runs(launched):
    assert launched["results"]["add_inside"] == "ran"


@pytest.mark.parametrize("name,told", [("add_before_x", "tl.atomic_add"), ("cas_past_end", "tl.atomic_cas"),
                                       ("max_past_end", "tl.atomic_max")])
def test_an_atomic_outside_every_tensor_is_told_as_a_load_is(launched, name, told):
    said = launched["results"][name]
    assert f"tried to {told}" in said and "outside the tensors it was given" in said, said


def test_nothing_outside_the_tensors_was_read_or_written(launched):
    """Only out's 16 elements changed (the atomics inside it); the lanes outside touched nothing."""
    assert launched["changed"] == list(range(2000, 2016)), launched["changed"]


LOOPS = textwrap.dedent('''
    import json, os
    os.environ["TRITON_INTERPRET"] = "1"
    import torch, triton, triton.language as tl
    from grader.probes.triton_watch import guard_triton

    guard_triton()

    @triton.jit
    def sum_into_float32(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, N, BLOCK):
            acc += tl.load(x_ptr + start + tl.arange(0, BLOCK))  # float64 tiles: acc becomes float64
        tl.store(out_ptr + tl.arange(0, BLOCK), acc)

    @triton.jit
    def sum_converted(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, N, BLOCK):
            acc += tl.load(x_ptr + start + tl.arange(0, BLOCK)).to(tl.float32)
        tl.store(out_ptr + tl.arange(0, BLOCK), acc)

    @triton.jit
    def sum_unrolled(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in tl.static_range(0, N, BLOCK):  # unrolled by the compiler: nothing is carried
            acc += tl.load(x_ptr + start + tl.arange(0, BLOCK))
        tl.store(out_ptr + tl.arange(0, BLOCK), acc)

    results = {}
    x = torch.arange(64, dtype=torch.float64)
    for name, kernel in {"changes": sum_into_float32, "converted": sum_converted, "unrolled": sum_unrolled}.items():
        out = torch.zeros(16, dtype=torch.float64)
        try:
            kernel[(1,)](x, out, N=64, BLOCK=16)
            results[name] = "ran: " + str(out.sum().item())
        except Exception as exc:
            cause = exc.__cause__ or exc
            results[name] = f"{type(cause).__name__}: {cause}"
    print(json.dumps(results))
''')


@pytest.fixture(scope="module")
def looped(tmp_path_factory) -> dict:
    """Run from a file: the interpreter rewrites (and so checks) only kernels whose source it can read."""
    script = tmp_path_factory.mktemp("loops") / "loops.py"
    script.write_text(LOOPS)
    proc = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_loop_carried_type_change_is_refused_as_the_compiler_refuses_it(looped):
    said = looped["changes"]
    assert "Loop-carried variable acc has initial type" in said and "fp64" in said and "compiler" in said, said


def test_loops_whose_types_hold_and_unrolled_loops_run(looped):
    assert looped["converted"] == "ran: 2016.0" and looped["unrolled"] == "ran: 2016.0", looped
