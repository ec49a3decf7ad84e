"""What a container image pins, read from its reference alone (a launch file's `FROM`/`image:`/`docker run`, or a
log that names it): the engine release, torch,
CUDA and FlashInfer versions and the GPU code it carries, from doctor/data/images/ (NGC release notes in
ngc.toml; the engines' own images, generated from their wheels and Dockerfiles by tools/image_table.py; community
DGX Spark builds in community.toml, from their own READMEs: the tag is the image's release, the row the engine
build inside), plus what the tag itself states (`-cu129`, `nvidia/cuda:12.8.1-devel`). A tag the tables do not
know is unknown, never guessed; a tag that names no release (`latest`, `nightly`) floats."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.binaries.archs import SASS, runs
from doctor.buildargs import parse_arch_list
from doctor.engines import registry

_DATE = re.compile(r"(?:^|\D)20\d{2}-?[01]\d-?[0-3]\d(?:$|\D)")
_PINNED_WORD = re.compile(r"^(?:v?\d+(?:\.\d+)+.*|\d{8}|[0-9a-f]{7,40}|b\d{3,})$")  # a release, a date, a commit
# CUDA as a tag states it: `v0.5.8-cu129`, `mlpinf-v3.1-cuda12.2-...`; the major only: `server-cuda13`, `-cu13-`
_TAG_CUDA = re.compile(r"(?:^|-)(?:cu(1\d)(\d)|cuda(1\d)\.(\d+))(?:$|-)")
_TAG_CUDA_MAJOR = re.compile(r"(?:^|-)cu(?:da)?(1\d)(?:$|-)")
_LLAMA_BUILD = re.compile(r"(?:^|-)b(\d{3,})(?:$|-)")  # ghcr.io/ggml-org/llama.cpp:server-cuda-b7551
# pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime: the torch release and the CUDA build it installs
_PYTORCH_IMAGE_TAG = re.compile(r"^(\d+\.\d+\.\d+)-cuda(\d+)\.(\d+)-cudnn\d+-(runtime|devel)$")
_CUDA_IMAGE_TAG = re.compile(r"^(\d+\.\d+(?:\.\d+)?)-(devel|runtime|base|cudnn[\d.]*-devel|cudnn[\d.]*-runtime)")
_PLATFORMS = {"amd64": "amd64", "x86_64": "amd64", "x86": "amd64", "arm64": "arm64", "aarch64": "arm64"}
# not engines, but images whose tag pins a GPU stack
STACK_REPOSITORIES = ("ollama/ollama", "nvidia/cuda", "pytorch/pytorch")


_TAG_VERSION = re.compile(r"^v?(\d+\.\d+(?:\.\d+)*(?:\.?post\d+|rc\d+|\.dev\d+)?)(?:$|[-_+])")
_NGC_RELEASE = re.compile(r"^(\d{2}\.\d{2})(?:$|[-_.])")  # nvcr.io/nvidia/vllm:26.03-py3: a container release


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
    """The engine an image is, by its repository's path components, the last first
    (`nvcr.io/nvidia/tensorrt-llm/release` is TensorRT-LLM)."""
    repo, _ = split_image(image)
    for part in reversed(repo.lower().split("/")):
        found = next((name for name, engine in registry.engines().items()
                      if any(re.search(pattern, part) for pattern in engine.images)), None)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class TagRelease:
    """The engine release an image tag names, and how it was read (an NGC release is looked up)."""

    engine: str
    version: str
    how: str


def tag_release(image: str | None) -> TagRelease | None:
    """`vllm/vllm-openai:v0.11.0-cu129` → vllm 0.11.0; `nvcr.io/nvidia/vllm:26.01-py3` → its release notes'
    vLLM; `ghcr.io/ggml-org/llama.cpp:server-cuda-b7551` → llama.cpp 7551."""
    if not image or "$" in image:
        return None
    engine = image_engine(image)
    repo, tag = split_image(image)
    row = image_rows().get((repo, tag or ""))
    if row is not None and row.get("community"):  # a community build: its own tag, the engine's version inside
        return TagRelease(row["engine"], row["version"], "a community build (doctor/data/images/community.toml)")
    if repo in community_repositories():
        return None  # a tag the table does not know: the image's own release, never the engine's
    release = _NGC_RELEASE.match(tag or "") if repo.startswith("nvidia/") else None
    if release is not None:
        entry = image_rows().get((repo, release.group(1)))
        if entry is None or "engine" not in entry:
            return None
        return TagRelease(entry["engine"], entry["version"],
                          f"NGC {release.group(1)}: {entry['engine']} {entry['version']}, {entry['source']}")
    match = _TAG_VERSION.match(tag or "")
    if engine is not None and match is not None and _is_version(match.group(1)):
        return TagRelease(engine, match.group(1), "")
    build = _LLAMA_BUILD.search((tag or "").lower())
    if engine == "llama.cpp" and build:
        return TagRelease(engine, build.group(1), "")
    return None


def _is_version(text: str) -> bool:
    try:
        Version(text)
    except InvalidVersion:
        return False
    return True


@dataclass(frozen=True)
class ImageFacts:
    ref: str
    repository: str
    tag: str | None
    floating: bool
    known: bool  # a table row (or the tag itself) says what the image pins
    engine: str | None = None
    version: str | None = None
    libraries: dict[str, str] = field(default_factory=dict)  # installed for certain: become what-ifs
    torch: str | None = None  # the torch release, where its CUDA build is not known (informational)
    cuda: str | None = None
    cuda_major: int | None = None
    toolkit: bool = False  # the image has nvcc (a CUDA `devel` image, an NGC framework container)
    platform: str | None = None  # a tag that names one CPU platform
    variants: dict[str, dict[str, str]] = field(default_factory=dict)  # GPU builds with their arch lists
    source: str | None = None
    community: bool = False  # a community source build (doctor/data/images/community.toml)
    kv_cache_dtypes: tuple[str, ...] = ()  # what such a build adds to its upstream release on SM12x
    moe_backends: tuple[str, ...] = ()

    def what_ifs(self) -> list[str]:
        """`--engine` specs for the libraries the image pins besides the engine (the engine comes as a pin)."""
        specs = [f"{name}=={version}" for name, version in self.libraries.items() if name != "cuda"]
        if self.toolkit and self.cuda:
            specs.append(f"nvcc=={self.cuda}")
        return specs

    def view(self, capability: tuple[int, int] | None) -> dict[str, Any]:
        """`image.*` for the rules."""
        runs_here, reached_by, sass_here = self._reach(capability)
        return {"ref": self.ref, "repository": self.repository, "tag": self.tag, "floating": self.floating,
                "known": self.known, "engine": self.engine, "version": self.version,
                "libraries": dict(self.libraries), "torch": self.torch or self.libraries.get("torch"),
                "cuda": self.cuda, "cuda_major": self.cuda_major,
                "toolkit": self.toolkit, "platform": self.platform, "source": self.source,
                "variants": sorted(self.variants), "runs_here": runs_here, "reached_by": reached_by,
                "sass_here": sass_here, "community": self.community,
                "kv_cache_dtypes": list(self.kv_cache_dtypes), "moe_backends": list(self.moe_backends)}

    def _reach(self, capability: tuple[int, int] | None) -> tuple[bool | None, str | None, bool | None]:
        """Does any GPU build of the image carry code this GPU runs, which one, and is any of it SASS (None: no
        arch lists known)?"""
        if not self.variants or capability is None:
            return None, None, None
        reached, sass = [], False
        for name, variant in sorted(self.variants.items()):
            targets, _, _ = parse_arch_list("CMAKE_CUDA_ARCHITECTURES", variant["archs"], capability)
            usable = [arch for arch in targets if runs(arch, capability)]
            if usable:
                reached.append(f"{name} (CUDA {variant['cuda']}: {variant['archs']})")
                sass = sass or any(arch.kind == SASS for arch in usable)
        return bool(reached), "; ".join(reached) or None, sass


def image_facts(ref: str | None) -> ImageFacts | None:
    """The image's facts, or None for an image that pins no GPU stack the doctor tracks (`ubuntu:22.04`)."""
    if not ref or "$" in ref:
        return None
    repository, tag = split_image(ref)
    if not _tracked(ref, repository):
        return None
    digest = "@" in ref
    floating = not digest and _floats(tag)
    platform = next((_PLATFORMS[w] for w in (tag or "").lower().split("-") if w in _PLATFORMS), None)
    row = image_rows().get((repository, _row_tag(repository, tag))) or _release_row(ref, repository)
    base = ImageFacts(ref=ref, repository=repository, tag=tag, floating=floating, known=False, platform=platform)
    if row is not None:
        return _from_row(base, row)
    return _from_tag(base)


