"""Wrong: forward runs under @torch.no_grad() (copied from inference code), so nothing can train."""

EXPECT_FAILURES = {
    'test_gradients[MLP]': {'cause': 'graph cut', 'says': 'torch.no_grad()'},
    'test_gradients[GLU]': {'cause': 'graph cut'},
}

EDITS = [
    ('    def forward(self, x: torch.Tensor) -> torch.Tensor:\n',
     '    @torch.no_grad()\n'
     '    def forward(self, x: torch.Tensor) -> torch.Tensor:\n', 2),
]
