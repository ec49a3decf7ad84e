"""llama.cpp builds other programs ship: what each Ollama release runs (doctor/data/llama_cpp/ollama-builds.json,
written by tools/ollama_llama_cpp_builds.py from ollama/ollama's source at each release tag). From 0.30.0 its
runner is llama.cpp's llama-server at the build LLAMA_CPP_VERSION names, so `--engine ollama==X` also analyses
that llama.cpp build; before, Ollama served GGUF models with its own Go engine or a cgo runner over the llama.cpp
commit it vendored, which is no llama.cpp release the rules can read."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from doctor.engines.spi import Engine

TABLE = Path(__file__).resolve().parents[2] / "data" / "llama_cpp" / "ollama-builds.json"
LLAMA_SERVER = "llama-server"


@cache
def _table() -> dict[str, Any]:
    return json.loads(TABLE.read_text(encoding="utf-8"))


def ollama_release(version: str) -> dict[str, Any] | None:
    """The table's row for Ollama `version` (its date, runner, vendored llama.cpp, CUDA presets), None when the
    table does not hold that release."""
    return _table()["releases"].get(version.removeprefix("v"))


def ollama_releases() -> tuple[str, ...]:
    """Every Ollama release the table holds, oldest first."""
    return tuple(_table()["releases"])


def ollama_build(version: str) -> str | None:
    """The llama.cpp build number Ollama `version` runs as llama-server; None before 0.30.0 (no llama-server
    runner) or for a release the table does not hold."""
    row = ollama_release(version)
    return row["llama_cpp"]["build"] if row and row["runner"] == LLAMA_SERVER else None


def ollama_details(version: str) -> dict[str, str]:
    return {"bundled_by": f"Ollama {version}", "source": f"{_table()['source']}: Ollama {version}"}


# strconv.ParseBool, as Ollama's envconfig reads OLLAMA_FLASH_ATTENTION
_TRUE, _FALSE = ("1", "t", "T", "TRUE", "true", "True"), ("0", "f", "F", "FALSE", "false", "False")

GiB = 1 << 30
# server/routes.go `Serve` from v0.15.5 (0334ffa62, "use tiered VRAM-based default context length"), unchanged to
# v0.32.15: the sum over GPUs of TotalMemory - OLLAMA_GPU_OVERHEAD against 47 / 23 GiB (the comment: "slightly
# lower thresholds (47/23 GiB vs. 48/24 GiB)"). Before it envconfig's OLLAMA_CONTEXT_LENGTH default was the context:
# 2048 (v0.6.0-v0.6.6), 4096 (v0.6.7-v0.15.4).
VRAM_TIERS_FROM = (0, 15, 5)
VRAM_TIERS = ((47 * GiB, 262144), (23 * GiB, 32768), (0, 4096))
FIXED_DEFAULTS = (((0, 6, 7), 4096), ((0, 0, 0), 2048))


@dataclass(frozen=True)
class OllamaContext:
    """The context Ollama gives each request slot of a model: what it asks for (`num_ctx`), where that came from
    (`source`: "OLLAMA_CONTEXT_LENGTH", "vram-tier" or "fixed default"), the VRAM sum the tier read, and what
    llama-server gets after Ollama caps it at the model's trained context (`effective`, per slot)."""

    num_ctx: int
    source: str
    total_vram: int
    effective: int
    n_ctx_train: int | None
    parallel: int

    @property
    def automatic(self) -> bool:
        return self.source == "vram-tier"

    def view(self) -> dict[str, Any]:
        return {"num_ctx": self.num_ctx, "source": self.source, "automatic": self.automatic,
                "total_vram_gib": round(self.total_vram / GiB, 1), "effective": self.effective,
                "n_ctx_train": self.n_ctx_train, "parallel": self.parallel,
                "llama_server_ctx": self.effective * self.parallel,
                "capped_by_model": self.n_ctx_train is not None and self.effective < self.num_ctx}


def _release(version: str) -> tuple[int, ...]:
    parts = version.removeprefix("v").split("-")[0].split(".")
    return tuple(int(p) if p.isdigit() else 0 for p in parts[:3])


