"""Engine versions a launch file pins itself: the tag of the engine's container image (`Engine.images`), or
a `pip install NAME==VERSION` of its package in the same file. Also the entrypoint an engine image runs
when a file gives it only flags (`Engine.image_entrypoints`)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.engines import registry
from doctor.lint.site import Pin

_TAG_VERSION = re.compile(r"^v?(\d+\.\d+(?:\.\d+)*(?:\.?post\d+|rc\d+|\.dev\d+)?)(?:$|[-_+])")
_NGC_RELEASE = re.compile(r"^(\d{2}\.\d{2})(?:$|[-_.])")  # nvcr.io/nvidia/vllm:26.03-py3: a container release
_PIP_PIN = r"(?<![\w.-])({names})(?:\[[^\]]*\])?\s*==\s*([0-9][A-Za-z0-9.+!-]*)"


def split_image(image: str) -> tuple[str, str | None]:
    """`docker.io/vllm/vllm-openai:v0.11.0@sha256:...` → (`vllm/vllm-openai`, `v0.11.0`)."""
    name = image.split("@", 1)[0]
    repo, _, tag = name.rpartition(":") if ":" in name.rsplit("/", 1)[-1] else (name, "", "")
    parts = repo.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # a registry host: docker.io, nvcr.io, ghcr.io, localhost:5000
    if parts and parts[0] == "library":
        parts = parts[1:]
    return "/".join(parts), tag or None


def image_engine(image: str) -> str | None:
    repo, _ = split_image(image)
    last = repo.rsplit("/", 1)[-1].lower()
    return next((name for name, engine in registry.engines().items()
                 if any(re.search(pattern, last) for pattern in engine.images)), None)


def image_pin(image: str | None, line: int | None) -> Pin | None:
    """The engine version an image tag names (`vllm/vllm-openai:v0.11.0-cu129` → vllm 0.11.0), if any."""
    if not image or "$" in image:
        return None
    engine = image_engine(image)
    repo, tag = split_image(image)
    release = _NGC_RELEASE.match(tag or "") if repo.startswith("nvidia/") else None
    if release is not None:
        return _ngc_pin(repo, release.group(1), image, line)
    match = _TAG_VERSION.match(tag or "")
    if engine is None or match is None or not _is_version(match.group(1)):
        return None
    return Pin(engine=engine, version=match.group(1), line=line or 0, how=f"image {image}")


def _ngc_pin(repo: str, release: str, image: str, line: int | None) -> Pin | None:
    """An NGC container's YY.MM tag names the container release; the engine version is its release notes'."""
    entry = ngc_images().get((repo, release))
    if entry is None:
        return None
    return Pin(engine=entry["engine"], version=entry["version"], line=line or 0,
               how=f"image {image} (NGC {release}: {entry['engine']} {entry['version']}, {entry['source']})")


@lru_cache(maxsize=1)
def ngc_images() -> dict[tuple[str, str], dict[str, Any]]:
    """doctor/data/images/ngc.toml by (repository, release)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    path = Path(__file__).resolve().parents[1] / "data" / "images" / "ngc.toml"
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("image", [])
    return {(e["repository"], e["release"]): e for e in entries}


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
