"""The command a Dockerfile's image runs: the final stage's ENTRYPOINT and CMD, in exec (JSON) or shell
form, with ARG/ENV values expanded and the FROM image kept for its tag and its own entrypoint."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field, replace

from doctor.lint.pins import image_entrypoint
from doctor.lint.shell import expand
from doctor.lint.site import Command


@dataclass(frozen=True)
class Instruction:
    keyword: str
    text: str
    line: int
    end_line: int


@dataclass(frozen=True)
class _Stage:
    image: str = ""
    image_line: int = 0
    env: dict[str, str] = field(default_factory=dict)
    entrypoint: Instruction | None = None
    cmd: Instruction | None = None


def dockerfile_commands(text: str) -> list[Command]:
    variables: dict[str, str] = {}
    stages: dict[str, _Stage] = {}
    stage = _Stage()
    for instruction in instructions(text):
        words = _words(instruction.text, variables)
        if instruction.keyword == "FROM":
            stage = _from(words, instruction.line, stages)
        elif instruction.keyword in ("ARG", "ENV"):
            assigned = _assignments(words, instruction.keyword)
            variables.update(assigned)
            if instruction.keyword == "ENV":
                stage = replace(stage, env={**stage.env, **assigned})
        elif instruction.keyword == "ENTRYPOINT":
            stage = replace(stage, entrypoint=instruction, cmd=None)
        elif instruction.keyword == "CMD":
            stage = replace(stage, cmd=instruction)
    command = _final_command(stage)
    return [command] if command is not None else []


def instructions(text: str) -> list[Instruction]:
    """Logical instructions: continuation lines joined, comment lines inside them dropped, heredocs skipped."""
    lines = text.splitlines()
    out: list[Instruction] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        start, parts = i, [stripped]
        continued = stripped.endswith("\\")
        while continued and i + 1 < len(lines):
            parts[-1] = parts[-1].removesuffix("\\")
            i += 1
            following = lines[i].strip()
            if not following.startswith("#"):  # a comment inside a continuation is dropped; it goes on
                parts.append(following)
                continued = following.endswith("\\")
        keyword, _, rest = " ".join(parts).partition(" ")
        out.append(Instruction(keyword=keyword.upper(), text=rest.strip(), line=start + 1, end_line=i + 1))
        i = _after_heredoc(rest, lines, i + 1)
    return out


def _after_heredoc(rest: str, lines: list[str], i: int) -> int:
    """`RUN <<EOF` ... `EOF`: the body lines are no instructions."""
    _, marker, after = rest.partition("<<")
    words = after.strip().lstrip("-").split()
    if not marker or not words:
        return i
    delimiter = words[0].strip("'\"")
    while i < len(lines) and lines[i].strip() != delimiter:
        i += 1
    return i + 1


def _words(text: str, variables: dict[str, str]) -> list[str]:
    try:
        return expand(shlex.split(text), variables)
    except ValueError:
        return text.split()


def _from(words: list[str], line: int, stages: dict[str, _Stage]) -> _Stage:
    words = [w for w in words if not w.startswith("--")]  # --platform=...
    image = words[0] if words else ""
    stage = stages.get(image, _Stage(image=image, image_line=line))
    if len(words) >= 3 and words[1].upper() == "AS":
        stages[words[2]] = stage
    return stage


def _assignments(words: list[str], keyword: str) -> dict[str, str]:
    if keyword == "ENV" and len(words) >= 2 and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}  # legacy `ENV NAME value`
    pairs = (w.partition("=") for w in words)
    return {name: value for name, eq, value in pairs if eq or keyword == "ARG"}


def _final_command(stage: _Stage) -> Command | None:
    entry = _argv(stage.entrypoint) if stage.entrypoint else None
    cmd = _argv(stage.cmd) if stage.cmd else None
    if entry is not None and not _exec_form(stage.entrypoint):
        cmd = None  # a shell-form ENTRYPOINT ignores CMD
    argv = [*(entry or []), *(cmd or [])]
    where = stage.cmd if cmd else stage.entrypoint
    if not argv or where is None:
        return None
    kept = image_entrypoint(stage.image) if entry is None else ()
    return Command(argv=tuple(argv), line=where.line, end_line=where.end_line, env=stage.env,
                   image=stage.image or None, image_line=stage.image_line or None, entrypoint=kept)


def _exec_form(instruction: Instruction | None) -> bool:
    return instruction is not None and _json_list(instruction.text) is not None


def _argv(instruction: Instruction) -> list[str]:
    listed = _json_list(instruction.text)
    if listed is not None:
        return listed  # exec form: no variable expansion, as Docker does it
    return ["/bin/sh", "-c", instruction.text]


def _json_list(text: str) -> list[str] | None:
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None
