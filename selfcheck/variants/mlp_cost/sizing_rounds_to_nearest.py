"""Wrong: the matched width is rounded to the nearest multiple."""

EDITS = [
    ('    return math.ceil(exact / multiple_of) * multiple_of',
     '    return round(exact / multiple_of) * multiple_of'),
]

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': {'cause': 'rounded down'},
}
