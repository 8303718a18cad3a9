"""Wrong: __init__ is written, but forward is a placeholder that raises (MLP) or returns None (GLU)."""

# Written before grading: the constructions are right, the forwards compute nothing. Properties count once the
# code computes, so the construction tests earn nothing here either: a forward that fails the same way whatever
# its input is no evidence that the layers are at work (unlike a forward that raises after its layers ran, as
# activation_factory_not_called's does). Every test of both blocks is lost.
EXPERT_VERDICT = "Every test of both blocks lost, 50 of 50: TODO 2 and TODO 4 are placeholders."

EXPECT_FAILURES = {
    'test_layer_names[MLP]': {'cause': 'RuntimeError in MLP.forward'},
    'test_parameter_count[MLP]': {'cause': 'RuntimeError in MLP.forward'},
    'test_parameter_shapes[GLU]': {'cause': 'TypeError in GLU.forward'},
    'test_layer_names[GLU]': {'cause': 'TypeError in GLU.forward'},
    'test_parity_with_reference[default-MLP]': {'cause': 'RuntimeError in MLP.forward'},
    'test_parity_with_reference[default-GLU]': {'cause': 'TypeError in GLU.forward'},
}

EDITS = [
    ("        return self.drop(self.Wo(self.act(self.Wi(x))))\n",
     "        raise RuntimeError(\"forward is not written yet\")\n"),
    ("        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n", "        return None\n"),
]
