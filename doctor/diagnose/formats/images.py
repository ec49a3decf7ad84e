"""Container images a log or a pasted report names (`docker run ... vllm/vllm-openai:v0.10.1`, `image:
nvcr.io/nvidia/vllm:26.01-py3`, `FROM nvidia/cuda:12.8.1-devel-ubuntu22.04`): the first one is the image the
deployment runs in; doctor/engines/images.py says what it pins."""

from __future__ import annotations

import re
from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts
from doctor.engines.images import community_repositories, image_facts, tag_release

FMT = "container image"
_REPOSITORIES = (r"nvidia/[a-z0-9][\w.-]*(?:/[a-z0-9][\w.-]*)*|vllm/vllm-openai|lmsysorg/[a-z0-9][\w.-]*"
                 r"|ggml-org/llama\.cpp|ggerganov/llama\.cpp|ollama/ollama|lmcache/vllm-openai|pytorch/pytorch"
                 + "".join("|" + re.escape(repository) for repository in sorted(community_repositories())))
_REGISTRY = r"(?:(?:docker\.io|nvcr\.io|ghcr\.io|quay\.io|registry\.hub\.docker\.com)/)?"
_TAG = r"(?::[\w][\w.-]{0,127})?(?:@sha256:[0-9a-f]{64})?"
# a reference with a tag anywhere after a word boundary that is no path (`site-packages/nvidia/cuda_runtime`
# is no image), or an untagged one that `docker run`/`pull`, `image:` or `FROM` names
_TAGGED = (r"(?:^|[\s'\"`=(])(?P<ref>" + _REGISTRY + r"(?:" + _REPOSITORIES + r")"
           r":[\w][\w.-]{0,127}(?:@sha256:[0-9a-f]{64})?)")
_NAMED = (r"(?:(?:docker|podman)\s+(?:run|pull|create)\b[^|;&]*?\s|image:\s*['\"]?|^\s*FROM\s+(?:--\S+\s+)*)"
          r"(?P<ref>" + _REGISTRY + r"(?:" + _REPOSITORIES + r")" + _TAG + r")(?:['\"]?\s|['\"]?$)")


def _image(m: Any, line: int, facts: LogFacts) -> None:
    ref = m.group("ref").rstrip(".-")  # a sentence's full stop is no part of the tag
    if facts.image is not None or image_facts(ref) is None:
        return
    facts.saw(FMT, line)
    facts.set_once("image", ref, line)
    release = tag_release(ref)
    if release is not None:
        facts.hint_engine(release.engine, line)
        facts.version(release.engine, release.version, line)


RULES = (
    LineRule(FMT, _TAGGED, _image),
    LineRule(FMT, _NAMED, _image),
)
