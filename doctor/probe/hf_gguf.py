"""A GGUF named on the hub the way llama.cpp's `-hf` takes it (`unsloth/Qwen3-30B-A3B-GGUF:UD-Q3_K_XL`): the file
itself when a download cache holds it (the Hugging Face cache, llama.cpp's own cache), else an estimate of its
tensor table from the original model's config (bundled, cached or on the hub) and the quant type the tag names.

The estimate writes the tensors a llama.cpp converter writes for a transformer block (attention q/k/v/output, norms,
a dense FFN or routed and shared experts, embeddings and output) at the config's shapes, in the types llama.cpp's
quantizer picks for that file type (src/llama-quant.cpp `llama_tensor_get_type`, simplified: the main type for
every matrix, one K-quant up for attn_v and ffn_down in _M files and also attn_output in _L/_XL files, Q6_K for the
output matrix, Q8_0 around MXFP4 experts). Unsloth's dynamic (UD-) mixes differ per tensor, so an estimate is said
to be one: `general.estimate` in the metadata. Only plain attention (GQA/MHA, no MLA, no sliding window, no linear
attention) is estimated; any other model gets no estimate rather than a wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from doctor.errors import InputError
from doctor.pipeline.facts import Model
from doctor.probe.gguf import GgufModel, GgufTensor, gguf_files, read_gguf, remember_estimate

SPEC = re.compile(r"^(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+?)(?::(?P<tag>[\w.-]+))?$")
DEFAULT_TAG = "Q4_K_M"  # what llama.cpp downloads when -hf names no quant
ARCHS = {"qwen3_moe": "qwen3moe", "qwen3": "qwen3", "qwen2": "qwen2", "qwen2_moe": "qwen2moe", "llama": "llama",
         "mistral": "llama", "mixtral": "llama"}
ONE_UP = {"Q2_K": "Q3_K", "Q3_K": "Q4_K", "Q4_K": "Q6_K", "Q5_K": "Q6_K", "Q6_K": "Q6_K"}
TAG = re.compile(r"^(?:UD-)?(?P<base>I?Q\d_(?:K|\d|NL|XXS|XS|S|M)|MXFP4|NVFP4|BF16|F16|F32)"
                 r"(?:_(?P<size>XXS|XS|S|M|L|XL))?(?P<moe>_MOE)?$")


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
    arch = ARCHS.get(model.model_type)
    att = model.attention
    if arch is None or att.kind == "mla" or att.sliding_window or att.linear_attention_layers:
        raise InputError(f"{spec}: no file in a download cache, and the doctor does not estimate a GGUF of "
                         f"{model.model_type} ({att.kind} attention{', sliding window' if att.sliding_window else ''})")
    types = tensor_types(tag)
    blocks = (t for layer in range(model.num_layers) for t in _block(model, layer, types))
    tensors = [*_embeddings(model, types), *blocks]
    metadata = _metadata(model, arch, tag, spec)
    return GgufModel(paths=(f"hf-estimate:{spec}",), metadata=metadata, tensors=tuple(tensors),
                     file_bytes=sum(t.n_bytes for t in tensors))


def tensor_types(tag: str) -> dict[str, str]:
    """The GGML type of each tensor role for a llama.cpp file-type tag (`Q4_K_M`, `UD-Q3_K_XL`, `MXFP4_MOE`)."""
    match = TAG.match(tag.upper())
    if match is None:
        raise InputError(f"quant tag {tag!r} is not a llama.cpp file type the doctor can estimate")
    main, size = match["base"], match["size"] or ""
    if match["moe"] or main == "MXFP4":
        return {"matrix": "Q8_0", "experts": "MXFP4", "experts_down": "MXFP4", "attn_v": "Q8_0",
                "attn_output": "Q8_0", "ffn_down": "Q8_0", "output": "Q8_0", "embd": "Q8_0"}
    up = ONE_UP.get(main, main)
    wide = size in ("M", "L", "XL")
    return {"matrix": main, "experts": main, "embd": main, "output": "Q6_K" if main not in ("F16", "BF16", "F32",
            "Q8_0") else main, "attn_v": up if wide else main, "ffn_down": up if wide else main,
            "experts_down": up if wide else main, "attn_output": up if size in ("L", "XL") else main,
            "more_bits_only": main if size == "M" else ""}


def _more_bits(layer: int, layers: int) -> bool:
    """llama-quant.cpp's use_more_bits: the first and last eighth of the layers and every third between."""
    return layer < layers // 8 or layer >= 7 * layers // 8 or (layer - layers // 8) % 3 == 2


