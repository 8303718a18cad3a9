# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The MLP block from single numbers up: scalar autograd and squared ReLU
#
# Every transformer layer ends with an MLP block: widen each position's vector, apply a
# nonlinearity, narrow it back, add it to the residual stream. In the exercise (`exercises/mlp_block.py`)
# you write that block with `nn.Linear` and let PyTorch compute the gradients. Here we do the opposite:
# we build it out of **single numbers**, and we write the gradient machinery ourselves, so that nothing
# is hidden.
#
# We follow **microgpt**, a complete GPT in a couple of hundred lines of dependency-free Python. An
# early revision of it used *squared ReLU*, `relu(x) ** 2`, in its MLP:
#
# ```
# x -> rmsnorm -> fc1 (16 -> 64) -> relu(x)**2 -> fc2 (64 -> 16) -> + x (residual)     no biases
# ```
#
# The plan:
#
# 1. a scalar autograd engine: a `Value` class that records how each number was made;
# 2. ReLU and squared ReLU up close: values, derivatives, plots next to GELU and SiLU, sparsity and
#    large inputs;
# 3. the microgpt MLP block on scalars, forward and backward;
# 4. the same block in PyTorch (float64): same output, same gradients, to 1e-9;
# 5. the exercise's `MLP` (yours, once you have written it) with a squared-ReLU activation reproduces it;
# 6. a short training run with the scalar engine;
# 7. what all this costs, compared with a tensor library.
#
# Every claim that can be checked is checked with an `assert`, so if you change something and break
# it, the notebook tells you; what cannot be asserted (a timing) is printed from the run itself. The
# whole notebook runs in seconds on a laptop CPU: its last cell prints how many.

# %% [markdown]
# ## 0. Set-up
#
# The notebook lives in `notebooks/`, but it imports code from the repository (the exercise's MLP and
# a squared-ReLU module). We walk up from the working directory until we find the
# repository root and put it on `sys.path`, so the imports work however the notebook was started
# (JupyterLab, or nbval, which runs it from `notebooks/`).

# %%
# %matplotlib inline
import logging
import math
import random
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt
import torch

# A first import of matplotlib in a fresh environment may log a note while it builds its font cache;
# that one-off message would make this cell's output differ from the stored one.
logging.getLogger("matplotlib").setLevel(logging.ERROR)
NOTEBOOK_START = time.perf_counter()


