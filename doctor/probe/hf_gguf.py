"""A GGUF named on the hub the way llama.cpp's `-hf` takes it (`unsloth/Qwen3-30B-A3B-GGUF:UD-Q3_K_XL`): the file
itself when a download cache holds it (the Hugging Face cache, llama.cpp's own cache), else an estimate of its
tensor table from the original model's config (bundled, cached or on the hub) and the quant type the tag names.

The estimate writes the tensors llama.cpp's converter writes for the architecture (doctor/probe/gguf_arch.py: plain
GQA incl. Qwen3-VL and Llama 4, Gated DeltaNet and Mamba-2 hybrids, gpt-oss, Gemma 4, MLA and DSA, GLM-4 MoE,
MiniMax-M2) at the config's shapes, in the types llama.cpp's
quantizer picks for that file type (doctor/probe/gguf_quant_mix.py, a port of `llama_tensor_get_type`). Unsloth's
dynamic (UD-) mixes override types per tensor, so an estimate is said to be one: `general.estimate` in the
metadata. An architecture without a writer gets no estimate rather than a wrong one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from doctor.errors import InputError
from doctor.pipeline.facts import Model
from doctor.probe.gguf import GgufModel, GgufTensor, gguf_files, read_gguf, remember_estimate
from doctor.probe.gguf_arch import WRITERS, Table, write
from doctor.probe.gguf_quant_mix import DEFAULT_TYPE, ModelShape, QuantMix, file_type

SPEC = re.compile(r"^(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?::(?P<tag>[\w.-]+))?$")
DEFAULT_TAG = "Q4_K_M"  # what llama.cpp downloads when -hf names no quant


def is_hf_gguf_spec(spec: str) -> bool:
    """`owner/Repo-GGUF[:TAG]` or `owner/Repo:TAG`: a hub GGUF as llama.cpp's -hf names it, not a path."""
    match = SPEC.match(spec)
    return bool(match) and not Path(spec).expanduser().exists() and (
        bool(match["tag"]) or match["repo"].lower().endswith("-gguf"))


def load(spec: str, environ: Mapping[str, str], base_model: Model | None) -> GgufModel:
    """The cached file when there is one, else the estimate from `base_model` (the original checkpoint's
    config); InputError when neither answers."""
    match = SPEC.match(spec)
    if match is None:
        raise InputError(f"{spec} is not a hub GGUF name (owner/Repo-GGUF:QUANT)")
    tag = (match["tag"] or DEFAULT_TAG).upper()
    cached = cached_file(match["owner"], match["repo"], tag, environ)
    if cached is not None:
        return read_gguf(cached)
    if base_model is None:
        raise InputError(f"{spec}: the GGUF is not in a download cache and no config of its original model was "
                         f"found to estimate it from")
    return remember_estimate(f"hf-estimate:{spec}", estimate(base_model, tag, spec))


def base_model_id(spec: str) -> str | None:
    """The original checkpoint a GGUF repository converts: `unsloth/Qwen3-30B-A3B-GGUF` → `Qwen3-30B-A3B` (its
    owner is not stated; the caller looks the name up among the configs it knows)."""
    match = SPEC.match(spec)
    if match is None:
        return None
    return re.sub(r"[-_.]gguf$", "", match["repo"], flags=re.IGNORECASE)


def cached_file(owner: str, repo: str, tag: str, environ: Mapping[str, str]) -> Path | None:
    """The first file of the quant in the Hugging Face cache (`models--owner--repo/snapshots/*/`) or llama.cpp's
    cache (`$LLAMA_CACHE`, else ~/.cache/llama.cpp: `owner_repo_FILE.gguf`)."""
    home = Path(environ.get("HOME") or Path.home())
    hub = Path(environ.get("HF_HUB_CACHE") or Path(environ.get("HF_HOME") or home / ".cache" / "huggingface") / "hub")
    llama = Path(environ.get("LLAMA_CACHE") or home / ".cache" / "llama.cpp")
    wanted = re.compile(rf"(?i)[-_.]{re.escape(tag)}(?:-\d{{5}}-of-\d{{5}})?\.gguf$")
    candidates = [*sorted((hub / f"models--{owner}--{repo}").glob("snapshots/*/**/*.gguf")),
                  *sorted(llama.glob(f"{owner}_{repo}_*.gguf"))]
    for path in candidates:
        if wanted.search(path.name) and "mmproj" not in path.name.lower():
            return gguf_files(path)[0] if path.is_file() else None
    return None


