"""The course's maps for notebooks/kernel_maps.ipynb: drawn from the reference kernels where they are
present, and read from ``notebooks/kernel_maps_course.json`` where they are not (the student repository),
so that a student sees the right maps before writing a kernel, whatever their own kernels do.

Where the reference is present the notebook draws the maps live and checks them against the stored ones,
so the file cannot go stale. After changing a reference kernel or a section's inputs, record them again::

    KERNEL_MAPS_RECORD=1 jupyter nbconvert --to notebook --execute --inplace \\
        --ExecutePreprocessor.record_timing=False notebooks/kernel_maps.ipynb
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

STORE = Path(__file__).resolve().parent / "kernel_maps_course.json"
RECORD = os.environ.get("KERNEL_MAPS_RECORD") == "1"
# What a map is drawn from; the rest of a record (the first loader, another tensor's memory) is not drawn.
DRAWN = ("loads", "stores", "load_programs", "store_programs", "loads_outside", "stores_outside", "contiguous",
         "shared")


def encode(maps: dict) -> dict:
    """The records as JSON: each tensor a nested list (all of them are integers)."""
    return {arg: {key: {"tensor": value.tolist()} if isinstance(value, torch.Tensor) else value
                  for key, value in record.items() if key in DRAWN}
            for arg, record in maps.items()}


def decode(entry: dict) -> dict:
    return {arg: {key: torch.tensor(value["tensor"], dtype=torch.long) if isinstance(value, dict) else value
                  for key, value in record.items()}
            for arg, record in entry.items()}


def stored(section: str) -> dict:
    """The course's maps of ``section`` as stored."""
    return decode(json.loads(STORE.read_text())[section])


def checked(section: str, live: dict) -> dict:
    """The reference's maps of ``section``, drawn just now: written to the store when recording, otherwise
    compared with it (a difference means the stored maps, which students see, are out of date)."""
    entries = json.loads(STORE.read_text()) if STORE.is_file() else {}
    fresh = json.loads(json.dumps(encode(live)))
    if RECORD:
        entries[section] = fresh
        STORE.write_text(json.dumps(entries, separators=(",", ":")) + "\n")
    elif entries.get(section) != fresh:
        raise AssertionError(f"the reference kernels' maps of {section!r} differ from {STORE.name}, which the"
                             " student repository shows: record them again (see notebooks/course_maps.py)")
    return decode(fresh)
