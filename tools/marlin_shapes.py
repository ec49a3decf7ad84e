"""Write doctor/data/marlin-shapes.json: which Marlin weight preparations of each vLLM and SGLang release pad a
tensor-parallel shard to Marlin's thread tile, and which reject it, read from each release's Python source
(nothing is imported).

Marlin's repack (`gptq_marlin_repack`, csrc/quantization/gptq_marlin/gptq_marlin_repack.cu) checks
`size_k % tile_k_size` (16) and `size_n % tile_n_size` (64) and raises "size_n = N is not divisible by
tile_n_size = 64"; its GEMM needs a thread tile (n % 64 with k % 128, or n % 128 with k % 64) or raises "Invalid
thread config". A release that pads (vLLM PR 45295: `marlin_padded_nk`, PR 45703: `marlin_moe_padded_intermediate`)
zero-pads the shard instead. What is read, per release:
- `quantization/utils/marlin_utils.py`: GPTQ_MARLIN_MIN_THREAD_N / _K (`verify_marlin_supports_shape`), whether
  `marlin_padded_nk` (dense layers) and `marlin_moe_padded_intermediate` (WNA16 and FP8 MoE) exist;
- `marlin_utils_fp4.py`: whether `prepare_fp4_layer_for_marlin` (NVFP4/MXFP4 dense) calls `marlin_padded_nk` and
  whether `prepare_nvfp4_moe_layer_for_marlin` (NVFP4 MoE) rounds the per-rank intermediate (`round_up`);
- `marlin_utils_fp8.py`: whether `prepare_fp8_layer_for_marlin` calls `marlin_padded_nk`.

    python tools/marlin_shapes.py vllm WHEEL_OR_DIR_OR_VERSION...  # a wheel, an unpacked site directory, or a
                                                                   # vLLM release (its wheel from PyPI, cached)
    python tools/marlin_shapes.py sglang WHEEL_OR_DIR...
tools/refresh runs the vLLM form on every new release.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "doctor" / "data" / "marlin-shapes.json"
QUANT_UTILS = {"vllm": "vllm/model_executor/layers/quantization/utils/",
               "sglang": "sglang/srt/layers/quantization/"}
METADATA = re.compile(r"^Version: (\S+)$", re.MULTILINE)


class Source:
    """A wheel or an unpacked site directory, read file by file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.zip = zipfile.ZipFile(path) if path.suffix == ".whl" else None

    def read(self, name: str) -> str | None:
        if self.zip is not None:
            try:
                return self.zip.read(name).decode("utf-8")
            except KeyError:
                return None
        file = self.path / name
        return file.read_text(encoding="utf-8") if file.is_file() else None

    def version(self, package: str) -> str:
        if self.zip is not None:
            meta = next(n for n in self.zip.namelist() if n.endswith(".dist-info/METADATA"))
            found = METADATA.search(self.zip.read(meta).decode("utf-8"))
        else:
            metas = sorted(self.path.glob(f"{package}-*.dist-info/METADATA"))
            found = METADATA.search(metas[0].read_text(encoding="utf-8")) if metas else None
        if found is None:
            raise SystemExit(f"{self.path}: no {package} version in its METADATA")
        return found.group(1)


def _function(tree: ast.Module | None, name: str) -> ast.FunctionDef | None:
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def _calls(node: ast.AST | None, callee: str) -> bool:
    for sub in ast.walk(node) if node else ():
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == callee:
                return True
    return False


def _constant(tree: ast.Module | None, name: str) -> int | None:
    for node in tree.body if tree else ():
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name \
                and isinstance(node.value, ast.Constant):
            return int(node.value.value)
    return None


def _parse(text: str | None) -> ast.Module | None:
    return ast.parse(text) if text else None


def release_facts(source: Source, engine: str) -> dict[str, Any]:
    base = QUANT_UTILS[engine]
    utils = _parse(source.read(base + "marlin_utils.py"))
    fp4 = _parse(source.read(base + "marlin_utils_fp4.py"))
    fp8 = _parse(source.read(base + "marlin_utils_fp8.py"))
    nvfp4_moe = _function(fp4, "prepare_nvfp4_moe_layer_for_marlin")
    return {
        "source": base,
        "min_thread_n": _constant(utils, "GPTQ_MARLIN_MIN_THREAD_N"),
        "min_thread_k": _constant(utils, "GPTQ_MARLIN_MIN_THREAD_K"),
        "dense_padding": _function(utils, "marlin_padded_nk") is not None,
        "moe_padding": _function(utils, "marlin_moe_padded_intermediate") is not None,
        "fp4_dense_padding": _calls(_function(fp4, "prepare_fp4_layer_for_marlin"), "marlin_padded_nk"),
        "nvfp4_moe_marlin": nvfp4_moe is not None,
        "nvfp4_moe_padding": _calls(nvfp4_moe, "round_up") or _calls(nvfp4_moe, "marlin_moe_padded_intermediate"),
        "fp8_dense_padding": _calls(_function(fp8, "prepare_fp8_layer_for_marlin"), "marlin_padded_nk"),
    }


def _located(engine: str, raw: str) -> Path:
    """A path as given; a bare vLLM release is fetched (tools.vllm_facts' cached `pip download`)."""
    path = Path(raw)
    if path.exists() or engine != "vllm" or not re.fullmatch(r"\d+(\.\d+)+(\.post\d+)?", raw):
        return path
    sys.path.insert(0, str(REPO))
    from tools.vllm_facts.__main__ import fetch_wheel

    return fetch_wheel(raw)


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in QUANT_UTILS:
        print(__doc__)
        return 2
    engine = argv[0]
    data = json.loads(TARGET.read_text(encoding="utf-8")) if TARGET.is_file() else {}
    table = data.setdefault(engine, {})
    for raw in argv[1:]:
        path = _located(engine, raw)
        source = Source(path)
        version = source.version(engine)
        table[version] = {"read_from": path.name, **release_facts(source, engine)}
        print(version, table[version])
    data[engine] = dict(sorted(table.items(), key=lambda item: [int(p) if p.isdigit() else p
                                                                for p in re.split(r"[.]|post", item[0])]))
    data["generated_by"] = "python tools/marlin_shapes.py ENGINE WHEEL_OR_DIR_OR_VERSION..."
    TARGET.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