def find_repo_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds the exercises."""
    for folder in (start, *start.parents):
        if (folder / "exercises" / "mlp_block.py").is_file():
            return folder
    raise FileNotFoundError(f"no repository root above {start}: open the notebook inside the repository")


REPO = find_repo_root(Path.cwd().resolve())
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

torch.set_default_dtype(torch.float64)  # every PyTorch comparison below is in float64
print("torch", torch.__version__.split("+")[0])

# %% [markdown]
# ## 1. A scalar autograd engine
#
# A `Value` holds one number (`data`) and, after a backward pass, the derivative of the final result
# with respect to that number (`grad`). When an operation makes a new `Value`, it also records
#
# * its **children**: the `Value`s it was computed from, and
# * its **local derivatives**: d(result)/d(child) for each child, evaluated right now, in the
#   forward pass, while the numbers are at hand.
#
# That is all the backward pass needs. The chain rule says: if the final output `L` depends on a
# child `c` through a node `v`, then `dL/dc = dL/dv * dv/dc`. So we visit the nodes from the output
# back to the inputs, and each node hands `local_derivative * its own grad` to each child.
#
# Read the class below operation by operation: the result is computed on one line, and the local
# derivative sits next to it.

# %%
class Value:
    """One number in a computation graph, and the gradient of the final output with respect to it."""

    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data = float(data)
        self.grad = 0.0
        self._children = children  # the Values this one was computed from
        self._local_grads = local_grads  # d(self)/d(child) for each child, same order

    def __repr__(self):
        return f"Value(data={self.data:.6g}, grad={self.grad:.6g})"

    # ---- binary operations ------------------------------------------------------------------
    def __add__(self, other):
        other = as_value(other)
        # d(a + b)/da = 1,  d(a + b)/db = 1
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __sub__(self, other):
        other = as_value(other)
        # d(a - b)/da = 1,  d(a - b)/db = -1
        return Value(self.data - other.data, (self, other), (1.0, -1.0))

    def __mul__(self, other):
        other = as_value(other)
        # d(a * b)/da = b,  d(a * b)/db = a
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __truediv__(self, other):
        other = as_value(other)
        # d(a / b)/da = 1/b,  d(a / b)/db = -a/b^2
        return Value(self.data / other.data, (self, other),
                     (1.0 / other.data, -self.data / other.data**2))

    def __pow__(self, k):
        # Only a plain number as exponent: that keeps the derivative a one-liner.
        if not isinstance(k, (int, float)):
            raise TypeError("Value ** k needs a plain number k")
        # d(a^k)/da = k * a^(k-1)
        return Value(self.data**k, (self,), (k * self.data ** (k - 1),))

    # ---- unary operations -------------------------------------------------------------------
    def __neg__(self):
        # d(-a)/da = -1
        return Value(-self.data, (self,), (-1.0,))

    def exp(self):
        e = math.exp(self.data)
        # d(e^a)/da = e^a: the result itself
        return Value(e, (self,), (e,))

    def log(self):
        # d(ln a)/da = 1/a
        return Value(math.log(self.data), (self,), (1.0 / self.data,))

    def relu(self):
        positive = self.data > 0
        # d relu(a)/da = 1 for a > 0, 0 for a < 0; at exactly a = 0 we choose 0 (see section 1.2)
        return Value(self.data if positive else 0.0, (self,), (1.0 if positive else 0.0,))

    # ---- a plain number on the left: 2 * v, 1 - v, 1 / v ------------------------------------
    def __radd__(self, other):
        return as_value(other) + self

    def __rsub__(self, other):
        return as_value(other) - self

    def __rmul__(self, other):
        return as_value(other) * self

    def __rtruediv__(self, other):
        return as_value(other) / self

    # ---- the backward pass ------------------------------------------------------------------
    def backward(self):
        """Add d(self)/d(leaf) to the .grad of every leaf (input or weight) that self depends on."""
        # 1. A topological order: each node after all the nodes it was computed from. Recursive for
        #    clarity; it nests as deep as the longest chain of operations, fine for this notebook.
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._children:
                    visit(child)
                order.append(node)

        visit(self)
        # 2. Interior nodes (results of operations) start this pass from zero. Leaves keep what they
        #    have: their .grad accumulates across passes, as in PyTorch (section 1.3).
        for node in order:
            if node._children:
                node.grad = 0.0
        self.grad += 1.0  # d(self)/d(self) = 1
        # 3. From the output back to the inputs: every node passes its gradient on to its children.
        #    `+=` because a node used by several others collects a contribution from each of them.
        for node in reversed(order):
            for child, local in zip(node._children, node._local_grads):
                child.grad += local * node.grad


def as_value(x):
    """Wrap a plain number so it can take part in an operation (it becomes a leaf)."""
    return x if isinstance(x, Value) else Value(x)


# %% [markdown]
# A first example by hand: `f(a, b) = a * b + b ** 2` at `a = 2`, `b = -3`. Calculus says
# `df/da = b = -3` and `df/db = a + 2b = 2 - 6 = -4`.

# %%
a, b = Value(2.0), Value(-3.0)
f = a * b + b**2
f.backward()
print(f"f = {f.data},  df/da = {a.grad},  df/db = {b.grad}")
assert (f.data, a.grad, b.grad) == (3.0, -3.0, -4.0)

# %% [markdown]
# ### 1.0 The graph it built
#
# Nothing above names an operation: a node keeps only its number, its children and the local
# derivative towards each child. That is the whole graph. Drawn from the output down, each line is a node
# with its value and, after `backward()`, its gradient; `(x k)` is the local derivative d(parent)/d(this
# node) that the backward pass multiplies by. `b` appears twice because `f` uses it twice, and its
# gradient is the sum of what both paths hand it: `2 * 1 + (-6) * 1 = -4`.

# %%
def draw(node, names, prefix="", local=None, last=True, lines=None):
    """The graph below `node` as text lines, one per node (a shared node once per use)."""
    lines = [] if lines is None else lines
    name = names.get(id(node), "")
    via = "" if local is None else f"(x {local:g}) "
    branch = "" if local is None else ("└── " if last else "├── ")
    lines.append(f"{prefix}{branch}{via}{name or 'node'} = {node.data:g}   grad {node.grad:g}")
    below = prefix + ("" if local is None else ("    " if last else "│   "))
    for i, (child, child_local) in enumerate(zip(node._children, node._local_grads)):
        draw(child, names, below, child_local, i == len(node._children) - 1, lines)
    return lines


graph = draw(f, {id(a): "a", id(b): "b", id(f): "f"})
print("\n".join(graph))
assert sum(line.count(" b = ") for line in graph) == 2  # b, once for each of its two uses

# %% [markdown]
# ### 1.1 Every operation against a finite difference
#
# A local derivative with a wrong sign or a missing factor would silently give wrong gradients. We
# check each operation against the central difference `(f(x + h) - f(x - h)) / 2h`, which needs no
# calculus at all. For the two-input operations we check the derivative with respect to each input.

# %%
def numeric_grad(fn, xs, i, h=1e-6):
    """d fn / d xs[i] by central difference, on plain floats."""
    up, down = list(xs), list(xs)
    up[i] += h
    down[i] -= h
    return (fn(*up) - fn(*down)) / (2 * h)


# Each case: a name, a function that works on Values and on floats alike, and where to evaluate it.
cases = [
    ("a + b", lambda a, b: a + b, (1.5, -0.7)),
    ("a - b", lambda a, b: a - b, (1.5, -0.7)),
    ("a * b", lambda a, b: a * b, (1.5, -0.7)),
    ("a / b", lambda a, b: a / b, (1.5, -0.7)),
    ("a ** 3", lambda a: a**3, (1.5,)),
    ("a ** -0.5", lambda a: a**-0.5, (1.5,)),
    ("-a", lambda a: -a, (1.5,)),
    ("2 - 1 / a", lambda a: 2 - 1 / a, (1.5,)),
    ("exp(a)", lambda a: a.exp() if isinstance(a, Value) else math.exp(a), (0.3,)),
    ("log(a)", lambda a: a.log() if isinstance(a, Value) else math.log(a), (1.5,)),
    ("relu(a), a > 0", lambda a: a.relu() if isinstance(a, Value) else max(a, 0.0), (0.8,)),
    ("relu(a), a < 0", lambda a: a.relu() if isinstance(a, Value) else max(a, 0.0), (-0.8,)),
]

print(f"{'operation':16} {'input':>5}  {'engine':>10}  {'numeric':>10}")
for name, fn, point in cases:
    leaves = [Value(p) for p in point]
    fn(*leaves).backward()
    for i, leaf in enumerate(leaves):
        numeric = numeric_grad(fn, point, i)
        assert abs(leaf.grad - numeric) < 1e-6, (name, i, leaf.grad, numeric)
        print(f"{name:16} {'ab'[i]:>5}  {leaf.grad:10.6f}  {numeric:10.6f}")

# %% [markdown]
# ### 1.2 The gradient of ReLU at exactly 0
#
# `relu(x) = max(x, 0)` has slope 0 on the left and 1 on the right. At `x = 0` the two sides disagree,
# so the derivative does not exist there. Any number between 0 and 1 is a valid *subgradient*, and an
# engine simply has to pick one. We pick 0, the same choice PyTorch makes, so the two agree
# everywhere. In practice this rarely matters: a pre-activation computed from real data is almost
# never exactly 0.0. The finite difference of section 1.1, asked at 0, shows the problem: it
# averages the two one-sided slopes and answers 0.5, which is neither.

# %%
for x in (-1.0, 0.0, 1.0):
    v = Value(x)
    v.relu().backward()
    t = torch.tensor(x, requires_grad=True)
    torch.relu(t).backward()
    print(f"x = {x:4}:  engine relu'(x) = {v.grad},  torch relu'(x) = {t.grad.item()}")
    assert v.grad == t.grad.item()
print("central difference at 0:", numeric_grad(lambda a: max(a, 0.0), (0.0,), 0))

# %% [markdown]
# ### 1.3 `backward()` accumulates
#
# Look at the `+=` in `backward()`. Inside one pass it is needed: if `b` is used twice, as in
# `a * b + b ** 2`, its gradient is the sum of what both uses send back. But it also means a leaf's
# `.grad` is never reset by the engine: call `backward()` a second time and the same gradient is
# **added again**.

# %%
a, b = Value(2.0), Value(-3.0)
f = a * b + b**2
f.backward()
print(f"after one backward():   a.grad = {a.grad},  b.grad = {b.grad}")
f.backward()
print(f"after two backward():   a.grad = {a.grad},  b.grad = {b.grad}   (doubled)")
assert (a.grad, b.grad) == (-6.0, -8.0)

# PyTorch does the same with a leaf's .grad (it frees the graph after a backward pass unless asked
# to keep it, hence retain_graph=True).
ta, tb = torch.tensor(2.0, requires_grad=True), torch.tensor(-3.0, requires_grad=True)
tf = ta * tb + tb**2
tf.backward(retain_graph=True)
tf.backward()
print(f"torch, two backward():  a.grad = {ta.grad.item()},  b.grad = {tb.grad.item()}")
assert (ta.grad.item(), tb.grad.item()) == (a.grad, b.grad)

# %% [markdown]
# Accumulation is a feature: it lets you call `backward()` on several losses (say, one per example)
# and get the gradient of their sum. The price is that a training loop must **zero the gradients**
# before each step (`p.grad = 0.0` here, `optimizer.zero_grad()` in PyTorch); forget it and every
# step uses the sum of all gradients so far.
#
# Our engine resets the *interior* nodes at the start of each pass. Without that reset the second
# pass would start from stale interior gradients, and the leaves would get more than twice their gradient
# ("Try it yourself" at the end has you check it).

# %% [markdown]
# ## 2. Squared ReLU
#
# Squared ReLU is `relu(x) ** 2`: zero for `x <= 0`, `x ** 2` for `x > 0`. Its derivative, by the
# chain rule, is `2 * relu(x) * relu'(x)`, and since `relu(x)` is already 0 wherever `relu'(x)` is 0,
# that is simply
#
# $$\frac{d}{dx}\,\mathrm{relu}(x)^2 = 2\,\mathrm{relu}(x).$$
#
# Note what happens at 0: the slope is 0 from both sides, so unlike ReLU, squared ReLU **is**
# differentiable there, and the question of section 1.2 goes away. We did not write a special rule
# for it: the engine composes `relu` and `** 2` and gets the derivative from the chain rule. Let us
# check it against the formula.

# %%
def relu2(v):
    return v.relu() ** 2


print(f"{'x':>5}  {'relu(x)^2':>9}  {'engine grad':>11}  {'2*relu(x)':>9}")
for i in range(-6, 7):
    x = i / 2
    v = Value(x)
    out = relu2(v)
    out.backward()
    formula_value, formula_grad = max(x, 0.0) ** 2, 2 * max(x, 0.0)
    assert out.data == formula_value and v.grad == formula_grad, (x, out.data, v.grad)
    print(f"{x:5.1f}  {out.data:9.2f}  {v.grad:11.2f}  {formula_grad:9.2f}")


# %% [markdown]
# ### 2.1 Four activations side by side
#
# The usual alternatives in transformer MLPs:
#
# * **ReLU**: `max(x, 0)`;
# * **squared ReLU**: `relu(x) ** 2`;
# * **GELU**: `x * Phi(x)`, with `Phi` the standard normal CDF (GPT-2, BERT);
# * **SiLU** (swish): `x * sigmoid(x)` (the gate of SwiGLU, used by Llama).
#
# ReLU, squared ReLU and SiLU only need operations our engine has (`sigmoid(x) = 1 / (1 + exp(-x))`),
# so the engine computes their values and derivatives. GELU needs the error function, which the
# engine lacks, so PyTorch computes that one. As a cross-check the engine's SiLU is compared with
# PyTorch's.

# %%
def silu(v):
    return v * (1 / (1 + (-v).exp()))


def value_and_grad(fn, x):
    """fn(x) and fn'(x) by the engine, for one plain float x."""
    v = Value(x)
    out = fn(v)
    out.backward()
    return out.data, v.grad


