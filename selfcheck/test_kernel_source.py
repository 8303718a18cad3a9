"""What the fused SwiGLU suite takes out of a student's file for its kernel tests (grader/kernels/source.py):
the two kernels and the @triton.jit helpers they call, Triton language only, with the stub's parameters,
in the reference's launch code and nothing else of it."""

from __future__ import annotations

import ast
import os

import pytest

from grader.paths import reference_file

pytest.importorskip("triton", reason="Triton is not installed (Linux only)")

from grader.kernels.source import GATED, SWIGLU, assemble  # noqa: E402
from grader.kernels.writing import AssemblyError  # noqa: E402
from selfcheck.harness import REPO  # noqa: E402

pytestmark = [pytest.mark.swiglu, pytest.mark.gated]  # python -m selfcheck --task: the tasks this checks

REFERENCE = reference_file("triton_swiglu").read_text()
FORWARD_BODY = "    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n"


def with_forward_line(line: str, prelude: str = "") -> str:
    """The reference as a student's file, one line of its forward kernel changed."""
    return prelude + REFERENCE.replace(FORWARD_BODY, line)


def forward_problem(student: str) -> str:
    problems = assemble(student, REFERENCE, "triton_swiglu.py").problems
    assert "_swiglu_backward_kernel" not in problems, problems
    return str(problems.get("_swiglu_forward_kernel", ""))


def test_reference_kernels_taken_and_only_the_launch_code_around_them():
    assembled = assemble(REFERENCE, REFERENCE, "triton_swiglu.py")
    assert not assembled.problems
    for absent in ("class FusedSwiGLU", "class SwiGLUFunction", "def swiglu(", "Reference fused SwiGLU"):
        assert absent not in assembled.source
    for present in ("def swiglu_forward(", "def swiglu_backward(", "def _swiglu_forward_kernel("):
        assert present in assembled.source
    compile(assembled.source, "triton_swiglu.py", "exec")


def test_kernel_keeps_its_line_numbers():
    """Written from the tree, every statement of a kernel starts on its own line number (comments go)."""
    source = assemble(REFERENCE, REFERENCE, "triton_swiglu.py").source.splitlines()
    for node in ast.parse(REFERENCE).body:
        if isinstance(node, ast.FunctionDef) and node.name in SWIGLU.kernels:
            for statement in ast.walk(node):
                if isinstance(statement, (ast.Assign, ast.Expr, ast.Return)) and statement.end_lineno == statement.lineno:
                    assert source[statement.lineno - 1].strip() == ast.unparse(statement), statement.lineno


@pytest.mark.parametrize("line,said", [
    ("    out = torch.sigmoid(gate) * value\n", "uses the name torch, defined outside it"),
    ("    out = gate.handle * value\n", "uses .handle, which is not part of Triton's language"),
    ("    out = [g for g in gate]\n", "uses ListComp, which is not Triton language"),
    ("    out = open('x') * value\n", "uses Python's open"),
    ("    out = SCALE * gate * value\n", "uses the name SCALE, defined outside it"),
])
def test_python_in_a_kernel_refused_with_its_line(line, said):
    problem = forward_problem(with_forward_line(line))
    assert said in problem and "_swiglu_forward_kernel (triton_swiglu.py:" in problem, problem


def test_jit_helper_taken_and_checked_too():
    helper = "@triton.jit\ndef gated(g, v):\n    return g * tl.sigmoid(g) * v\n\n\n"
    ok = assemble(with_forward_line("    out = gated(gate, value)\n", helper), REFERENCE, "triton_swiglu.py")
    assert not ok.problems and "def gated(" in ok.source
    bad = "@triton.jit\ndef gated(g, v):\n    import os\n    return g * v\n\n\n"
    assert "uses Import" in forward_problem(with_forward_line("    out = gated(gate, value)\n", bad))


def test_other_signature_named_in_one_line():
    student = REFERENCE.replace("    out_row_stride,  # same for out\n    n_cols,  # elements per row\n",
                                "    out_row_stride,  # same for out\n    n_elements,\n", 1)
    problem = forward_problem(student)
    assert "takes (gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride, n_elements," in problem
    assert "expected (gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride, n_cols," in problem
    assert "keep the signature the stub gives (TODO 1)" in problem and "\n" not in problem


