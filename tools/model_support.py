"""Write doctor/data/derived/model_support.json: which model architectures each vLLM and SGLang release registers,
which model types and model classes each transformers release knows, and which transformers each engine release
requires.

For every final release on PyPI from the first with SM12x builds (vLLM 0.9.2, SGLang 0.5.0, transformers 4.50.0)
it reads only the files that answer, parsed statically with `ast` (nothing is imported or installed):

- vLLM: the keys of every `_*_MODELS` dict of `vllm/model_executor/models/registry.py` (what
  `ModelRegistry` resolves without a fallback);
- SGLang: every `EntryClass` of `sglang/srt/models/*.py` (what `import_model_classes` registers);
- the model types each engine loads with a configuration class of its own (vLLM's `_CONFIG_REGISTRY` in
  `vllm/transformers_utils/config.py`; the `model_type` of SGLang's `sglang/srt/configs/` classes), which a
  transformers release that predates the model does not hold back;
- transformers: the keys of `CONFIG_MAPPING_NAMES` (`models/auto/configuration_auto.py`: the model types
  `AutoConfig` loads) and the class names of every `MODEL_*_MAPPING_NAMES` (`models/auto/modeling_auto.py`: the
  classes `getattr(transformers, ARCH)` finds, which both engines' Transformers-backend fallbacks need);
- each engine release's `Requires-Dist: transformers ...` (its wheel's METADATA).

A wheel already in $SM120_DOCTOR_TEST_CACHE/downloads is read there; otherwise vLLM's and transformers' wheels are
read by HTTP range requests (the zip's central directory and the few members needed) and SGLang's (a few MiB,
some hundred model files read) is fetched into memory, so nothing but the table is written to disk.
Names are stored as runs of consecutive releases.

    python tools/model_support.py                  # every release, rewrite the table
    python tools/model_support.py --only vllm      # one package's rows, the others kept
    python tools/model_support.py --check          # exit 1 when PyPI has a release the table lacks
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterable
from datetime import date
from email.parser import Parser
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools import quant_support  # run as a script: the repository root is put on the path above

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "doctor" / "data" / "derived" / "model_support.json"
JSON_API = "https://pypi.org/pypi/{}/json"
FIRST = {"vllm": Version("0.9.2"), "sglang": Version("0.5.0"), "transformers": Version("4.50.0")}
IN_MEMORY = 64 << 20  # bytes: a wheel up to this size is fetched whole, a bigger one read by ranges
FEW_MEMBERS = {"vllm", "transformers"}  # packages of which a few files are read: always by ranges
VLLM_REGISTRY = "vllm/model_executor/models/registry.py"
SGLANG_MODELS = "sglang/srt/models/"
VLLM_CONFIGS = "vllm/transformers_utils/config.py"  # _CONFIG_REGISTRY: model types vLLM loads with its own config
SGLANG_CONFIGS = "sglang/srt/configs/"  # the config classes SGLang ships (`model_type = "..."`)
TF_CONFIGS = "transformers/models/auto/configuration_auto.py"
TF_MODELS = "transformers/models/auto/modeling_auto.py"
TF_GENERATED = "transformers/models/auto/auto_mappings.py"  # from 5.6: the generated part of CONFIG_MAPPING_NAMES


TRANSFERRED = {"bytes": 0, "requests": 0}  # what the run read over the network (bench/RESULTS-model-support.md)


def fetch(url: str, headers: dict[str, str] | None = None) -> bytes:
    request = urllib.request.Request(url, headers=headers or {})
    for attempt in range(4):
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                data = response.read()
                TRANSFERRED["bytes"] += len(data)
                TRANSFERRED["requests"] += 1
                return data
        except OSError:
            if attempt == 3:
                raise
            time.sleep(2 ** attempt)
    raise AssertionError("unreachable")


class RangeFile(io.RawIOBase):
    """A remote file read by HTTP range requests: enough for `zipfile` to read a member of a big wheel."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size, self.position, self.requests = url, size, 0, 0

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.position, 2: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer: Any) -> int:
        end = min(self.size, self.position + len(buffer))
        if end <= self.position:
            return 0
        self.requests += 1
        data = fetch(self.url, {"Range": f"bytes={self.position}-{end - 1}"})
        buffer[:len(data)] = data
        self.position += len(data)
        return len(data)


def final_releases(package: str) -> dict[str, list[dict[str, Any]]]:
    """Final releases (post releases included) from the first SM12x one, oldest first, with their files."""
    listed = json.loads(fetch(JSON_API.format(package)))["releases"]
    found: dict[Version, tuple[str, list[dict[str, Any]]]] = {}
    for text, files in listed.items():
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if version.is_prerelease or version.is_devrelease or version < FIRST[package]:
            continue
        found[version] = (text, files)
    return {text: files for _, (text, files) in sorted(found.items())}


