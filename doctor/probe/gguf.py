"""GGUF models: the header and tensor table of a `.gguf` file (or a `-00001-of-0000N.gguf` split set, or a
directory holding one model) read with ggml's own `gguf` package, never the tensor data.

`gguf.GGUFReader` memory-maps the file and parses the key/value metadata and the tensor infos; tensor
data stay unread views of the map. Each tensor's byte size is the reader's own `n_bytes` (elements x
type size / block size, from `gguf.GGML_QUANT_SIZES`). `gguf` (and numpy) are imported only here, only
when a GGUF model is asked for, so the default path stays fast.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from doctor.errors import InputError

SPLIT = re.compile(r"^(?P<prefix>.+)-(?P<index>\d{5})-of-(?P<count>\d{5})\.gguf$")
MAX_METADATA_ITEMS = 64  # longer arrays (token lists) are kept as their length only
PROJECTOR_PREFIXES = ("mmproj",)  # multimodal projector files beside a model: not the model


@dataclass(frozen=True)
class GgufTensor:
    name: str
    type: str  # GGML type name: F16, Q4_K, MXFP4, ...
    shape: tuple[int, ...]  # GGUF order: ne[0] (the row) first
    n_elements: int
    n_bytes: int
    split: int = 0  # index of the file in the split set

    @property
    def layer(self) -> int | None:
        """`blk.12.ffn_up.weight` → 12; None for tensors outside the repeating blocks."""
        parts = self.name.split(".")
        return int(parts[1]) if len(parts) > 2 and parts[0] == "blk" and parts[1].isdigit() else None


@dataclass(frozen=True)
class GgufModel:
    paths: tuple[str, ...]
    metadata: dict[str, Any]
    tensors: tuple[GgufTensor, ...]
    file_bytes: int
    array_lengths: dict[str, int] = field(default_factory=dict)

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", "unknown"))

    def arch_value(self, key: str, default: Any = None) -> Any:
        """`{arch}.{key}`, e.g. `attention.head_count_kv` → `llama.attention.head_count_kv`."""
        return self.metadata.get(f"{self.architecture}.{key}", default)

    @property
    def tensor_bytes(self) -> int:
        return sum(t.n_bytes for t in self.tensors)

    @property
    def block_count(self) -> int:
        layers = [t.layer for t in self.tensors if t.layer is not None]
        return int(self.arch_value("block_count", 0) or (max(layers) + 1 if layers else 0))

    def per_layer(self, key: str, default: int = 0) -> list[int]:
        """A hyperparameter that GGUF stores either once or per layer (`head_count_kv` on some models)."""
        value = self.arch_value(key, default)
        n = self.block_count
        if isinstance(value, list):
            return [int(v) for v in value[:n]] + [int(value[-1]) if value else default] * max(0, n - len(value))
        return [int(value)] * n

    @property
    def type_counts(self) -> dict[str, int]:
        return dict(Counter(t.type for t in self.tensors).most_common())

    @property
    def file_type(self) -> str | None:
        value = self.metadata.get("general.file_type")
        if value is None:
            return None
        from gguf import LlamaFileType

        try:
            return LlamaFileType(int(value)).name.removeprefix("MOSTLY_").removeprefix("ALL_")
        except ValueError:
            return f"file_type {value}"


def gguf_files(spec: str | Path) -> list[Path]:
    """The files of one GGUF model: a file, every part of its split set, or the one model in a directory."""
    path = Path(spec).expanduser()
    if path.is_dir():
        return _model_in_directory(path)
    if not path.is_file():
        raise InputError(f"GGUF model {spec} does not exist")
    match = SPLIT.match(path.name)
    return _split_set(path.parent, match) if match else [path]


def _split_set(folder: Path, match: re.Match[str]) -> list[Path]:
    prefix, count = match.group("prefix"), int(match.group("count"))
    parts = [folder / f"{prefix}-{i:05d}-of-{count:05d}.gguf" for i in range(1, count + 1)]
    missing = [p.name for p in parts if not p.is_file()]
    if missing:
        raise InputError(f"GGUF split set {prefix} is incomplete: missing {', '.join(missing[:4])}"
                         + (f" and {len(missing) - 4} more" if len(missing) > 4 else ""))
    return parts


def _model_in_directory(folder: Path) -> list[Path]:
    files = sorted(p for p in folder.glob("*.gguf") if not p.name.lower().startswith(PROJECTOR_PREFIXES))
    if not files:
        raise InputError(f"directory {folder} holds no GGUF model (*.gguf)")
    models: dict[str, Path] = {}
    for path in files:
        match = SPLIT.match(path.name)
        models.setdefault(match.group("prefix") if match else path.stem, path)
    if len(models) > 1:
        names = ", ".join(p.name for p in list(models.values())[:6])
        raise InputError(f"directory {folder} holds {len(models)} GGUF models ({names}): name the file")
    return gguf_files(next(iter(models.values())))


_ESTIMATES: dict[str, GgufModel] = {}  # hub GGUFs not on disk, estimated (doctor/probe/hf_gguf.py), by name


def remember_estimate(name: str, model: GgufModel) -> GgufModel:
    """Keep an estimated tensor table under `name` (`hf-estimate:owner/Repo-GGUF:QUANT`), so that a Model whose
    source_path is that name reads it like a file."""
    _ESTIMATES[name] = model
    return model


def read_gguf(spec: str | Path) -> GgufModel:
    if str(spec) in _ESTIMATES:
        return _ESTIMATES[str(spec)]
    files = gguf_files(spec)
    return _read_cached(tuple(str(p.resolve()) for p in files),
                        tuple(p.stat().st_mtime_ns for p in files))


@lru_cache(maxsize=8)
def _read_cached(paths: tuple[str, ...], mtimes: tuple[int, ...]) -> GgufModel:
    metadata: dict[str, Any] = {}
    lengths: dict[str, int] = {}
    tensors: list[GgufTensor] = []
    for index, path in enumerate(paths):
        meta, part_lengths, part_tensors = _read_one(Path(path), index)
        if index == 0:
            metadata, lengths = meta, part_lengths
        tensors.extend(part_tensors)
    total = sum(Path(p).stat().st_size for p in paths)
    return GgufModel(paths=paths, metadata=metadata, tensors=tuple(tensors), file_bytes=total,
                     array_lengths=lengths)


def _read_one(path: Path, index: int) -> tuple[dict[str, Any], dict[str, int], list[GgufTensor]]:
    try:
        from gguf import GGUFReader
    except ImportError as exc:
        raise InputError("reading a GGUF model needs the `gguf` package: pip install gguf") from exc
    try:
        reader = GGUFReader(path, "r")
        metadata, lengths = _metadata(reader)
        tensors = [GgufTensor(t.name, t.tensor_type.name, tuple(int(d) for d in t.shape), int(t.n_elements),
                              int(t.n_bytes), index) for t in reader.tensors]
    except OSError as exc:
        raise InputError(f"cannot read GGUF file {path}: {exc.strerror or exc}") from exc
    except Exception as exc:  # a corrupt or hostile file: any parser failure is one clear line
        raise InputError(f"{path} is not a readable GGUF file: {type(exc).__name__}: {_first_line(exc)}") from exc
    return metadata, lengths, tensors


def _metadata(reader: Any) -> tuple[dict[str, Any], dict[str, int]]:
    from gguf import GGUFValueType

    metadata: dict[str, Any] = {}
    lengths: dict[str, int] = {}
    for name, fld in reader.fields.items():
        if name.startswith("GGUF."):
            continue
        if fld.types and fld.types[0] == GGUFValueType.ARRAY:
            lengths[name] = len(fld.data)
            if len(fld.data) > MAX_METADATA_ITEMS:
                continue
        metadata[name] = fld.contents()
    return metadata, lengths


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:160] if text else ""
