"""Tiny language models that differ only in their MLP block: the training runs behind
``notebooks/glu_variants.ipynb``.

Nine blocks (GELU, ReLU, squared-ReLU and Swish MLPs; ReGLU, GEGLU, SwiGLU, sigmoid and bilinear GLUs)
in the same two-layer character-level transformer, on the same text, with the GLUs' width matched to the
MLPs' parameters by ``glu_intermediate_dim``. Every run is seeded, so the curves are reproducible; they are stored in
``notebooks/glu_variants_curves.json`` for the notebook, which must run in seconds.

    python notebooks/glu_variants_runs.py                          # 9 blocks x 10 seeds x 400 steps, rewrites the JSON
    python notebooks/glu_variants_runs.py --seeds 20 --steps 100   # any other number of seeds (at least 4) and steps
    python notebooks/glu_variants_runs.py --jobs 4                 # runs side by side (default 2), one thread each

The notebook reads whatever the JSON holds (seeds and steps are in its ``settings``) and recomputes its
conclusions from it.

The text is generated here from a small grammar (a few hundred kilobytes, fixed seed): a real corpus
would have to be shipped or downloaded, and this one has what a character model must learn (spelling,
word order, agreement across a relative clause) in a size that trains on a CPU.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import zlib
from pathlib import Path
from typing import Callable

import torch
from torch import nn
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from notebooks import exercise_code  # noqa: E402  the reference where present, else your exercises/

CURVES = HERE / "glu_variants_curves.json"

# ------------------------------------------------------------------------------------ the text

NOUNS = [("cat", "cats"), ("dog", "dogs"), ("bird", "birds"), ("child", "children"), ("mouse", "mice"),
         ("fox", "foxes"), ("teacher", "teachers"), ("robot", "robots"), ("farmer", "farmers"),
         ("wolf", "wolves"), ("baker", "bakers"), ("sailor", "sailors")]
VERBS = [("sees", "see"), ("chases", "chase"), ("likes", "like"), ("finds", "find"), ("follows", "follow"),
         ("hears", "hear"), ("watches", "watch"), ("helps", "help"), ("feeds", "feed")]
INTRANSITIVE = [("sleeps", "sleep"), ("runs", "run"), ("sings", "sing"), ("waits", "wait"), ("laughs", "laugh")]
ADJECTIVES = ["small", "red", "quick", "old", "happy", "quiet", "brave", "tired", "clever", "green"]
PLACES = ["in the garden", "near the river", "under the bridge", "at the market", "on the hill"]


def noun_phrase(rng: random.Random, plural: bool, depth: int = 0) -> str:
    det = rng.choice(["the", "some", "two", "many"] if plural else ["the", "a", "every", "one"])
    adjectives = rng.choices(ADJECTIVES, k=rng.choice([0, 0, 1, 1, 2]))
    noun = rng.choice(NOUNS)[1 if plural else 0]
    words = [det, *adjectives, noun]
    if depth == 0 and rng.random() < 0.3:  # "the cat that the dogs chase": the verb agrees with "dogs"
        inner_plural = rng.random() < 0.5
        words += ["that", noun_phrase(rng, inner_plural, depth + 1), rng.choice(VERBS)[1 if inner_plural else 0]]
    return " ".join(words)


def sentence(rng: random.Random) -> str:
    plural = rng.random() < 0.5
    subject = noun_phrase(rng, plural)
    if rng.random() < 0.3:
        predicate = rng.choice(INTRANSITIVE)[1 if plural else 0]
    else:
        predicate = f"{rng.choice(VERBS)[1 if plural else 0]} {noun_phrase(rng, rng.random() < 0.5)}"
    place = f" {rng.choice(PLACES)}" if rng.random() < 0.3 else ""
    return f"{subject} {predicate}{place} ."


def corpus(n_chars: int, seed: int) -> str:
    rng = random.Random(seed)
    parts, size = [], 0
    while size < n_chars:
        parts.append(sentence(rng))
        size += len(parts[-1]) + 1
    return "\n".join(parts)[:n_chars]


TRAIN_TEXT, VAL_TEXT = corpus(300_000, seed=1), corpus(30_000, seed=2)
ALPHABET = sorted(set(TRAIN_TEXT) | set(VAL_TEXT))


def encode(text: str) -> torch.Tensor:
    index = {c: i for i, c in enumerate(ALPHABET)}
    return torch.tensor([index[c] for c in text], dtype=torch.long)


# ----------------------------------------------------------------------------------- the model

class SquaredReLU(nn.Module):
    """relu(x) ** 2, Primer's activation (So et al. 2021)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) ** 2


