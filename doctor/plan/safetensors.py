"""Exact weight bytes from a checkpoint's safetensors headers, without reading any weight.

A safetensors file starts with an 8-byte little-endian header length and a JSON header mapping each
tensor name to {dtype, shape, data_offsets}. Local model directories are read directly; for a hub id,
huggingface-hub's `get_safetensors_metadata` fetches only the headers (HTTP range requests). Hub answers
are cached under $SM120_DOCTOR_CACHE (default ~/.cache/sm120-doctor/safetensors). Any hub or network
failure degrades to the config computation, with the reason recorded.
"""

from __future__ import annotations

import json
import os
import re
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from doctor.errors import InputError
from doctor.output import open_regular, read_regular_bytes
from doctor.pipeline.facts import Model
from doctor.plan.arch import Piece
from doctor.validation import shown

DTYPE_SIZES = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2, "U16": 2,
               "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1, "F4": 1}
MAX_HEADER = 100 << 20
LAYER = re.compile(r"(?:^|\.)layers\.(\d+)\.")
TensorInfo = tuple[str, tuple[int, ...]]


def read_header(path: Path) -> dict[str, TensorInfo]:
    """name -> (dtype, shape) from one .safetensors file; a corrupt header is one clear InputError."""
    try:
        with open_regular(path) as handle:
            prefix = handle.read(8)
            if len(prefix) != 8:
                raise InputError(f"{path}: too short for a safetensors header")
            (length,) = struct.unpack("<Q", prefix)
            if not 2 <= length <= MAX_HEADER:
                raise InputError(f"{path}: safetensors header length {length} is implausible")
            raw = handle.read(length)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path}: safetensors header is not JSON") from exc
    return parse_header(header, str(path))


def parse_header(header: Any, where: str) -> dict[str, TensorInfo]:
    if not isinstance(header, dict):
        raise InputError(f"{where}: safetensors header must be a JSON object")
    out: dict[str, TensorInfo] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("shape"), list):
            raise InputError(f"{where}: tensor {shown(name)} has no shape")
        dtype = entry.get("dtype")
        shape = entry["shape"]
        if not isinstance(dtype, str) or dtype not in DTYPE_SIZES or len(shape) > 16 or not all(
                type(d) is int and 0 <= d < 1 << 40 for d in shape):
            raise InputError(f"{where}: tensor {shown(name)} has dtype {shown(dtype)} / shape {shown(shape)} this "
                             "doctor cannot size")
        out[name] = (dtype, tuple(shape))
    return out


def tensor_bytes(info: TensorInfo) -> int:
    dtype, shape = info
    numel = 1
    for dim in shape:
        numel *= dim
    return numel * DTYPE_SIZES[dtype]


def classify(name: str, model: Model) -> tuple[str, str, int | None, str]:
    """(kind, shard, layer, place) for one checkpoint tensor, by the engines' module sharding (doctor.plan.arch)."""
    n = name.replace("language_model.", "")
    if any(key in n for key in ("vision_tower", "mm_projector", "visual.", "vision_model", "multi_modal_projector")):
        return "vision", "rep", None, "first"
    match = LAYER.search(n)
    if match is None:
        if "embed_tokens" in n:
            return "embed", "tp", None, "first"
        if "lm_head" in n:
            return "lm_head", "tp", None, "last"
        return "norm", "rep", None, "last"
    layer = int(match.group(1))
    rest = n[match.end():]
    if layer >= model.num_layers:
        return "mtp", "rep" if "norm" in rest else "tp", layer, "layer"
    if rest.startswith("self_attn."):
        if any(k in rest for k in ("q_a_proj", "kv_a_proj", "layernorm", "q_norm", "k_norm")):
            return "attention", "rep", layer, "layer"
        if any(k in rest for k in (".k_proj", ".v_proj")):
            return "attention", "kv", layer, "layer"
        return "attention", "tp", layer, "layer"
    if ".experts." in f".{rest}" or rest.startswith(("mlp.experts", "block_sparse_moe.experts")):
        return "routed_experts", "tp", layer, "layer"
    if "shared_expert" in rest:
        return "shared_experts", "tp", layer, "layer"
    if re.match(r"(mlp|block_sparse_moe)\.(gate|router)\b(?!_)", rest) or "e_score_correction_bias" in rest:
        return "router", "rep", layer, "layer"
    if rest.startswith("mlp."):
        return "dense_mlp", "tp", layer, "layer"
    return "norm", "rep", layer, "layer"


