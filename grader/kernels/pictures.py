"""The PNG beside a kernel map: every tensor a kernel was given, each element coloured by the program
that stored it (or, for a tensor only read, that loaded it), white where nothing happened, red where
the kernel tried to go past the tensor. Saved under ``kernel_maps/`` as one file per test, named after
the test (``test_triton_swiglu.test_forward_float32_2d_.png``), where matplotlib is installed and
``KERNEL_MAP_PICTURES`` is not "0" (the grader's and the self-checks' runs, where nobody opens them).

A picture says what the kernel did the last time its test failed. So that the folder never shows a
mistake already fixed, the pictures of the tests a pytest session is about to run are removed when it
starts (``clear_pictures``, from the suites' conftest): afterwards each of those tests has a picture
exactly when it failed in that session, and the pictures of tests not run stay, still their own.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

import torch

from grader.paths import KERNEL_MAPS, KERNEL_MAPS_ENV


def pictures_on() -> bool:
    return os.environ.get(KERNEL_MAPS_ENV) != "0"


def picture_path(nodeid: str) -> Path:
    """Where the picture of the test ``nodeid`` (``SUITE::TEST[PARAMETERS]``) goes."""
    suite, _, test = nodeid.partition("::")
    name = f"{Path(suite).stem}.{test}" if test else Path(suite).name
    return KERNEL_MAPS / (re.sub(r"[^\w.-]+", "_", name)[:120] + ".png")


def clear_pictures(nodeids: Iterable[str]) -> None:
    """Remove the pictures of these tests, left by an earlier run (when pictures are on)."""
    if not pictures_on():
        return
    for nodeid in nodeids:
        picture_path(nodeid).unlink(missing_ok=True)


def save_picture(maps: dict, nodeid: str | None = None) -> str:
    """A PNG of every tensor in ``maps`` (checked records, ``maps.accept``); ' (picture: PATH)', or ''
    without matplotlib or a place to write. ``nodeid``: the test's, by default the running test's."""
    if not maps or not pictures_on():
        return ""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ""
    path = picture_path(nodeid or os.environ.get("PYTEST_CURRENT_TEST", "kernel").split(" ")[0])
    figure = figure_of(maps)
    try:
        KERNEL_MAPS.mkdir(exist_ok=True)
        figure.savefig(path, dpi=80)
    except OSError:
        return ""
    finally:
        plt.close(figure)
    shown = os.path.relpath(path)
    return f"\n(picture: {path if shown.startswith('..') else shown})"


def figure_of(maps: dict):
    """The matplotlib figure: one panel per tensor, side by side."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    figure, axes = plt.subplots(1, len(maps), figsize=(3.2 * len(maps), 3.2), squeeze=False)
    for ax, (arg, record) in zip(axes[0], maps.items()):
        _panel(ax, arg, record)
        for axis in (ax.xaxis, ax.yaxis):  # rows and columns are whole numbers, even in a panel one row high
            axis.set_major_locator(MaxNLocator(integer=True, nbins=6, min_n_ticks=1))
    figure.suptitle("each colour is one program (tl.program_id)", fontsize=9)
    figure.tight_layout()
    return figure


def _panel(ax, arg: str, record: dict) -> None:
    stored, loaded = bool(record["stores"].any()), bool(record["loads"].any())
    access = "store" if stored or not loaded else "load"
    programs = record[f"{access}_programs"].double()
    rows, cols = programs.shape
    picture = torch.where(programs < 0, torch.nan, programs % 20)  # tab20: 20 colours, then again
    outside = record.get(f"{access}s_outside")
    top = 0
    if outside is not None and outside.numel() and record["contiguous"]:
        # A row before and a row after the tensor, red where the kernel tried to go.
        red = torch.full((rows + 2, cols), torch.nan, dtype=torch.float64)
        places = outside.clamp(-cols, rows * cols + cols - 1) + cols
        red.view(-1)[places] = 0.0  # autumn: 0 is red
        ax.imshow(red.numpy(), cmap="autumn", vmin=0, vmax=1, interpolation="nearest", aspect="auto",
                  extent=(-0.5, cols - 0.5, rows + 0.5, -1.5))
        picture = torch.cat([torch.full((1, cols), torch.nan), picture, torch.full((1, cols), torch.nan)])
        top = 1
    ax.imshow(picture.numpy(), cmap="tab20", vmin=0, vmax=19, interpolation="nearest", aspect="auto",
              extent=(-0.5, cols - 0.5, rows - 0.5 + top, -0.5 - top))
    what = "stored by" if stored else "loaded by" if loaded else "never loaded or stored"
    ax.set_title(f"{arg}: {what}" + ("\n(per address: a broadcast view)" if "shared" in record else ""), fontsize=9)
    ax.set_xlabel("column (white: never" + ("; red: out of bounds)" if top else ")"), fontsize=8)
    ax.set_ylabel("row", fontsize=8)
