"""Engine versions a launch file pins itself: the tag of the engine's container image (`Engine.images`), or
a `pip install NAME==VERSION` of its package in the same file. Also the entrypoint an engine image runs
when a file gives it only flags (`Engine.image_entrypoints`)."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from doctor.engines import registry
from doctor.engines.images import split_image, tag_release
from doctor.lint.site import Pin

_PIP_PIN = r"(?<![\w.-])({names})(?:\[[^\]]*\])?\s*==\s*([0-9][A-Za-z0-9.+!-]*)"


def image_pin(image: str | None, line: int | None) -> Pin | None:
    """The engine version an image tag names (`vllm/vllm-openai:v0.11.0-cu129` → vllm 0.11.0), if any."""
    release = tag_release(image)
    if release is None:
        return None
    how = f"image {image}" + (f" ({release.how})" if release.how else "")
    return Pin(engine=release.engine, version=release.version, line=line or 0, how=how)


def image_entrypoint(image: str | None) -> tuple[str, ...]:
    if not image:
        return ()
    repo, _ = split_image(image)
    for engine in registry.engines().values():
        for repository, entrypoint in engine.image_entrypoints:
            if repository == repo:
                return entrypoint
    return ()


def pip_pins(lines: list[str]) -> list[Pin]:
    """`pip install "vllm[audio]==0.11.0"` (pip, uv pip, pipx, RUN lines) of an engine's package, anywhere."""
    names = {spelling: name for name, engine in registry.engines().items()
             for spelling in {engine.package, engine.package.replace("-", "_")}}
    pattern = re.compile(_PIP_PIN.format(names="|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))))
    pins = []
    for number, text in enumerate(lines, start=1):
        if "install" not in text:
            continue
        for match in pattern.finditer(text):
            if _is_version(match.group(2)):
                pins.append(Pin(engine=names[match.group(1)], version=match.group(2), line=number,
                                how=f"pip install {match.group(1)}=={match.group(2)}"))
    return pins


def nearest_pin(engine: str, line: int, pins: list[Pin]) -> Pin | None:
    """The pin for `engine` that applies at `line`: the last one above it, else the first one below."""
    mine = [p for p in pins if p.engine == engine]
    above = [p for p in mine if p.line <= line]
    if above:
        return above[-1]
    return mine[0] if mine else None


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True
