"""Every known MLP/GLU mistake, graded once against the live reference and once against its snapshot:
the messages must be the same, word for word (the temporary folder each run uses aside), so the student
release (which has the snapshot only) grades a file as the course's grader does.

``selfcheck/test_mlp_variants.py`` runs this on every push, after the variant pool (whose live runs it
reuses). By hand, after recording the snapshot::

    python -m selfcheck.compare_snapshot
"""

from __future__ import annotations

import argparse
import functools
import re
import sys

from selfcheck.harness import VARIANTS, parallel, run_variant
from selfcheck.variant_checks import FAST, WORKERS

TEMP_FOLDER = re.compile(r"/tmp/\w+")
MODES = {"live": (), "snapshot": ("--reference=snapshot",)}  # live: the suites' default where solution/ is here


def differences() -> list[str]:
    """One entry per test whose outcome or message differs between the live reference and the snapshot."""
    variants = sorted((VARIANTS / "mlp_block").glob("*.py"))
    runs = {(variant, mode): functools.partial(run_variant, "test_mlp.py", "mlp_block", variant, *extra, **FAST)
            for variant in variants for mode, extra in MODES.items()}
    found = []
    with parallel(runs, WORKERS) as results:
        for variant in variants:
            _, live = results[(variant, "live")].result()
            _, snapshot = results[(variant, "snapshot")].result()
            for test_id, outcome in live.items():
                other = snapshot.get(test_id)
                same = other is not None and (outcome.status, TEMP_FOLDER.sub("TMP", outcome.message)) == (
                    other.status, TEMP_FOLDER.sub("TMP", other.message))
                if not same:
                    found.append(f"{variant.stem} {test_id}\n  live:     {outcome.message}\n"
                                 f"  snapshot: {other.message if other else 'did not run'}")
    return found


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="python -m selfcheck.compare_snapshot", description=__doc__.split("\n\n")[0]).parse_args(argv)
    found = differences()
    print("\n".join(found))
    print(f"{len(sorted((VARIANTS / 'mlp_block').glob('*.py')))} known mistakes and correct variants:"
          f" {len(found)} messages differ")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