def _positive(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def ollama_parallel(env: Mapping[str, str]) -> int:
    """OLLAMA_NUM_PARALLEL, default 1 (envconfig from v0.10.0)."""
    return _positive(env.get("OLLAMA_NUM_PARALLEL", "")) or 1


def ollama_context(version: str, env: Mapping[str, str], gpu_totals: Sequence[int],
                   n_ctx_train: int | None = None) -> OllamaContext:
    """The num_ctx Ollama `version` uses for a request that sets none, as server/routes.go `modelOptions` and
    llm/server.go (`requested context size too large for model`: capped at the GGUF's context_length) decide it.
    A request's or Modelfile's num_ctx is not seen."""
    overhead = _positive(env.get("OLLAMA_GPU_OVERHEAD", "")) or 0
    total = sum(max(t - overhead, 0) for t in gpu_totals)
    stated = _positive(env.get("OLLAMA_CONTEXT_LENGTH", ""))
    if stated is not None:
        num_ctx, source = stated, "OLLAMA_CONTEXT_LENGTH"
    elif _release(version) >= VRAM_TIERS_FROM:
        num_ctx, source = next(ctx for floor, ctx in VRAM_TIERS if total >= floor), "vram-tier"
    else:
        num_ctx, source = next(ctx for first, ctx in FIXED_DEFAULTS if _release(version) >= first), "fixed default"
    train = n_ctx_train if n_ctx_train and n_ctx_train > 0 else None
    effective = min(num_ctx, train) if train else num_ctx
    return OllamaContext(num_ctx, source, total, effective, train, ollama_parallel(env))


def ollama_server_flags(env: Mapping[str, str], version: str | None = None, gpu_totals: Sequence[int] = (),
                        n_ctx_train: int | None = None) -> list[str]:
    """The llama-server flags an Ollama release with the llama-server runner (0.30.0 on) derives from its server's
    environment (llm/llama_server.go, llm/server.go @ v0.30.0 to v0.32.15): `-c` num_ctx x OLLAMA_NUM_PARALLEL and
    `-np`, `--cache-type-k/-v` from OLLAMA_KV_CACHE_TYPE (lowercased), and `--flash-attn` on/off when
    OLLAMA_FLASH_ATTENTION is a boolean, else auto (every CUDA GPU of 7.0 or newer). num_ctx is
    OLLAMA_CONTEXT_LENGTH, else (with the release and the GPUs' memory known) Ollama's own default for them
    (`ollama_context`); a request's or Modelfile's num_ctx is not seen."""
    flags: list[str] = []
    slots = ollama_parallel(env)
    if version is not None and gpu_totals:
        flags += ["-c", str(ollama_context(version, env, gpu_totals, n_ctx_train).effective * slots), "-np", str(slots)]
    else:
        if (context := _positive(env.get("OLLAMA_CONTEXT_LENGTH", ""))) is not None:
            flags += ["-c", str(context * slots)]
        if _positive(env.get("OLLAMA_NUM_PARALLEL", "")) is not None:
            flags += ["-np", str(slots)]
    if cache := env.get("OLLAMA_KV_CACHE_TYPE", "").strip().lower():
        flags += ["--cache-type-k", cache, "--cache-type-v", cache]
    attention = env.get("OLLAMA_FLASH_ATTENTION", "").strip()
    flags += ["--flash-attn", "on" if attention in _TRUE else "off" if attention in _FALSE else "auto"]
    return flags


def release_details(version: str) -> dict[str, Any]:
    """What the rules read of an Ollama release (`lib.ollama.*`): its runner, the llama.cpp it vendors, and
    whether its CUDA 13 Linux build carries SASS for 12.x or only PTX; empty for a release the table lacks."""
    row = ollama_release(version)
    if row is None:
        return {}
    llama_cpp = row["llama_cpp"]
    details: dict[str, Any] = {"runner": row["runner"], "release_date": row["date"],
                               "llama_cpp_commit": llama_cpp["commit"], "llama_cpp_build": llama_cpp["build"]}
    for name, archs in row["cuda_presets"].items():
        key = _preset_key(name)
        if key is not None:
            details[f"{key}_archs"] = archs
            details[f"{key}_sm12x"] = _sm12x_kind(archs)
    return details


def _preset_key(name: str) -> str | None:
    """`CUDA 13` (CMakePresets.json before 0.30.0) and `llama_cuda_v13_linux` (llama/server's after) → cuda_v13;
    Windows, Jetson and ARM64 Windows presets are not read."""
    lowered = name.lower().replace(" ", "_")
    for major in ("12", "13"):
        if lowered in (f"cuda_{major}", f"llama_cuda_v{major}_linux"):
            return f"cuda_v{major}"
    return None


def _sm12x_kind(archs: list[str]) -> str:
    """"sass" when an entry compiles code for 12.x (`120`, `120a`, `121-real`), "ptx" when 12.x appears only as
    `-virtual` (the driver JIT-compiles it at load), "none" without a 12.x entry."""
    twelve = [a for a in archs if a.startswith("12")]
    if any(not a.endswith("-virtual") for a in twelve):
        return "sass"
    return "ptx" if twelve else "none"


class Ollama(Engine):
    """Ollama as a program that runs llama.cpp: named without a release (`--engine ollama`, a log that names
    Ollama but not its release), it is evaluated at every release where what it runs changes. Never analysed
    itself (it is no serving engine the doctor plans for): each release brings its llama.cpp build."""

    name = "ollama"
    display_name = "Ollama"
    package = "ollama"

    def knowledge_range(self) -> tuple[str, str] | None:
        releases = ollama_releases()
        return (releases[0], releases[-1]) if releases else None

    def unstated_releases(self) -> tuple[str, ...]:
        """The first release of each runner and vendored llama.cpp, and the newest: what differs between them
        is Ollama's own (its rules name those boundaries)."""
        chosen: list[str] = []
        previous: tuple[Any, ...] | None = None
        for version in ollama_releases():
            row = _table()["releases"][version]
            key = (row["runner"], row["llama_cpp"]["build"], row["llama_cpp"]["commit"])
            if key != previous:
                chosen.append(version)
            previous = key
        newest = ollama_releases()[-1:]
        return tuple(dict.fromkeys([*chosen, *newest]))
