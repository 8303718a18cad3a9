"""Wrong: the matched width comes back as a float."""

EDITS = [
    ('    return math.ceil(exact / multiple_of) * multiple_of',
     '    return float(math.ceil(exact / multiple_of) * multiple_of)'),
]

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': 'a float, not an int',
}