xs = [i / 50 for i in range(-200, 201)]  # -4 to 4
curves = {}
for name, fn in (("ReLU", Value.relu), ("squared ReLU", relu2), ("SiLU", silu)):
    curves[name] = list(zip(*(value_and_grad(fn, x) for x in xs)))

xt = torch.tensor(xs, requires_grad=True)
gelu = torch.nn.functional.gelu(xt)  # exact GELU, with erf
(gelu_grad,) = torch.autograd.grad(gelu.sum(), xt)
curves["GELU"] = (gelu.tolist(), gelu_grad.tolist())

xt = torch.tensor(xs, requires_grad=True)
silu_t = torch.nn.functional.silu(xt)
(silu_grad_t,) = torch.autograd.grad(silu_t.sum(), xt)
assert max(abs(p - q) for p, q in zip(curves["SiLU"][0], silu_t.tolist())) < 1e-12
assert max(abs(p - q) for p, q in zip(curves["SiLU"][1], silu_grad_t.tolist())) < 1e-12

fig, (ax_f, ax_d) = plt.subplots(1, 2, figsize=(11, 4.2))
for name in ("ReLU", "squared ReLU", "GELU", "SiLU"):
    values, grads = curves[name]
    ax_f.plot(xs, values, label=name)
    ax_d.plot(xs, grads, label=name)
