"""The grading policy, measured: what each known mistake costs, per task.

A panel of wrong implementations (the self-check variants named below) is graded in full, and each
row of the table says how many points of each task it loses. ``docs/grading.md`` holds the table
between two markers; ``selfcheck/test_seed_stability.py`` grades the MLP/GLU panel under several seeds and
requires every seed to give the table's row, and the cost panel once (its data has no seed)::

    python -m selfcheck.grading_policy           # print the table as it is measured now
    python -m selfcheck.grading_policy --write   # and write it into docs/grading.md

Run ``--write`` after changing a test's points or a verdict, and commit the table with the change.
"""

from __future__ import annotations

import argparse
import functools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.tasks import TASKS as TASK_LIST
from selfcheck.harness import REPO, VARIANTS, Outcome, parallel, run_variant
from selfcheck.sample import panel_share
from selfcheck.variant_checks import FAST
from tests.conftest import TASKS

POLICY_FILE = REPO / "docs" / "grading.md"
START, END = "<!-- policy table: start (python -m selfcheck.grading_policy --write) -->", "<!-- policy table: end -->"

# graded in full by the SwiGLU variant pool too (selfcheck/test_triton_variants.py), whose runs the table reuses
# Kernels adapted from public projects (each file holds SOURCE, and EXPERT_VERDICT written before it was graded)
PUBLIC = {"triton_swiglu": ["public_attorch_glu", "public_fla_swiglu", "public_flaggems_silu_and_mul",
                            "public_kernel_hyperdrive_swiglu", "public_unsloth_swiglu", "public_mamba_swiglu"],
          "triton_gated_mlp": ["public_flaggems_matmul_bias_activation", "public_attorch_linear_act",
                               "public_kernl_ff_llama", "public_lite_llama_matmul_silu"]}
SWIGLU_PANEL = ["forward_mask_off_by_one", "forward_without_masks", "sigmoid_instead_of_silu", "mask_off_by_one",
                "derivative_wrong_term", "contiguity_assumed", "autograd_returns_gradients_swapped",
                "pure_pytorch", "dropout_before_wo", "block_in_pytorch", *PUBLIC["triton_swiglu"]]

# suite -> (exercise, the panel's variants in selfcheck/variants/<exercise>/); a task split into several
# suite files is named by its first (``suite_files`` gives them all)
PANEL = {
    "test_mlp.py": ("mlp_block", [
        "activation_hardcoded_gelu", "glu_silu_hard_coded", "default_activation_relu", "default_activation_tanh_gelu",
        "gelu_tanh_truncated_constant", "float32_compute_type_as", "output_cast_to_float32", "missing_biases",
        "residual_inside_block", "dropout_before_wo", "glu_activation_on_value_path", "layer_norm_inside_block",
        "dropout_keep_probability", "quick_gelu_hard_coded", "gelu_tanh_truncated_hard_coded", "wo_bias_missing",
        "glu_sum_of_paths", "layer_names_llama_style"]),
    "test_cost.py": ("mlp_cost", [
        "params_weights_only", "params_bias_argument_ignored", "flops_matmuls_only", "flops_fvcore_convention",
        "flops_multiply_accumulates", "flops_bias_adds_forgotten", "backward_equals_forward",
        "backward_twice_forward", "sizing_rounds_down", "sizing_floors_two_thirds_first", "sizing_multiple_of_ignored",
        "sizing_weights_only_budget", "sizing_no_two_thirds"]),
    "test_triton_gated_mlp.py": ("triton_gated_mlp", [
        "k_loop_drops_remainder", "k_mask_missing", "accumulates_in_16bit", "bias_after_activation",
        "gate_value_swapped", "dot_in_tf32", "launch_weights_swapped", "combined_halves_swapped",
        "float32_for_float64", "projection_in_pytorch", "backward_drops_gate_bias", "block_projects_in_pytorch",
        *PUBLIC["triton_gated_mlp"]]),
    "test_triton_swiglu.py": ("triton_swiglu", SWIGLU_PANEL),
}

def panel_this_push(suite: str) -> list[str]:
    """The variants of ``suite``'s panel this push grades in full (``selfcheck/sample.py``), in the panel's order."""
    exercise, names = PANEL[suite]
    return panel_share(exercise, names)


