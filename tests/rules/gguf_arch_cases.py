"""Positive and boundary cases of ARCH040-ARCH043 (rules/gguf_archs.toml): a GGUF whose general.architecture a
llama.cpp build or an Ollama release does not know. The GGUF is the Qwen3.5-35B-A3B spec of
tests/cases/models/qwen3.5-35b-a3b-gguf with its architecture name swapped where a case needs another one."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build

SPEC = Path(__file__).resolve().parents[1] / "cases" / "models" / "qwen3.5-35b-a3b-gguf" / "gguf.toml"
R5090, SPARK, PRO, H100 = "rtx-5090", "dgx-spark", "rtx-pro-6000-x8", "h100-sxm-x8"


def _spec_folder(arch: str) -> Path:
    """The spec with `arch` as its architecture, in a folder of the test cache (gguf_for writes the file once)."""
    from tests.wheels import cache_root

    text = SPEC.read_text(encoding="utf-8").replace('arch = "qwen35moe"', f'arch = "{arch}"')
    folder = cache_root() / "gguf-arch-specs" / hashlib.sha256(text.encode()).hexdigest()[:12]
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "gguf.toml").is_file():
        (folder / "gguf.toml").write_text(text, encoding="utf-8")
    return folder


def gguf_on(engine: str | None, arch: str = "qwen35moe", profile: str = R5090) -> Callable[[], Facts]:
    def facts() -> Facts:
        from doctor.probe.model import load_model
        from tests.gguf_specs import gguf_for

        built = build(profile, None, (engine,) if engine else ())
        return built.replace(model=load_model(str(gguf_for(_spec_folder(arch))), {}, offline=True))
    return facts


GGUF_ARCH_CASES = [
    a("ARCH040", True, "qwen35moe b7836, the last sample without it", gguf_on("llama.cpp==7836")),
    a("ARCH040", True, "qwen35moe b7836 on GB10", gguf_on("llama.cpp==7836", profile=SPARK)),
    a("ARCH040", True, "qwen35moe b4600, the first sample", gguf_on("llama.cpp==4600")),
    a("ARCH040", True, "qwen35moe on Ollama 0.17.0 (not yet engine-required)", gguf_on("ollama==0.17.0", profile=PRO)),
    a("ARCH040", False, "qwen35moe b8095, the first sample with it", gguf_on("llama.cpp==8095")),
    a("ARCH040", False, "qwen35moe b8000, between the samples", gguf_on("llama.cpp==8000")),
    a("ARCH040", False, "llama at b4600, known at every sample", gguf_on("llama.cpp==4600", arch="llama")),
    a("ARCH040", False, "qwen35moe, no build found", gguf_on(None)),
    a("ARCH040", False, "qwen35moe on Ollama 0.30.0 (llama-server b9452)", gguf_on("ollama==0.30.0", profile=PRO)),
    a("ARCH041", True, "qwen35moe b8000, between b7836 and b8095", gguf_on("llama.cpp==8000")),
    a("ARCH041", True, "qwen35moe, no build found", gguf_on(None)),
    a("ARCH041", False, "qwen35moe b7836", gguf_on("llama.cpp==7836")),
    a("ARCH041", False, "qwen35moe b8095", gguf_on("llama.cpp==8095")),
    a("ARCH042", True, "a name no sample knows", gguf_on("llama.cpp==9000", arch="frobnicator")),
    a("ARCH042", True, "a name no sample knows, build newer than the data",
      gguf_on("llama.cpp==20000", arch="frobnicator")),
    a("ARCH042", False, "qwen35moe b9000", gguf_on("llama.cpp==9000")),
    a("ARCH043", True, "qwen35moe on Ollama 0.17.1, engine-required", gguf_on("ollama==0.17.1", profile=PRO)),
    a("ARCH043", True, "qwen35moe on Ollama 0.24.0, the last cgo release", gguf_on("ollama==0.24.0", profile=PRO)),
    a("ARCH043", False, "qwen35moe on Ollama 0.17.0", gguf_on("ollama==0.17.0", profile=PRO)),
    a("ARCH043", False, "qwen35moe on Ollama 0.30.0", gguf_on("ollama==0.30.0", profile=PRO)),
    a("ARCH043", False, "qwen3moe on Ollama 0.17.1, vendored llama.cpp knows it",
      gguf_on("ollama==0.17.1", arch="qwen3moe", profile=PRO)),
    a("ARCH040", False, "qwen35moe b8095 on H100", gguf_on("llama.cpp==8095", profile=H100)),
    a("ARCH040", True, "qwen35moe on llama-cpp-python 0.3.16", gguf_on("llama-cpp-python==0.3.16")),
    a("ARCH040", False, "qwen35moe on llama-cpp-python 0.3.17", gguf_on("llama-cpp-python==0.3.17")),
    a("ARCH041", False, "llama, no build found: every sample knows it", gguf_on(None, arch="llama")),
]
