"""The fused gated projection against eager PyTorch, torch.compile and Liger-Kernel, and the bytes each moves.

    python benchmarks/gated_mlp_bench.py --bytes     # what each provider moves for a LLaMA-7B layer (no GPU)
    python benchmarks/gated_mlp_bench.py             # timings: needs a CUDA GPU; without one it says so, exit 0

The forward of ``act(x Wg^T + bg) * (x Wv^T + bv)`` (SiLU, bfloat16, LLaMA-7B's hidden 4096 and
intermediate 11008, tokens 512 to 8192), timed with ``triton.testing.do_bench`` (median), in TFLOP/s
(4 * tokens * hidden * intermediate FLOPs, the two matmuls) and as a share of the device's matmul peak
measured in the same run (a bfloat16 ``torch.matmul`` of the same shape as one projection).

Providers: ``fused`` (the reference kernel, ``solution/hidden/reference_triton_gated_mlp.py``), ``eager``
(two ``F.linear``, the activation, the product), ``compiled`` (``torch.compile`` of eager) and ``liger``
(two ``F.linear`` and Liger-Kernel's fused SiLU-multiply, where it is installed).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "solution" / "hidden" / "reference_triton_gated_mlp.py"
LLAMA_7B = {"hidden": 4096, "intermediate": 11008}


def bytes_moved(tokens: int, hidden: int, intermediate: int, element: int = 2) -> dict[str, int]:
    """Bytes each way of computing act(x Wg^T + bg) * (x Wv^T + bv) reads and writes, at least (every
    tensor once per kernel that touches it; a GEMM's re-reads of its tiles, served by caches, not counted).

    eager: x Wg^T (reads x, Wg; writes g), x Wv^T (x, Wv; v), act (g; a), product (a, v; out): four kernels.
    SwiGLU fused (the other exercise): the two GEMMs as eager, then one kernel reading g, v, writing out.
    fused: one kernel reading x, Wg, Wv once and writing out.
    """
    x, w, t = tokens * hidden, intermediate * hidden, tokens * intermediate
    eager = (x + w + t) + (x + w + t) + (t + t) + (t + t + t)
    swiglu = (x + w + t) + (x + w + t) + (t + t + t)
    fused = x + 2 * w + t
    return {name: n * element for name, n in (("eager", eager), ("swiglu_fused", swiglu), ("fused", fused))}


def print_bytes() -> None:
    print(f"bytes moved for one LLaMA-7B gated projection (hidden {LLAMA_7B['hidden']}, intermediate"
          f" {LLAMA_7B['intermediate']}, bfloat16; biases not counted):")
    print(f"{'tokens':>8} {'eager':>10} {'SwiGLU fused':>13} {'fused':>10} {'fused / eager':>14}")
    for tokens in (1, 512, 2048, 8192):
        moved = bytes_moved(tokens, **LLAMA_7B)
        print(f"{tokens:>8} {moved['eager'] / 2**20:>8.1f}MB {moved['swiglu_fused'] / 2**20:>11.1f}MB"
              f" {moved['fused'] / 2**20:>8.1f}MB {moved['fused'] / moved['eager']:>14.2f}")


def load_reference():
    spec = importlib.util.spec_from_file_location("reference_triton_gated_mlp", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def time_on_gpu() -> int:
    import torch
    import torch.nn.functional as F

    if not torch.cuda.is_available():
        print("no CUDA GPU here: the timings need one (python benchmarks/gated_mlp_bench.py --bytes runs anywhere)")
        return 0
    import triton.testing

    reference = load_reference()
    hidden, intermediate = LLAMA_7B["hidden"], LLAMA_7B["intermediate"]

    def eager(x, wg, bg, wv, bv):
        return F.silu(F.linear(x, wg, bg)) * F.linear(x, wv, bv)

    providers = {"fused": lambda *a: reference.gated_projection(a[0], a[1], a[3], a[2], a[4], "silu"),
                 "eager": eager, "compiled": torch.compile(eager)}
    try:
        from liger_kernel.ops.swiglu import LigerSiLUMulFunction

        providers["liger"] = lambda x, wg, bg, wv, bv: LigerSiLUMulFunction.apply(F.linear(x, wg, bg), F.linear(x, wv, bv))
    except ImportError:
        print("Liger-Kernel is not installed: no liger column")
    device = torch.cuda.get_device_name()
    print(f"{device}; bfloat16; hidden {hidden}, intermediate {intermediate}; median ms (TFLOP/s, share of peak)")
    for tokens in (512, 2048, 8192):
        x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)
        wg, wv = (torch.randn(intermediate, hidden, device="cuda", dtype=torch.bfloat16) * hidden**-0.5 for _ in range(2))
        bg, bv = (torch.randn(intermediate, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        flops = 4 * tokens * hidden * intermediate
        args = (x, wg, bg, wv, bv)
        peak_ms = triton.testing.do_bench(lambda a=args: torch.matmul(a[0], a[1].T))
        peak = 2 * tokens * hidden * intermediate / peak_ms / 1e9
        row = [f"tokens {tokens:>5}: matmul peak {peak:.0f} TFLOP/s"]
        for name, fn in providers.items():
            ms = triton.testing.do_bench(lambda fn=fn, a=args: fn(*a))
            tflops = flops / ms / 1e9
            row.append(f"{name} {ms:.3f} ms ({tflops:.0f}, {tflops / peak:.0%})")
        print("; ".join(row))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bytes", action="store_true", help="only count the bytes each provider moves (no GPU)")
    args = parser.parse_args()
    print_bytes()
    return 0 if args.bytes else time_on_gpu()


if __name__ == "__main__":
    sys.exit(main())
