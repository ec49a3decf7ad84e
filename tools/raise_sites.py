"""Write doctor/data/raise_sites/<engine>.zip: where each release of vLLM, SGLang and FlashInfer raises or logs
an error message, and under which condition (issue 26): what `diagnose` reads (doctor/diagnose/raise_sites.py) to
name the engine's own source behind a logged error no hand-written signature explains.

For every final release on PyPI from the first with SM12x builds (vLLM 0.9.2: its sdist, which holds the Python
package and csrc; SGLang 0.5.0 and flashinfer-python 0.5.0: their wheels, FlashInfer's with the csrc/include
sources it JIT-compiles), downloaded from PyPI's simple index (PEP 691), sha256 checked and read in memory:

- Python (ast): `raise E(msg)`, `assert cond, msg`, and the logger calls of LOG_CALLS whose message has a word of
  LOG_WORDS (a device, arch, capability, backend, kernel, support or version word: logged warnings about
  anything else are not raise sites of a failure). The message becomes a template: the literal pieces of str
  constants, f-strings, `%` and `.format` and `+` concatenation, each placeholder a wildcard; a bare name is
  resolved through the last `name = <str expression>` before it in the same function. The guard is the test of
  the enclosing `if`/`elif` (negated for `else` branches), the nearest GUARD_LEVELS levels, or the `except`
  clause the raise sits in, or the assert's condition.
- C++/CUDA (regex over the source): TORCH_CHECK / TORCH_CHECK_NOT_IMPLEMENTED / STD_TORCH_CHECK /
  TVM_FFI_ICHECK / FLASHINFER_CHECK / CHECK_* style macros with their condition, `TVM_FFI_THROW(E) << msg`,
  and `throw std::runtime_error(...)` (guard: the `if (...)` right before it, when there is one).

A template needs MIN_LITERAL literal characters on its most literal line (bench/RESULTS-raise-sites.md measures
the threshold). Sites are merged across releases: one record per (file, template, guard, function, type) with
the releases it exists in, as ranges over the engine's release list, so a guard that changes or a message that
disappears shows as a transition.

    python tools/raise_sites.py                         # every engine, every release
    python tools/raise_sites.py --only sglang --versions 0.5.22,0.5.23   # add releases to a table
    python tools/raise_sites.py --check                 # exit 1 when PyPI has a release a table lacks
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tarfile
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from doctor.raise_site_table import (  # noqa: E402
    DATA,
    INDEX,
    MIN_LITERAL,
    index_word,
    literal_chars,
    load_table,
    parse_ranges,
    ranges,
    site_order,
    table_path,
    write_table,
)

SIMPLE = "https://pypi.org/simple/{}/"


@dataclass(frozen=True)
class EngineSpec:
    project: str  # the PyPI project
    first: str  # the first release read (the first with SM12x builds)
    sdist: bool  # read the sdist (vLLM: its wheels are 250-470 MB and hold no csrc)


ENGINES = {"vllm": EngineSpec("vllm", "0.9.2", True), "sglang": EngineSpec("sglang", "0.5.0", False),
           "flashinfer": EngineSpec("flashinfer-python", "0.5.0", False)}
from tools.raise_site_extract import CPP_SUFFIXES, PY_SUFFIX, Site, sites_of  # noqa: E402


def members(filename: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    """(path inside the package, bytes) of every source file; an sdist's top folder (`vllm-0.10.0/`) dropped."""
    wanted = (PY_SUFFIX, *CPP_SUFFIXES)
    if filename.endswith(".whl"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for name in archive.namelist():
                if name.endswith(wanted):
                    yield name, archive.read(name)
        return
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive:
            if member.isfile() and member.name.endswith(wanted):
                extracted = archive.extractfile(member)
                if extracted is not None:
                    yield member.name.split("/", 1)[-1], extracted.read()


def fetch(url: str, accept: str | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=600) as response:
        return response.read()


def releases(engine: str) -> dict[str, dict]:
    """Final, unyanked releases from the engine's first, oldest first, each with its distribution file."""
    spec = ENGINES[engine]
    index = json.loads(fetch(SIMPLE.format(spec.project), "application/vnd.pypi.simple.v1+json"))
    chosen: dict[str, dict] = {}
    for file in index["files"]:
        version = _version(file["filename"], spec.sdist)
        if version is None or version.is_prerelease or version.is_devrelease or version < Version(spec.first) \
                or file.get("yanked"):
            continue
        if file["filename"].endswith(".tar.gz" if spec.sdist else ".whl"):
            chosen.setdefault(str(version), file)
    return dict(sorted(chosen.items(), key=lambda item: Version(item[0])))


def _version(filename: str, sdist: bool) -> Version | None:
    try:
        if sdist:
            return Version(filename.removesuffix(".tar.gz").rsplit("-", 1)[1]) if filename.endswith(".tar.gz") \
                else None
        return Version(filename.split("-")[1]) if filename.endswith(".whl") else None
    except (IndexError, InvalidVersion):
        return None


def read_release(file: dict) -> tuple[list[Site], dict]:
    data = fetch(file["url"])
    digest = hashlib.sha256(data).hexdigest()
    expected = file.get("hashes", {}).get("sha256")
    if expected and digest != expected:
        raise SystemExit(f"{file['filename']}: sha256 {digest} is not PyPI's {expected}")
    return sites_of(members(file["filename"], data)), {"file": file["filename"], "sha256": digest,
                                                       "bytes": len(data)}


# ---------------------------------------------------------------- the table


def held_from(old: dict | None, reread: set[str]) -> dict[tuple, dict]:
    """The records of an older table, keyed, with the releases it holds that are not read again."""
    held: dict[tuple, dict] = {}
    for record in (old or {}).get("sites", []):
        kept = {old["releases"][i] for i in parse_ranges(record["releases"])} - reread
        if kept:
            record = {k: v for k, v in record.items() if k not in ("releases", "word")}
            held[_key(record)] = {**record, "_in": kept}
    return held


def _key(record: dict) -> tuple:
    return record["file"], record["template"], record.get("guard"), record.get("function"), record["kind"]


def add_release(held: dict[tuple, dict], release: str, sites: list[Site], min_literal: int = MIN_LITERAL) -> None:
    """Merge one release's sites: one record per (file, template, guard, function, kind); its line is the newest
    release's."""
    newest = Version(release)
    for site in sites:
        if literal_chars(site.template) < min_literal or index_word(site.template) is None:
            continue
        record = held.setdefault(_key(site.__dict__), {
            "file": site.file, "function": site.function, "kind": site.kind, "template": site.template,
            "guard": site.guard, "_in": set()})
        if not record["_in"] or newest >= max(Version(v) for v in record["_in"]):
            record["line"] = site.line
        record["_in"].add(release)


def records(held: dict[tuple, dict], order: list[str], min_literal: int = MIN_LITERAL) -> list[dict]:
    position = {v: i for i, v in enumerate(order)}
    out = []
    for record in held.values():
        found = sorted(position[v] for v in record["_in"] if v in position)
        if found and literal_chars(record["template"]) >= min_literal and index_word(record["template"]):
            out.append({**{k: v for k, v in record.items() if v is not None and k not in ("_in", "sib")},
                        "releases": ranges(found), "word": index_word(record["template"])})
    return siblings(sorted(out, key=site_order))


MAX_SIBLINGS = 16  # a function with more raise sites of one kind is a validator: its messages are not rewordings


def siblings(rows: list[dict]) -> list[dict]:
    """Each record's `sib`: the index words of the other records of its file, function and kind (what `diagnose`
    reads to find a reworded message), where the function has few of them."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        if row.get("function"):
            groups.setdefault((row["file"], row["function"], row["kind"]), []).append(row)
    for group in groups.values():
        if 1 < len(group) <= MAX_SIBLINGS:
            for row in group:
                words = sorted({other["word"] for other in group if other is not row} - {row["word"]})
                if words:
                    row["sib"] = words
    return rows


def build(engine: str, wanted: list[str] | None, log: bool = True) -> dict:
    """The engine's table with the `wanted` releases (None: every release on PyPI; []: none, the table is
    rewritten from what it holds) read again."""
    old = load_table(engine) or None
    available = releases(engine) if wanted != [] else {}
    todo = [v for v in (available if wanted is None else wanted) if v in available]
    held = held_from(old, set(todo))
    provenance = dict((old or {}).get("provenance", {}))
    for version in todo:
        started = time.monotonic()
        sites, prov = read_release(available[version])
        add_release(held, version, sites)
        provenance[version] = {**prov, "seconds": round(time.monotonic() - started, 1), "sites": len(sites)}
        if log:
            print(f"{engine} {version}: {len(sites)} sites ({prov['bytes'] / 1e6:.1f} MB, "
                  f"{provenance[version]['seconds']} s)", file=sys.stderr, flush=True)
    order = sorted(set(provenance), key=Version)
    return {"engine": engine, "project": ENGINES[engine].project, "generated_by": "tools/raise_sites.py",
            "min_literal": MIN_LITERAL, "releases": order, "provenance": {v: provenance[v] for v in order},
            "sites": records(held, order)}


def write(table: dict) -> Path:
    """The table (doctor/raise_site_table.py's zip of shards), and its engine's row of index.json (project and
    releases: read without the table)."""
    path = table_path(table["engine"])
    path.parent.mkdir(parents=True, exist_ok=True)
    write_table(path, {k: v for k, v in table.items() if k != "sites"}, table["sites"])
    index_path = DATA / INDEX
    index = json.loads(index_path.read_text(encoding="utf-8")) if index_path.exists() else {}
    index[table["engine"]] = {"project": table["project"], "releases": table["releases"],
                              "table": path.name, "sites": len(table["sites"]), "bytes": path.stat().st_size}
    index_path.write_text(json.dumps(dict(sorted(index.items())), indent=1) + "\n", encoding="utf-8")
    return path


def missing(engine: str) -> list[str]:
    held = set(load_table(engine).get("releases", []))
    return [v for v in releases(engine) if v not in held]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated engines (" + ", ".join(ENGINES) + ")")
    parser.add_argument("--versions", help="comma-separated releases to (re)read; default every release")
    parser.add_argument("--check", action="store_true", help="exit 1 when PyPI has a release a table lacks")
    parser.add_argument("--rewrite", action="store_true",
                        help="read nothing: rewrite the tables from what they hold (after a change to the filters)")
    args = parser.parse_args(argv)
    engines = args.only.split(",") if args.only else list(ENGINES)
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        print(f"unknown engine {', '.join(unknown)} (known: {', '.join(ENGINES)})", file=sys.stderr)
        return 2
    if args.check:
        lacking = [f"{ENGINES[e].project}=={v}" for e in engines for v in missing(e)]
        print("\n".join(lacking) or "up to date")
        return 1 if lacking else 0
    for engine in engines:
        wanted = [] if args.rewrite else args.versions.split(",") if args.versions else None
        path = write(build(engine, wanted))
        print(f"wrote {path.relative_to(REPO)} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