def estimate(model: Model, tag: str, spec: str) -> GgufModel:
    """The tensor table llama.cpp's converter and quantizer would write for `model`'s config at `tag`."""
    config = _raw_config(model)
    table = write(model.model_type, config) if config is not None else None
    if table is None:
        raise InputError(f"{spec}: no file in a download cache, and the doctor does not estimate a GGUF of "
                         f"{model.model_type} (no writer of llama.cpp's tensor table for it: "
                         f"{', '.join(sorted({arch for arch, _ in WRITERS.values()}))} are written)")
    ftype = file_type(tag)
    tensors = quantized(table, ftype)
    metadata = {"general.architecture": table.arch, "general.name": spec, "general.file_type": _FILE_TYPES.get(ftype),
                "general.estimate": f"estimated from {model.id}'s config and the quant type {tag} (the file is not on "
                                    f"disk)", **table.meta}
    return GgufModel(paths=(f"hf-estimate:{spec}",), metadata=metadata, tensors=tuple(tensors),
                     file_bytes=sum(t.n_bytes for t in tensors))


def quantized(table: Table, ftype: str) -> list[GgufTensor]:
    """Each converted tensor at the type llama-quantize gives it (a tensor the converter already stored quantized,
    gpt-oss's MXFP4 experts, keeps its type: requantizing is refused without --allow-requantize,
    src/llama-quant.cpp:1306)."""
    names = [name for name, _, _ in table.tensors]
    n_layer = int(table.meta.get(f"{table.arch}.block_count", 0))
    heads = int(table.meta.get(f"{table.arch}.attention.head_count", 1))
    kv_heads = table.meta.get(f"{table.arch}.attention.head_count_kv", heads)
    kv_heads = int(kv_heads[0] if isinstance(kv_heads, list) else kv_heads)  # n_gqa() reads layer 0; 0 heads: 0
    shape = ModelShape(n_layer=n_layer, n_expert=int(table.meta.get(f"{table.arch}.expert_count", 0) or 0),
                       n_gqa=heads // kv_heads if kv_heads else 0, tied_embeddings="output.weight" not in names)
    mix = QuantMix(ftype, shape, names)
    out = []
    for name, dims, source in table.tensors:
        kept = source not in ("BF16", "F16", "F32")
        out.append(_tensor(name, source if kept else mix.type_of(name, dims, source), dims))
    return out


def tensor_types(tag: str) -> dict[str, str]:
    """The main GGML type of a llama.cpp file-type tag (`Q4_K_M` → Q4_K), for messages and tests."""
    ftype = file_type(tag)
    return {"file_type": ftype, "matrix": DEFAULT_TYPE[ftype]}


def _raw_config(model: Model) -> dict[str, Any] | None:
    """The original checkpoint's config.json (the estimate needs fields the Model fact does not keep)."""
    if not model.source_path:
        return None
    path = Path(model.source_path)
    path = path / "config.json" if path.is_dir() else path
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _tensor(name: str, type_name: str, shape: tuple[int, ...]) -> GgufTensor:
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    elements = 1
    for dim in shape:
        elements *= dim
    block, size = GGML_QUANT_SIZES[GGMLQuantizationType[type_name]]
    return GgufTensor(name, type_name, shape, elements, elements // block * size)


_FILE_TYPES = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q8_0": 7, "Q5_0": 8, "Q5_1": 9, "Q2_K": 10, "Q3_K_S": 11,
               "Q3_K_M": 12, "Q3_K_L": 13, "Q4_K_S": 14, "Q4_K_M": 15, "Q5_K_S": 16, "Q5_K_M": 17, "Q6_K": 18,
               "IQ2_XXS": 19, "IQ2_XS": 20, "Q2_K_S": 21, "IQ3_XS": 22, "IQ3_XXS": 23, "IQ1_S": 24, "IQ4_NL": 25,
               "IQ3_S": 26, "IQ3_M": 27, "IQ2_S": 28, "IQ2_M": 29, "IQ4_XS": 30, "IQ1_M": 31, "BF16": 32,
               "MXFP4_MOE": 38}  # gguf-py LlamaFileType
