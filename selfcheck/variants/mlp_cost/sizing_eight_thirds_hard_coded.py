"""Wrong: the matched width is 8/3 * hidden_dim whatever the expansion."""

EDITS = [
    ('    exact = Fraction(budget - fixed, per_unit)',
     '    exact = Fraction(8 * hidden_dim, 3)'),
]

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': {'cause': 'expansion ignored'},
}