ax_f.set(title="activation", xlabel="x", ylim=(-1, 4))
ax_d.set(title="derivative", xlabel="x", ylim=(-0.5, 4))
for ax in (ax_f, ax_d):
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.legend()
plt.show()

# %% [markdown]
# What the plots show:
#
# * ReLU's derivative jumps from 0 to 1 at `x = 0`; squared ReLU's derivative, `2 * relu(x)`, is
#   continuous: it starts at 0 and grows linearly.
# * GELU and SiLU are smooth and dip slightly below zero for negative inputs, so they are almost never
#   exactly 0. ReLU and squared ReLU are exactly 0 for every `x <= 0`.
# * For large positive `x`, ReLU, GELU and SiLU all approach the line `y = x` (slope 1). Squared ReLU
#   keeps curving up: its value grows like `x ** 2` and its slope like `2x`, without bound.
#
# ### 2.2 Sparsity and large inputs
#
# **Sparsity.** Feed the four activations the same pre-activations (a standard normal sample, about
# what `fc1` produces after `rmsnorm`) and count how many outputs are exactly zero, and how many are
# tiny.

# %%
gen = torch.Generator().manual_seed(0)
pre = torch.randn(64_000, generator=gen)  # 1000 positions x 64 hidden units
acts = {
    "ReLU": torch.relu(pre),
    "squared ReLU": torch.relu(pre) ** 2,
    "GELU": torch.nn.functional.gelu(pre),
    "SiLU": torch.nn.functional.silu(pre),
}
stats = {}
print(f"{'activation':14} {'exactly 0':>10} {'|y| < 0.01':>11} {'top 10% share':>14}")
for name, y in acts.items():
    exact = (y == 0).double().mean().item()
    tiny = (y.abs() < 0.01).double().mean().item()
    # How much of the total output the largest 10% of outputs carry: a measure of concentration.
    top = y.abs().sort(descending=True).values
    share = (top[: len(top) // 10].sum() / top.sum()).item()
    stats[name] = exact, tiny, share
    print(f"{name:14} {exact:10.1%} {tiny:11.1%} {share:14.1%}")

# The claims of the next cell, checked.
assert torch.equal(acts["ReLU"] == 0, acts["squared ReLU"] == 0)  # the very same units are off
assert 0.45 < stats["ReLU"][0] < 0.55  # about half of them
assert stats["GELU"][0] == stats["SiLU"][0] == 0.0
assert stats["squared ReLU"][1] > stats["ReLU"][1] and stats["squared ReLU"][2] > stats["ReLU"][2]

# %% [markdown]
# * ReLU and squared ReLU zero out exactly the same units (all `x <= 0`), about half of them here.
#   GELU and SiLU zero out none. Exact zeros are cheap to skip and easy to read: a unit is either
#   on or off.
# * Squared ReLU shrinks the small positive outputs further (`0.1 ** 2 = 0.01`), so more of its outputs
#   are *nearly* zero, and the largest few carry a bigger share of the total. In that sense it is
#   *sparser* than ReLU: fewer units do most of the work. Primer (see the sources) found that this
#   simple change made language models train faster for the same compute.
#
# **Large inputs.** The flip side of `x ** 2` is that large inputs get very large, and so do their
# gradients (`2x`). In float32 or float64 that is just a big number; in float16, whose largest finite
# value is 65504, squared ReLU overflows to infinity once `x` reaches 256 (`256 ** 2 = 65536`).

# %%
big = torch.tensor([1.0, 10.0, 100.0, 255.0, 256.0])
print("x                    ", big.tolist())
print("relu(x)              ", torch.relu(big).tolist())
print("relu(x)^2            ", (torch.relu(big) ** 2).tolist())
print("slope 2*relu(x)      ", (2 * torch.relu(big)).tolist())
print("relu(x)^2 in float16 ", (torch.relu(big.half()) ** 2).tolist())
squared_half = torch.relu(big.half()) ** 2
assert torch.isfinite(squared_half[:-1]).all() and torch.isinf(squared_half[-1])  # 255 fits, 256 overflows

# %% [markdown]
# The block of section 3 normalises its input first, and that keeps the square in check: `rmsnorm`
# scales every input vector to root-mean-square 1, so the pre-activations `fc1` makes do not grow with
# the size of the residual stream. Below, the same vector at 1x and 100x its size, through the same
# random `fc1` (16 -> 64): without the norm, the largest squared-ReLU output grows 10,000 times; with it,
# not at all. (Pre-norm is the layout of GPT-2 and later models for every block, squared ReLU or not;
# this shows what it does for this activation, not why microgpt chose it.)

# %%
gen_norm = torch.Generator().manual_seed(1)
w_in = torch.randn(64, 16, generator=gen_norm) / 16**0.5
vec = torch.randn(16, generator=gen_norm)


def rms_normed(v):
    return v / torch.sqrt((v * v).mean() + 1e-5)


for label, normalise in (("no norm", lambda v: v), ("rmsnorm", rms_normed)):
    peaks = [(torch.relu(w_in @ normalise(scale * vec)) ** 2).max().item() for scale in (1.0, 100.0)]
    print(f"{label:8} largest relu(fc1 x)^2:  x at 1x {peaks[0]:10.3g}   x at 100x {peaks[1]:10.3g}")
    if label == "no norm":
        assert abs(peaks[1] / peaks[0] - 1e4) < 1e-6 * 1e4
    else:
        assert abs(peaks[1] / peaks[0] - 1) < 1e-3  # eps in the norm: not exactly 1

# %% [markdown]
# ## 3. The microgpt MLP block on scalars
#
# Now the block itself, with microgpt's sizes: model width 16, hidden width 4 x 16 = 64. A vector is a
# Python list of `Value`s, a weight matrix a list of rows. There are no biases, as in microgpt.
#
# * `rmsnorm(x) = x / sqrt(mean(x^2) + eps)`, no learned scale;
# * `linear(x, W)`: output `j` is `sum_i W[j][i] * x[i]`, one row of `W` per output, the same layout as
#   `nn.Linear.weight`;
# * the block: `y = x + fc2(relu(fc1(rmsnorm(x))) ** 2)`.

# %%
N_EMBD, N_HIDDEN = 16, 64
EPS = 1e-5


def total(values):
    """Sum of Values. Unlike sum(), it does not start from a constant 0 node."""
    values = iter(values)
    acc = next(values)
    for v in values:
        acc = acc + v
    return acc


def rmsnorm(x):
    scale = (total(xi * xi for xi in x) / len(x) + EPS) ** -0.5
    return [xi * scale for xi in x]


def linear(x, W):
    return [total(w * xi for w, xi in zip(row, x)) for row in W]


def mlp(x, fc1, fc2):
    """The MLP part: fc2(relu(fc1(x)) ** 2)."""
    return linear([relu2(h) for h in linear(x, fc1)], fc2)


def block(x, fc1, fc2):
    """microgpt's MLP block: pre-norm, MLP, residual."""
    return [xi + mi for xi, mi in zip(x, mlp(rmsnorm(x), fc1, fc2))]


def matrix(rng, rows, cols, std):
    return [[Value(rng.gauss(0.0, std)) for _ in range(cols)] for _ in range(rows)]


rng = random.Random(42)  # a fixed seed: the same weights and inputs on every run
fc1 = matrix(rng, N_HIDDEN, N_EMBD, std=N_EMBD**-0.5)  # std 1/sqrt(fan-in): pre-activations of order 1
fc2 = matrix(rng, N_EMBD, N_HIDDEN, std=N_HIDDEN**-0.5)
x = [Value(rng.gauss(0.0, 1.0)) for _ in range(N_EMBD)]
upstream = [rng.gauss(0.0, 1.0) for _ in range(N_EMBD)]  # dL/dy, as if from the layers above

y = block(x, fc1, fc2)
# To run a backward pass we need one number at the end. L = sum_k upstream[k] * y[k] makes
# dL/dy = upstream, which is exactly what the rest of a network would send back into the block.
L = total(g * yk for g, yk in zip(upstream, y))
L.backward()

print("y[:4]          ", [round(v.data, 6) for v in y[:4]])
print("dL/dx[:4]      ", [round(v.grad, 6) for v in x[:4]])
print("dL/dfc1[0][:4] ", [round(w.grad, 6) for w in fc1[0][:4]])
print("dL/dfc2[0][:4] ", [round(w.grad, 6) for w in fc2[0][:4]])
hidden = [relu2(h).data for h in linear(rmsnorm(x), fc1)]
print(f"hidden units exactly 0 after squared ReLU: {sum(h == 0.0 for h in hidden)} of {N_HIDDEN}")

# %% [markdown]
# ### 3.1 Why the block looks like this
#
# Three facts about the block, checked on the weights we just built (the first in section 4, on the
# tensor version).
#
# **One position at a time.** The block reads one position's vector and nothing else: feed it a sequence
# of positions and each output depends on its own input alone. Mixing information *between* positions is
# attention's job, in the other half of a transformer layer; the MLP then works on what each position
# has gathered. The scalar `block` shows this by its form (it takes one vector); the tensor version of
# section 4 takes all positions at once, and is checked there to keep them apart.
#
# **Two linear layers without an activation are one.** `fc2(fc1(v))` is `(fc2 @ fc1) v`: a single
# 16 x 16 matrix. Without the nonlinearity in the middle, the 2,048 weights of the two layers could do
# nothing that 256 weights cannot, and widening to 64 would buy nothing at all.
#
# **Expand, then contract.** With the activation in between, each of the 64 hidden units is a feature
# that an input switches on (positive pre-activation) or off (exactly 0 after squared ReLU), and `fc2`
# mixes the ones that are on. Each on/off pattern is a different piece of the block's function, so
# the more patterns the inputs can reach, the more pieces the block's function is made of. The check
# below tells the two widths apart: 100,000 random inputs, through our `fc1` (64 units) and through its
# first 16 rows alone (the same block without the expansion). At width 16 there cannot be more than
# 2^16 = 65,536 patterns, fewer than the inputs, whatever the weights; at width 64 nearly every input
# gets a pattern of its own. `fc2` then brings the result back to the residual stream's width, so that
# blocks can be stacked.

# %%
fc1_m, fc2_m = torch.tensor([[w.data for w in row] for row in fc1]), torch.tensor([[w.data for w in row] for row in fc2])
v = torch.tensor([xi.data for xi in x])
collapsed = fc2_m @ fc1_m  # (16, 64) @ (64, 16): one 16 x 16 matrix
gap = (fc2_m @ (fc1_m @ v) - collapsed @ v).abs().max().item()
assert gap < 1e-12 and collapsed.shape == (N_EMBD, N_EMBD)
assert (fc1_m.numel() + fc2_m.numel(), collapsed.numel()) == (2048, 256)
# The difference is rounding, and its last digits depend on the machine: printed as the bound it keeps.
print(f"fc2(fc1(v)) against (fc2 @ fc1) v: equal within 1e-12;"
      f" {fc1_m.numel() + fc2_m.numel()} weights act as {collapsed.numel()}")

N_INPUTS = 100_000
inputs_many = torch.randn(N_INPUTS, N_EMBD, generator=torch.Generator().manual_seed(3))
normed = inputs_many / torch.sqrt((inputs_many * inputs_many).mean(-1, keepdim=True) + EPS)
on = (normed @ fc1_m.T) > 0  # which of the 64 hidden units each input switches on
distinct = {}
for width in (N_HIDDEN, N_EMBD):  # all 64 units; the first 16 alone
    distinct[width] = len(torch.unique(on[:, :width], dim=0))
    print(f"width {width:2}: {N_INPUTS:,} inputs give {distinct[width]:6,} different on/off patterns"
          f" (at most {min(2**width, N_INPUTS):,} possible)")
assert distinct[N_EMBD] <= 2**N_EMBD < N_INPUTS  # without the expansion most inputs must share a pattern
assert distinct[N_HIDDEN] > 0.99 * N_INPUTS > 2 * distinct[N_EMBD]

# %% [markdown]
# ## 4. The same block in PyTorch, float64
#
# Now the same computation with tensors: copy the weights and the input into float64 tensors, run the
# block, and send the same `upstream` gradient back with `y.backward(upstream)`. If our engine is
# right, the output and **every** gradient (all 16 inputs, all 1024 + 1024 weights) agree to 1e-9 (what
# is left is rounding: the two sum in different orders). Then the tensor block on three positions at
# once: changing position 0's input changes position 0's output and leaves the others' exactly as they
# were.

# %%
def to_tensor(values):
    """A nested list of Values as a float64 leaf tensor that records gradients."""
    if isinstance(values[0], list):
        data = [[v.data for v in row] for row in values]
    else:
        data = [v.data for v in values]
    return torch.tensor(data, dtype=torch.float64, requires_grad=True)


def grads_of(values):
    """The .grad of each Value, as a tensor of the same shape."""
    if isinstance(values[0], list):
        return torch.tensor([[v.grad for v in row] for row in values])
    return torch.tensor([v.grad for v in values])


x_t, fc1_t, fc2_t = to_tensor(x), to_tensor(fc1), to_tensor(fc2)
upstream_t = torch.tensor(upstream)


def block_torch(x, fc1, fc2):
    xn = x / torch.sqrt((x * x).mean(-1, keepdim=True) + EPS)
    return x + torch.relu(xn @ fc1.T) ** 2 @ fc2.T


y_t = block_torch(x_t, fc1_t, fc2_t)
y_t.backward(upstream_t)

checks = {
    "output y": (y_t.detach(), torch.tensor([v.data for v in y])),
    "grad x": (x_t.grad, grads_of(x)),
    "grad fc1": (fc1_t.grad, grads_of(fc1)),
    "grad fc2": (fc2_t.grad, grads_of(fc2)),
}
for name, (theirs, ours) in checks.items():
    assert theirs.shape == ours.shape
    diff = (theirs - ours).abs().max().item()
    assert diff < 1e-9, (name, diff)
    print(f"{name:9} {ours.numel():5} numbers  agree within 1e-9")

with torch.no_grad():
    three = torch.randn(3, N_EMBD, generator=torch.Generator().manual_seed(5))
    moved = three.clone()
    moved[0] += 1.0  # change position 0 only
    changed = (block_torch(three, fc1_t, fc2_t) != block_torch(moved, fc1_t, fc2_t)).any(dim=1).tolist()
print("outputs changed, by position:", changed)
assert changed == [True, False, False]

# %% [markdown]
# ## 5. The tie-in: the exercise's `MLP` is this block
#
# The exercise's `MLP(hidden_dim, intermediate_dim, activation_fn)` computes `dropout(Wo(act(Wi(x))))`, with
# no dropout here (the `Dropout(p=0.0)` line printed below): the
# middle of microgpt's block, without the norm and the residual, and with biases. Give it a
# squared-ReLU activation module (`SquaredReLU` from `grader/probes/activations.py`, which computes
# `torch.relu(x) ** 2`), zero its biases, and load our weights: `fc1` into `Wi`, `fc2` into `Wo`, both
# already in `nn.Linear`'s layout, one row per output. Fed `rmsnorm(x)`, it must reproduce the scalar
# block's MLP output; with the norm and the residual around it, the whole block and its gradients.
#
# Which `MLP`: `notebooks/exercise_code.py` loads the reference where the instructor's `solution/`
# is present, and otherwise **yours**, from `exercises/mlp_block.py`. Until TODO 1 and 2 are done the
# cell below says so and the rest of the notebook runs on; once `pytest tests/test_mlp.py -m mlp`
# passes, re-run it and your block meets microgpt's.

# %%
# NBVAL_IGNORE_OUTPUT
# It runs your MLP: its output changes once TODO 1 and 2 are done (its asserts still run).
from grader.probes.activations import SquaredReLU
from notebooks import exercise_code


def tie_in(MLP) -> None:
    mlp_t = MLP(N_EMBD, N_HIDDEN, activation_fn=SquaredReLU).double().eval()
    for name in ("Wi", "Wo"):
        if getattr(mlp_t, name).bias is None:
            raise ValueError(f"{name} has no bias: every linear layer of the exercise has one")
    with torch.no_grad():
        mlp_t.Wi.weight.copy_(fc1_t)
        mlp_t.Wo.weight.copy_(fc2_t)
        mlp_t.Wi.bias.zero_()
        mlp_t.Wo.bias.zero_()
    print(mlp_t)

    # The MLP part alone: MLP(rmsnorm(x)) against the scalar mlp(rmsnorm(x)).
    x_mlp = torch.tensor([v.data for v in x], requires_grad=True)
    xn_mlp = x_mlp / torch.sqrt((x_mlp * x_mlp).mean() + EPS)
    out = mlp_t(xn_mlp)
    out_scalar = torch.tensor([v.data for v in mlp(rmsnorm(x), fc1, fc2)])
    gap = (out.detach() - out_scalar).abs().max().item()
    assert gap < 1e-9, f"MLP(rmsnorm(x)) differs from the scalar MLP by up to {gap:.3g}"
    print("MLP(rmsnorm(x)) == scalar MLP output   (within 1e-9)")

    # The whole block, and its gradients, through the exercise's module.
    (x_mlp + out).backward(upstream_t)
    for what, ours, theirs in [("the block's output", (x_mlp + out).detach(), torch.tensor([v.data for v in y])),
                               ("the gradient of Wi", mlp_t.Wi.weight.grad, grads_of(fc1)),
                               ("the gradient of Wo", mlp_t.Wo.weight.grad, grads_of(fc2)),
                               ("the gradient of x", x_mlp.grad, grads_of(x))]:
        gap = (ours - theirs).abs().max().item()
        assert gap < 1e-9, f"{what} differs from microgpt's by up to {gap:.3g}"
    print("x + MLP(rmsnorm(x)): same output and same gradients for x, Wi, Wo (within 1e-9)")


blocks, source = exercise_code.load("mlp_block")
print("MLP from", source)
try:
    tie_in(blocks.MLP)
except NotImplementedError as error:
    exercise_code.not_yet(error, "this cell compares your MLP with microgpt's block.")
except Exception as error:  # written, but not microgpt's block yet: one line, and the notebook runs on
    exercise_code.not_right(error, "this cell compares your MLP with microgpt's block.", "pytest tests/test_mlp.py -m mlp")


# %% [markdown]
# ## 6. Training with the scalar engine
#
# A gradient is only useful if following it makes a loss go down. A toy task: four fixed input vectors,
# and for each the target "the same vector rotated by one position" (`y[i] = x[i + 1]`). The loss is the
# mean squared error; each step runs forward and backward through all four examples, then moves every
# weight a little against its gradient (plain gradient descent). Note the zeroing of the gradients at
# the start of each step (section 1.3). What this shows is the training loop, not learning a rule:
# with four examples and 2,048 weights the block memorises them, as the cell after the curve checks.

# %%
rng = random.Random(7)
fc1 = matrix(rng, N_HIDDEN, N_EMBD, std=N_EMBD**-0.5)
fc2 = matrix(rng, N_EMBD, N_HIDDEN, std=N_HIDDEN**-0.5)
params = [w for row in fc1 + fc2 for w in row]
inputs = [[rng.gauss(0.0, 1.0) for _ in range(N_EMBD)] for _ in range(4)]
targets = [vec[1:] + vec[:1] for vec in inputs]  # rotate by one position

LEARNING_RATE, STEPS = 0.05, 30
losses, log = [], []
for step in range(STEPS):
    for p in params:
        p.grad = 0.0  # leaves accumulate: start each step from zero
    errors = []
    for vec, target in zip(inputs, targets):
        out = block([Value(v) for v in vec], fc1, fc2)
        errors += [(o - t) ** 2 for o, t in zip(out, target)]
    loss = total(errors) / len(errors)
    loss.backward()
    for p in params:
        p.data -= LEARNING_RATE * p.grad
    losses.append(loss.data)
    if step % 5 == 0 or step == STEPS - 1:
        log.append(f"step {step:2}  loss {loss.data:.5f}")
print("\n".join(log))

assert all(later < earlier for earlier, later in zip(losses, losses[1:])), "the loss should fall every step"
assert losses[-1] < 0.01 * losses[0], "the loss should fall by a factor of 100"

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(losses, marker=".")
ax.set(title="toy task: rotate the input by one", xlabel="step", ylabel="mean squared error (log scale)",
       yscale="log")
plt.show()

# %% [markdown]
# The loss falls at every step: forward, backward, update, with nothing but the `Value` class of
# section 1. But has the block learnt to rotate? Give it 20 vectors it has never seen, and compare its
# error with the simplest guess there is, copying the input unchanged:

# %%
fresh = [[rng.gauss(0.0, 1.0) for _ in range(N_EMBD)] for _ in range(20)]


def mse(pairs):
    errors = [(o - t) ** 2 for out, target in pairs for o, t in zip(out, target)]
    return sum(errors) / len(errors)


rotate = [vec[1:] + vec[:1] for vec in fresh]
fresh_error = mse((([o.data for o in block([Value(v) for v in vec], fc1, fc2)], t) for vec, t in zip(fresh, rotate)))
copy_error = mse(((vec, t) for vec, t in zip(fresh, rotate)))
print(f"the 4 training vectors:  error {losses[-1]:.4f}")
print(f"20 fresh vectors:        error {fresh_error:.4f}   (copying the input unchanged: {copy_error:.4f})")
assert losses[-1] < 0.01 < 1 < copy_error < fresh_error

# %% [markdown]
# On fresh vectors the trained block does worse than copying its input: it has memorised its four
# examples, not learnt the rotation. Four examples cannot pin down a rule for 2,048 weights; a real model
# sees millions of positions for that reason. The loop itself, forward, backward, update, is the whole
# training algorithm of a GPT too; everything else makes it faster or makes it work at scale.
#
# ## 7. What it costs
#
# Every multiply and every add above is a Python object with its own children and local derivatives.
# Count the nodes one forward pass of the block builds, for a single input vector:

# %%
def count_nodes(root):
    """(interior nodes, i.e. operations performed; leaves, i.e. inputs, weights and constants)."""
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node._children)
    interior = sum(1 for node in seen if node._children)
    return interior, len(seen) - interior


x = [Value(v) for v in inputs[0]]
y = block(x, fc1, fc2)
# Join the 16 outputs under one sum so that one root reaches the whole graph; that sum's 15 additions
# are not part of the block, so they are taken off again.
interior, leaves = count_nodes(total(y))
interior -= N_EMBD - 1
assert interior > 4000  # "over 4,000 operations", below

# The same count by hand, stage by stage.
by_stage = {
    "rmsnorm": N_EMBD + (N_EMBD - 1) + 3 + N_EMBD,  # squares, their sum, /n, +eps, **-0.5, rescale
    "fc1": N_HIDDEN * (N_EMBD + N_EMBD - 1),  # per output: 16 multiplies, 15 adds
    "squared ReLU": 2 * N_HIDDEN,  # relu, then ** 2
    "fc2": N_EMBD * (N_HIDDEN + N_HIDDEN - 1),  # per output: 64 multiplies, 63 adds
    "residual": N_EMBD,
}
for stage, n in by_stage.items():
    print(f"{stage:13} {n:5} operations")
print(f"{'total':13} {interior:5} operations, and {leaves} leaves (16 inputs, 2048 weights, 2 constants)")
assert interior == sum(by_stage.values())
assert leaves == N_EMBD + 2 * N_EMBD * N_HIDDEN + 2

# %% [markdown]
# Over 4,000 operations for one position, each a Python object holding its children and local
# derivatives, plus 2,066 leaves (both asserted above); the backward pass visits every one of them, and a batch of positions
# multiplies all of it. A tensor library records `fc1` as **one** operation, a matrix product, and runs
# its 1,024 multiply-adds in compiled code (vectorised on a CPU, in parallel on a GPU). Count the
# nodes of PyTorch's autograd graph for the same block, for a whole batch of positions:

# %%
def count_torch_nodes(tensor):
    """Nodes of PyTorch's backward graph (operations, plus one per leaf that collects a gradient)."""
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


x_batch = torch.randn(1000, N_EMBD, generator=gen, requires_grad=True)
fc1_w, fc2_w = to_tensor(fc1), to_tensor(fc2)
n_torch = count_torch_nodes(block_torch(x_batch, fc1_w, fc2_w))
print(f"PyTorch graph for 1000 positions: {n_torch} nodes; the scalar engine's for 1 position:"
      f" {interior + leaves:,}")
assert n_torch < 30

# %% [markdown]
# Fewer than thirty nodes for a thousand positions, against thousands of nodes for one. What that costs in
# time, the cell below measures: it prints the ratio per position, and its order of magnitude. Timings
# differ from machine to machine and from run to run, by several times on a busy machine (which is why
# nbval does not compare this cell's output), so the text gives no number for it: read the one your run
# prints. What the cell asserts holds on any machine: PyTorch is faster per position by more than ten
# times.

# %%
# NBVAL_IGNORE_OUTPUT
import timeit

# Forward passes only, best of three rounds (the least disturbed by whatever else the machine does).
one_position = inputs[0]
scalar_s = min(timeit.repeat(lambda: block([Value(v) for v in one_position], fc1, fc2),
                             number=3, repeat=3)) / 3
# Both lines record the graph a backward pass would need: every Value keeps its children, and fc1_w
# and fc2_w require gradients, so PyTorch records its dozen nodes too.
torch_s = min(timeit.repeat(lambda: block_torch(x_batch, fc1_w, fc2_w), number=20, repeat=3)) / 20
ratio = scalar_s / (torch_s / 1000)
print(f"scalar engine, 1 position:     {scalar_s * 1e3:8.2f} ms")
print(f"PyTorch, 1000 positions:       {torch_s * 1e3:8.2f} ms")
print(f"per position, PyTorch is {ratio:,.0f} times faster here: {math.floor(math.log10(ratio))} orders of"
      f" magnitude (10^{math.log10(ratio):.1f})")
assert ratio > 10

# %% [markdown]
# The engine is not for speed; it is for seeing. Every gradient PyTorch computed in section 4 is one
# our few lines computed too, number by number.
#
# ## Try it yourself
#
# * Change `relu2` to a plain `relu` in the block and rerun: which checks still hold, and how does
#   the training curve change?
# * Remove the reset of interior nodes in `backward()` and call it twice in section 1.3: what do the
#   leaves get now?
# * Replace squared ReLU by SiLU and count how many hidden units are exactly zero.
# * In section 3.1, count the patterns at widths 24, 32 and 48 too: where does the count stop being
#   limited by the width?
#
# ## Sources
#
# * **microgpt.** Andrej Karpathy, *microgpt*: a GPT trained and sampled in a single file of pure,
#   dependency-free Python, with a scalar autograd `Value` class in the style of micrograd.
#   Published as a GitHub gist, <https://gist.github.com/karpathy/8627fe009c40f57531cb18360106ce95>.
#   Its early revision's MLP is the block of section 3: `rmsnorm`, `fc1` (16 -> 64),
#   `relu(x) ** 2`, `fc2` (64 -> 16), residual, no biases. Later revisions use a plain ReLU.
# * **Squared ReLU.** David R. So, Wojciech Mańke, Hanxiao Liu, Zihang Dai, Noam Shazeer, Quoc V. Le,
#   *Primer: Searching for Efficient Transformers for Language Modeling*, 2021, arXiv:2109.08668,
#   <https://arxiv.org/abs/2109.08668>. An architecture search found that squaring the ReLU
#   activation in the feed-forward block is one of the two changes that account for most of Primer's
#   gains.
# * **Gating.** Noam Shazeer, *GLU Variants Improve Transformer*, 2020, arXiv:2002.05202,
#   <https://arxiv.org/abs/2002.05202>. Replacing the MLP's first layer by a gated product
#   `act(x W) * (x V)` (GEGLU, SwiGLU, ...) improved the quality of the transformer models it was
#   tried on; this is the `GLU` of the exercise.

# %%
# NBVAL_IGNORE_OUTPUT
# A time, different on every machine: nbval does not compare this cell's output.
print(f"the whole notebook: {time.perf_counter() - NOTEBOOK_START:.1f} s")
