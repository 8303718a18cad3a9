"""The student release (``python -m instructor --release DIR``): no reference in it, and it still works.

One release is written (notebooks run, as the command does) and then used as a student would: the
stubs fail one line each naming the TODO, the reference copied in by hand passes every suite, known
mistakes get the hints they get in this repository, the local grader grades on the snapshot's data.
The checks that the release holds none of the reference's code are shown to be able to fail.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch

from instructor import release
from grader.paths import REFERENCE, REPO, answer_file, hints_file
from grader.tasks import TASK_NAMES
from selfcheck.harness import VARIANTS, materialize, parallel, read_report, recorded, reference_sources, verdict
from grader.judge import answer_files, snapshot

# Mistakes whose hints come from the recorded known-mistake outputs (the activation's path, a
# hard-coded or missing activation, the residual, a dropout mistake behind a forward mistake) or from
# other branches of the suite (an exception, a dtype, shapes).
SAMPLE_MISTAKES = ["glu_activation_on_value_path", "default_activation_relu", "residual_inside_block",
                   "dropout_before_wo"]


def pytest_in(folder: Path, *args: str, timeout: float = 300) -> tuple[int, dict]:
    """pytest run inside ``folder`` (a release), as a student runs it; (exit code, outcomes by test id)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        proc = subprocess.run([sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider",
                               f"--junitxml={report}", *recorded(Path(tmp))], cwd=folder, capture_output=True,
                              text=True, timeout=timeout)
        assert report.exists(), f"pytest wrote no report (exit {proc.returncode}): {proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        return proc.returncode, read_report(report, Path(tmp))


def copy_release(made: Path, into: Path, exercise_files: dict[str, str] | None = None) -> Path:
    """A student's copy of the release, with some exercise files replaced (name -> source)."""
    shutil.copytree(made, into)
    for name, source in (exercise_files or {}).items():
        (into / "exercises" / name).write_text(source)
    return into


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("release") / "student"
    release.make_release(folder)
    return folder


def test_release_holds_no_reference(made):
    files = {p.relative_to(made).as_posix() for p in made.rglob("*") if p.is_file()}
    assert not [f for f in files if f.startswith(("solution/", "selfcheck/", "benchmarks/", ".ci/"))], files
    assert {"exercises/mlp_block.py", "tests/test_mlp.py", "requirements.txt", "notebooks/microgpt_mlp.ipynb",
            "README.md", "socratic_prompt.md"} <= files
    assert {f"tests/snapshots/{task}.json" for task in TASK_NAMES} <= files  # each task's recorded answers
    assert "tests/snapshots/hints.json" in files  # and their hints
    assert release.leaks(made, release.reference_functions()) == []


def test_the_leak_check_can_fail(made, tmp_path):
    """Each of the reference's files, dropped into the release (or its block's forward pasted into
    a test file), is found."""
    functions = release.reference_functions()
    for path in REFERENCE.glob("*.py"):
        folder = copy_release(made, tmp_path / path.stem)
        shutil.copy(path, folder / "tests" / "helpers.py")
        assert any("tests/helpers.py" in leak for leak in release.leaks(folder, functions)), path.name
    pasted = copy_release(made, tmp_path / "pasted")
    with (pasted / "tests" / "checks.py").open("a") as f:
        f.write("\n\ndef forward(self, x):\n    return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n")
    assert any("checks.py" in leak and "forward" in leak for leak in release.leaks(pasted, functions))


def test_release_readme_starts_with_the_two_commands(made):
    text = (made / "README.md").read_text()
    commands = text.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert commands[0].split("#")[0].strip() == "pip install -r requirements.txt"
    assert commands[1].startswith("pytest tests/test_mlp.py")
    # A student's Linux machine without a GPU is told how to skip the CUDA libraries, right below.
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in " ".join(text.split("```", 2)[2][:600].split())
    assert release.INSTRUCTOR_ONLY not in text and "python -m selfcheck" not in text and "benchmarks/" not in text


# A path named in a shipped file: a top-level folder of the project, then a path in it.
NAMED_PATH = re.compile(r"(?<![\w-])(?:exercises|tests|grader|notebooks|docs|instructor|solution|selfcheck|benchmarks)"
                        r"/[A-Za-z0-9_./*-]*[A-Za-z0-9_*]")
