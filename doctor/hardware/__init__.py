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
MAX_CARDS = 16


def smem_per_block_optin(capability: tuple[int, int]) -> int | None:
    return SMEM_PER_BLOCK_OPTIN.get(tuple(capability))


def profile_names() -> list[str]:
    folder = PROFILES
    return sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))


def load_profile(name: str) -> Facts:
    if name in profile_names():
        text = (PROFILES / f"{name}.json").read_text(encoding="utf-8")
        return facts_from_dict(json.loads(text), f"profile {name}")
    several = _several_of_one(name)
    if several is not None:
        return several
    known = ", ".join(profile_names())
    raise InputError(f"unknown hardware profile {name!r}{_nodes_hint(name)} (built-in profiles: {known}; "
                     f"N cards of a one-GPU card profile in one machine: `PROFILE-xN`, e.g. rtx-5090-x8)")


def _several_of_one(name: str) -> Facts | None:
    """`rtx-5090-x8`: eight cards of the one-GPU profile `rtx-5090` in one machine. The links between them are
    not stated (no `nvidia-smi topo -m` was read), so the topology is left empty and the rules that need it stay
    silent. A GB10 is a whole machine: several of them are `--nodes`, not one host."""
    repeated = _repeated(name)
    if repeated is None:
        return None
    base, cards = repeated
    single = load_profile(base)
    if len(single.gpus) != 1 or single.gpus[0].unified_memory:
        return None
    if not 2 <= cards <= MAX_CARDS:
        raise InputError(f"hardware profile {name!r}: {cards} cards of {base!r}; one machine holds 2 to {MAX_CARDS}")
    gpus = tuple(dataclasses.replace(single.gpus[0], index=i, cuda_index=i) for i in range(cards))
    note = (f"{cards}x {base} in one machine, as stated with --hardware {name}: the links between the cards are not "
            f"stated, so no topology rule judges them (`sm120-doctor snapshot` on the machine records them)")
    source = dataclasses.replace(single.source, name=name, notes=(*single.source.notes, note))
    return single.replace(gpus=gpus, topology=(), source=source)


def without_os(facts: Facts) -> Facts:
    """A profile read against a log: it states the GPUs, driver and memory, not the OS the log was written on
    (a Windows log diagnosed with `--hardware rtx-5090` keeps its Windows-only rules open)."""
    return facts.replace(host=dataclasses.replace(facts.host, os=None))


def _nodes_hint(name: str) -> str:
    """`dgx-spark-x2` for two one-GPU machines: the profile is one node, `--nodes` repeats it."""
    repeated = _repeated(name)
    if repeated is not None:
        base, count = repeated
        return f"; {count} machines of {base!r} are `--hardware {base} --nodes {count}`"
    return ""


def _repeated(name: str) -> tuple[str, int] | None:
    """`BASE-xN` where BASE is a built-in profile: (BASE, N)."""
    base, sep, count = name.rpartition("-x")
    return (base, int(count)) if sep and count.isdigit() and base in profile_names() else None
