"""Wrong: two thirds of the MLP's width are floored, then rounded up (LLaMA's int(2 * hidden / 3))."""

EDITS = [
    ('    return math.ceil(exact / multiple_of) * multiple_of',
     '    if not bias:\n'
     '        return multiple_of * ((int(2 * int(mlp_width) / 3) + multiple_of - 1) // multiple_of)\n'
     '    return math.ceil(exact / multiple_of) * multiple_of'),
]

POLICY_TODOS = "7"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': {'cause': 'two thirds rounded down first'},
}
