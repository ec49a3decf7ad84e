"""Per-node launch commands from a composed single-node one: the same flags and environment (the user's and
the safe fixes), with the layout flags replaced by the multi-node layout's. Engines use these helpers in their
`node_launches` (doctor/engines/<engine>/multinode.py): what every engine shares about launching over
several nodes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from doctor.engines.compose import Flags, Spelling, parse_flags
from doctor.engines.run import LaunchCommand
from doctor.launch import ALIASES


@dataclass(frozen=True)
class NodeRole:
    """One node of a multi-node launch: its name, rank (0 is the head) and the address the others reach it by."""

    name: str
    rank: int
    address: str


@dataclass(frozen=True)
class MultiNode:
    """A layout over several nodes (doctor/cluster/layouts.py): sizes over the whole deployment, nodes in rank
    order."""

    tp: int
    pp: int
    ep: int
    nodes: tuple[NodeRole, ...]

    @property
    def head(self) -> str:
        return self.nodes[0].address


@dataclass(frozen=True)
class NodeLaunch:
    """What to run on one node, in order (e.g. `ray start`, then the server on the head)."""

    node: str
    rank: int
    steps: tuple[LaunchCommand, ...]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node, "rank": self.rank, "commands": [step.shell() for step in self.steps],
                "steps": [step.to_dict() for step in self.steps], "notes": list(self.notes)}

def flags_without(engine: Spelling, base: LaunchCommand, model: str, keys: Iterable[str],
                  extra: Sequence[str] = ()) -> Flags:
    """The base command's flags after the engine's base command, less every spelling of the canonical launch
    `keys` (e.g. "tp", "pp") and the flags in `extra`."""
    head = len(engine.base_command(model))
    flags = parse_flags(list(base.argv[head:]), engine)
    dropped = {flag for flag, key in ALIASES.items() if key in set(keys)} | set(extra)
    for flag in list(flags.items):
        if flag in dropped or flag.replace("_", "-") in dropped:
            del flags.items[flag]
    return flags


def command(base: LaunchCommand, argv: list[str], env: dict[str, str] | None = None,
            notes: Sequence[str] = ()) -> LaunchCommand:
    """A step of a node's launch, carrying the base command's engine, version and fixes."""
    return LaunchCommand(engine=base.engine, version=base.version, argv=argv,
                         env=dict(base.env if env is None else env), notes=list(notes),
                         applied=list(base.applied), files=dict(base.files))
