"""Wrong: the MLP backward counts the activation once per number, as in the forward."""

EDITS = [
    ("    activation = 2 * intermediate_dim  # act'(z), times the incoming gradient",
     '    activation = intermediate_dim'),
]

EXPECT_FAILURES = {
    'test_backward_flops[MLP]': {'cause': 'activation backward counted once'},
}
