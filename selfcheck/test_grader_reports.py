"""The grader's reports, exit codes, batch bookkeeping and where the seam runs code under test."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader import results
from grader.results import KINDS
from selfcheck.harness import REPO, VARIANTS, materialize, parallel, reference_sources, cli

EXIT_GRADER_ERROR = 3


def grader(*args: str, cwd: Path = REPO, env: dict | None = None, timeout: float = 300):
    return subprocess.run([sys.executable, "-m", cli(args), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})


def submission(folder: Path, variant: str = "glu_activation_on_value_path", triton_source: str | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "mlp_block.py").write_text(materialize(VARIANTS / "mlp_block" / f"{variant}.py", "mlp_block"))
    if triton_source is not None:
        (folder / "triton_swiglu.py").write_text(triton_source)
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict:
    """One run with every report: MLP right, GLU wrong, triton_swiglu.py with a syntax error."""
    tmp = tmp_path_factory.mktemp("reports")
    sub = submission(tmp / "partial", triton_source="def swiglu_forward(gate, value:\n    pass\n")
    files = {k: tmp / k for k in ("grade.json", "results.json", "junit.xml", "summary.md")}
    proc = grader(str(sub), "--seed", "7", "--json", str(files["grade.json"]), "--gradescope",
                  str(files["results.json"]), "--junit", str(files["junit.xml"]),
                  env={"GITHUB_STEP_SUMMARY": str(files["summary.md"])})
    assert proc.returncode == 0, proc.stderr
    return {"proc": proc, **{k: v for k, v in files.items()}}


def test_table_per_task_first_failure_and_total(graded):
    out = graded["proc"].stdout
    assert "seed 7" in out
    for title in ("MLP", "GLU", "SwiGLU"):
        assert f"\n  {title} " in out, out
    assert "First failure per task" in out and "gate path" in out
    assert "could not import triton_swiglu.py: SyntaxError" in out, out
    assert out.rstrip().splitlines()[-1].startswith("Total: ")


def test_json_schema(graded):
    data = json.loads(graded["grade.json"].read_text())
    assert data["schema"] == "mlp-block-grader/1" and data["seed"] == 7
    assert {"submission", "sandboxed", "isolation", "isolation_summary", "score", "max_score", "core_score",
            "bonus", "bonus_weights", "bonus_cap", "bonus_score", "bonus_max", "seconds", "grader_peak_mb", "tasks",
            "tests"} <= set(data)
    assert isinstance(data["sandboxed"], bool)
    assert data["score"] == data["core_score"] == sum(t["points"] for t in data["tests"])
    assert (data["bonus"], data["bonus_score"], data["bonus_max"]) == ([], 0, 0)
    # The instructor's detail (uid, cgroups) in the JSON; what a student reads has the summary alone.
    assert data["isolation"].startswith(data["isolation_summary"]) and data["isolation_summary"]
    assert "uid" not in data["isolation_summary"] and "cgroup" not in data["isolation_summary"]
    sandboxed_line = next(line for line in graded["proc"].stdout.splitlines() if line.startswith("Sandboxed:"))
    assert data["isolation_summary"] in sandboxed_line and "uid" not in sandboxed_line, sandboxed_line
    assert data["max_score"] == sum(t["max"] for t in data["tests"])
    for test in data["tests"]:
        assert set(test) == {"name", "task", "points", "max", "status", "message", "kind", "cause", "todo", "waits_on"}
        assert test["kind"] in KINDS and (test["kind"] == "passed") == (test["status"] == "passed"), test
        assert test["status"] in ("passed", "failed", "skipped")
        assert test["points"] == (test["max"] if test["status"] == "passed" else 0)
    tasks = {t["task"]: t for t in data["tasks"]}
    assert tasks["mlp"]["points"] == tasks["mlp"]["max_points"] > 0 and tasks["mlp"]["first_failure"] is None
    assert 0 < tasks["glu"]["points"] < tasks["glu"]["max_points"]
    # The broken file costs its own task only; the others are still graded.
    if "swiglu" in tasks:
        assert tasks["swiglu"]["points"] == 0 and "SyntaxError" in tasks["swiglu"]["first_failure"]["message"]


def test_gradescope_results(graded):
    data = json.loads(graded["results.json"].read_text())
    assert data["score"] == sum(t["score"] for t in data["tests"])
    for test in data["tests"]:
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)
        assert test["status"] in ("passed", "failed") and test["visibility"] == "visible"
    assert data["extra_data"]["max_score"] == sum(t["max_score"] for t in data["tests"])


def test_junit_and_step_summary(graded):
    root = ET.parse(graded["junit.xml"]).getroot()
    names = [s.get("name") for s in root.findall("testsuite")]
    assert names[:2] == ["MLP", "GLU"]
    assert int(root.find("testsuite[@name='MLP']").get("failures")) == 0
    assert int(root.find("testsuite[@name='GLU']").get("failures")) > 0
    summary = graded["summary.md"].read_text()
    assert summary.startswith("### Grade: ") and "| GLU |" in summary


def test_this_checkouts_stubs_and_fail_under():
    proc = grader("--tasks", "mlp", "--fail-under", "1")
    assert proc.returncode == 1, proc.stderr
    assert "Grade for exercises/" in proc.stdout and "not implemented yet" in proc.stdout
    assert "below --fail-under" in proc.stderr


@pytest.mark.parametrize("args, says", [
    (["/no/such/folder"], "no such folder"),
    ([str(REPO / "README.md")], "is a file"),
    (["--no-such-option"], "unrecognized arguments"),
    (["--tasks", "attention"], "unknown task"),
    (["--batch", str(REPO / "exercises")], "--csv"),
    (["--resume"], "--batch"),
])
def test_grader_errors_exit_3_with_a_message(args, says):
    proc = grader(*args, timeout=60)
    assert proc.returncode == EXIT_GRADER_ERROR, (proc.returncode, proc.stdout, proc.stderr)
    assert "grader error" in proc.stderr and says in proc.stderr, proc.stderr


def test_folder_without_exercise_files_is_a_grader_error(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing to grade")
    proc = grader(str(tmp_path), timeout=60)
    assert proc.returncode == EXIT_GRADER_ERROR and "no exercise files" in proc.stderr


def test_batch_writes_rows_and_resume_skips_them(tmp_path):
    batch, grades = tmp_path / "batch", tmp_path / "grades.csv"
    submission(batch / "alice", "correct_textbook")
    (batch / "bob").mkdir()  # handed in nothing: listed as skipped, not a crash
    # One task: what is checked is the rows and the resume, not a grade (graded whole elsewhere).
    proc = grader("--batch", str(batch), "--csv", str(grades), "--tasks", "mlp", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    rows = {r["submission"]: r for r in csv.DictReader(grades.open())}
    assert rows["alice"]["score"] == rows["alice"]["max_score"] != "0"
    assert "bob" not in rows and "skipped bob/: no exercise file" in proc.stderr, proc.stderr

    again = grader("--batch", str(batch), "--csv", str(grades))
    assert again.returncode == EXIT_GRADER_ERROR and "--resume" in again.stderr  # never overwritten

    submission(batch / "carol", "correct_textbook")
    resumed = grader("--batch", str(batch), "--csv", str(grades), "--resume", "--tasks", "mlp")
    assert resumed.returncode == 0, resumed.stderr
    names = [r["submission"] for r in csv.DictReader(grades.open())]
    assert sorted(names) == ["alice", "carol"], names
    assert "[1/1] carol" in resumed.stderr
    assert resumed.stdout.startswith("graded 2 of 3 entries: 0 errors, 1 skipped;"), resumed.stdout


def test_gradescope_bundle(tmp_path):
    import zipfile

    bundle = tmp_path / "autograder.zip"
    proc = grader("--gradescope-bundle", str(bundle), timeout=60)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(bundle) as z:
        names = set(z.namelist())
        assert {"setup.sh", "run_autograder", "grader/cli.py", "grader/probes/child.py", "tests/conftest.py",
                "tests/test_mlp.py", "solution/hidden/reference_mlp_block.py", "pyproject.toml"} <= names
        assert not any(n.startswith(("exercises/", "selfcheck/")) for n in names)
        assert z.getinfo("run_autograder").external_attr >> 16 & 0o111
        assert "/autograder" in z.read("run_autograder").decode() and "results/results.json" in z.read("run_autograder").decode()
        z.extractall(tmp_path / "source")
    for script in ("setup.sh", "run_autograder"):
        assert subprocess.run(["bash", "-n", str(tmp_path / "source" / script)]).returncode == 0
    # On a base image older than Ubuntu 22.04 (python3 too old for torch 2.13) setup.sh stops at once.
    for os_release in ('ID=ubuntu\nVERSION_ID="20.04"\nPRETTY_NAME="Ubuntu 20.04.6 LTS"\n', 'ID=debian\nVERSION_ID="12"\n'):
        (tmp_path / "os-release").write_text(os_release)
        setup = subprocess.run(["bash", str(tmp_path / "source" / "setup.sh")], capture_output=True, text=True,
                               env={**os.environ, "OS_RELEASE": str(tmp_path / "os-release")}, timeout=60)
        assert setup.returncode == 1 and "needs an Ubuntu 22.04 or later base image" in setup.stderr, setup.stderr
    # The unpacked bundle grades on its own, as it will on Gradescope.
    sub = submission(tmp_path / "upload", "correct_textbook")
    out = tmp_path / "results.json"
    run = subprocess.run([sys.executable, "-m", "grader", str(sub), "--tasks", "mlp", "--gradescope", str(out)],
                         cwd=tmp_path / "source", capture_output=True, text=True, timeout=300,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert run.returncode == 0, run.stderr
    data = json.loads(out.read_text())
    assert data["score"] == sum(t["max_score"] for t in data["tests"]) > 0


def test_gradescope_run_autograder_grades_stubs_zero_and_the_reference_full(tmp_path):
    """The bundle's own run_autograder, in a tree laid out as Gradescope's /autograder, every task."""
    import zipfile

    bundle = tmp_path / "autograder.zip"
    assert grader("--gradescope-bundle", str(bundle), timeout=60).returncode == 0
    uploads = {"stubs": {p.name: p.read_text() for p in (REPO / "exercises").glob("*.py")},
               "reference": reference_sources(),
               # Found as the batch finds it: in folders, in another case; what was found is said first.
               "nested": {"hw3/src/MLP_Block.py": reference_sources()["mlp_block.py"], "hw3/notes.txt": "x"},
               "nothing": {"report.pdf": "%PDF"}}

    def run_autograder(name: str) -> dict:
        root = tmp_path / name
        with zipfile.ZipFile(bundle) as z:
            z.extractall(root / "source")
        (root / "submission").mkdir()
        for file, text in uploads[name].items():
            (root / "submission" / file).parent.mkdir(parents=True, exist_ok=True)
            (root / "submission" / file).write_text(text)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        proc = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                              timeout=600, env={**env, "GRADING_ROOT": str(root), "GRADING_PYTHON": sys.executable})
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads((root / "results" / "results.json").read_text())

    with parallel({name: (lambda n=name: run_autograder(n)) for name in uploads}) as runs:
        stubs, reference = runs["stubs"].result(), runs["reference"].result()
        nested, nothing = runs["nested"].result(), runs["nothing"].result()
    assert nested["output"].startswith("Your hand-in: mlp_block.py found as hw3/src/MLP_Block.py (rename it mlp_block.py);"), \
        nested["output"]
    assert "not graded: hw3/notes.txt" in nested["output"], nested["output"]
    mlp_glu = [t for t in nested["tests"] if t["name"].startswith(("MLP:", "GLU:"))]
    assert mlp_glu and all(t["score"] == t["max_score"] for t in mlp_glu), [t for t in mlp_glu if t["score"] < t["max_score"]]
    assert nothing["score"] == 0 and nothing["output"].startswith("Nothing was graded: no exercise file"), nothing
    assert "triton_gated_mlp.py" in nothing["output"], nothing["output"]
    for data in (stubs, reference):
        assert data["extra_data"]["sandboxed"] is True, data["extra_data"]
        suites = {t["name"].split(": ", 1)[-1].split("::")[0] for t in data["tests"]}
        assert {"test_mlp.py", "test_cost.py", "test_triton_swiglu.py"} <= suites
    assert stubs["score"] == 0 and len(stubs["tests"]) == len(reference["tests"])
    assert reference["score"] == sum(t["max_score"] for t in reference["tests"]) > 0


def test_prairielearn_grader_grades_as_the_gradescope_bundle_does(tmp_path):
    """The PrairieLearn export's own run.sh, in a tree laid out as PrairieLearn's /grade: the reference gets a
    score of 1 with the tests' points adding up, a hand-in with no exercise file is not gradable (no attempt
    lost) and says why."""
    made = tmp_path / "made"
    assert grader("--prairielearn-grader", str(made), "--tasks", "mlp,glu", timeout=60).returncode == 0
    options = json.loads((made / "questions" / "mlp_block" / "info.json").read_text())["externalGradingOptions"]
    assert options["entrypoint"] == "/grade/serverFilesCourse/mlp_block_grader/run.sh" and options["timeout"] <= 600
    assert "bubblewrap" in (made / "Dockerfile.prairielearn").read_text()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(name: str, files: dict[str, str]) -> dict:
        root = tmp_path / name
        shutil.copytree(made / "serverFilesCourse", root / "serverFilesCourse")
        (root / "student").mkdir()
        for file, text in files.items():
            (root / "student" / file).write_text(text)
        proc = subprocess.run(["bash", str(root / "serverFilesCourse" / "mlp_block_grader" / "run.sh")],
                              capture_output=True, text=True, timeout=600,
                              env={**env, "GRADING_ROOT": str(root), "GRADING_PYTHON": sys.executable})
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads((root / "results" / "results.json").read_text())

    reference = run("reference", {"mlp_block.py": reference_sources()["mlp_block.py"]})
    assert reference["gradable"] is True and reference["score"] == 1.0, reference["message"]
    assert sum(t["points"] for t in reference["tests"]) == sum(t["max_points"] for t in reference["tests"]) > 0
    nothing = run("nothing", {"notes.txt": "x"})
    assert nothing["gradable"] is False and nothing["format_errors"][0].startswith("Nothing was graded: no exercise"), nothing


# PrairieLearn's schema for a question's info.json (apps/prairielearn/src/schemas/schemas/infoQuestion.json),
# the facts this check needs from it: the keys it allows (no others: additionalProperties is false), the
# required ones, each key's JSON type, the enums, the uuid's form; and for externalGradingOptions the same.
PL_QUESTION = {
    "required": {"uuid", "type", "title", "topic"},
    "types": {"comment": (str, list, dict), "uuid": str, "type": str, "title": str, "topic": str, "tags": list,
              "clientFiles": list, "clientTemplates": list, "template": str, "gradingMethod": str,
              "singleVariant": bool, "showCorrectAnswer": bool, "partialCredit": bool, "options": dict,
              "externalGradingOptions": dict, "dependencies": dict, "workspaceOptions": dict},
    "enums": {"type": {"Calculation", "MultipleChoice", "Checkbox", "File", "MultipleTrueFalse", "v3"},
              "gradingMethod": {"Internal", "External", "Manual"}},
}
PL_EXTERNAL_GRADING = {
    "required": {"image", "entrypoint"},
    "types": {"comment": (str, list, dict), "enabled": bool, "image": str, "entrypoint": str,
              "serverFilesCourse": list, "timeout": int, "enableNetworking": bool, "environment": dict},
}
PL_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def schema_errors(data: dict, schema: dict, where: str) -> list[str]:
    """Where ``data`` breaks ``schema`` (the facts above): unknown keys, missing ones, wrong types or values."""
    errors = [f"{where}.{k}: not a key PrairieLearn allows" for k in data if k not in schema["types"]]
    errors += [f"{where}.{k}: required" for k in sorted(schema["required"] - set(data))]
    for k, value in data.items():
        wanted = schema["types"].get(k)
        if wanted and (not isinstance(value, wanted) or (wanted is int and isinstance(value, bool))):
            errors.append(f"{where}.{k}: {value!r} is not {wanted}")
        if k in schema.get("enums", {}) and value not in schema["enums"][k]:
            errors.append(f"{where}.{k}: {value!r} not one of {sorted(schema['enums'][k])}")
    return errors


@pytest.mark.parametrize("check", [False, True], ids=["grader", "platform-check"])
def test_prairielearn_question_is_valid_by_prairielearns_schema(tmp_path, check):
    """The question folder, ready to copy into a course's questions/: info.json as PrairieLearn's schema allows
    it (a v3 question graded externally by this grader), and question.html with its file upload."""
    from instructor.exports import make_prairielearn

    make_prairielearn(tmp_path / "pl", ["mlp", "glu", "cost", "swiglu"], results.BonusRule({"swiglu": 5.0}), check=check)
    question = tmp_path / "pl" / "questions" / "mlp_block"
    info = json.loads((question / "info.json").read_text())
    errors = schema_errors(info, PL_QUESTION, "info") + schema_errors(
        info["externalGradingOptions"], PL_EXTERNAL_GRADING, "info.externalGradingOptions")
    errors += [] if PL_UUID.match(info["uuid"]) else [f"info.uuid: {info['uuid']!r} is no UUID"]
    errors += [] if all(isinstance(t, str) for t in info.get("tags", [])) else ["info.tags: strings only"]
    assert not errors, errors
    assert (info["type"], info["gradingMethod"]) == ("v3", "External")
    options = info["externalGradingOptions"]
    assert options["entrypoint"] == "/grade/serverFilesCourse/mlp_block_grader/run.sh" and options["timeout"] <= 600
    assert (tmp_path / "pl" / "serverFilesCourse" / options["serverFilesCourse"][0] / "run.sh").is_file()
    html = (question / "question.html").read_text()
    upload = re.search(r'<pl-file-upload file-names="([^"]*)" optional-file-names="([^"]*)"></pl-file-upload>', html)
    assert upload, html
    required, optional = ([name for name in part.split(", ") if name] for part in upload.groups())
    expected = ([], ["mlp_block.py", "mlp_cost.py", "triton_swiglu.py"]) if check else \
        (["mlp_block.py", "mlp_cost.py"], ["triton_swiglu.py"])  # the bonus task's file: optional
    assert (sorted(required), sorted(optional)) == expected, (required, optional)
    assert "<pl-external-grader-results>" in html


# ------------------------------------------------------------------------ the seam's routing

def test_seam_runs_mlp_in_process_and_isolates_triton():
    from grader.sandbox import ChildBackend, SandboxBackend
    from grader.judge.seam import ISOLATED_EXERCISES, LocalBackend, make_backend

    assert "triton_swiglu" in ISOLATED_EXERCISES
    for target in ("exercises", "reference", str(VARIANTS / "mlp_block")):
        backend = make_backend(target)
        assert isinstance(backend.backend_for("mlp_block"), LocalBackend)
        assert isinstance(backend.backend_for("triton_swiglu"), ChildBackend)
        assert not backend.backend_for("triton_swiglu").sandbox
    assert isinstance(make_backend("sandbox:" + str(REPO / "exercises")), SandboxBackend)


def test_a_crash_in_an_isolated_exercise_is_one_error(tmp_path):
    """A segfault in triton_swiglu.py fails that exercise's call; this process and mlp_block go on."""
    from grader.judge.seam import make_backend

    (tmp_path / "triton_swiglu.py").write_text("import ctypes\nctypes.string_at(0)\n")
    shutil.copy(VARIANTS / "mlp_block" / "correct_textbook.py", tmp_path / "mlp_block.py")
    backend = make_backend(str(tmp_path))
    try:
        evidence = backend.call("triton_swiglu", "describe_block", cls_name="MLP", ctor={})
        assert evidence["error"]["type"] == "ChildExited" and "SIGSEGV" in evidence["error"]["message"], evidence
        assert evidence["error"]["stage"].startswith("import ")
        ctor = {"hidden_dim": 8, "intermediate_dim": 12}
        assert backend.call("mlp_block", "describe_block", cls_name="MLP", ctor=ctor)["param_count"] == 212
    finally:
        backend.backend_for("triton_swiglu").close()


