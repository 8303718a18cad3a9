"""How many lines pytest's "failures by cause" shows for one mistake, over a set of 21 common ones.

A student who makes one mistake should read one cause (the tests waiting on it are one more line,
"then N tests that count once ..."). For each mistake below, the reference with that one mistake
(a self-check variant, ``selfcheck/variants/``) is put where the student's file goes and its suite run
as the student runs it (``pytest tests/...``); the script counts the numbered lines of the summary::

    python benchmarks/cause_lines.py            # every mistake, a line each, then the tally
    python benchmarks/cause_lines.py --show     # and each summary as pytest printed it

Exit status 1 when fewer than ``WANTED`` of them show one cause line.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from grader.tasks import exercise_suites  # noqa: E402
from selfcheck.harness import VARIANTS, materialize  # noqa: E402

# (exercise, variant): mistakes students make, one each; 11 in the core files, 10 in the Triton ones.
MISTAKES = [
    ("mlp_block", "missing_biases"),
    ("mlp_block", "mlp_activation_after_wo"),
    ("mlp_block", "glu_activation_on_value_path"),
    ("mlp_block", "dropout_before_wo"),
    ("mlp_block", "dropout_mask_unscaled"),
    ("mlp_block", "default_activation_relu"),
    ("mlp_block", "output_cast_to_float32"),
    ("mlp_block", "reshape_assumes_3d"),
    ("mlp_cost", "params_weights_only"),
    ("mlp_cost", "flops_matmuls_only"),
    ("mlp_cost", "sizing_rounds_down"),
    ("triton_swiglu", "derivative_wrong_term"),
    ("triton_swiglu", "autograd_returns_gradients_swapped"),
    ("triton_swiglu", "forward_drops_value"),
    ("triton_swiglu", "grid_rounds_down"),
    ("triton_swiglu", "dropout_before_wo"),
    ("triton_gated_mlp", "bias_after_activation"),
    ("triton_gated_mlp", "k_mask_missing"),
    ("triton_gated_mlp", "launch_weights_swapped"),
    ("triton_gated_mlp", "combined_halves_swapped"),
    ("triton_gated_mlp", "backward_drops_gate_bias"),
]
WANTED = 19  # of 21
CAUSE_LINE = re.compile(r"^\d+\. ")


def summary(exercise: str, variant: str) -> list[str]:
    """The "failures by cause" lines pytest prints for the reference with ``variant``'s mistake."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / f"{exercise}.py").write_text(materialize(VARIANTS / exercise / f"{variant}.py", exercise))
        suites = [f"tests/{suite}" for suite in exercise_suites(exercise)]
        run = subprocess.run([sys.executable, "-m", "pytest", *suites, "--target", folder, "-q",
                              "-p", "no:cacheprovider"], cwd=REPO, capture_output=True, text=True, timeout=900)
    lines = run.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if "failures by cause" in line), None)
    if start is None:
        return []
    return [line for line in lines[start + 1:] if line.strip() and not line.startswith("=")]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", action="store_true", help="print each mistake's summary as pytest printed it")
    show = parser.parse_args(argv).show
    one = 0
    for exercise, variant in MISTAKES:
        lines = summary(exercise, variant)
        causes = [line for line in lines if CAUSE_LINE.match(line)]
        one += len(causes) == 1
        print(f"{len(causes)} cause line{'s' * (len(causes) != 1)}  {exercise}/{variant}", flush=True)
        if show or len(causes) != 1:
            for line in lines:
                print(f"      {line[:220]}")
    print(f"one cause line for {one} of {len(MISTAKES)} mistakes (wanted: {WANTED})")
    return 0 if one >= WANTED else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
