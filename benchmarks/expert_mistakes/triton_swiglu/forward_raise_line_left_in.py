"""Wrong: I wrote the forward kernel but forgot to delete the raise NotImplementedError line in swiglu_forward."""

EDITS = [
    ('    # stub: raise NotImplementedError(f"swiglu_forward: TODO 1 in {HERE} (write _swiglu_forward_kernel, then delete this line)")\n    # END TODO 1\n',
     '    # stub: raise NotImplementedError(f"swiglu_forward: TODO 1 in {HERE} (write _swiglu_forward_kernel, then delete this line)")\n    raise NotImplementedError("swiglu_forward: TODO 1 in exercises/triton_swiglu.py (write _swiglu_forward_kernel, then delete this line)")\n    # END TODO 1\n'),
]