# exercise -> variant -> the TODO its one mistake is in (the table's second column)
TODOS = {
    "mlp_block": {
        "activation_hardcoded_gelu": "1, 3", "glu_silu_hard_coded": "3", "default_activation_relu": "1, 3",
        "default_activation_tanh_gelu": "1, 3", "gelu_tanh_truncated_constant": "1, 3",
        "float32_compute_type_as": "2, 4", "output_cast_to_float32": "2, 4", "missing_biases": "1, 3",
        "residual_inside_block": "2, 4", "dropout_before_wo": "2, 4", "glu_activation_on_value_path": "4",
        "layer_norm_inside_block": "1-4", "dropout_keep_probability": "1, 3", "quick_gelu_hard_coded": "1, 3",
        "gelu_tanh_truncated_hard_coded": "1, 3", "wo_bias_missing": "1, 3", "glu_sum_of_paths": "4",
        "layer_names_llama_style": "1, 3"},
    "mlp_cost": {
        "params_weights_only": "1, 2", "params_bias_argument_ignored": "1, 2", "flops_matmuls_only": "3",
        "flops_fvcore_convention": "3, 4", "flops_multiply_accumulates": "3, 4", "flops_bias_adds_forgotten": "3",
        "backward_equals_forward": "5, 6", "backward_twice_forward": "5", "sizing_rounds_down": "7",
        "sizing_floors_two_thirds_first": "7", "sizing_multiple_of_ignored": "7", "sizing_weights_only_budget": "7",
        "sizing_no_two_thirds": "7"},
    "triton_gated_mlp": {
        "k_loop_drops_remainder": "1", "k_mask_missing": "1", "accumulates_in_16bit": "1", "bias_after_activation": "1",
        "gate_value_swapped": "1", "dot_in_tf32": "1", "launch_weights_swapped": "2", "combined_halves_swapped": "3",
        "float32_for_float64": "2", "projection_in_pytorch": "2", "backward_drops_gate_bias": "4",
        "block_projects_in_pytorch": "5",
        "public_flaggems_matmul_bias_activation": "1", "public_attorch_linear_act": "1", "public_kernl_ff_llama": "1",
        "public_lite_llama_matmul_silu": "1"},
    "triton_swiglu": {
        "forward_mask_off_by_one": "1", "forward_without_masks": "1", "sigmoid_instead_of_silu": "1",
        "mask_off_by_one": "1, 2", "derivative_wrong_term": "2", "contiguity_assumed": "1, 2",
        "autograd_returns_gradients_swapped": "4", "pure_pytorch": "1-5", "dropout_before_wo": "7",
        "block_in_pytorch": "7",
        "public_attorch_glu": "1, 2", "public_fla_swiglu": "1, 2", "public_flaggems_silu_and_mul": "1, 2",
        "public_kernel_hyperdrive_swiglu": "1, 2", "public_unsloth_swiglu": "1, 2",
        "public_mamba_swiglu": "1, 2"},
}


def suite_files(suite: str) -> tuple[str, ...]:
    """The suite files a panel named by ``suite`` runs: its task's, where ``suite`` is the first of several."""
    return next((task.suites for task in TASK_LIST if task.suites[0] == suite), (suite,))


@functools.lru_cache(maxsize=None)
def graded_points(suite: str) -> dict[str, tuple[str, int]]:
    """Each test of ``suite`` (its id as in a report) -> (task, points), from the grader's own plugin.
    Collected once per process: a seed panel asks it for every variant, and the suites do not change
    while one runs (a collection is a pytest start, seconds). Callers must not change what it returns."""
    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "collected.jsonl"
        subprocess.run([sys.executable, "-m", "pytest", *(f"tests/{name}" for name in suite_files(suite)),
                        "--collect-only", "-q", "-p", "grader.plugin",
                        "--grader-results", str(records), "-p", "no:cacheprovider"],
                       cwd=REPO, capture_output=True, text=True, check=False, timeout=300)
        lines = [json.loads(line) for line in records.read_text().splitlines()] if records.exists() else []
    points = {r["nodeid"].split("::", 1)[1]: (r["task"], r["points"]) for r in lines if r["kind"] == "collected"}
    if not points:
        raise RuntimeError(f"no graded test collected from tests/{suite}")
    return points


def points_lost(points: dict[str, tuple[str, int]], outcomes: dict[str, Outcome]) -> dict[str, int]:
    """Task -> points lost: a test that did not pass (or did not report) loses all of its points."""
    lost: dict[str, int] = {}
    for test_id, (task, worth) in points.items():
        passed = test_id in outcomes and outcomes[test_id].status == "passed"
        lost[task] = lost.get(task, 0) + (0 if passed else worth)
    return lost


