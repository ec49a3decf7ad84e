"""Maintainers' script: read SGLang facts from each release wheel, statically (zipfile + ast, never import).

For every release in doctor/engines/sglang/releases.py it runs `pip download --no-deps sglang==X`, then records,
with provenance (wheel, file, line): each `--flag` of sglang/srt/server_args.py with its literal choices and default
(a named list such as `ATTENTION_BACKEND_CHOICES` resolved to its items, and the per-release choice lists also
written compactly to doctor/data/sglang_choices.json), the server_args.py lines that name an MXFP4 MoE runner, the
shipped fused-MoE tuned-config file names, and the extend-attention tiles its tile function picks per GPU and head
dims (evaluated statically, as the engine does for an installed SGLang). Output: doctor/data/sglang_facts.json (one
entry per version; rerun to refresh, existing entries kept).

Usage: python tools/sglang_facts.py [--cache DIR] [VERSION ...]   (or --choices-only)
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from doctor.engines.pysource import SourceShapeError  # noqa: E402
from doctor.engines.sglang.releases import RELEASES  # noqa: E402
from doctor.engines.sglang.source import extend_tiles_from_source  # noqa: E402

OUT = REPO / "doctor" / "data" / "sglang_facts.json"
# the flag choices alone, small enough for `check` to read (doctor/engines/sglang/flags.py)
CHOICES_OUT = REPO / "doctor" / "data" / "sglang_choices.json"
SERVER_ARGS = "sglang/srt/server_args.py"
ARG_GROUPS = "sglang/srt/arg_groups/"
TUNED_DIRS = ("sglang/srt/layers/moe/fused_moe_triton/configs/",  # through 0.5.10
              "sglang/srt/layers/moe/moe_runner/triton_utils/configs/")  # from 0.5.11
RUNNER_WORDS = ("flashinfer_mxfp4", "triton_kernel", "marlin")
EXTEND_FILES = ("sglang/kernels/ops/attention/extend_attention.py",  # from 0.5.16
                "sglang/srt/layers/attention/triton_ops/extend_attention.py")
# what the extend-attention tile function returns is recorded for these GPUs and (Lq, Lv) head dims
TILE_CAPABILITIES = ((8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0), (12, 1))
TILE_HEADS = ((64, 64), (96, 96), (128, 128), (192, 128), (256, 256), (288, 256), (576, 512))


def download(version: str, cache: Path) -> Path:
    dest = cache / f"sglang-{version}"
    found = sorted(dest.glob("sglang-*"))
    if not found:  # a wheel where PyPI has one, else the sdist (0.5.0 shipped no wheel)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-build-isolation",
                        f"sglang=={version}", "-d", str(dest)], check=True)
        found = sorted(dest.glob("sglang-*"))
    return found[0]


def _wanted(name: str) -> bool:
    return name in (SERVER_ARGS, *EXTEND_FILES) or name.startswith((*TUNED_DIRS, ARG_GROUPS))


def members(archive: Path) -> dict[str, bytes]:
    """Files under sglang/ of a wheel or an sdist, keyed by their path inside the package."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            return {n: z.read(n) for n in z.namelist() if _wanted(n)}
    with tarfile.open(archive) as t:
        out = {}
        for m in t.getmembers():
            name = m.name.split("/python/", 1)[-1]
            if m.isfile() and _wanted(name):
                out[name] = t.extractfile(m).read()
        return out


def literal(node: ast.AST | None) -> object:
    try:
        return ast.literal_eval(node) if node is not None else None
    except (ValueError, TypeError, SyntaxError):
        return ast.unparse(node)


def server_flags(source: str) -> dict[str, dict]:
    flags: dict[str, dict] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"):
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("--")]
        if not names:
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        flags[names[0]] = {"choices": literal(keywords.get("choices")), "default": literal(keywords.get("default")),
                           "line": node.lineno}
        for alias in names[1:]:
            flags[alias] = {"alias_of": names[0], "line": node.lineno}
    return flags


def annotated_fields(source: str, path: str) -> dict[str, dict]:
    """From 0.5.14 flags are also `name: A[type, help, ...] = default` fields (arg_groups/fields/*.py by 0.5.23)."""
    flags: dict[str, dict] = {}
    for node in ast.walk(ast.parse(source)):
        ann = getattr(node, "annotation", None)
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(ann, ast.Subscript) and getattr(ann.value, "id", "") == "A"):
            continue
        keywords = {k.arg: k.value for c in ast.walk(ann) if isinstance(c, ast.Call) for k in c.keywords}
        if literal(keywords.get("no_cli")) is True:
            continue
        cli_name = literal(keywords.get("cli_name"))
        name = cli_name if isinstance(cli_name, str) else "--" + node.target.id.replace("_", "-")
        flags[name] = {"choices": literal(keywords.get("choices")), "default": literal(node.value),
                       "file": path, "line": node.lineno}
        aliases = literal(keywords.get("aliases"))
        for alias in aliases if isinstance(aliases, list) else []:
            if isinstance(alias, str):
                flags[alias] = {"alias_of": name, "file": path, "line": node.lineno}
    return flags


def _args_sources(files: dict[str, bytes]) -> list[str]:
    return sorted(p for p in files if p.endswith(".py") and (p == SERVER_ARGS or p.startswith(ARG_GROUPS)))


def module_constants(files: dict[str, bytes]) -> dict[str, list]:
    """Module-level `NAME = [...]` / `{...}` / `(...)` of string literals (`[*OTHER, "x"]` included) in
    server_args.py and arg_groups/: the lists `choices=NAME` refers to (stock SGLang; the `add_*_choices`
    hooks only extend them when a platform plug-in is loaded)."""
    constants: dict[str, list] = {}
    for path in _args_sources(files):
        for node in ast.parse(files[path].decode()).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values = _string_items(node.value, constants)
                if values is not None:
                    constants[node.targets[0].id] = values
    return constants


