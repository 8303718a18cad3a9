"""Wrong: forward casts the input with x.float(), which breaks every block that is not float32."""

EXPECT_FAILURES = {
    'test_dtype_kept[float64-MLP]': {'cause': 'RuntimeError in MLP.forward', 'says': "don't cast x or intermediate tensors with .float()"},
    'test_dtype_kept[bfloat16-GLU]': {'cause': 'RuntimeError in GLU.forward', 'says': 'forward mixes dtypes'},
}

EDITS = [
    ('    def forward(self, x: torch.Tensor) -> torch.Tensor:\n',
     '    def forward(self, x: torch.Tensor) -> torch.Tensor:\n'
     '        x = x.float()\n', 2),
]