def grade_panel(suite: str, seed: int | None = None) -> dict[str, dict[str, int]]:
    """Variant -> task -> points lost, each variant graded in full (``seed``: the tests' data)."""
    exercise, names = PANEL[suite]
    points = graded_points(suite)
    extra = [f"--seed={seed}"] if seed is not None else []
    calls = {name: (lambda name=name: run_variant(suite_files(suite), exercise, VARIANTS / exercise / f"{name}.py",
                                                  *extra, **FAST))
             for name in names}
    with parallel(calls) as futures:
        return {name: points_lost(points, futures[name].result()[1]) for name in names}


def what_it_is(exercise: str, name: str) -> str:
    first = (VARIANTS / exercise / f"{name}.py").read_text().split('"""')[1]
    return first.removeprefix("Wrong: ").rstrip(".")


def table() -> str:
    """The policy table, measured now (the MLP/GLU panel with the suites' default data)."""
    rows = []
    for suite, (exercise, names) in PANEL.items():
        points = graded_points(suite)
        tasks = [task for task in TASKS if any(t == task for t, _ in points.values())]
        totals = {t: sum(p for task, p in points.values() if task == t) for t in tasks}
        lost = grade_panel(suite)
        rows.append(f"\n{', '.join(f'`tests/{name}`' for name in suite_files(suite))} (`exercises/{exercise}.py`)\n")
        rows.append("| mistake | TODO | variant | " + " | ".join(f"{t} (of {totals[t]})" for t in tasks) + " |")
        rows.append("|---|---|---|" + "---:|" * len(tasks))
        for name in names:
            cells = " | ".join(f"-{lost[name][t]}" if lost[name][t] else "0" for t in tasks)
            rows.append(f"| {what_it_is(exercise, name)} | {TODOS[exercise][name]} | `{name}` | {cells} |")
        rows.extend(per_todo(exercise, names, lost, tasks, totals))
    return "\n".join(rows).lstrip("\n") + "\n"


BONUS = 5  # the bonus the Triton tasks are often worth (--bonus swiglu=5): what a mistake leaves of it


def per_todo(exercise: str, names: list[str], lost: dict[str, dict[str, int]], tasks: list[str],
             totals: dict[str, int]) -> list[str]:
    """Under a task's table: what one mistake in each TODO costs, from the rows whose mistake is in one
    TODO (public kernels aside), as points of the suite's tasks and, for a Triton task, of a bonus."""
    single: dict[str, list[str]] = {}
    for name in names:
        if not name.startswith("public_") and TODOS[exercise][name].isdigit():
            single.setdefault(TODOS[exercise][name], []).append(name)
    if not single:
        return []
    total = sum(totals.values())
    lines = ["", f"One mistake in one TODO (the rows above with one TODO) costs, of {total}:"]
    for todo in sorted(single, key=int):
        costs = sorted(sum(lost[name][t] for t in tasks) for name in single[todo])
        span = f"{costs[0]}" if costs[0] == costs[-1] else f"{costs[0]}-{costs[-1]}"
        line = f"- TODO {todo}: {span} ({len(costs)} mistake{'s' if len(costs) > 1 else ''})"
        if exercise.startswith("triton_"):
            keeps = [BONUS * (total - c) / total for c in (costs[-1], costs[0])]
            line += f"; as a {BONUS}-point bonus, keeps {keeps[0]:.2f}" + (
                f"-{keeps[1]:.2f}" if costs[0] != costs[-1] else "")
        lines.append(line)
    return lines


def written_table() -> str:
    text = POLICY_FILE.read_text()
    return text[text.index(START) + len(START):text.index(END)].strip("\n") + "\n"


def written_rows(suite: str) -> dict[str, dict[str, int]]:
    """The table in docs/grading.md for ``suite``, as variant -> task -> points lost."""
    exercise, names = PANEL[suite]
    section = written_table().split(f"`tests/{suite}`", 1)[1].split("\n`tests/", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    tasks = [cell.strip().split(" ")[0] for cell in lines[0].strip("|").split("|")[3:]]
    rows = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[2].strip("`")] = {task: -int(value) if value != "0" else 0 for task, value in zip(tasks, cells[3:])}
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m selfcheck.grading_policy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the measured table into docs/grading.md")
    write = parser.parse_args(argv).write
    measured = table()
    print(measured)
    if write:
        text = POLICY_FILE.read_text()
        head, tail = text.split(START, 1)[0], text.split(END, 1)[1]
        POLICY_FILE.write_text(f"{head}{START}\n{measured}{END}{tail}")
        print(f"wrote {POLICY_FILE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