def _release_row(ref: str, repository: str) -> dict[str, Any] | None:
    """A row that holds for every variant tag of its release (`v0.5.8-cu129`, `v0.24.0-ubuntu2404`): what the
    release's wheel pins; the variant's CUDA comes from its tag."""
    release = tag_release(ref)
    row = image_rows().get((repository, f"v{release.version}")) if release else None
    return row if row is not None and row.get("any_variant") else None


def _tracked(ref: str, repository: str) -> bool:
    return (image_engine(ref) is not None or repository.startswith("nvidia/")
            or repository in STACK_REPOSITORIES or repository in community_repositories())


def _floats(tag: str | None) -> bool:
    """No tag, or one with no release, date, commit or build number in it (`latest`, `spark`, `server-cuda`)."""
    if tag is None:
        return True
    if _DATE.search(tag):  # nightly-2025-06-24
        return False
    return not any(_PINNED_WORD.match(w) for w in re.split(r"[-_]", tag.lower()))


def _row_tag(repository: str, tag: str | None) -> str | None:
    """The table key of a tag: NGC rows are keyed by the YY.MM release (`26.01-py3` → `26.01`)."""
    if tag and repository.startswith("nvidia/") and (release := re.match(r"^(\d{2}\.\d{2})(?:$|[-_.])", tag)):
        return release.group(1)
    return tag


