"""A hub id the doctor cannot read (no cache, no hub, not bundled), derived from the bundled model its name names.

`Qwen/Qwen3.6-27B-FP8` is `Qwen/Qwen3.6-27B` (bundled) with the quantization its name states, written the way
that quantization's producers write `quantization_config` (the shapes are copies of real configs in the
repository: tests/knowngood/models/, doctor/data/models/), so the normal readers (doctor.probe.quant) read it.

The base is the longest bundled repository name the id's NAME holds at token boundaries ('-', '_', a '.' that
starts no version digit, the ends; case-insensitive), an unquantized one before a quantized sibling, or the
bundled model of exactly that name under another owner. A base whose name leaves another size (`8B`, `A3B`) or
another family word (`VL`, `Flash`, `Distill`) in the id is a different model, never a base. Every finding on a
derived config is at most a warning (doctor.pipeline.rules: the model's config.json would confirm it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

# What a leftover token says about the model: another size or family is another model, not a derivative.
SIZE = re.compile(r"^(?:\d+(?:\.\d+)?[bm]|a\d+(?:\.\d+)?b|\d+x\d+b|e\d+b)$")
FAMILY_WORDS = frozenset({"vl", "next", "flash", "distill", "air", "omni", "vision", "mini", "nano", "lite", "pro",
                          "super", "ultra", "max", "coder"})
# Checkpoint formats a safetensors config cannot describe (llama.cpp's GGUF, Apple's MLX, ExLlama's EXL2/EXL3).
OTHER_FORMATS = frozenset({"gguf", "mlx", "exl2", "exl3", "onnx"})
# Tokens that name a chat/reasoning variant of the same architecture: not reported as unread.
VARIANT_WORDS = frozenset({"instruct", "it", "chat", "thinking", "base", "hf"})
TOKEN_SPLIT = re.compile(r"[-_]|\.(?!\d)")
DATE = re.compile(r"^\d{4}$")
MIX = "several quantizations"  # how a quantization note begins when the name states more than one


def is_mix(note: str) -> bool:
    """Does the note say the name states several quantizations (a mix the doctor does not guess)?"""
    return note.startswith(MIX)


@dataclass(frozen=True)
class QuantGuess:
    """A quantization the name states: the config.json `quantization_config` and/or the hf_quant_config.json
    its producers write, and how the derivation describes it."""

    label: str
    config: dict[str, Any] | None
    hf_quant: dict[str, Any] | None = None


@dataclass(frozen=True)
class Derivation:
    """What a hub id was derived from: the bundled base, the quantization its name states (None: the base's own),
    the name tokens not read, and whether the base is the bundled model of that very name (another owner)."""

    spec: str
    base: str
    quant: QuantGuess | None
    unread: tuple[str, ...] = ()
    sibling: bool = False
    quant_note: str = ""

    @property
    def refused(self) -> bool:
        """Several quantizations named on an unquantized base: the mix is not guessed."""
        return self.quant is None and is_mix(self.quant_note)

    def sentence(self) -> str:
        if self.sibling:
            what = f"bundled {self.base}, the same name under another owner (its quantization may differ)"
        elif self.quant is not None:
            what = f"bundled {self.base} + {self.quant.label} from the name"
        else:
            what = f"bundled {self.base} with its own quantization ({self.quant_note or 'no quantization named'})"
        unread = f"; name tokens not read: {', '.join(self.unread)}" if self.unread else ""
        return f"derived from {what}{unread}; give the model directory for an exact check"


def _ct(weights: dict[str, Any], acts: dict[str, Any] | None, fmt: str) -> dict[str, Any]:
    """A compressed-tensors (llm-compressor) config of one Linear group, as RedHatAI's checkpoints write it."""
    group = {"targets": ["Linear"], "weights": weights, "input_activations": acts, "format": fmt}
    return {"quant_method": "compressed-tensors", "format": fmt, "config_groups": {"group_0": group},
            "ignore": ["lm_head"], "quantization_status": "compressed"}


def _modelopt(algo: str, group: int | None = None) -> dict[str, Any]:
    """hf_quant_config.json as nvidia's ModelOpt checkpoints write it (nvidia/Qwen3-8B-NVFP4, -FP8)."""
    quantization: dict[str, Any] = {"quant_algo": algo, "exclude_modules": ["lm_head"]}
    if group:
        quantization["group_size"] = group
    return {"producer": {"name": "modelopt"}, "quantization": quantization}


FP8_DYNAMIC = {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": True, "symmetric": True}
NVFP4_GROUP = {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": True,
               "dynamic": False}


def _quant(kind: str, bits: int = 4) -> QuantGuess:
    """The config a producer writes for each quantization a name can state."""
    if kind == "fp8":  # Qwen/DeepSeek/zai FP8: tests/knowngood/models/Qwen--Qwen3.6-27B-FP8
        return QuantGuess("FP8 (block 128x128, as Qwen/DeepSeek/zai ship it)", {
            "quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3", "weight_block_size": [128, 128],
            "modules_to_not_convert": ["lm_head"]})
    if kind == "fp8-dynamic":  # llm-compressor FP8_DYNAMIC: tests/knowngood/models/gemma-4-26b-a4b-it-fp8-dynamic
        weights = {"num_bits": 8, "type": "float", "strategy": "channel", "dynamic": False, "symmetric": True}
        return QuantGuess("FP8-Dynamic (compressed-tensors, per-channel weights, per-token activations)",
                          _ct(weights, FP8_DYNAMIC, "float-quantized"))
    if kind == "nvfp4-modelopt":
        return QuantGuess("NVFP4 (ModelOpt, group 16, as nvidia's builds write hf_quant_config.json)", None,
                          _modelopt("NVFP4", 16))
    if kind == "fp8-modelopt":
        return QuantGuess("FP8 (ModelOpt per-tensor, as nvidia's builds write hf_quant_config.json)", None,
                          _modelopt("FP8"))
    if kind == "nvfp4":  # RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8's group_1
        return QuantGuess("NVFP4 (compressed-tensors nvfp4-pack-quantized, group 16)",
                          _ct(NVFP4_GROUP, {**NVFP4_GROUP, "dynamic": "local"}, "nvfp4-pack-quantized"))
    if kind == "nvfp4a16":
        return QuantGuess("NVFP4A16 (compressed-tensors, FP4 weights only)", _ct(NVFP4_GROUP, None,
                                                                                "nvfp4-pack-quantized"))
    if kind == "mxfp4":  # openai/gpt-oss: experts only, attention/router/embeddings/lm_head kept
        return QuantGuess("MXFP4 (experts, as gpt-oss writes it)", {"quant_method": "mxfp4", "modules_to_not_convert": [
            "model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]})
    if kind == "mxfp8":  # MiniMaxAI/MiniMax-M3-MXFP8
        return QuantGuess("MXFP8 (block 1x32)", {"quant_method": "mxfp8", "activation_scheme": "dynamic",
                                                  "weight_block_size": [1, 32],
                                                  "ignored_layers": ["lm_head", "model.embed_tokens"]})
    if kind == "awq":  # AutoAWQ: tests/knowngood/models/QuantTrio--Qwen3.5-397B-A17B-AWQ
        return QuantGuess("AWQ (4-bit, group 128, AutoAWQ GEMM)", {"quant_method": "awq", "bits": 4,
                                                                   "group_size": 128, "zero_point": True,
                                                                   "version": "gemm"})
    if kind == "gptq":  # Qwen's GPTQ-Int4/Int8 and AutoGPTQ: tests/cases/sizing/llama-2-13b-gptq-4bit-128g
        return QuantGuess(f"GPTQ-Int{bits} (group 128)", {"quant_method": "gptq", "bits": bits, "group_size": 128,
                                                          "desc_act": False, "sym": True})
    if kind == "auto-round":  # Intel AutoRound: tests/knowngood/models/qwen3.6-27b-autoround-int4
        return QuantGuess(f"AutoRound int{bits} (group 128)", {"quant_method": "auto-round", "bits": bits,
                                                               "group_size": 128, "sym": True})
    if kind == "w4a16":  # llm-compressor W4A16 (pack-quantized int4, group 128)
        weights = {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": True,
                   "dynamic": False}
        return QuantGuess("W4A16 (compressed-tensors int4, group 128)", _ct(weights, None, "pack-quantized"))
    if kind == "w8a16":
        weights = {"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": True, "dynamic": False}
        return QuantGuess("W8A16 (compressed-tensors int8 weights)", _ct(weights, None, "pack-quantized"))
    if kind == "w8a8":  # llm-compressor W8A8 int8: per-channel weights, per-token dynamic activations
        weights = {"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": True, "dynamic": False}
        acts = {"num_bits": 8, "type": "int", "strategy": "token", "dynamic": True, "symmetric": True}
        return QuantGuess("W8A8 (compressed-tensors int8)", _ct(weights, acts, "int-quantized"))
    if kind == "bnb":  # bitsandbytes as unsloth's -bnb-4bit uploads write it
        config: dict[str, Any] = {"quant_method": "bitsandbytes", f"load_in_{bits}bit": True}
        if bits == 4:
            config.update(bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True)
        return QuantGuess(f"bitsandbytes {bits}-bit", config)
    raise ValueError(kind)


def name_tokens(name: str) -> list[str]:
    return [t for t in TOKEN_SPLIT.split(name.lower()) if t]


def quant_from_tokens(tokens: list[str], owner: str) -> tuple[QuantGuess | None, list[str], str]:
    """(the quantization the tokens state, the tokens left unread, a note when it is not derived). Several
    different quantizations (`NVFP4-FP8`) are not guessed: the base's own is kept and the note says why."""
    words = set(tokens)
    bits = 8 if words & {"int8", "8bit", "w8a16"} else 4
    nvidia = owner.lower() == "nvidia"
    kinds: list[str] = []
    used: set[str] = set()

    def take(kind: str, *consumed: str) -> None:
        kinds.append(kind)
        used.update(consumed)

    if "fp8" in words and ("dynamic" in words or "fp8dynamic" in words):
        take("fp8-dynamic", "fp8", "dynamic")
    elif "fp8" in words:
        take("fp8-modelopt" if nvidia else "fp8", "fp8")
    if "nvfp4a16" in words:
        take("nvfp4a16", "nvfp4a16")
    elif "nvfp4" in words or (nvidia and "fp4" in words):
        take("nvfp4-modelopt" if nvidia else "nvfp4", "nvfp4", "fp4", "w4a4")
    for word in ("mxfp4", "mxfp8", "awq", "gptq"):
        if word in words:
            take(word, word, "int4", "int8", "4bit", "8bit", "w4a16")
    if words & {"autoround", "auto-round"} or {"auto", "round"} <= words:
        take("auto-round", "autoround", "auto", "round", "int4", "int8", "w4a16", "4bit", "8bit")
    if "bnb" in words:
        take("bnb", "bnb", "4bit", "8bit")
    for word in ("w8a8", "w8a16"):
        if word in words:
            take(word, word, "int8", "quantized")
    if not kinds and words & {"w4a16", "int4"}:
        take("w4a16", "w4a16", "int4", "quantized")
    if not kinds and "int8" in words:
        take("w8a8", "int8", "quantized")
    unread = [t for t in tokens if t not in used and t not in VARIANT_WORDS and not DATE.match(t)
              and t not in ("bf16", "fp16")]
    if len(set(kinds)) > 1:
        return None, unread, f"{MIX} ({', '.join(kinds)}), a mix the doctor does not guess"
    return (_quant(kinds[0], bits) if kinds else None), unread, "" if kinds else "no quantization named"


def is_quantized_name(name: str) -> bool:
    quant, _, note = quant_from_tokens(name_tokens(name), "")
    return quant is not None or is_mix(note)


def _spans(name: str, base: str) -> Iterable[tuple[int, int]]:
    """Where `base` occurs in `name` at token boundaries (both lower case)."""
    start = name.find(base)
    while start >= 0:
        end = start + len(base)
        before_ok = start == 0 or name[start - 1] in "-_."
        after = name[end:end + 2]
        after_ok = end == len(name) or after[0] in "-_" or (after[0] == "." and not after[1:2].isdigit())
        if before_ok and after_ok:
            yield start, end
        start = name.find(base, start + 1)


def _foreign(tokens: list[str]) -> bool:
    """Does a leftover token name another model (another size or family) or another checkpoint format?"""
    return any(SIZE.match(t) or t in FAMILY_WORDS or t in OTHER_FORMATS for t in tokens)


def resolve(spec: str, bundled: Iterable[str]) -> Derivation | None:
    """The bundled model an `ORG/NAME` hub id derives from, with the quantization its name states; None when no
    bundled name is a base of it."""
    owner, _, name = spec.partition("/")
    lowered = name.lower()
    by_name: dict[str, list[str]] = {}
    for repo in bundled:
        by_name.setdefault(repo.split("/", 1)[-1].lower(), []).append(repo)
    for bare, repos in [(_bare_name(n), r) for n, r in by_name.items()]:
        by_name.setdefault(bare, repos)  # NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 is Nemotron-3-Nano-30B-A3B
    if lowered in by_name:  # the same name under another owner: that config, as it is
        return Derivation(spec, sorted(by_name[lowered])[0], None, sibling=True)
    candidates = sorted(((b, s) for b in by_name for s in _spans(lowered, b)),
                        key=lambda c: (is_quantized_name(c[0]), -len(c[0]), c[1][0]))
    found: list[Derivation] = []
    for base, (start, end) in candidates:
        left = name_tokens(name[:start]) + name_tokens(name[end:])
        if _foreign(left):
            continue
        quant, unread, note = quant_from_tokens(left, owner)
        if is_quantized_name(base):
            if quant is not None or is_mix(note):  # a second quantization on a quantized sibling
                continue
            note = "the quantization its name states"
        found.append(Derivation(spec, sorted(by_name[base])[0], quant, tuple(unread), quant_note=note))
        if not is_mix(note):  # a mix the name states may be a quantized sibling's: look on
            return found[-1]
    return found[0] if found else None


def _bare_name(name: str) -> str:
    """A bundled name without the publisher prefix and dtype suffix derivatives drop: `nvidia-nemotron-3-nano-30b-
    a3b-bf16` → `nemotron-3-nano-30b-a3b`."""
    return re.sub(r"-bf16$", "", re.sub(r"^nvidia-", "", name))


def derived_files(derivation: Derivation, config: Any, hf_quant: Any) -> tuple[Any, Any]:
    """The base's config.json and hf_quant_config.json with the name's quantization in place of the base's."""
    if derivation.quant is None or not isinstance(config, dict):
        return config, hf_quant
    out = {k: v for k, v in config.items() if k != "quantization_config"}
    text = out.get("text_config")
    if isinstance(text, dict) and "quantization_config" in text:
        out["text_config"] = {k: v for k, v in text.items() if k != "quantization_config"}
    if derivation.quant.config is not None:
        out["quantization_config"] = derivation.quant.config
    return out, derivation.quant.hf_quant


def nearest(name: str, bundled: Iterable[str], limit: int = 3) -> list[str]:
    """Bundled ids whose name begins with the longest part of `name` (at least its first token and the separator
    after it): what a user might mean, never used as a base."""
    lowered = name.lower()
    first = len(name_tokens(name)[0]) + 1 if name_tokens(name) else 0
    scored = []
    for repo in bundled:
        theirs = repo.split("/", 1)[-1].lower()
        shared = next((i for i, (a, b) in enumerate(zip(lowered, theirs, strict=False)) if a != b),
                      min(len(lowered), len(theirs)))
        if first and shared >= first:
            scored.append((-shared, len(repo), repo))
    return [repo for _, _, repo in sorted(scored)[:limit]]


HF_CACHE_REPO = re.compile(r"^models--(?P<owner>[\w.-]+?)--(?P<name>[\w.-]+)$")


def hub_id_of_path(spec: str) -> list[str]:
    """The hub id a logged model directory stands for, to derive a config from its name: the Hugging Face cache's
    `models--ORG--NAME` folder, else the directory's own name (`/models/Qwen3.6-27B-FP8`) under an unknown owner."""
    path = PurePosixPath(spec)
    if not spec.startswith(("/", ".", "~")) and len(path.parts) < 3:  # a hub id itself, or no path
        return []
    for part in path.parts:
        if match := HF_CACHE_REPO.match(part):
            return [f"{match['owner']}/{match['name']}"]
    return [f"local/{path.name}"] if re.fullmatch(r"[\w.-]{1,96}", path.name) else []