# name -> (block kind, activation): ReGLU, GEGLU and SwiGLU are Shazeer's names for a GLU whose gate
# goes through ReLU, GELU or Swish (SiLU). The controls: the Swish MLP is SwiGLU without its gate's
# product; the sigmoid GLU is Dauphin et al.'s original gate; the bilinear GLU has no activation at all.
VARIANTS: dict[str, tuple[str, Callable[[], nn.Module]]] = {
    "GELU MLP": ("MLP", nn.GELU),
    "ReLU MLP": ("MLP", nn.ReLU),
    "ReLU² MLP": ("MLP", SquaredReLU),
    "Swish MLP": ("MLP", nn.SiLU),
    "ReGLU": ("GLU", nn.ReLU),
    "GEGLU": ("GLU", nn.GELU),
    "SwiGLU": ("GLU", nn.SiLU),
    "sigmoid GLU": ("GLU", nn.Sigmoid),
    "bilinear GLU": ("GLU", nn.Identity),
}

# The model: small enough for a CPU, big enough that the MLP holds most of the parameters.
WIDTH, LAYERS, HEADS, CONTEXT = 64, 2, 4, 32
EXPANSION = 4  # the MLPs' intermediate_dim is 4 * WIDTH, as in GPT-2
STEPS, BATCH, LEARNING_RATE, EVAL_EVERY = 400, 32, 3e-3, 25
SEEDS = tuple(range(10))  # the first half to draw conclusions from, the second to check them on (the notebook)
MIN_SEEDS = 4  # each half then has two seeds at least, the fewest a standard error can be taken from


class Layer(nn.Module):
    """Pre-norm transformer layer: x + attention(norm(x)), then x + block(norm(x))."""

    def __init__(self, block: nn.Module) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
        self.qkv, self.proj = nn.Linear(WIDTH, 3 * WIDTH), nn.Linear(WIDTH, WIDTH)
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(batch, length, 3, HEADS, WIDTH // HEADS).unbind(2)
        attended = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                  is_causal=True)
        x = x + self.proj(attended.transpose(1, 2).reshape(batch, length, WIDTH))
        return x + self.block(self.norm2(x))


class TinyLM(nn.Module):
    def __init__(self, make_block: Callable[[], nn.Module]) -> None:
        super().__init__()
        self.embed = nn.Embedding(len(ALPHABET), WIDTH)
        self.position = nn.Embedding(CONTEXT, WIDTH)
        self.layers = nn.ModuleList(Layer(make_block()) for _ in range(LAYERS))
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, len(ALPHABET))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) + self.position(torch.arange(tokens.shape[1]))
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


def block_factory(variant: str, mlp_cls: type, glu_cls: type, glu_width: int) -> Callable[[], nn.Module]:
    kind, activation = VARIANTS[variant]
    if kind == "MLP":
        return lambda: mlp_cls(WIDTH, EXPANSION * WIDTH, activation_fn=activation)
    return lambda: glu_cls(WIDTH, glu_width, activation_fn=activation)


