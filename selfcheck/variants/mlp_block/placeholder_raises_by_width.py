"""Wrong: both forwards are placeholders that raise one error or another as the input's width says."""

# A forward that raises only after its layers took the input keeps the construction tests' points (the error
# moves with the input's width: activation_factory_not_called). This one moves its error by reading x.shape[-1]
# and never runs a layer, which once earned the layer, shape and count tests (3 of 25 a block). Written before
# grading: no layer runs, so nothing shows the construction at work; every test of both blocks is lost.
EXPERT_VERDICT = "Every test of both blocks lost, 50 of 50: TODO 2 and TODO 4 compute nothing."

EXPECT_FAILURES = {
    'test_layer_names[MLP]': {'cause': 'ValueError in MLP.forward'},
    'test_parameter_count[GLU]': {'cause': 'ValueError in GLU.forward'},
}

EDITS = [
    ("return self.drop(self.Wo(self.act(self.Wi(x))))",
     'raise (ValueError if x.shape[-1] == self.Wi.in_features else TypeError)("not done")'),
    ("return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))",
     'raise (ValueError if x.shape[-1] == self.Wv.in_features else TypeError)("not done")'),
]