def test_autotune_refused():
    student = REFERENCE.replace("@triton.jit\ndef _swiglu_forward_kernel(", "@triton.autotune([], key=[])\n"
                                "@triton.jit\ndef _swiglu_forward_kernel(", 1)
    assert "@triton.autotune" in forward_problem(student)


def test_stub_is_not_implemented_and_missing_kernel_named():
    stub = (REPO / "exercises" / "triton_swiglu.py").read_text()
    problems = assemble(stub, REFERENCE, "exercises/triton_swiglu.py").problems
    assert problems["_swiglu_forward_kernel"].not_implemented
    assert str(problems["_swiglu_backward_kernel"]) == ("_swiglu_backward_kernel: TODO 2 in exercises/triton_swiglu.py"
                                                        " (its body is still empty)")
    missing = assemble("import torch\n", REFERENCE, "triton_swiglu.py").problems
    assert "defines no @triton.jit function _swiglu_forward_kernel" in str(missing["_swiglu_forward_kernel"])
    assert assemble("def f(:\n", REFERENCE, "x.py").problems["_swiglu_forward_kernel"].args[0].startswith(
        "could not import x.py: SyntaxError")


FORWARD_CONSTEXPR = "    BLOCK_SIZE: tl.constexpr,  # elements per program, a power of two\n):"


@pytest.mark.parametrize("signature,said", [
    ("    BLOCK_SIZE: tl.constexpr = exec('import os') or 1024,\n):", "parameter BLOCK_SIZE has a default value"),
    ("    BLOCK_SIZE: tl.constexpr = 1024,\n):", "parameter BLOCK_SIZE has a default value"),
    ("    BLOCK_SIZE: exec('import os') or tl.constexpr,\n):", "parameter BLOCK_SIZE is annotated"),
    ("    BLOCK_SIZE: tl.constexpr,\n) -> exec('import os'):", "has a return annotation"),
])
def test_nothing_of_the_def_line_runs_python(signature, said):
    """Defaults and annotations are evaluated when the file is imported: only the stub's shape passes."""
    assert FORWARD_CONSTEXPR in REFERENCE
    problem = forward_problem(REFERENCE.replace(FORWARD_CONSTEXPR, signature, 1))
    assert said in problem and "_swiglu_forward_kernel (triton_swiglu.py:" in problem and "TODO 1" in problem, problem
    assert len(problem) < 400, problem  # the student's code is quoted, cut short


def test_constexpr_spelled_in_full_is_accepted():
    student = REFERENCE.replace(FORWARD_CONSTEXPR, FORWARD_CONSTEXPR.replace("tl.constexpr", "triton.language.constexpr"))
    assert not assemble(student, REFERENCE, "triton_swiglu.py").problems


@pytest.mark.parametrize("default,ok", [("0", True), ("-1.5", True), ("None", True), ("exec('import os')", False),
                                         ("__import__('os').getpid()", False)])
def test_helper_defaults_literal_only(default, ok):
    helper = f"@triton.jit\ndef gated(g, v, scale={default}):\n    return g * tl.sigmoid(g) * v\n\n\n"
    problem = forward_problem(with_forward_line("    out = gated(gate, value, 1.0)\n", helper))
    assert (problem == "") == ok, problem
    if not ok:
        assert "gated (triton_swiglu.py:" in problem and "not a literal" in problem, problem


def test_helper_named_like_an_import_of_the_launch_code_refused():
    helper = "@triton.jit\ndef tl(g):\n    return g\n\n\n"
    problems = assemble(helper + REFERENCE, REFERENCE, "triton_swiglu.py").problems
    for kernel in ("_swiglu_forward_kernel", "_swiglu_backward_kernel"):  # both call tl.*: both refused
        assert ("tl of triton_swiglu.py clashes with the imported name tl (line"
                in str(problems[kernel])), problems


@pytest.mark.parametrize("name", ["sig", "out", "rows", "view", "grid"])
def test_helper_named_like_a_local_of_the_launch_code_accepted(name):
    """Names bound inside the launch code's functions are their locals: a helper may use them."""
    helper = f"@triton.jit\ndef {name}(g, v):\n    return g * tl.sigmoid(g) * v\n\n\n"
    assembled = assemble(with_forward_line(f"    out = {name}(gate, value)\n", helper), REFERENCE, "triton_swiglu.py")
    assert not assembled.problems and f"def {name}(" in assembled.source, assembled.problems


