"""Built-in hardware profiles (facts snapshots shipped as package data) and per-architecture limits."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from doctor.errors import InputError
from doctor.pipeline.facts import Facts
from doctor.validation.facts import facts_from_dict

# Max shared memory per block with opt-in, bytes, by compute capability (CUDA Programming Guide,
# "Compute Capabilities", Tables 31-32, https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities).
SMEM_PER_BLOCK_OPTIN = {
    (7, 0): 98304,
    (7, 2): 98304,
    (7, 5): 65536,
    (8, 0): 166912,
    (8, 6): 101376,
    (8, 7): 166912,
    (8, 9): 101376,
    (9, 0): 232448,
    (10, 0): 232448,
    (10, 3): 232448,
    (11, 0): 232448,
    (12, 0): 101376,
    (12, 1): 101376,
}


PROFILES = Path(__file__).resolve().parent / "profiles"


def smem_per_block_optin(capability: tuple[int, int]) -> int | None:
    return SMEM_PER_BLOCK_OPTIN.get(tuple(capability))


def profile_names() -> list[str]:
    folder = PROFILES
    return sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))


def load_profile(name: str) -> Facts:
    if name not in profile_names():
        known = ", ".join(profile_names())
        raise InputError(f"unknown hardware profile {name!r}{_nodes_hint(name)} (built-in profiles: {known})")
    text = (PROFILES / f"{name}.json").read_text(encoding="utf-8")
    return facts_from_dict(json.loads(text), f"profile {name}")


def without_os(facts: Facts) -> Facts:
    """A profile read against a log: it states the GPUs, driver and memory, not the OS the log was written on
    (a Windows log diagnosed with `--hardware rtx-5090` keeps its Windows-only rules open)."""
    return facts.replace(host=dataclasses.replace(facts.host, os=None))


def _nodes_hint(name: str) -> str:
    """`dgx-spark-x2` for two one-GPU machines: the profile is one node, `--nodes` repeats it."""
    base, sep, count = name.rpartition("-x")
    if sep and count.isdigit() and base in profile_names():
        return f"; {count} machines of {base!r} are `--hardware {base} --nodes {count}`"
    return ""
