"""Wrong: the matched width is not rounded to a multiple of multiple_of."""

EDITS = [
    ('    return math.ceil(exact / multiple_of) * multiple_of',
     '    return math.ceil(exact)'),
]

POLICY_TODOS = "7"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': {'cause': 'multiple_of ignored'},
}