def test_helper_named_like_a_module_level_name_refused_and_the_clash_named():
    helper = "@triton.jit\ndef MAX_BLOCK_SIZE(g, v):\n    return g * tl.sigmoid(g) * v\n\n\n"
    problem = forward_problem(with_forward_line("    out = MAX_BLOCK_SIZE(gate, value)\n", helper))
    assert "clashes with the module-level name MAX_BLOCK_SIZE (line " in problem and "rename your function" in problem, problem


# Characters Python's tokenizer keeps inside one line (a comment, a docstring, a string) but that
# str.splitlines() ends a line at: a file that counts lines with them would shift what it copies.
LINE_SEPARATORS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
PLANTED = "PLANTED = __import__('os').getpid()  # a module-level statement: must never reach the copy"


def separator_placements(separator: str) -> dict[str, str]:
    """The reference as a student's file with ``separator`` in a comment, a docstring and a string above
    and inside the kernels, and a module-level statement right above the first kernel."""
    first = REFERENCE.index("\n@triton.jit\n") + 1  # the first kernel's decorator, not a mention of it
    above = (f"# a comment {separator} holding a separator\n"
             f'"""a module docstring-like string {separator} here"""\n'
             f"NOTE = 'a string {separator} too'\n{PLANTED}\n")
    inside = FORWARD_BODY.replace("  # silu(gate) * value", f"  # silu {separator} times value")
    return {"above the kernels": REFERENCE[:first] + above + REFERENCE[first:],
            "inside a kernel": with_forward_line(inside, prelude=f"# {separator}\n" * 3 + PLANTED + "\n"),
            "in a kernel's docstring": with_forward_line(f'    """silu {separator} times"""\n' + FORWARD_BODY,
                                                          prelude=PLANTED + "\n")}


@pytest.mark.parametrize("separator", LINE_SEPARATORS, ids=[hex(ord(c)) for c in LINE_SEPARATORS])
def test_line_separators_cannot_carry_a_statement_into_the_copy(separator):
    """Whatever the separator and wherever it sits, the copy holds the header, the kernels exactly as
    checked, and the launch code: no statement of the student's module level."""
    for where, student in separator_placements(separator).items():
        assembled = assemble(student, REFERENCE, "triton_swiglu.py")
        assert not assembled.problems, (where, assembled.problems)
        assert "PLANTED" not in assembled.source and separator not in assembled.source, where
        # The same file without the planted statement.
        plain = assemble(student.replace(PLANTED, ""), REFERENCE, "triton_swiglu.py")
        assert [ast.dump(n) for n in ast.parse(assembled.source).body] == \
            [ast.dump(n) for n in ast.parse(plain.source).body], where


def test_the_copy_is_checked_again_before_it_runs(monkeypatch):
    """Were the writing from the tree ever to put something else into the copy, it is refused, not run."""
    import grader.kernels.source as kernel_source

    written = kernel_source.written
    monkeypatch.setattr(kernel_source, "written", lambda functions, header: written(functions, header) + [PLANTED])
    with pytest.raises(AssemblyError):
        assemble(REFERENCE, REFERENCE, "triton_swiglu.py")


