"""Find a model's config: local directory → Hugging Face cache → hub → configs bundled with the doctor.

The hub is asked only when the cache misses and HF_HUB_OFFLINE is not set, with a short timeout;
any failure there falls through to the bundled configs, and the fact records which source answered.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from doctor.errors import InputError
from doctor.output import read_json_file, read_regular_bytes
from doctor.pipeline.facts import Model
from doctor.probe.model_config import parse_model
from doctor.validation import shown

REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}$")
MAX_CONFIG_BYTES = 16 << 20
MAX_SPEC = 4096  # PATH_MAX
HUB_TIMEOUT_S = 5.0

# beside this package, not importlib.resources: that pulls in zipfile (~5 ms of every cold start)
BUNDLE = Path(__file__).resolve().parent.parent / "data" / "models"


@dataclass(frozen=True)
class ConfigFiles:
    """A model's config.json (and hf_quant_config.json) and where they were found."""

    config: Any
    hf_quant: Any
    source: str
    path: str | None
    reconstructed: bool = False
    derivation: str | None = None  # how a config was derived from a bundled base (doctor.probe.derived_name)
    architecture_unverified: str | None = None  # a bundled copy whose `architectures` may not be the hub file's


def load_model(spec: str, environ: Mapping[str, str], offline: bool = False) -> Model:
    check_spec(spec)
    if is_gguf_spec(spec):  # a .gguf file, split set or GGUF directory: its header is the config
        from doctor.probe.gguf import read_gguf
        from doctor.probe.gguf_model import model_from_gguf

        return model_from_gguf(read_gguf(spec), spec)
    from doctor.probe.hf_gguf import is_hf_gguf_spec

    if is_hf_gguf_spec(spec):  # llama.cpp's -hf owner/Repo-GGUF:QUANT
        return _hub_gguf(spec, environ, offline)
    files = find_config(spec, environ, offline)
    return parse_model(files.config, files.hf_quant, model_id=spec, source=files.source,
                       source_path=files.path, reconstructed=files.reconstructed, derivation=files.derivation,
                       architecture_unverified=files.architecture_unverified)


def _hub_gguf(spec: str, environ: Mapping[str, str], offline: bool) -> Model:
    """The file from a download cache, else its tensor table estimated from the original model's config."""
    import dataclasses

    from doctor.probe.gguf_model import model_from_gguf
    from doctor.probe.hf_gguf import base_model_id, load

    base = _bundled_base(base_model_id(spec) or "", environ, offline)
    gguf = load(spec, environ, base)
    model = model_from_gguf(gguf, spec)
    if estimate := gguf.metadata.get("general.estimate"):
        quantization = dataclasses.replace(model.quantization, source=str(estimate))
        model = dataclasses.replace(model, quantization=quantization)
    return model


def _bundled_base(name: str, environ: Mapping[str, str], offline: bool) -> Model | None:
    """The bundled config whose name is the GGUF repository's original model (`Qwen3-30B-A3B`, with or without an
    `-it`/`-Instruct` suffix); None when none is, or when the name says more than the base (a size, a quantization,
    an unread token: the GGUF file, not a guess, says what it holds)."""
    from doctor.probe.derived_name import resolve

    derivation = resolve(f"gguf/{name}", bundled_models()) if name else None
    if derivation is None or derivation.quant is not None or derivation.unread or derivation.refused:
        return None
    return load_model(derivation.base, environ, offline=True)


def is_gguf_spec(spec: str) -> bool:
    """Does `spec` name a GGUF file, or a directory with GGUF files and no config.json?"""
    if spec.lower().endswith(".gguf"):
        return True
    try:
        path = Path(spec).expanduser()
        return path.is_dir() and not (path / "config.json").is_file() and any(path.glob("*.gguf"))
    except (OSError, ValueError):  # a name no file system takes (too long, NUL): not a GGUF directory
        return False


def check_spec(spec: str) -> None:
    """A model name no file system or hub would take is one clear error, before anything looks it up."""
    if not spec.strip():
        raise InputError("the model is an empty string: give a Hugging Face id (org/name) or a local directory")
    if len(spec) > MAX_SPEC:
        raise InputError(f"model {shown(spec)} is {len(spec)} characters long; an id or a path has at most {MAX_SPEC}")


def find_config(spec: str, environ: Mapping[str, str], offline: bool = False) -> ConfigFiles:
    check_spec(spec)
    path = Path(spec).expanduser()
    if _is_dir(path):
        return _from_dir(path, "local")
    if _looks_like_path(spec):
        raise InputError(f"model directory {shown(spec)} does not exist")
    if not REPO_ID.match(spec):
        raise InputError(f"{shown(spec)} is neither a local directory nor a Hugging Face model id (org/name)")
    misses = []
    cached = _from_hf_cache(spec, environ)
    if cached is not None:
        return cached
    misses.append("not in the Hugging Face cache")
    if offline or environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        misses.append("hub not asked (offline)")
    else:
        hub, why = _from_hub(spec, environ)
        if hub is not None:
            return hub
        misses.append(f"hub unreachable ({why})")
    bundled = _from_bundle(spec)
    if bundled is not None:
        return bundled
    derived, why = _derived(spec)
    if derived is not None:
        return derived
    misses.append(f"not bundled (see `sm120-doctor models`), {why}")
    raise InputError(f"model {spec} not found: " + "; ".join(misses))


