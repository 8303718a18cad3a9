"""A submission's files are read once, as regular files (``grader/submission_files.py``): a link, a FIFO,
a device, a folder named like a file or a file over the size limit is refused with its name and why,
and what is graded is the grader's own copy of what was read."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from grader.grading import content_seed
from grader.paths import REPO
from grader.sandbox import MAX_SUBMISSION_FILE_BYTES
from grader.submission_files import read_submission


def refused(taken) -> dict[str, str]:
    return {r.name: r.why for r in taken.refused}


def test_regular_files_are_read_and_other_files_left_out(tmp_path):
    (tmp_path / "mlp_block.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("not python")
    taken = read_submission(tmp_path)
    assert taken.files == {"mlp_block.py": b"x = 1\n"} and not taken.refused and not taken.in_checkout


def test_a_link_is_refused_wherever_it_points(tmp_path):
    """To the hidden reference through the trusted process's working directory, or by its path: not read."""
    (tmp_path / "triton_swiglu.py").symlink_to("/proc/self/cwd/solution/hidden/reference_triton_swiglu.py")
    (tmp_path / "mlp_block.py").symlink_to(REPO / "solution" / "hidden" / "reference_mlp_block.py")
    taken = read_submission(tmp_path)
    assert taken.files == {}
    assert refused(taken) == {name: "a symbolic link, not a file: only regular files are read"
                              for name in ("mlp_block.py", "triton_swiglu.py")}


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "mlp_block.py")
    assert refused(read_submission(tmp_path)) == {
        "mlp_block.py": "a FIFO (named pipe), not a file: only regular files are read"}


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_is_refused(tmp_path):
    os.mknod(tmp_path / "mlp_block.py", 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's
    assert refused(read_submission(tmp_path)) == {"mlp_block.py": "a device, not a file: only regular files are read"}


def test_a_folder_and_a_file_over_the_limit_are_refused(tmp_path):
    (tmp_path / "mlp_cost.py").mkdir()
    with open(tmp_path / "mlp_block.py", "wb") as f:
        f.truncate(MAX_SUBMISSION_FILE_BYTES + 1)
    said = refused(read_submission(tmp_path))
    assert said["mlp_cost.py"].startswith("a folder") and "over the limit" in said["mlp_block.py"], said


def test_a_checkouts_exercises_folder_may_not_be_a_link(tmp_path):
    (tmp_path / "exercises").symlink_to(REPO / "solution" / "hidden")
    taken = read_submission(tmp_path)
    assert taken.files == {} and "exercises/" in refused(taken)


def test_a_checkout_is_read_from_its_exercises_folder_and_copied_as_one(tmp_path):
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "mlp_block.py").write_text("y = 2\n")
    (tmp_path / "mlp_block.py").write_text("not this one\n")
    taken = read_submission(tmp_path)
    assert taken.in_checkout and taken.files == {"mlp_block.py": b"y = 2\n"}
    copy = taken.write_copy(tmp_path / "copy")
    assert (copy / "exercises" / "mlp_block.py").read_bytes() == b"y = 2\n"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o700


def test_the_seed_follows_the_files_read_not_the_folder(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "mlp_block.py").write_text("z = 3\n")
    (tmp_path / "b" / "README.md").write_text("extra")
    (tmp_path / "b" / "link.py").symlink_to(tmp_path / "a" / "mlp_block.py")
    first, second = read_submission(tmp_path / "a"), read_submission(tmp_path / "b")
    assert content_seed(first) == content_seed(second)
    (tmp_path / "b" / "mlp_block.py").write_text("z = 4\n")
    assert read_submission(tmp_path / "b").digest() != first.digest()


def test_a_graded_run_never_opens_the_hand_in_again(tmp_path, monkeypatch):
    """Everything after the read works on the copy: the hand-in may vanish once it was read."""
    from grader import grading

    (tmp_path / "hand_in").mkdir()
    (tmp_path / "hand_in" / "mlp_block.py").write_text("raise NotImplementedError\n")
    taken = read_submission(tmp_path / "hand_in")
    seen = {}

    def runner(args, env, log_path, timeout):
        target = next(a for a in args if a.startswith("--target=sandbox:")).removeprefix("--target=sandbox:")
        seen["target"] = Path(target)
        seen["files"] = sorted(p.name for p in Path(target).iterdir())
        return 0, False

    (tmp_path / "hand_in" / "mlp_block.py").unlink()
    with pytest.raises(grading.GraderFailure):  # the fake runner writes no results
        grading.grade(tmp_path / "hand_in", runner=runner, files=taken, seed=0)
    assert seen["files"] == ["mlp_block.py"] and not seen["target"].is_relative_to(tmp_path)