def test_gated_kernel_taken_with_its_helper_into_the_reference_launch_code():
    reference = reference_file("triton_gated_mlp").read_text()
    assembled = assemble(reference, reference, "triton_gated_mlp.py", GATED)
    assert not assembled.problems, assembled.problems
    names = [n.name for n in ast.parse(assembled.source).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert names.count("_activation") == 1 and "_gated_projection_kernel" in names, names
    assert "_launch_gated_kernel" in names, names  # the given launch code, which the kernel tests run
    assert not {"gated_projection", "gated_projection_combined", "FusedGatedMLP", "GatedProjectionFunction"} & set(
        names), names  # the answers to TODO 2-5, which the kernel tests do not judge


# Right kernels written in ways Triton accepts, which the taking must accept too.
KERNEL_HEAD = "@triton.jit\ndef _swiglu_forward_kernel("


@pytest.mark.parametrize("student", [
    REFERENCE.replace(KERNEL_HEAD, "@triton.jit()\ndef _swiglu_forward_kernel(", 1),
    REFERENCE.replace(KERNEL_HEAD, "@triton.jit(do_not_specialize=['n_cols'])\ndef _swiglu_forward_kernel(", 1),
    with_forward_line("    out = gated(gate, value, scale=1.0)\n",
                      "@triton.jit(noinline=True)\ndef gated(g, v, *, scale):\n    return scale * g * tl.sigmoid(g) * v\n\n\n"),
    with_forward_line("    tl.static_assert(BLOCK_SIZE > 0)\n    assert BLOCK_SIZE > 0, 'a block holds elements'\n"
                      "    out = (gate * tl.sigmoid(gate) * value).to(out_ptr.type.element_ty)\n"),
    # A name that names nothing reaches nothing: Triton's own error where a launch compiles it.
    with_forward_line("    if BLOCK_SIZE < 0:\n        gate = tl.math.no_such_function(gate)\n"
                      "    out = gate * tl.sigmoid(gate) * value\n"),
    with_forward_line("    out = gate * tl.math.exp(tl.zeros_like(gate)) * tl.sigmoid(gate) * value\n"),
], ids=["jit-called", "jit-option", "noinline-kwonly-helper", "assert-and-type", "unknown-name-not-refused",
        "tl-math-builtin"])
def test_right_kernels_written_other_ways_are_taken(student):
    assembled = assemble(student, REFERENCE, "triton_swiglu.py")
    assert not assembled.problems, assembled.problems


@pytest.mark.parametrize("student,said", [
    (REFERENCE.replace(KERNEL_HEAD, "@triton.jit(exec('import os'))\ndef _swiglu_forward_kernel(", 1), "takes here only"),
    (REFERENCE.replace(KERNEL_HEAD, "@triton.jit(debug=__import__('os'))\ndef _swiglu_forward_kernel(", 1),
     "takes here only"),
    (with_forward_line("    out = isinstance(gate, value)\n", "@triton.jit\ndef isinstance(g, v):\n    return g * v\n\n\n"),
     "is named like Python's or Triton's own isinstance"),
    (with_forward_line("    stash = tl.random.philox\n    out = gate * value\n"), "uses tl.random, which is the module"),
    (with_forward_line("    gate.shape = value\n    out = gate * value\n"), "assigns to `gate.shape`"),
    (with_forward_line("    out = gate * value\n    out[0] = value\n"), "assigns to `out[0]`"),
    (with_forward_line("    out = tl.core.math.sqrt(2.0) * gate * value\n"), "uses tl.core, which is the module"),
    # tl.math holds functools.wraps (Triton imports it there): with it a kernel could rebind tl.sigmoid
    # for every later launch in the kernels' process.
    (with_forward_line("    tl.math.wraps(gate, assigned=('sigmoid',), updated=())(tl)\n    out = gate * value\n"),
     "uses tl.math.wraps, which is the Python function functools.wraps"),
    (with_forward_line("    t = tl.tuple([gate], tl.tuple_type([gate.type], ['sigmoid']))\n    out = gate * value\n"),
     "uses tl.tuple, which is the class"),
    (with_forward_line("    out = tl.sigmoid.fn(gate) * value\n"), "uses tl.sigmoid.fn, which is the Python function"),
    (with_forward_line("    out = helper(tl, gate) * value\n", "@triton.jit\ndef helper(m, g):\n    return g\n\n\n"),
     "uses tl itself as a value"),
], ids=["jit-positional", "jit-option-not-literal", "builtin-name", "triton-module", "attribute-store",
        "subscript-store", "triton-core", "tl-math-wraps", "tl-tuple", "jit-function-inside", "tl-as-value"])
def test_what_would_let_the_student_reach_python_is_refused(student, said):
    assert said in forward_problem(student)


def test_an_expression_too_deep_to_check_is_refused_for_its_kernel_only():
    """Thousands of terms in one line nest the tree deeper than Python's recursion: refused with a message,
    never a crash of the suite, and the other kernel is still taken."""
    deep = "    out = " + " + ".join(["gate"] * 1500) + "\n"
    problems = assemble(with_forward_line(deep), REFERENCE, "triton_swiglu.py").problems
    assert list(problems) == ["_swiglu_forward_kernel"], problems
    assert "nested too deeply" in str(problems["_swiglu_forward_kernel"]) and "TODO 1" in str(problems["_swiglu_forward_kernel"])


def test_the_language_is_judged_the_same_whatever_the_interpreter_did_in_this_process():
    """With the interpreter switched on before triton's import (its jit functions are then
    InterpretedFunctions) and tl's builtins patched by an earlier launch (a device call never puts them
    back), the reference's kernels are still taken and tl.math.wraps still refused."""
    import subprocess
    import sys

    script = ("import triton, triton.language as tl\n"
              "from triton.runtime import interpreter\n"
              "scope = interpreter._LangPatchScope()\n"
              "for namespace in (tl, tl.math, tl.tensor):\n"
              "    interpreter._patch_builtin(namespace, interpreter.interpreter_builder, scope)\n"
              "from grader.kernels.language import resolve_language_name as resolve\n"
              "print(resolve(['tl', 'zeros']) == resolve(['tl', 'sigmoid']) == resolve(['tl', 'load']) == ''"
              " and 'functools.wraps' in resolve(['tl', 'math', 'wraps']))\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    assert proc.stdout.strip() == "True", proc.stdout + proc.stderr[-2000:]


# Module-level constants: Triton's compiler lets a kernel read tl.constexpr instances and dtypes, no other global.
AFTER_IMPORTS = "import triton.language as tl  # noqa: E402\n"


def with_constants(constants: str, line: str) -> str:
    """The reference as a student's file with ``constants`` right after its imports and one forward line changed."""
    student = with_forward_line(line)
    at = student.index(AFTER_IMPORTS) + len(AFTER_IMPORTS)
    return student[:at] + constants + student[at:]


def test_constexpr_constants_and_dtypes_a_kernel_reads_are_taken_written_from_their_values():
    constants = ("LOG2E = tl.constexpr(1.4426950408889634)\nHALF: tl.constexpr = tl.constexpr(0.5)\n"
                 "BIG = tl.constexpr(-2.0 ** 10)\nACC = tl.float64\nMODE = triton.language.constexpr('ieee')\n"
                 "UNUSED = tl.constexpr(3)\n")
    line = "    out = gate * tl.sigmoid(gate) * value * (HALF + HALF) * (LOG2E / LOG2E) + (BIG - BIG).to(ACC)\n"
    student = with_constants(constants, line)
    assembled = assemble(student, REFERENCE, "triton_swiglu.py")
    assert not assembled.problems, assembled.problems
    lines = assembled.source.splitlines()
    for name, written in [("LOG2E", "LOG2E = tl.constexpr(1.4426950408889634)"), ("HALF", "HALF = tl.constexpr(0.5)"),
                          ("BIG", "BIG = tl.constexpr(-1024.0)"), ("ACC", "ACC = tl.float64")]:
        line_number = next(n for n, text in enumerate(student.splitlines(), 1) if text.startswith(f"{name}"))
        assert lines[line_number - 1] == written, (name, lines[line_number - 1])  # on the student's line
    assert "UNUSED" not in assembled.source and "MODE" not in assembled.source  # only what a kernel reads
    compile(assembled.source, "triton_swiglu.py", "exec")


@pytest.mark.parametrize("constants,said", [
    ("FLAG = tl.constexpr(os.environ.get('TRITON_INTERPRET') == '1')\n", "is computed by Python when the file runs"),
    ("FLAG: tl.constexpr = 1.0\n", "only annotated tl.constexpr"),
    ("FLAG = 1.0\n", "a plain Python value"),
    ("FLAG = tl.constexpr(1.0)\nFLAG = tl.constexpr(2.0)\n", "bound more than once"),
    ("if True:\n    FLAG = tl.constexpr(1.0)\n", "bound by Python"),
    ("FLAG = tl.constexpr(10 ** 100000)\n", "a power too large"),
    ("FLAG = tl.constexpr('x' * 1000)\n", "arithmetic on text"),
    ("FLAG = tl.constexpr('" + "x" * 100 + "')\n", "longer than 32 characters"),
], ids=["from-the-environment", "annotated-only", "plain-global", "bound-twice", "in-a-branch", "huge-power",
        "text-arithmetic", "long-text"])
def test_module_level_values_a_kernel_may_not_read_are_refused_saying_why(constants, said):
    problem = forward_problem(with_constants(constants, "    out = gate * tl.sigmoid(gate) * value * FLAG\n"))
    assert "uses FLAG, a module-level name of the file" in problem and said in problem, problem


def test_a_constant_named_like_a_name_of_the_launch_code_is_refused():
    student = with_forward_line("    out = gate * tl.sigmoid(gate) * value * (MAX_BLOCK_SIZE / MAX_BLOCK_SIZE)\n")
    student = student.replace("MAX_BLOCK_SIZE = 1024", "MAX_BLOCK_SIZE = tl.constexpr(1024)", 1)
    problem = forward_problem(student)
    assert "the constant MAX_BLOCK_SIZE" in problem and "clashes with the module-level name MAX_BLOCK_SIZE" in problem, problem


@pytest.mark.parametrize("constant,written", [
    ("C = tl.constexpr(-float('inf'))", "C = tl.constexpr(float('-inf'))"),
    ("C = tl.constexpr(float('nan'))", "C = tl.constexpr(float('nan'))"),
    ("C = tl.constexpr(1e309)", "C = tl.constexpr(float('inf'))"),
    ("C = tl.constexpr(1 << 10)", "C = tl.constexpr(1024)"),
    ("C = tl.constexpr(7 // 2 + 7 % 2)", "C = tl.constexpr(4)"),
    ("C = tl.constexpr(10 ** -6)", "C = tl.constexpr(1e-06)"),
    ("C = tl.constexpr(2 ** 64 - 1)", "C = tl.constexpr(18446744073709551615)"),
    ("C = tl.constexpr(-(2 ** 63))", "C = tl.constexpr(-9223372036854775808)"),
    ("C: tl.constexpr = tl.float32", "C = tl.float32"),
    ("C = tl.constexpr(triton.language.float16)", "C = tl.float16"),
])
def test_constants_triton_accepts_are_taken_and_written_as_their_value(constant, written):
    student = with_constants(constant + "\n", "    out = gate * tl.sigmoid(gate) * value + (C != C)\n")
    assembled = assemble(student, REFERENCE, "triton_swiglu.py")
    assert not assembled.problems, assembled.problems
    assert written in assembled.source.splitlines(), [line for line in assembled.source.splitlines() if "C =" in line]


@pytest.mark.parametrize("alias,written", [
    ("fast_exp = tl.math.exp", "fast_exp = tl.math.exp"),  # lmdeploy's fast_expf, a builtin
    ("fast_exp = triton.language.exp", "fast_exp = tl.exp"),
    ("gate_of = tl.sigmoid", "gate_of = tl.sigmoid"),  # a @triton.jit function of Triton's library
])
def test_an_alias_of_a_language_function_is_taken_as_triton_compiles_it(alias, written):
    name = alias.split(" =")[0]
    call = f"{name}(-gate)" if "exp" in alias else f"1 / {name}(gate) - 1"  # both exp(-gate)
    student = with_constants(alias + "\n", f"    out = gate / (1 + {call}) * value\n")
    assembled = assemble(student, REFERENCE, "triton_swiglu.py")
    assert not assembled.problems, assembled.problems
    assert written in assembled.source.splitlines(), [line for line in assembled.source.splitlines() if " = tl" in line]
    compile(assembled.source, "triton_swiglu.py", "exec")


@pytest.mark.parametrize("alias", ["fn = tl.math.wraps", "fn = tl.tuple", "fn = tl.float32.to_ir", "fn = tl.core",
                                   "fn = tl.no_such_function", "fn = os.path.exists"])
def test_an_alias_of_anything_else_is_refused(alias):
    problem = forward_problem(with_constants(alias + "\n", "    out = gate * tl.sigmoid(gate) * value * fn(gate)\n"))
    assert "uses fn, a module-level name of the file" in problem, problem


def test_constants_on_one_line_are_written_in_the_files_order():
    student = with_constants("B = tl.constexpr(2.0); A = tl.constexpr(1.0); C = tl.constexpr(3.0)\n",
                             "    out = gate * tl.sigmoid(gate) * value * (A * B * C / 6.0)\n")
    source = assemble(student, REFERENCE, "triton_swiglu.py").source
    assert source.index("B = ") < source.index("A = ") < source.index("C = "), source[:400]


def test_a_module_level_too_large_or_deep_to_read_is_no_crash():
    """A module level nested thousands deep, or a literal of thousands of digits, never crashes the taking: the
    kernels are still taken, and a kernel that reads such a name is refused, saying why."""
    deep = "_T = " + "+".join(["1"] * 1500) + "\n"
    huge = "Y: tl.constexpr = 0x" + "f" * 5000 + "\n"
    assert not assemble(with_constants(deep + huge, FORWARD_BODY), REFERENCE, "triton_swiglu.py").problems
    problem = forward_problem(with_constants(huge, "    out = gate * tl.sigmoid(gate) * value * Y\n"))
    assert "uses Y, a module-level name" in problem, problem
    in_kernel = forward_problem(with_forward_line("    out = gate * tl.sigmoid(gate) * value * 0x" + "f" * 5000 + "\n"))
    assert "a number too long" in in_kernel, in_kernel