def test_a_kind_that_is_not_one_is_an_error():
    """The verdict's fields have one definition (grader/results.py's Fields): a mistyped kind in a suite
    is an error where it is made, never a silent "failed"."""
    from grader.results import Fields
    from grader.judge.checks import fail

    with pytest.raises(ValueError, match="not a valid Kind"):
        Fields("faild", "a cause")
    with pytest.raises(ValueError, match="not a valid Kind"):
        fail("a message", kind="waits_for")
    assert Fields("waits", "cause", "TODO 1", "test_x").as_dict() == {
        "kind": "waits", "cause": "cause", "todo": "TODO 1", "waits_on": "test_x"}


def test_error_evidence_from_a_child_is_read_as_the_grader_believes_it():
    """Error evidence has one set of fields (grader/probes/errors.py). What a child sends back is read
    through them: unknown fields dropped, flags only the grader may set (out of time, shown as is)
    cleared, a flag that is not True is False, text is text."""
    import io

    import torch

    from grader import evidence
    from grader.probes.errors import FIELDS, error_evidence

    claimed = {"stage": "GLU.forward", "type": "RuntimeError", "message": "boom", "out_of_time": True,
               "as_is": True, "not_implemented": 1, "points": 99, "where": 3}
    buffer = io.BytesIO()
    torch.save({"results": [{"error": claimed}], "error": {"message": "top"}}, buffer)
    read = evidence.load(buffer.getvalue(), max_bytes=1 << 20, max_elements=1 << 10)
    assert read["results"][0]["error"] == error_evidence("GLU.forward", "RuntimeError", "boom", "3")
    assert read["error"] == error_evidence("", "error", "top")
    assert set(error_evidence("s", "t", "m")) == set(FIELDS)
    torch.save({"error": {"message": "out of bounds", "map": {"x_ptr": [1, 2]}}}, buffer := io.BytesIO())
    assert evidence.load(buffer.getvalue(), max_bytes=1 << 20, max_elements=1 << 10)["error"]["map"] == {"x_ptr": [1, 2]}
