"""Engine versions a launch file pins itself: the tag of the engine's container image, or a
`pip install sglang==0.5.8` in the same file. Also the entrypoint an engine image runs when a file gives
it only flags."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from doctor.lint.site import Pin

# Image repository name (last path component) → serving engine.
IMAGE_ENGINES = (
    (re.compile(r"sglang"), "sglang"),
    (re.compile(r"vllm"), "vllm"),
    (re.compile(r"tensorrt[-_]?llm|trtllm"), "tensorrt-llm"),
    (re.compile(r"llama[.-]?cpp"), "llama.cpp"),
)
# What an engine image runs when the file passes only flags (compose `command:`, Kubernetes `args:`,
# `docker run IMAGE --flags`). vLLM's OpenAI image: `ENTRYPOINT ["python3", "-m",
# "vllm.entrypoints.openai.api_server"]` (vllm-project/vllm docker/Dockerfile, stage vllm-openai); SGLang's
# images have no engine entrypoint (a command is always given).
IMAGE_ENTRYPOINTS = {"vllm/vllm-openai": ("python3", "-m", "vllm.entrypoints.openai.api_server")}
_TAG_VERSION = re.compile(r"^v?(\d+\.\d+(?:\.\d+)*(?:\.?post\d+|rc\d+|\.dev\d+)?)(?:$|[-_+])")
_PIP_PIN = re.compile(r"(?<![\w.-])(sglang|vllm|tensorrt[-_]llm)(?:\[[^\]]*\])?\s*==\s*([0-9][A-Za-z0-9.+!-]*)")
_PIP_NAMES = {"sglang": "sglang", "vllm": "vllm", "tensorrt-llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm"}


def split_image(image: str) -> tuple[str, str | None]:
    """`docker.io/lmsysorg/sglang:v0.5.8-cu129@sha256:...` → (`lmsysorg/sglang`, `v0.5.8-cu129`)."""
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
    return next((engine for pattern, engine in IMAGE_ENGINES if pattern.search(last)), None)


def image_pin(image: str | None, line: int | None) -> Pin | None:
    """The engine version an image tag names (`lmsysorg/sglang:v0.5.8-cu129` → sglang 0.5.8), if any."""
    if not image or "$" in image:
        return None
    engine = image_engine(image)
    _, tag = split_image(image)
    match = _TAG_VERSION.match(tag or "")
    if engine is None or match is None or not _is_version(match.group(1)):
        return None
    return Pin(engine=engine, version=match.group(1), line=line or 0, how=f"image {image}")


def image_entrypoint(image: str | None) -> tuple[str, ...]:
    if not image:
        return ()
    repo, _ = split_image(image)
    return IMAGE_ENTRYPOINTS.get(repo, ())


def pip_pins(lines: list[str]) -> list[Pin]:
    """`pip install "sglang[all]==0.5.8"` (pip, uv pip, pipx, requirements lines in RUN) anywhere in a file."""
    pins = []
    for number, text in enumerate(lines, start=1):
        if "install" not in text:
            continue
        for match in _PIP_PIN.finditer(text):
            if _is_version(match.group(2)):
                pins.append(Pin(engine=_PIP_NAMES[match.group(1)], version=match.group(2), line=number,
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