def _for_layer(types: dict[str, str], layer: int, layers: int) -> dict[str, str]:
    """_M files give attn_v and ffn_down the type one up only in use_more_bits layers."""
    main = types.get("more_bits_only", "")
    if not main or _more_bits(layer, layers):
        return types
    return {**types, "attn_v": main, "ffn_down": main, "experts_down": main}


def _tensor(name: str, type_name: str, shape: tuple[int, ...]) -> GgufTensor:
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    elements = 1
    for dim in shape:
        elements *= dim
    block, size = GGML_QUANT_SIZES[GGMLQuantizationType[type_name]]
    return GgufTensor(name, type_name, shape, elements, elements // block * size)


def _embeddings(model: Model, types: dict[str, str]) -> list[GgufTensor]:
    out = [_tensor("token_embd.weight", types["embd"], (model.hidden_size, model.vocab_size)),
           _tensor("output_norm.weight", "F32", (model.hidden_size,))]
    if not model.tie_word_embeddings:
        out.append(_tensor("output.weight", types["output"], (model.hidden_size, model.vocab_size)))
    return out


def _block(model: Model, layer: int, types: dict[str, str]) -> list[GgufTensor]:
    att, hidden, p = model.attention, model.hidden_size, f"blk.{layer}."
    types = _for_layer(types, layer, model.num_layers)
    q, kv = att.num_heads * att.head_dim, att.num_kv_heads * att.head_dim
    out = [_tensor(p + "attn_norm.weight", "F32", (hidden,)), _tensor(p + "ffn_norm.weight", "F32", (hidden,)),
           _tensor(p + "attn_q.weight", types["matrix"], (hidden, q)),
           _tensor(p + "attn_k.weight", types["matrix"], (hidden, kv)),
           _tensor(p + "attn_v.weight", types["attn_v"], (hidden, att.num_kv_heads * att.v_head_dim)),
           _tensor(p + "attn_output.weight", types["attn_output"], (att.num_heads * att.v_head_dim, hidden))]
    moe = model.moe
    if moe is None or layer < moe.first_dense_layers:
        inter = model.intermediate_size or 4 * hidden
        return [*out, _tensor(p + "ffn_gate.weight", types["matrix"], (hidden, inter)),
                _tensor(p + "ffn_up.weight", types["matrix"], (hidden, inter)),
                _tensor(p + "ffn_down.weight", types["ffn_down"], (inter, hidden))]
    experts, width = moe.routed_experts, moe.intermediate_size
    out += [_tensor(p + "ffn_gate_inp.weight", "F32", (hidden, experts)),
            _tensor(p + "ffn_gate_exps.weight", types["experts"], (hidden, width, experts)),
            _tensor(p + "ffn_up_exps.weight", types["experts"], (hidden, width, experts)),
            _tensor(p + "ffn_down_exps.weight", types["experts_down"], (width, hidden, experts))]
    if moe.shared_experts:
        shared = width * moe.shared_experts
        out += [_tensor(p + "ffn_gate_shexp.weight", types["matrix"], (hidden, shared)),
                _tensor(p + "ffn_up_shexp.weight", types["matrix"], (hidden, shared)),
                _tensor(p + "ffn_down_shexp.weight", types["ffn_down"], (shared, hidden))]
    return out


def _metadata(model: Model, arch: str, tag: str, spec: str) -> dict[str, object]:
    att = model.attention
    meta: dict[str, object] = {
        "general.architecture": arch, "general.name": spec,
        "general.estimate": f"estimated from {model.id}'s config and the quant type {tag} (the file is not on disk)",
        f"{arch}.block_count": model.num_layers, f"{arch}.embedding_length": model.hidden_size,
        f"{arch}.attention.head_count": att.num_heads, f"{arch}.attention.head_count_kv": att.num_kv_heads,
        f"{arch}.attention.key_length": att.head_dim, f"{arch}.attention.value_length": att.v_head_dim,
        f"{arch}.vocab_size": model.vocab_size, f"{arch}.feed_forward_length": model.intermediate_size or 0,
    }
    if model.max_position_embeddings:
        meta[f"{arch}.context_length"] = model.max_position_embeddings
    if model.moe is not None:
        meta.update({f"{arch}.expert_count": model.moe.routed_experts, f"{arch}.expert_used_count": model.moe.top_k,
                     f"{arch}.expert_feed_forward_length": model.moe.intermediate_size,
                     f"{arch}.expert_shared_count": model.moe.shared_experts,
                     f"{arch}.leading_dense_block_count": model.moe.first_dense_layers})
    return meta
