"""Wrong: SwiGLUFunction.backward recomputes the gradients with PyTorch instead of calling swiglu_backward."""

EXPECT_FAILURES = {
    'test_autograd_gradients[float32]': {'cause': 'backward: result not from the kernel'},
    'test_autograd_sum_backward': {'cause': 'backward: result not from the kernel'},
}

EDITS = [
    ("        return swiglu_backward(grad_out, gate, value)\n",
     "        sig = torch.sigmoid(gate)\n"
     "        return grad_out * value * sig * (1 + gate * (1 - sig)), grad_out * gate * sig\n"),
]