def pieces_from_headers(tensors: Mapping[str, TensorInfo], model: Model) -> list[Piece]:
    sums: dict[tuple[str, str, int | None, str], int] = {}
    for name, info in tensors.items():
        key = classify(name, model)
        sums[key] = sums.get(key, 0) + tensor_bytes(info)
    return [Piece(kind, nbytes, shard, layer, place) for (kind, shard, layer, place), nbytes in sums.items()]


INDEX = "model.safetensors.index.json"
MAX_INDEX = 64 << 20


def local_tensors(model_dir: Path) -> dict[str, TensorInfo] | None:
    """Headers of every shard in the directory; None when there are none, or when the index names shards
    that are not there (a partial download would under-count)."""
    files = sorted(model_dir.glob("*.safetensors"))
    index = _index(model_dir)
    if not files or (index is not None and not all((model_dir / name).is_file() for name in index[1])):
        return None
    tensors: dict[str, TensorInfo] = {}
    for path in files:
        tensors.update(read_header(path))
    return tensors


def index_total_size(model_dir: Path) -> tuple[int, str] | None:
    """`metadata.total_size` of the directory's safetensors index (the tensors' bytes), and where it is from."""
    index = _index(model_dir)
    return (index[0], f"metadata.total_size of {model_dir / INDEX}") if index and index[0] else None


def _index(model_dir: Path) -> tuple[int, set[str]] | None:
    """(total_size or 0, shard file names) of the directory's index; None without a readable one."""
    path = model_dir / INDEX
    try:
        data = json.loads(read_regular_bytes(path, MAX_INDEX))
    except (OSError, ValueError, InputError):
        return None
    if not isinstance(data, dict):
        return None
    total = (data.get("metadata") or {}).get("total_size") if isinstance(data.get("metadata"), dict) else None
    weight_map = data.get("weight_map")
    shards = {v for v in weight_map.values() if isinstance(v, str)} if isinstance(weight_map, dict) else set()
    plausible = isinstance(total, int) and not isinstance(total, bool) and 0 < total < 1 << 50
    return (total if plausible else 0), shards


def cache_dir(environ: Mapping[str, str]) -> Path:
    from doctor.cache import cache_root

    return cache_root(environ) / "safetensors"


def hub_tensors(repo_id: str, environ: Mapping[str, str], offline: bool) -> tuple[dict[str, TensorInfo] | None, str]:
    """Headers of a hub repo, from the cache or the hub; (None, why) when neither answers."""
    cached = cache_dir(environ) / (repo_id.replace("/", "--") + ".json")
    if cached.is_file():
        try:
            return parse_header(json.loads(read_regular_bytes(cached, MAX_HEADER)), str(cached)), "cache"
        except (OSError, ValueError, InputError):
            pass
    if offline or environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return None, "hub not asked (offline)"
    from doctor.probe.model import hub_unreachable

    unreachable = hub_unreachable(environ)  # a TCP connect with a deadline before huggingface-hub's retries
    if unreachable:
        return None, f"hub unreachable ({unreachable})"
    try:
        from huggingface_hub import get_safetensors_metadata

        os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", "5")
        os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", "5")
        meta = get_safetensors_metadata(repo_id)
        header = {name: {"dtype": info.dtype, "shape": list(info.shape)}
                  for file_meta in meta.files_metadata.values() for name, info in file_meta.tensors.items()}
    except Exception as exc:  # any hub, network, auth or format failure: fall back to the config
        text = str(exc).strip().splitlines()
        return None, f"hub unreachable ({type(exc).__name__}: {text[0][:120] if text else ''})"
    tensors = parse_header(header, repo_id)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(header), encoding="utf-8")
    except OSError:
        pass
    return tensors, "hub"


def checkpoint_pieces(model: Model, environ: Mapping[str, str], offline: bool) -> tuple[list[Piece] | None, str]:
    """Pieces from real headers when reachable: a local directory's files, else the hub (only for models
    whose config came from the hub or its cache; a bundled config means the hub already failed)."""
    if model.source == "local" and model.source_path:
        tensors = local_tensors(Path(model.source_path))
        return (pieces_from_headers(tensors, model), "safetensors-local") if tensors else (None, "no local shards")
    if model.source == "hf-cache" and model.source_path:  # the shards beside the cached config, when complete
        tensors = local_tensors(Path(model.source_path))
        if tensors:
            return pieces_from_headers(tensors, model), "safetensors-hf-cache"
    if model.source in ("hub", "hf-cache"):
        tensors, why = hub_tensors(model.id, environ, offline)
        if tensors:
            return pieces_from_headers(tensors, model), f"safetensors-{why}"
        return None, why
    return None, f"config from {model.source}: hub headers not asked"
