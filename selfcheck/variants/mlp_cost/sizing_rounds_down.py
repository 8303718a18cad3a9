"""Wrong: the matched width is rounded down to a multiple of multiple_of."""

EDITS = [
    ('    return math.ceil(exact / multiple_of) * multiple_of',
     '    return math.floor(exact / multiple_of) * multiple_of'),
]

POLICY_TODOS = "7"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': {'cause': 'rounded down'},
}
