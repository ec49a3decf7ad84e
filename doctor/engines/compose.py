"""One complete launch command for an engine version: the user's flags (after `--`), plus every safe flag and
env fix the findings carry, with renamed or removed flags rewritten for the engine version (the engine's
`rewrite_flags`) and each conflict resolved (the more severe finding wins) and explained in a note."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from doctor.engines.run import LaunchCommand
from doctor.launch import flag_pairs, is_flag

if TYPE_CHECKING:
    from packaging.version import Version

    from doctor.engines.run import EngineRun

APPLIED_KINDS = ("flag", "env")


class Flags:
    """Ordered flag → value (None for switches), remembering who set each one."""

    def __init__(self) -> None:
        self.items: dict[str, str | None] = {}
        self.owner: dict[str, str] = {}

    def set(self, flag: str, value: str | None, owner: str, notes: list[str]) -> bool:
        if flag in self.items and self.owner.get(flag, "you") != "you" and self.items[flag] != value:
            notes.append(f"{owner}: kept {flag} {self.items[flag] or ''} from {self.owner[flag]} "
                         f"(more severe) instead of {value or ''}".replace("  ", " "))
            return False
        if flag in self.items and self.items[flag] != value and self.owner.get(flag) == "you":
            notes.append(f"{owner}: replaced your {flag} {self.items[flag] or ''} with {value or ''}".rstrip())
        self.items[flag] = value
        self.owner[flag] = owner
        return True

    def remove(self, flag: str, owner: str, notes: list[str]) -> None:
        if flag in self.items:
            notes.append(f"{owner}: removed {flag}")
            del self.items[flag]

    def rename(self, old: str, new: str, value: str | None) -> None:
        self.items = {(new if k == old else k): v for k, v in self.items.items()}
        self.owner = {(new if k == old else k): v for k, v in self.owner.items()}
        self.items[new] = value

    def argv(self) -> list[str]:
        out: list[str] = []
        for flag, value in self.items.items():
            out.append(flag)
            if value is not None:
                out.append(value)
        return out


class Spelling(Protocol):
    """What composing a command asks of an engine: how its version spells and accepts flags (the Engine
    interface of doctor/engines/base.py answers it; typed here so that base.py can build on this module)."""

    @property
    def name(self) -> str: ...
    def base_command(self, model: str) -> list[str]: ...
    def tp_flag(self) -> str | None: ...
    def is_switch(self, flag: str) -> bool: ...
    def normalise_flag(self, flag: str) -> str: ...
    def rewrite_flags(self, given: Flags, version: Version, notes: list[str]) -> None: ...
    def check_flags(self, argv: Sequence[str], version: Version) -> list[str]: ...


Recheck = Callable[[list[str], dict[str, str]], set[str]]  # engine args, env set → IDs of the errors left
TP_ALIASES = {"--tp", "--tp-size", "--tensor-parallel-size", "--tp_size", "-tp"}


def compose_generic(engine: Spelling, run: EngineRun, findings: Sequence[Any],
                    recheck: Recheck | None = None) -> LaunchCommand:
    model = run.facts.model.id if run.facts.model else "MODEL"
    plan = LaunchCommand(engine=engine.name, version=run.library.version, argv=[])
    given = parse_flags(list(run.launch.args), engine)
    engine.rewrite_flags(given, run.version, plan.notes)
    tp_flag = engine.tp_flag()
    if tp_flag and run.tp > 1 and not TP_ALIASES & set(given.items):
        given.set(tp_flag, str(run.tp), "default: one rank per GPU", [])
    for finding in findings:
        _apply(finding, engine.name, given, plan)
    plan.argv[:] = [*engine.base_command(model), *given.argv()]
    plan.notes.extend(f"still wrong: {p}" for p in engine.check_flags(given.argv(), run.version))
    if recheck is not None:
        remaining = sorted(recheck(given.argv(), dict(plan.env)))
        if remaining:
            plan.notes.append("this command still has error finding(s) " + ", ".join(remaining)
                              + ": no flag or variable fixes them on this version (see the upgrades below)")
    for finding in findings:
        for fix in finding.fixes:
            if fix.kind == "upgrade" and "package" in fix.details:
                plan.notes.append(f"{finding.id} needs an upgrade, not a flag: pip install '{fix.details['package']}'")
    return plan


def parse_flags(args: list[str], engine: Spelling) -> Flags:
    out = Flags()
    for flag, value in flag_pairs(args, is_switch=engine.is_switch):
        out.set(engine.normalise_flag(flag), value, "you", [])
    return out


def _apply(finding: Any, engine: str, given: Flags, plan: LaunchCommand) -> None:
    for fix in finding.fixes:
        if fix.kind not in APPLIED_KINDS or not fix.is_safe:
            continue
        if fix.details.get("engine", engine) != engine:
            continue
        if not any(k in fix.details for k in ("flags", "env", "remove")):
            continue
        for flag in fix.details.get("remove", []):
            given.remove(flag, finding.id, plan.notes)
        applied = all(given.set(f, v, finding.id, plan.notes)
                      for f, v in flag_pairs(fix.details.get("flags", [])))
        for key, value in fix.details.get("env", {}).items():
            plan.env[key] = value
        if applied:
            plan.applied.append(finding.id)
        return  # the first safe fix of a finding is its fix; later ones are alternatives


__all__ = ["Flags", "compose_generic", "is_flag", "parse_flags"]
