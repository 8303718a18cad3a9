"""Wrong: gated_projection always allocates the output in float32 (to keep precision) instead of x's dtype."""

EDITS = [
    ('    out = torch.empty((rows.shape[0], gate_weight.shape[0]), dtype=x.dtype, device=x.device)\n',
     '    out = torch.empty((rows.shape[0], gate_weight.shape[0]), dtype=torch.float32, device=x.device)\n'),
]