# Named on purpose though absent: the reference, in sentences about "where it is present".
NAMED_AS_ABSENT = ("solution/hidden",)


def test_no_shipped_file_points_at_what_the_release_lacks(made):
    missing = []
    for path in sorted(made.rglob("*")):
        if path.suffix not in (".py", ".md", ".yml", ".txt") or not path.is_file():
            continue
        for line_number, line in enumerate(path.read_text().splitlines(), 1):
            for named in NAMED_PATH.findall(line):
                if named.startswith(NAMED_AS_ABSENT) or re.search(r"[A-Z]{3,}|\*", named):  # NAME, *: not one path
                    continue
                if not (made / named).exists():
                    missing.append(f"{path.relative_to(made)}:{line_number} names {named}")
    assert not missing, "\n".join(missing)


def test_the_student_readme_is_short_and_promises_no_other_seed(made):
    text = (made / "README.md").read_text()
    assert len(text.splitlines()) <= 120, len(text.splitlines())
    assert "--seed" not in text


def test_stubs_fail_one_line_each_naming_the_todo(made):
    code, outcomes = pytest_in(made, "tests")
    assert code == 1 and len(outcomes) > 90
    for test_id, outcome in outcomes.items():
        assert outcome.status == "failed", f"{test_id} {outcome.status}"
        assert outcome.message.startswith("not implemented yet:") and "TODO" in outcome.message, outcome.message
        assert "\n" not in outcome.message.strip(), outcome.message


def test_gated_kernel_tests_name_the_empty_kernel_first(made):
    """In the release the gated kernel tests launch the kernel with the stub's given launch code: on the
    stub they name the empty kernel, TODO 1, not gated_projection (TODO 2)."""
    code, outcomes = pytest_in(made, "tests/test_triton_gated_mlp.py")
    assert code == 1 and outcomes
    for test_id, outcome in outcomes.items():
        assert "_gated_projection_kernel: TODO 1" in outcome.message, f"{test_id}: {outcome.message}"


def test_reference_copied_in_passes_every_suite(made, tmp_path):
    folder = copy_release(made, tmp_path / "student", reference_sources())
    # The SwiGLU suite too: its kernel tests take their launch code from the stub as handed out.
    code, outcomes = pytest_in(folder, "tests")
    failed = {k: v.message for k, v in outcomes.items() if v.status != "passed"}
    # Judged by the snapshot, the reference's recorded answers, as every student's run is.
    assert code == 0 and len(outcomes) > 90 and not failed, (
        f"the reference fails against its snapshot in the release: has the snapshot drifted from the reference?"
        f" python -m grader.judge.snapshot records it again. {failed}")


def test_mistakes_get_their_hints_in_the_release(made, tmp_path):
    """Each sampled mistake fails as it declares (its EXPECT_FAILURES phrases), as it does here.
    (That every known mistake gets the very same messages from the snapshot as from the live
    reference is what ``python -m selfcheck.compare_snapshot`` checks, for all of them.)"""
    def in_release(name: str):
        variant = VARIANTS / "mlp_block" / f"{name}.py"
        folder = copy_release(made, tmp_path / name, {"mlp_block.py": materialize(variant, "mlp_block")})
        return pytest_in(folder, "tests/test_mlp.py")

    with parallel({name: (lambda n=name: in_release(n)) for name in SAMPLE_MISTAKES}) as runs:
        problems = [p for name in SAMPLE_MISTAKES
                    for p in verdict(VARIANTS / "mlp_block" / f"{name}.py", *runs[name].result())]
    assert not problems, "\n".join(problems)


def test_notebooks_ran_on_the_stubs(made):
    outputs = {}
    for notebook in ("microgpt_mlp", "glu_variants"):
        cells = json.loads((made / "notebooks" / f"{notebook}.ipynb").read_text())["cells"]
        outputs[notebook] = "".join(out.get("text", "") if isinstance(out.get("text", ""), str) else "".join(out["text"])
                                    for cell in cells if cell["cell_type"] == "code" for out in cell["outputs"])
    assert "Not implemented yet: MLP.__init__: TODO 1 in exercises/mlp_block.py" in outputs["microgpt_mlp"]
    assert "MLP from exercises/mlp_block.py" in outputs["microgpt_mlp"]
    assert "Not implemented yet: " in outputs["glu_variants"] and "exercises/mlp_cost.py" in outputs["glu_variants"]


