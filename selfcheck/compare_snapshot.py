"""Every known MLP/GLU mistake, graded once against the live reference and once against its snapshot:
the messages must be the same, word for word (the temporary folder each run uses aside).

The maintainer command checks the snapshot against the reference and a sample of mistakes in the
release; this compares them all (a few minutes on 2 cores). Run it after recording the snapshot::

    python -m selfcheck.compare_snapshot
"""

from __future__ import annotations

import functools
import re
import sys

from selfcheck.harness import VARIANTS, parallel, run_variant

TEMP_FOLDER = re.compile(r"/tmp/\w+")


def main() -> int:
    variants = sorted((VARIANTS / "mlp_block").glob("*.py"))
    runs = {(variant, mode): functools.partial(run_variant, "test_mlp.py", "mlp_block", variant, f"--reference={mode}")
            for variant in variants for mode in ("live", "snapshot")}
    differ = 0
    with parallel(runs) as results:
        for variant in variants:
            _, live = results[(variant, "live")].result()
            _, snapshot = results[(variant, "snapshot")].result()
            for test_id, outcome in live.items():
                other = snapshot.get(test_id)
                same = other is not None and (outcome.status, TEMP_FOLDER.sub("TMP", outcome.message)) == (
                    other.status, TEMP_FOLDER.sub("TMP", other.message))
                if not same:
                    differ += 1
                    print(f"{variant.stem} {test_id}\n  live:     {outcome.message}\n"
                          f"  snapshot: {other.message if other else 'did not run'}")
    print(f"{len(variants)} known mistakes and correct variants: {differ} messages differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
