"""Wrong: the default activation_fn is nn.ReLU (the original Transformer's) instead of nn.GELU."""

EXPECT_FAILURES = {
    "test_parity_with_reference[default-MLP]": "with no activation_fn given the output uses ReLU",
    "test_parity_with_reference[default-GLU]": "the default must be nn.GELU",
    "test_dropout_off_in_eval_mode[MLP]": "dropout is not what differs",
}

EDITS = [
    ('        activation_fn: ActivationFactory = nn.GELU,\n',
     '        activation_fn: ActivationFactory = nn.ReLU,\n', 2),
]
