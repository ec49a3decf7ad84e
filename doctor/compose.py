"""One complete launch command for the chosen engine: the user's flags (after `--`), plus every safe flag and
env fix the findings carry, with renamed or removed flags rewritten for the engine version and each
conflict resolved (the more severe finding wins) and explained in a note."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from doctor.engines import chosen_engine, version_of
from doctor.engines.sglang import flags as sglang_flags
from doctor.facts import Facts
from doctor.launch import SWITCHES, Launch
from doctor.report import Finding

APPLIED_KINDS = ("flag", "env")


@dataclass
class LaunchPlan:
    engine: str
    version: str
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)  # finding IDs whose fixes are in the command

    def shell(self) -> str:
        prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        return (prefix + " " if prefix else "") + shlex.join(self.command)

    def to_dict(self) -> dict[str, Any]:
        return {"engine": self.engine, "version": self.version, "command": self.shell(), "argv": self.command,
                "env": self.env, "notes": self.notes, "applied": self.applied}


class _Flags:
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

    def argv(self) -> list[str]:
        out: list[str] = []
        for flag, value in self.items.items():
            out.append(flag)
            if value is not None:
                out.append(value)
        return out


Recheck = Callable[[list[str]], set[str]]  # engine args → IDs of the error findings they still produce


def compose_launch(facts: Facts, launch: Launch, tp: int, findings: tuple[Finding, ...],
                   recheck: Recheck | None = None) -> LaunchPlan | None:
    engine = chosen_engine(facts)
    if engine is None:
        return None
    name, version = str(engine["name"]), str(engine["version"])
    model = facts.model.id if facts.model else "MODEL"
    plan = LaunchPlan(engine=name, version=version, command=[])
    given = _parse_args(list(launch.args), name)
    if name == "sglang":
        _rewrite_sglang(given, version, plan.notes)
    _default_tp(given, name, tp)
    for finding in findings:
        _apply(finding, name, given, plan)
    plan.command = [*_base(name, model), *given.argv()]
    if name == "sglang":
        parsed = version_of(facts.library("sglang"))
        if parsed is not None:
            plan.notes.extend(f"still wrong: {p}" for p in sglang_flags.check_flags(given.argv(), parsed))
    if recheck is not None:
        remaining = sorted(recheck(given.argv()))
        if remaining:
            plan.notes.append("this command still has error finding(s) " + ", ".join(remaining)
                              + ": no flag fixes them on this version (see the upgrades below)")
    for finding in findings:
        for fix in finding.fixes:
            if fix.kind == "upgrade" and "package" in fix.details:
                plan.notes.append(f"{finding.id} needs an upgrade, not a flag: pip install '{fix.details['package']}'")
    return plan


def _base(engine: str, model: str) -> list[str]:
    return {
        "sglang": ["python", "-m", "sglang.launch_server", "--model-path", model],
        "vllm": ["vllm", "serve", model],
        "tensorrt-llm": ["trtllm-serve", model],
        "llama.cpp": ["llama-server", "-m", "MODEL.gguf"],
    }[engine]


def _default_tp(given: _Flags, engine: str, tp: int) -> None:
    spelling = {"sglang": "--tp-size", "vllm": "--tensor-parallel-size", "tensorrt-llm": "--tp_size"}.get(engine)
    aliases = {"--tp", "--tp-size", "--tensor-parallel-size", "--tp_size", "-tp"}
    if spelling and tp > 1 and not aliases & set(given.items):
        given.set(spelling, str(tp), "default: one rank per GPU", [])


def _parse_args(args: list[str], engine: str) -> _Flags:
    out = _Flags()
    i = 0
    while i < len(args):
        token = args[i]
        flag, eq, inline = token.partition("=")
        if engine == "sglang" and flag.startswith("--"):
            flag = flag.replace("_", "-")
        value: str | None = inline if eq else None
        if not eq and not _is_switch(flag) and i + 1 < len(args) and not _is_flag(args[i + 1]):
            value = args[i + 1]
            i += 1
        out.set(flag, value, "you", [])
        i += 1
    return out


def _is_switch(flag: str) -> bool:
    known = sglang_flags.FLAGS.get(sglang_flags.canonical(flag))
    return flag in SWITCHES or (known is not None and not known.takes_value)


def _is_flag(token: str) -> bool:
    return token.startswith("-") and not token.lstrip("-").replace(".", "").isdigit()


def _rewrite_sglang(given: _Flags, version_text: str, notes: list[str]) -> None:
    """Abbreviations to full spellings; flags this release renamed or dropped to what it accepts."""
    version = version_of_text(version_text)
    for flag in list(given.items):
        if flag not in given.items:  # taken by an earlier rewrite (value_from)
            continue
        value = given.items[flag]
        full = sglang_flags.ABBREVIATIONS.get(flag)
        if full and flag not in sglang_flags.AMBIGUOUS:
            _rename(given, flag, full, value)
            notes.append(f"spelled {flag} as {full}")
            continue
        known = sglang_flags.FLAGS.get(flag)
        if known is None or version is None:
            continue
        if not known.exists(version) or (known.is_deprecated(version) and flag != "--disable-cuda-graph"):
            if known.value_from and known.value_from in given.items:
                value = given.items.pop(known.value_from)
                notes.append(f"moved the value of {known.value_from} to {known.replacement[0]}")
            _replace(given, flag, known.replacement, value, version_text, notes)


def _replace(given: _Flags, flag: str, replacement: tuple[str, ...], value: str | None, version: str,
             notes: list[str]) -> None:
    del given.items[flag]
    if not replacement:
        notes.append(f"dropped {flag}: SGLang {version} does not have it")
        return
    pairs = _pairs(list(replacement))
    if len(pairs) == 1 and pairs[0][1] is None and value is not None:
        pairs = [(pairs[0][0], value)]
    for new_flag, new_value in pairs:
        given.set(new_flag, new_value, "you", [])
    notes.append(f"rewrote {flag} as {' '.join(replacement)} for SGLang {version}")


def _rename(given: _Flags, old: str, new: str, value: str | None) -> None:
    items = {(new if k == old else k): v for k, v in given.items.items()}
    owners = {(new if k == old else k): v for k, v in given.owner.items()}
    given.items, given.owner = items, owners
    given.items[new] = value


def _apply(finding: Finding, engine: str, given: _Flags, plan: LaunchPlan) -> None:
    for fix in finding.fixes:
        if fix.kind not in APPLIED_KINDS or fix.safety != "safe":
            continue
        if fix.details.get("engine", engine) != engine:
            continue
        if not any(k in fix.details for k in ("flags", "env", "remove")):
            continue
        for flag in fix.details.get("remove", []):
            given.remove(flag, finding.id, plan.notes)
        applied = all(given.set(f, v, finding.id, plan.notes) for f, v in _pairs(fix.details.get("flags", [])))
        for key, value in fix.details.get("env", {}).items():
            plan.env[key] = value
        if applied:
            plan.applied.append(finding.id)
        return  # the first safe fix of a finding is its fix; later ones are alternatives


def _pairs(tokens: list[str]) -> list[tuple[str, str | None]]:
    pairs: list[tuple[str, str | None]] = []
    i = 0
    while i < len(tokens):
        flag = tokens[i]
        if i + 1 < len(tokens) and not _is_flag(tokens[i + 1]):
            pairs.append((flag, tokens[i + 1]))
            i += 2
        else:
            pairs.append((flag, None))
            i += 1
    return pairs


def version_of_text(text: str) -> Any:
    return sglang_flags.parse_version(text)