def pick_wheel(files: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A wheel of the release, a yanked one too: pip installs a yanked release when it is pinned exactly (SGLang
    0.5.3 pins transformers==4.57.0, which PyPI has yanked)."""
    wheels = sorted((f for f in files if f["filename"].endswith(".whl")), key=lambda f: bool(f.get("yanked")))
    for preferred in ("none-any", "x86_64", ""):
        for wheel in wheels:
            if preferred in wheel["filename"]:
                return wheel
    return None


def cached_wheel(package: str, version: str) -> Path | None:
    root = Path(os.environ.get("SM120_DOCTOR_TEST_CACHE", "/root/.cache/sm120-doctor-tests")) / "downloads"
    folder = root / f"{package}-{version}"
    wheels = sorted(folder.glob("*.whl")) if folder.is_dir() else []
    return wheels[0] if wheels else None


def open_wheel(package: str, version: str, files: list[dict[str, Any]]) -> tuple[zipfile.ZipFile, dict[str, Any]]:
    local = cached_wheel(package, version)
    if local is not None:
        return zipfile.ZipFile(local), {"file": local.name, "read": "cached wheel"}
    wheel = pick_wheel(files)
    if wheel is None:
        raise RuntimeError(f"{package} {version}: no wheel on PyPI")
    provenance = {"file": wheel["filename"], "sha256": wheel["digests"]["sha256"], "yanked": bool(wheel.get("yanked"))}
    url = urllib.parse.urljoin(JSON_API.format(package), wheel["url"])  # a mirror may serve relative links
    if wheel["size"] <= IN_MEMORY and package not in FEW_MEMBERS:
        return zipfile.ZipFile(io.BytesIO(fetch(url))), {**provenance, "read": "fetched"}
    raw = RangeFile(url, wheel["size"])
    return zipfile.ZipFile(io.BufferedReader(raw, buffer_size=256 << 10)), {**provenance, "read": "HTTP ranges"}


def dict_keys(tree: ast.Module, wanted: Any) -> set[str]:
    """String keys of the module-level dicts whose name `wanted` accepts (`**other` merges are the other dicts)."""
    keys: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        value = getattr(node, "value", None)
        if isinstance(value, ast.Dict) and any(isinstance(t, ast.Name) and wanted(t.id) for t in targets):
            keys |= {k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return keys


def vllm_architectures(source: str) -> set[str]:
    return dict_keys(ast.parse(source), lambda name: name.startswith("_") and name.endswith("_MODELS")
                     and name not in ("_PREVIOUSLY_SUPPORTED_MODELS", "_OOT_SUPPORTED_MODELS"))


def vllm_config_types(source: str) -> set[str]:
    """The model types of vLLM's `_CONFIG_REGISTRY` (and its HF override): a dict literal up to ~0.11, a
    `LazyConfigDict(type="Config", ...)` call later."""
    types: set[str] = set()
    for node in ast.parse(source).body:
        value = getattr(node, "value", None)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        if not any(isinstance(t, ast.Name) and t.id.startswith("_CONFIG_REGISTRY") for t in targets):
            continue
        if isinstance(value, ast.Dict):
            types |= {k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        elif isinstance(value, ast.Call):
            types |= {k.arg for k in value.keywords if k.arg}
    return types


def class_model_types(source: str) -> set[str]:
    """`model_type = "x"` of every class in a config module."""
    types: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.Assign | ast.AnnAssign) and isinstance(item.value, ast.Constant) and any(
                        isinstance(t, ast.Name) and t.id == "model_type"
                        for t in (item.targets if isinstance(item, ast.Assign) else [item.target])):
                    types.add(str(item.value.value))
    return types


def sglang_config_types(archive: zipfile.ZipFile) -> set[str]:
    return {t for member in archive.namelist() if member.startswith(SGLANG_CONFIGS) and member.endswith(".py")
            for t in class_model_types(archive.read(member).decode("utf-8-sig", "replace"))}


def entry_classes(source: str) -> set[str]:
    """The class names a SGLang model file's `EntryClass` names (one class or a list)."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
            values = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            names |= {v.id for v in values if isinstance(v, ast.Name)}
    return names


def sglang_architectures(archive: zipfile.ZipFile) -> set[str]:
    names: set[str] = set()
    for member in archive.namelist():
        rest = member.removeprefix(SGLANG_MODELS)
        if member.startswith(SGLANG_MODELS) and rest.endswith(".py") and "/" not in rest:
            names |= entry_classes(archive.read(member).decode("utf-8-sig", "replace"))
    return names


def _assigns(node: ast.stmt, wanted: Any) -> bool:
    return isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and wanted(t.id) for t in node.targets)