def bundled_models() -> dict[str, dict[str, str]]:
    index = BUNDLE / "index.json"
    return json.loads(index.read_text(encoding="utf-8"))


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # a name too long for the OS, or with a NUL byte: not a directory
        return False


def _looks_like_path(spec: str) -> bool:
    return spec.startswith((".", "/", "~")) or os.sep in spec.strip("/").replace("/", "", 1)


def _from_dir(path: Path, source: str, reconstructed: bool = False) -> ConfigFiles:
    config_path = path / "config.json"
    if not config_path.exists():
        raise InputError(f"model directory {path} has no config.json")
    config = _read_json(config_path)  # a FIFO or directory named config.json: one error, never a blocking read
    quant_path = path / "hf_quant_config.json"
    hf_quant = _read_json(quant_path) if quant_path.exists() else None
    return ConfigFiles(config, hf_quant, source, str(path), reconstructed)


def _read_json(path: Path) -> Any:
    return read_json_file(path, "config file", MAX_CONFIG_BYTES)


def hf_cache_dir(environ: Mapping[str, str]) -> Path:
    """Where huggingface-hub keeps its cache: HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME."""
    if environ.get("HF_HUB_CACHE"):
        return Path(environ["HF_HUB_CACHE"]).expanduser()
    if environ.get("HF_HOME"):
        return Path(environ["HF_HOME"]).expanduser() / "hub"
    xdg = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg).expanduser() / "huggingface" / "hub"


def _from_hf_cache(repo_id: str, environ: Mapping[str, str]) -> ConfigFiles | None:
    """Read the cache layout directly (models--org--name/refs/main → snapshots/<commit>/config.json):
    importing huggingface-hub costs more than the whole check."""
    repo = hf_cache_dir(environ) / ("models--" + repo_id.replace("/", "--"))
    try:
        commit = read_regular_bytes(repo / "refs" / "main", 4096).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        snapshots = sorted((repo / "snapshots").glob("*/config.json")) if (repo / "snapshots").is_dir() else []
        return _from_dir(snapshots[-1].parent, "hf-cache") if snapshots else None
    snapshot = repo / "snapshots" / commit
    if not (snapshot / "config.json").is_file():
        return None
    return _from_dir(snapshot, "hf-cache")


def hub_unreachable(environ: Mapping[str, str]) -> str | None:
    """A TCP connect to the hub first: huggingface-hub retries for ~25 s before giving up on a dead
    network, while a failed connect (or DNS lookup) answers at once. Returns why not, or None."""
    endpoint = urllib.parse.urlparse(environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host, port = endpoint.hostname or "huggingface.co", endpoint.port or (443 if endpoint.scheme == "https" else 80)
    import socket  # only when the hub is asked at all

    try:
        with socket.create_connection((host, port), timeout=HUB_TIMEOUT_S):
            return None
    except OSError as exc:
        return f"cannot connect to {host}:{port}: {exc.strerror or exc}"


def _from_hub(repo_id: str, environ: Mapping[str, str]) -> tuple[ConfigFiles | None, str]:
    unreachable = hub_unreachable(environ)
    if unreachable:
        return None, unreachable
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        return None, "huggingface-hub is not installed"
    os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", str(int(HUB_TIMEOUT_S)))
    os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", str(int(HUB_TIMEOUT_S)))
    try:
        config_path = Path(hf_hub_download(repo_id, "config.json"))
    except Exception as exc:  # any hub, network or auth failure: fall through to the bundle
        return None, _one_line(exc)
    with contextlib.suppress(Exception):  # optional file
        hf_hub_download(repo_id, "hf_quant_config.json")
    return _from_dir(config_path.parent, "hub"), ""


def _from_bundle(repo_id: str) -> ConfigFiles | None:
    index = bundled_models()
    match = next((k for k in index if k.lower() == repo_id.lower()), None)
    if match is None:
        return None
    entry = index[match]
    folder = BUNDLE / entry["dir"]
    files = _from_dir(Path(str(folder)), "bundled", entry["provenance"] == "reconstructed")
    return replace(files, architecture_unverified=entry.get("architecture_unverified"))


def _derived(repo_id: str) -> tuple[ConfigFiles | None, str]:
    """The bundled model the id's name derives from, with the quantization the name states (an estimate); else
    None and why not."""
    from doctor.probe.derived_name import derived_files, resolve

    derivation = resolve(repo_id, bundled_models())
    if derivation is None:
        return None, "and no bundled model is named in it" + _nearest(repo_id)
    if derivation.refused:
        return None, (f"and its name on bundled {derivation.base} states {derivation.quant_note}: give the model "
                      f"directory")
    base = _from_bundle(derivation.base)
    assert base is not None  # resolve names only bundled ids
    config, hf_quant = derived_files(derivation, base.config, base.hf_quant)
    return ConfigFiles(config, hf_quant, "derived", base.path, base.reconstructed, derivation.sentence(),
                       base.architecture_unverified), ""


def _nearest(repo_id: str) -> str:
    from doctor.probe.derived_name import nearest

    close = nearest(repo_id.split("/", 1)[-1], bundled_models())
    return f" (nearest bundled: {', '.join(close)})" if close else ""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160]}" if text else type(exc).__name__