def initialise(model: nn.Module, seed: int) -> None:
    """Every parameter drawn from its own generator, seeded by the run's seed and the parameter's name,
    so any block with the exercise's layer names starts from the same weights, however it was built."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            gen = torch.Generator().manual_seed(seed * 1_000_003 + zlib.crc32(name.encode()))
            if name.endswith("bias"):
                p.zero_()
            elif "norm" in name:
                p.fill_(1.0)
            elif p.dim() == 2 and "embed" not in name and "position" not in name:
                p.copy_(torch.randn(p.shape, generator=gen) / math.sqrt(p.shape[1]))  # 1/sqrt(fan_in)
            else:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.1)


def batches(data: torch.Tensor, seed: int, steps: int):
    gen = torch.Generator().manual_seed(10_000 + seed)
    for _ in range(steps):
        starts = torch.randint(0, len(data) - CONTEXT - 1, (BATCH,), generator=gen)
        windows = torch.stack([data[s:s + CONTEXT + 1] for s in starts.tolist()])
        yield windows[:, :-1], windows[:, 1:]


def validation_loss(model: nn.Module, data: torch.Tensor) -> float:
    starts = range(0, len(data) - CONTEXT - 1, CONTEXT * 4)  # a fixed set of windows
    windows = torch.stack([data[s:s + CONTEXT + 1] for s in starts])
    model.eval()
    with torch.no_grad():
        logits = model(windows[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), windows[:, 1:].reshape(-1)).item()
    model.train()
    return loss


def train(variant: str, seed: int, mlp_cls: type, glu_cls: type, glu_width: int, steps: int = STEPS,
          eval_every: int = EVAL_EVERY) -> dict:
    """One run: training loss at every step, validation loss every ``eval_every`` steps (nats per char)."""
    torch.manual_seed(seed)
    model = TinyLM(block_factory(variant, mlp_cls, glu_cls, glu_width))
    initialise(model, seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 50))  # warm-up
    train_data, val_data = encode(TRAIN_TEXT), encode(VAL_TEXT)
    train_losses, val_steps, val_losses = [], [], []
    for step, (inputs, targets) in enumerate(batches(train_data, seed, steps), start=1):
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        train_losses.append(loss.item())
        if step % eval_every == 0 or step == steps:
            val_steps.append(step)
            val_losses.append(validation_loss(model, val_data))
    return {"train": train_losses, "val_steps": val_steps, "val": val_losses,
            "params": sum(p.numel() for p in model.parameters())}


def reference_run(variant: str, seed: int, steps: int = STEPS) -> tuple[dict, float]:
    """One run with the blocks the notebooks use (the reference where present, else exercises/), on one
    thread: the same arithmetic wherever it runs."""
    torch.set_num_threads(1)
    blocks, cost = exercise_code.load("mlp_block")[0], exercise_code.load("mlp_cost")[0]
    MLP, GLU, glu_intermediate_dim = blocks.MLP, blocks.GLU, cost.glu_intermediate_dim

    start = time.perf_counter()
    run = train(variant, seed, MLP, GLU, glu_intermediate_dim(WIDTH, EXPANSION, multiple_of=1, bias=True), steps)
    return run, time.perf_counter() - start


def main(seeds: tuple[int, ...] = SEEDS, steps: int = STEPS, jobs: int = 2) -> None:
    from concurrent.futures import ProcessPoolExecutor

    cost, source = exercise_code.load("mlp_cost")
    print(f"blocks and sizing from {source} and its mlp_block", flush=True)
    glu_width = cost.glu_intermediate_dim(WIDTH, EXPANSION, multiple_of=1, bias=True)
    keys = [(variant, seed) for variant in VARIANTS for seed in seeds]
    runs = {}
    with ProcessPoolExecutor(jobs) as pool:  # the runs are independent: side by side, one thread each
        started = time.perf_counter()
        for (variant, seed), (run, seconds) in zip(keys, pool.map(reference_run, *zip(*keys), [steps] * len(keys))):
            runs[f"{variant}/{seed}"] = run
            print(f"{variant:10} seed {seed}: validation loss {run['val'][-1]:.4f} ({seconds:.1f} s)", flush=True)
    settings = {"width": WIDTH, "layers": LAYERS, "heads": HEADS, "context": CONTEXT, "expansion": EXPANSION,
                "glu_width": glu_width, "steps": steps, "batch": BATCH, "learning_rate": LEARNING_RATE,
                "seeds": list(seeds), "jobs": jobs, "wall_seconds": round(time.perf_counter() - started, 1),
                "torch": torch.__version__.split("+")[0]}
    CURVES.write_text(json.dumps({"settings": settings, "runs": runs}, separators=(",", ":")) + "\n")
    print(f"wrote {CURVES.relative_to(REPO)}")


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Train the nine blocks and store their curves for the notebook.")
    parser.add_argument("--seeds", type=int, default=len(SEEDS), help=f"seeds 0 .. N-1 (default {len(SEEDS)})")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"training steps per run (default {STEPS})")
    parser.add_argument("--jobs", type=int, default=2, help="runs side by side, one thread each (default 2)")
    args = parser.parse_args(argv)
    if args.seeds < MIN_SEEDS:
        parser.error(f"--seeds must be at least {MIN_SEEDS}: the notebook splits them in two halves of two or more")
    if args.steps < 1 or args.jobs < 1:
        parser.error("--steps and --jobs must be at least 1")
    return args


if __name__ == "__main__":
    arguments = parse(sys.argv[1:])
    main(tuple(range(arguments.seeds)), arguments.steps, arguments.jobs)
