"""The feedback a batch writes, for hand-ins of every kind an instructor meets: their sizes and lines.

Builds one batch folder (a correct hand-in, three typical mistakes, the untouched stubs, a file that
does not import, an endless loop in ``MLP.forward``, and a hand-in that prints a megabyte per call),
grades it with ``python -m instructor --batch`` (every task, short limits so the loop costs
seconds), and prints each feedback file's size and line count, and the batch's wall time.

    python benchmarks/feedback_batch.py                         # this checkout
    python benchmarks/feedback_batch.py --repo OTHER --command "-m grader"   # an older checkout's batch
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LIMITS = ["--call-timeout", "10", "--budget", "20"]


def build(folder: Path) -> None:
    sys.path.insert(0, str(REPO))
    from grader.paths import EXERCISES, reference_file
    from selfcheck.harness import VARIANTS, materialize

    def hand_in(name: str, mlp_block: str, with_others: bool = True) -> None:
        sub = folder / name
        sub.mkdir(parents=True)
        (sub / "mlp_block.py").write_text(mlp_block)
        if with_others:  # the stubs of every other exercise, untouched
            for stub in EXERCISES.glob("*.py"):
                if stub.name != "mlp_block.py":
                    shutil.copy(stub, sub / stub.name)

    reference = reference_file("mlp_block").read_text()
    hand_in("correct", reference)
    for mistake in ("glu_activation_on_value_path", "missing_biases", "default_activation_relu"):
        hand_in(mistake, materialize(VARIANTS / "mlp_block" / f"{mistake}.py", "mlp_block"))
    hand_in("stubs", (EXERCISES / "mlp_block.py").read_text())
    hand_in("import_error", "from torch import nn\nclass MLP(nn.Module)\n    pass\n")
    forward = "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
    loop = reference.replace(forward, forward + "        while True:\n            pass\n", 1)
    hand_in("endless_loop", loop)
    verbose = reference.replace(forward, forward + "        print('x' * (1 << 20))\n", 1)
    hand_in("very_verbose", verbose)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout whose grader grades the batch")
    parser.add_argument("--command", default="-m instructor", help="how that checkout runs a batch")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder, grades = Path(tmp) / "hand-ins", Path(tmp) / "out" / "grades.csv"
        build(folder)
        started = time.monotonic()
        proc = subprocess.run([sys.executable, *args.command.split(), "--batch", str(folder), "--csv", str(grades),
                               "--jobs", "2", *LIMITS], cwd=args.repo, capture_output=True, text=True)
        seconds = time.monotonic() - started
        print(proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-2000:])
        print(f"batch: {seconds:.0f} s wall, exit {proc.returncode}")
        pages = sorted(p for p in (grades.parent / "grades_feedback").iterdir() if p.is_file())
        print(f"{'hand-in':<32} {'bytes':>8} {'lines':>6}")
        for page in pages:
            text = page.read_text(encoding="utf-8")
            print(f"{page.stem:<32} {len(text.encode()):>8} {len(text.splitlines()):>6}")
        if pages:
            sample = next((p for p in pages if p.stem == "missing_biases"), pages[0])
            print(f"\n--- {sample.name} ---\n{sample.read_text(encoding='utf-8')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
