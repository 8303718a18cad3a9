"""Wrong: the GLU gets the MLP's width: the 2/3 is not applied."""

EDITS = [
    ('    exact = Fraction(budget - fixed, per_unit)',
     '    exact = mlp_width'),
]

POLICY_TODOS = "7"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': {'cause': 'two thirds not applied'},
}
