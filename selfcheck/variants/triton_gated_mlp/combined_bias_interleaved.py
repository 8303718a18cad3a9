"""Wrong: the combined bias is read interleaved, the gate's at even indices and the value's at odd."""

EXPECT_FAILURES = {
    'test_combined_weight': {'cause': 'combined weight right, bias interleaved'},
}

EDITS = [
    ("(None, None) if bias is None else (bias[:n], bias[n:])", "(None, None) if bias is None else (bias[0::2], bias[1::2])"),
]
