"""The raise-site tables (doctor/data/raise_sites/<engine>.zip and their index.json, written by
tools/raise_sites.py): their layout, shared by the generator, `diagnose` and `engines --tables`. A template is
the message's literal text with WILD for each placeholder; a record's releases are ranges of positions in its
table's `releases` ("0-4,7"). A table is a zip: `meta.json` (releases, provenance) and SHARDS members
`w/NNN.json`, each {index word: [records]} for the words that hash to it, so `diagnose` reads only the shards of
the words its log lines hold."""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "raise_sites"
WILD = "{*}"
MIN_LITERAL = 16  # literal characters a template needs on its most literal line to be indexed


INDEX = "index.json"  # engine -> {project, releases}: what `engines --tables` and the refresh read


SHARDS = 256
META = "meta.json"
STAMP = (1980, 1, 1, 0, 0, 0)  # every member's date: the same table writes the same bytes


def table_path(engine: str, data_dir: Path = DATA) -> Path:
    return data_dir / f"{engine}.zip"


def shard_of(word: str) -> int:
    return zlib.crc32(word.encode("utf-8")) % SHARDS


def shard_name(shard: int) -> str:
    return f"w/{shard:03d}.json"


def write_table(path: Path, meta: dict[str, Any], sites: list[dict[str, Any]]) -> None:
    shards: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for record in sites:
        shards.setdefault(shard_of(record["word"]), {}).setdefault(record["word"], []).append(record)
    with zipfile.ZipFile(path, "w") as archive:
        for name, body in [(META, meta), *((shard_name(k), shards[k]) for k in sorted(shards))]:
            info = zipfile.ZipInfo(name, STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, json.dumps(body, separators=(",", ":"), ensure_ascii=False), compresslevel=9)


class TableReader:
    """One table, read a shard at a time."""

    def __init__(self, path: Path) -> None:
        self.archive = zipfile.ZipFile(path)
        self.meta: dict[str, Any] = json.loads(self.archive.read(META))
        self.names = set(self.archive.namelist())

    def shard(self, shard: int) -> dict[str, list[dict[str, Any]]]:
        name = shard_name(shard)
        return json.loads(self.archive.read(name)) if name in self.names else {}


def open_table(engine: str, data_dir: Path = DATA) -> TableReader | None:
    try:
        return TableReader(table_path(engine, data_dir))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None


@lru_cache(maxsize=4)
def engines(data_dir: Path = DATA) -> dict[str, dict[str, Any]]:
    """Each engine with a table: its PyPI project and the releases the table holds ({} when there is none)."""
    try:
        return json.loads((data_dir / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def best_line(template: str) -> str:
    """The line of a multi-line template with the most literal text: what one log line can show."""
    return max(template.split("\n"), key=lambda line: len(line.replace(WILD, "").strip()))


def literal_chars(template: str) -> int:
    return len(best_line(template).replace(WILD, "").strip())


def ranges(positions: list[int]) -> str:
    """Sorted positions as "0-4,7"."""
    out: list[str] = []
    start = prev = None
    for p in positions:
        if start is not None and p == prev + 1:
            prev = p
            continue
        if start is not None:
            out.append(f"{start}-{prev}" if prev != start else f"{start}")
        start = prev = p
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ",".join(out)


def parse_ranges(text: str) -> list[int]:
    out: list[int] = []
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        out += range(int(first), int(last or first) + 1)
    return out


@lru_cache(maxsize=8)
def load_table(engine: str, data_dir: Path = DATA) -> dict[str, Any]:
    """The engine's whole table, meta and every site ({} when there is none or it cannot be read): for the
    generator and the tests; `diagnose` reads shards."""
    reader = open_table(engine, data_dir)
    if reader is None:
        return {}
    sites = [r for shard in range(SHARDS) for rows in reader.shard(shard).values() for r in rows]
    return {**reader.meta, "sites": sorted(sites, key=site_order)}


def site_order(record: dict[str, Any]) -> tuple:
    return (record["file"], record.get("line", 0), record["template"], record.get("guard") or "",
            record.get("function") or "", record["kind"])


_WORD = re.compile(r"\w{4,}")


def index_word(template: str) -> str | None:
    """The longest word wholly inside the literal text of the template's most literal line (a word that touches
    a placeholder may be longer in the log): a line of the log that lacks it cannot match."""
    pieces = best_line(template).split(WILD)
    best: str | None = None
    for i, piece in enumerate(pieces):
        for match in _WORD.finditer(piece):
            if (match.start() == 0 and i > 0) or (match.end() == len(piece) and i < len(pieces) - 1):
                continue
            if best is None or len(match.group(0)) > len(best):
                best = match.group(0)
    return best