def _updates(node: ast.stmt, wanted: Any) -> bool:
    call = node.value if isinstance(node, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "update" \
        and isinstance(call.func.value, ast.Name) and wanted(call.func.value.id)


def mapping_entries(source: str, wanted: Any) -> tuple[set[str], set[str]]:
    """Keys and string values of the mappings whose name `wanted` accepts: `NAME = OrderedDict([("key", "Value"),
    ...])`, dict literals in it, and `NAME.update({...})` (transformers 5.6 moved the generated part of
    CONFIG_MAPPING_NAMES to auto_mappings.py and updates it with the rest)."""
    keys: set[str] = set()
    values: set[str] = set()
    for node in ast.parse(source).body:
        if not (_assigns(node, wanted) or _updates(node, wanted)):
            continue
        for part in ast.walk(node.value):
            pairs = [tuple(part.elts)] if isinstance(part, ast.Tuple) and len(part.elts) == 2 else \
                list(zip(part.keys, part.values, strict=True)) if isinstance(part, ast.Dict) else []
            for key, value in pairs:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    keys.add(key.value)
                    values |= {c.value for c in ast.walk(value) if isinstance(c, ast.Constant)
                               and isinstance(c.value, str)}
    return keys, values


def config_mapping(name: str) -> bool:
    return name == "CONFIG_MAPPING_NAMES"


def model_mapping(name: str) -> bool:
    return name.startswith("MODEL") and name.endswith("_MAPPING_NAMES")


def transformers_names(archive: zipfile.ZipFile) -> dict[str, set[str]]:
    types, _ = mapping_entries(archive.read(TF_CONFIGS).decode(), config_mapping)
    if TF_GENERATED in archive.namelist():
        types |= mapping_entries(archive.read(TF_GENERATED).decode(), config_mapping)[0]
    _, classes = mapping_entries(archive.read(TF_MODELS).decode(), model_mapping)
    tokenizers = quant_support.tokenizer_classes(archive.read(quant_support.TF_TOKENIZERS).decode())
    gguf = quant_support.gguf_architectures(archive.read(quant_support.TF_GGUF).decode())
    return {"model_types": types, "classes": classes, "tokenizer_classes": tokenizers, "gguf_architectures": gguf}


# the extras `pip install "sglang[all]"` pulls in (up to 0.5.2 SGLang required transformers through them)
INSTALLED_EXTRAS = {"vllm": (), "sglang": ("srt", "all", "runtime-common", "runtime_common")}


def transformers_requirement(archive: zipfile.ZipFile, package: str) -> str | None:
    """The `Requires-Dist: transformers` specifier an install as the engine documents it applies (SGLang up to
    0.5.2 required it through its `srt` extra), '' when unbounded, None when it names none."""
    member = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = Parser().parsestr(archive.read(member).decode("utf-8", "replace"))
    for line in metadata.get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.name.lower() != "transformers":
            continue
        if requirement.marker is None or any(requirement.marker.evaluate({"extra": extra})
                                             for extra in INSTALLED_EXTRAS[package]):
            return str(requirement.specifier)
    return None


def read_release(package: str, version: str, files: list[dict[str, Any]]) -> dict[str, Any]:
    archive, provenance = open_wheel(package, version, files)
    with archive:
        if package == "vllm":
            names = {"architectures": vllm_architectures(archive.read(VLLM_REGISTRY).decode()),
                     "config_types": vllm_config_types(archive.read(VLLM_CONFIGS).decode()),
                     "quant_methods": quant_support.vllm_quant_methods(
                         archive.read(quant_support.VLLM_QUANT_INIT).decode()),
                     "deprecated_quant_methods": quant_support.vllm_deprecated_methods(
                         archive.read(quant_support.VLLM_QUANT_INIT).decode()),
                     "modelopt_algos": quant_support.vllm_modelopt_algos(
                         archive.read(quant_support.VLLM_MODELOPT).decode()),
                     "modelopt_mixed_layer_algos": quant_support.vllm_mixed_layer_algos(
                         archive.read(quant_support.VLLM_MODELOPT).decode())}
            provenance["read_members"] = [VLLM_REGISTRY, VLLM_CONFIGS, quant_support.VLLM_QUANT_INIT,
                                          quant_support.VLLM_MODELOPT]
        elif package == "sglang":
            names = {"architectures": sglang_architectures(archive), "config_types": sglang_config_types(archive),
                     **quant_support.sglang_quant_methods(archive.read(quant_support.SGLANG_QUANT_INIT).decode())}
            provenance["read_members"] = [SGLANG_MODELS + "*.py (EntryClass)", SGLANG_CONFIGS + "**.py (model_type)",
                                          quant_support.SGLANG_QUANT_INIT]
        else:
            names = transformers_names(archive)
            provenance["read_members"] = [TF_CONFIGS, TF_MODELS, quant_support.TF_TOKENIZERS, quant_support.TF_GGUF] + \
                [TF_GENERATED] * (TF_GENERATED in archive.namelist())
        requires = transformers_requirement(archive, package) if package != "transformers" else None
    return {"names": names, "requires_transformers": requires, "provenance": provenance}


def runs(releases: list[str], present: Iterable[set[str]]) -> dict[str, str]:
    """For every name, the runs of consecutive releases that have it, as "first..last" joined by ","."""
    table: dict[str, list[list[str]]] = {}
    previous: set[str] = set()
    for release, names in zip(releases, present, strict=True):
        for name in names:
            spans = table.setdefault(name, [])
            if name in previous:
                spans[-1][1] = release
            else:
                spans.append([release, release])
        previous = names
    return {name: ",".join(f"{first}..{last}" for first, last in spans) for name, spans in sorted(table.items())}


def read_rows(package: str, releases: dict[str, list[dict[str, Any]]],
              read: Callable[[str, str, list[dict[str, Any]]], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every release's row by `read(package, version, files)`, each reported on stderr with its name counts and
    time: the loop every wheel-table generator runs."""
    rows: dict[str, dict[str, Any]] = {}
    for version, files in releases.items():
        started = time.monotonic()
        rows[version] = read(package, version, files)
        counts = {k: len(v) for k, v in rows[version]["names"].items()}
        print(f"{package} {version}: {counts} ({rows[version]['provenance']['read']}, "
              f"{time.monotonic() - started:.1f} s)", file=sys.stderr)
    return rows


def package_table(package: str, releases: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    rows = read_rows(package, releases, read_release)
    versions = list(rows)
    kinds = sorted({kind for row in rows.values() for kind in row["names"]})
    table: dict[str, Any] = {"releases": versions}
    for kind in kinds:
        table[kind] = runs(versions, [rows[v]["names"].get(kind, set()) for v in versions])
    if package != "transformers":
        table["requires_transformers"] = {v: rows[v]["requires_transformers"] for v in versions}
    table["provenance"] = {v: rows[v]["provenance"] for v in versions}
    return table


def table_arguments(description: str, packages: Iterable[str], argv: list[str] | None) -> argparse.Namespace:
    """The command line every wheel-table generator takes: `--only PACKAGE` (repeatable) and `--check`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--only", choices=sorted(packages), action="append")
    parser.add_argument("--check", action="store_true", help="exit 1 when PyPI has a release the table lacks")
    return parser.parse_args(argv)


def old_table(target: Path) -> dict[str, Any]:
    return json.loads(target.read_text()) if target.is_file() else {"packages": {}}


def report_missing(target: Path, old: dict[str, Any], listed: dict[str, dict[str, Any]]) -> int:
    """`--check`: print the PyPI releases the table at `target` lacks, per package; 1 when there are any."""
    missing = {p: sorted(set(releases) - set(old["packages"].get(p, {}).get("releases", [])))
               for p, releases in listed.items()}
    missing = {p: v for p, v in missing.items() if v}
    print(json.dumps(missing) if missing else f"{target.name} covers every release on PyPI")
    return 1 if missing else 0


def write_table(target: Path, document: dict[str, Any], started: float) -> None:
    """Write a generated table and say its size, the time taken and what was read over the network."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # one entry a line, no indentation: readable diffs, and `check` parses it in a few milliseconds
    target.write_text(json.dumps(document, indent=0, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {target.relative_to(REPO)} ({target.stat().st_size} bytes) in {time.monotonic() - started:.0f} s; "
          f"read {TRANSFERRED['bytes'] / 2**20:.1f} MiB in {TRANSFERRED['requests']} requests, nothing written "
          "but the table", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = table_arguments(__doc__.split("\n\n")[0], FIRST, argv)
    old = old_table(TARGET)
    packages = args.only or sorted(FIRST)
    listed = {package: final_releases(package) for package in packages}
    if args.check:
        return report_missing(TARGET, old, listed)
    started = time.monotonic()
    tables = {**old["packages"], **{p: package_table(p, listed[p]) for p in packages}}
    document = {
        "generated": date.today().isoformat(),
        "generated_by": "python tools/model_support.py",
        "source": "PyPI wheels, read statically: " + ", ".join([VLLM_REGISTRY, SGLANG_MODELS + "*.py EntryClass",
                                                                quant_support.VLLM_QUANT_INIT,
                                                                quant_support.VLLM_MODELOPT,
                                                                quant_support.SGLANG_QUANT_INIT,
                                                                TF_CONFIGS, TF_MODELS, "METADATA Requires-Dist"]),
        "packages": dict(sorted(tables.items())),
    }
    write_table(TARGET, document, started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