def _from_row(base: ImageFacts, row: dict[str, Any]) -> ImageFacts:
    libraries = dict(row.get("libraries", {}))
    cuda = _tag_cuda(base.tag) or libraries.pop("cuda", None)
    libraries.pop("cuda", None)
    tag_major = _TAG_CUDA_MAJOR.search((base.tag or "").lower())
    major = (int(cuda.split(".")[0]) if cuda else None) or (int(tag_major.group(1)) if tag_major else None) \
        or row.get("cuda_major")
    return ImageFacts(ref=base.ref, repository=base.repository, tag=base.tag, floating=base.floating, known=True,
                      engine=row.get("engine"), version=row.get("version"), libraries=libraries,
                      torch=row.get("torch"), cuda=cuda,
                      cuda_major=major, toolkit=base.repository in NGC_TOOLKIT_REPOSITORIES,
                      platform=base.platform, variants=dict(row.get("variants", {})), source=row.get("source"),
                      community=bool(row.get("community")), kv_cache_dtypes=tuple(row.get("kv_cache_dtypes", ())),
                      moe_backends=tuple(row.get("moe_backends", ())))


NGC_TOOLKIT_REPOSITORIES = ("nvidia/pytorch",)  # NGC's PyTorch container ships the full CUDA toolkit (nvcc)


def _from_tag(base: ImageFacts) -> ImageFacts:
    """No table row: only what the tag itself states (an engine release, a CUDA version)."""
    pin = tag_release(base.ref)
    torch_image = _PYTORCH_IMAGE_TAG.match(base.tag or "") if base.repository == "pytorch/pytorch" else None
    if torch_image is not None:
        torch_version, major, minor, kind = torch_image.groups()
        return ImageFacts(ref=base.ref, repository=base.repository, tag=base.tag, floating=False, known=True,
                          libraries={"torch": f"{torch_version}+cu{major}{minor}"}, cuda=f"{major}.{minor}",
                          cuda_major=int(major), toolkit=kind == "devel", platform=base.platform,
                          source=f"the tag {base.tag}")
    if base.repository == "nvidia/cuda" and base.tag and (match := _CUDA_IMAGE_TAG.match(base.tag)):
        cuda = match.group(1)
        return ImageFacts(ref=base.ref, repository=base.repository, tag=base.tag, floating=False, known=True,
                          cuda=cuda, cuda_major=int(cuda.split(".")[0]), toolkit="devel" in match.group(2),
                          platform=base.platform, source=f"the tag {base.tag}")
    cuda = _tag_cuda(base.tag)
    major = _TAG_CUDA_MAJOR.search((base.tag or "").lower())
    cuda_major = int(cuda.split(".")[0]) if cuda else (int(major.group(1)) if major else None)
    return ImageFacts(ref=base.ref, repository=base.repository, tag=base.tag, floating=base.floating, known=False,
                      engine=pin.engine if pin else None, version=pin.version if pin else None, cuda=cuda,
                      cuda_major=cuda_major, platform=base.platform,
                      source=f"the tag {base.tag}" if cuda_major or pin else None)


def _tag_cuda(tag: str | None) -> str | None:
    match = _TAG_CUDA.search((tag or "").lower())
    if match is None:
        return None
    major, minor = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
    return f"{major}.{minor}"


@lru_cache(maxsize=1)
def image_rows() -> dict[tuple[str, str], dict[str, Any]]:
    """Every table row under doctor/data/images/ by (repository, tag or NGC release)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    rows: dict[tuple[str, str], dict[str, Any]] = {}
    folder = Path(__file__).resolve().parents[1] / "data" / "images"
    for path in sorted(folder.glob("*.toml")):
        for entry in tomllib.loads(path.read_text(encoding="utf-8")).get("image", []):
            rows[(entry["repository"], entry.get("tag") or entry["release"])] = entry
    return rows


@lru_cache(maxsize=1)
def community_repositories() -> frozenset[str]:
    """The repositories of doctor/data/images/community.toml: their tags are the image's own releases."""
    return frozenset(repository for (repository, _), row in image_rows().items() if row.get("community"))
