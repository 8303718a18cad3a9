"""Wrong: the matched width is not rounded to a multiple of multiple_of."""

EDITS = [
    ('    return math.ceil(exact / multiple_of) * multiple_of',
     '    return math.ceil(exact)'),
]

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': {'cause': 'multiple_of ignored'},
}