def test_kernel_maps_shows_the_maps_of_right_kernels_before_any_todo(made):
    """Its stored outputs are kept (drawn from the reference's kernels): maps, not 'not run yet'."""
    cells = json.loads((made / "notebooks" / "kernel_maps.ipynb").read_text())["cells"]
    shown = "".join(out.get("text", "") if isinstance(out.get("text", ""), str) else "".join(out["text"])
                    for cell in cells if cell["cell_type"] == "code" for out in cell["outputs"])
    assert "Not run yet" not in shown and "#" in shown and "rows x" in shown, shown[:2000]


def test_the_grader_uses_the_snapshot_data(made, tmp_path):
    folder = copy_release(made, tmp_path / "student", reference_sources())
    proc = subprocess.run([sys.executable, "-m", "grader", "--tasks", "mlp,glu", "--json", "grade.json"],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    grade = json.loads((folder / "grade.json").read_text())
    assert grade["seed"] == snapshot.SNAPSHOT_SEED and grade["score"] == grade["max_score"] > 0, grade["score"]
    refused = subprocess.run([sys.executable, "-m", "grader", "--seed", "5"], cwd=folder, capture_output=True,
                             text=True, timeout=120)
    assert refused.returncode == 3 and "needs the reference" in refused.stderr, refused.stderr


def test_recorded_mistakes_are_the_reference_mistakes():
    """The snapshot's known-mistake outputs, and their hints (hints.json), recomputed now from the instructor's
    known_mistakes.py."""
    from grader.judge import answer_hints

    stored = {key: answer_files.decode(entry) for task in TASK_NAMES if answer_file(task).is_file()
              for key, entry in answer_files.read(answer_file(task))["mistakes"].items()}
    hints = answer_hints.read(hints_file())
    live = snapshot.LiveReference()
    assert stored, "the recorded answers hold no known-mistake outputs"
    for key, entry in stored.items():
        inputs = entry["inputs"]
        now = live.mistakes(inputs["block_name"], inputs["weights"], inputs["x"], inputs["activation"])
        recorded = answer_hints.joined(entry["mistakes"], hints, inputs["block_name"], inputs["activation"])
        assert recorded is not None, f"{key}: a cause without its hint in hints.json; `{snapshot.REGENERATE}`"
        assert [(cause, hint, in_init) for cause, hint, _, in_init in now] == [
            (cause, hint, in_init) for cause, hint, _, in_init in recorded], \
            f"{key}: the causes, hints or places changed; record the snapshot again with `{snapshot.REGENERATE}`"
        for (_, hint, output, _), (_, _, stored, _) in zip(now, recorded):
            assert torch.allclose(output, stored, rtol=1e-12, atol=1e-12), \
                f"{key} {hint!r}: output changed; `{snapshot.REGENERATE}`"


@pytest.mark.parametrize("exercise", ["triton_swiglu", "triton_gated_mlp"])
def test_stub_launch_code_is_the_reference_launch_code(exercise):
    """In the release the kernel tests launch with the stub's code (there is no reference): it must be
    the reference's launch code, function for function (docstrings aside), so the release gives the
    kernel tests the points the course's grader gives."""
    import ast

    from grader.kernels.source import KERNEL_EXERCISES, stub_launch_code

    spec = KERNEL_EXERCISES[exercise]

    def launch_functions(source: str) -> dict[str, str]:
        found = {}
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name not in {*spec.kernels, *spec.not_copied}:
                body = [b for b in node.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
                found[node.name] = ast.dump(ast.Module(body=body, type_ignores=[]))
        return found

    stub = launch_functions(stub_launch_code((REPO / "exercises" / f"{exercise}.py").read_text(), spec))
    reference = launch_functions((REFERENCE / f"reference_{exercise}.py").read_text())
    assert set(spec.launchers.values()) <= reference.keys()
    assert stub.keys() == reference.keys() and stub == reference, \
        [name for name in reference if stub.get(name) != reference[name]]
