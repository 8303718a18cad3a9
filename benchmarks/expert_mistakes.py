"""The Triton suites against mistakes and public kernels written without seeing them, each with an expert's
verdict in points written before it was graded.

``benchmarks/expert_mistakes/<exercise>/*.py`` are written as the self-check variants are, as edits of the
reference (``EDITS``): one mistake each (a student's), or a public kernel adapted to the exercise's
interface in place of the reference's. ``verdicts.json`` beside them
holds, per file, the points an expert deducts (``expert_points_lost``) or gives (``expert_points``), as a
range, and the cause a student should read. The script grades each file as the self-checks grade a variant
(the whole suite, forked from a warm process, unsandboxed) and prints, per file, the points lost, the
expert's range, whether it is within 15 % of the task's maximum of that range, and how many cause lines
pytest's summary would show (tests waiting on another count with it)::

    python benchmarks/expert_mistakes.py             # every file; a JSON of the results with --json PATH
    python benchmarks/expert_mistakes.py --show      # and each failing test's message
    python benchmarks/expert_mistakes.py --only k_loop --only store   # the files whose names contain these

It takes minutes (every file a whole Triton suite under the interpreter); no self-check runs it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
HERE = Path(__file__).resolve().parent / "expert_mistakes"
WITHIN = 0.15  # of the task's maximum: the distance to the expert's range a grade may be


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print each failing test's message too")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="grade only the files whose name contains NAME (repeat for several)")
    args = parser.parse_args(argv)

    from grader.tasks import TASKS
    from selfcheck.grading_policy import graded_points, points_lost
    from selfcheck.harness import parallel, run_variant, start_preloaded
    from selfcheck.variant_checks import FAST

    start_preloaded()
    by_exercise = {task.exercise: task for task in TASKS if task.triton}
    files = sorted(path for exercise in by_exercise for path in (HERE / exercise).glob("*.py")
                   if not args.only or any(name in path.stem for name in args.only))
    if not files:
        raise SystemExit(f"--only {args.only}: no file of {HERE} has such a name")
    calls = {path: (lambda path=path: run_variant(by_exercise[path.parent.name].suites, path.parent.name, path, **FAST))
             for path in files}
    results, near, one_line = {}, 0, 0
    with parallel(calls) as runs:
        for path in files:
            task = by_exercise[path.parent.name]
            verdict = json.loads((path.parent / "verdicts.json").read_text())[path.stem]
            _, outcomes = runs[path].result()
            points = graded_points(task.exercise)
            most = sum(worth for owner, worth in points.values() if owner == task.name)
            lost = points_lost(points, outcomes).get(task.name, 0)
            low, high = verdict.get("expert_points_lost") or [most - p for p in reversed(verdict["expert_points"])]
            distance = max(low - lost, lost - high, 0)
            failing = {test: outcome for test, outcome in outcomes.items() if outcome.status != "passed"}
            causes = sorted({o.fields.get("cause") or o.message.splitlines()[0][:80]
                             for o in failing.values() if o.fields.get("kind") != "waits"})
            near += distance <= WITHIN * most
            one_line += len(causes) <= 1
            results[f"{path.parent.name}/{path.stem}"] = {"lost": lost, "of": most, "expert_lost": [low, high],
                                                          "causes": causes}
            print(f"{path.parent.name}/{path.stem}: lost {lost}/{most}, expert {low}-{high}"
                  f" ({'within' if distance <= WITHIN * most else 'OFF by'} {distance}); {len(causes)} cause line(s):"
                  f" {'; '.join(causes)[:200]}", flush=True)
            if args.show:
                for test, outcome in failing.items():
                    print(f"    {test}: {outcome.message[:300]}")
    print(f"{len(files)} files: {near} within {WITHIN:.0%} of the task's maximum of the expert's range;"
          f" {one_line} with one cause line or none")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