def _string_items(node: ast.AST, known: dict[str, list]) -> list | None:
    """A list of strings from a literal, a known name, `[*NAME, "x"]` or `NAME + [...]`; None otherwise."""
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string_items(node.left, known), _string_items(node.right, known)
        return None if left is None or right is None else left + right
    if not isinstance(node, ast.List | ast.Tuple | ast.Set):
        return None
    items: list = []
    for element in node.elts:
        if isinstance(element, ast.Starred) and isinstance(element.value, ast.Name) and element.value.id in known:
            items += known[element.value.id]
        elif isinstance(element, ast.Constant) and isinstance(element.value, str):
            items.append(element.value)
        else:
            return None
    return sorted(items) if isinstance(node, ast.Set) else items


def all_flags(files: dict[str, bytes]) -> dict[str, dict]:
    flags = server_flags(files[SERVER_ARGS].decode())
    for path in _args_sources(files):
        for name, fact in annotated_fields(files[path].decode(), path).items():
            flags.setdefault(name, fact)
    constants = module_constants(files)
    for fact in flags.values():
        named = fact.get("choices")
        if isinstance(named, str):
            try:
                resolved = _string_items(ast.parse(named, mode="eval").body, constants)
            except SyntaxError:  # a plain string literal, not an expression
                resolved = None
            if resolved is not None:
                fact["choices"], fact["choices_from"] = resolved, named
    return flags


def choice_segments(data: dict[str, dict], releases: tuple[str, ...]) -> dict[str, list[dict]]:
    """Per flag with a literal choice list, the releases (oldest first) where that list changes:
    [{"from": release, "choices": [...]}, ...]; a release whose list is not literal ends a segment with
    `"choices": null` (unknown there)."""
    segments: dict[str, list[dict]] = {}
    for release in releases:
        flags = data.get(release, {}).get("flags")
        if flags is None:
            continue
        # a tuple in memory (literal_eval of `choices=(...)`) is a list once written as JSON
        names = {n for n, f in flags.items() if isinstance(f.get("choices"), list | tuple)} | set(segments)
        for name in sorted(names):
            fact = flags.get(name, {})
            choices = list(fact["choices"]) if isinstance(fact.get("choices"), list | tuple) else None
            runs = segments.setdefault(name, [])
            if not runs or runs[-1]["choices"] != choices:
                runs.append({"from": release, "choices": choices})
    return segments


def runner_lines(source: str) -> list[dict]:
    return [{"line": n, "text": text.strip()} for n, text in enumerate(source.splitlines(), 1)
            if any(f'"{w}' in text for w in RUNNER_WORDS) and "mxfp4" in source]


def extend_tiles(files: dict[str, bytes]) -> dict:
    """`_get_block_sizes_for_extend_attention` evaluated per GPU and head dims, as the doctor's engine does it
    for an installed SGLang (doctor.engines.sglang.source): {file, "12.0": {"128x128": [dmodel, dpe, dv,
    BLOCK_M, BLOCK_N, num_warps]}}."""
    path = next((p for p in EXTEND_FILES if p in files), None)
    if path is None:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / "extend_attention.py"
        local.write_bytes(files[path])
        tiles: dict = {"file": path}
        try:
            extend_tiles_from_source(local, (12, 0), 128, 128)
        except SourceShapeError as exc:  # recorded as such: that release picks its tiles some other way
            return {**tiles, "error": str(exc)}
        for cc in TILE_CAPABILITIES:
            row = tiles.setdefault("{}.{}".format(*cc), {})
            for lq, lv in TILE_HEADS:
                t = extend_tiles_from_source(local, cc, lq, lv)
                row[f"{lq}x{lv}"] = [t.block_dmodel, t.block_dpe, t.block_dv, t.block_m, t.block_n, t.num_warps]
        return tiles


def facts_for(wheel: Path) -> dict:
    files = members(wheel)
    source = files[SERVER_ARGS].decode()
    tuned_dir = next((d for d in TUNED_DIRS if any(n.startswith(d) for n in files)), TUNED_DIRS[0])
    tuned = sorted(n.removeprefix(tuned_dir) for n in files if n.startswith(tuned_dir) and n.endswith(".json"))
    return {"wheel": wheel.name, "file": SERVER_ARGS, "flags": all_flags(files),
            "mxfp4_runner_lines": runner_lines(source), "tuned_moe_configs": {"dir": tuned_dir, "files": tuned},
            "extend_tiles": extend_tiles(files)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sm120-doctor-tests" / "downloads")
    parser.add_argument("--choices-only", action="store_true",
                        help="rebuild doctor/data/sglang_choices.json from the facts already read")
    parser.add_argument("versions", nargs="*")
    args = parser.parse_args()
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    if args.choices_only:
        write_choices(data)
        return 0
    for version in args.versions or RELEASES:
        try:
            data[version] = facts_for(download(version, args.cache))
        except subprocess.CalledProcessError:  # recorded, not guessed: the version stays unread
            data[version] = {"error": f"pip download sglang=={version} found no distribution for this Python"}
        OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(version, len(data[version].get("flags", {})), "flags", file=sys.stderr)
    write_choices(data)
    return 0


def write_choices(data: dict[str, dict]) -> None:
    table = {"source": "tools/sglang_facts.py: argparse choices of each release wheel's server_args.py and "
                       "arg_groups/ (named lists resolved)", "releases": list(RELEASES),
             "flags": choice_segments(data, RELEASES)}
    CHOICES_OUT.write_text(json.dumps(table, indent=1) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
