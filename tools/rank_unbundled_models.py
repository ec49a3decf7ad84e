"""Rank the Hugging Face model ids that reports name but doctor/data/models does not bundle, by how many entries
name them (the order in which to look for public copies of their configs).

Entries: each ledger report, regression case, known-good entry and diagnose-corpus row (one TOML table each), and
each line of the held-out replays' run lists, URL lists and notes (bench/heldout to bench/heldout4; later sets are
sealed and never read), each of their log files, and each line of bench/RESULTS-heldout.md. A model id is an
`org/name` written in an entry, org among the Hugging Face organisations below; it counts every entry that names its
repo name as a whole word (as tools/bundle_models.py counts mentions), with or without the org.

    python tools/rank_unbundled_models.py            # not bundled, most named first
    python tools/rank_unbundled_models.py --all      # bundled ones too, marked
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.bundle_models import BUNDLE, ROOT, _normal, mentions

HELDOUT = ("heldout", "heldout2", "heldout3", "heldout4")  # never a later (sealed) set
LINE_FILES = ("runs", "urls", "expected", "draw-notes")  # one entry per line; any other file is one entry
ORGS = frozenset((
    "Qwen", "zai-org", "THUDM", "deepseek-ai", "google", "nvidia", "RedHatAI", "mistralai", "moonshotai",
    "MiniMaxAI", "openai", "meta-llama", "unsloth", "cyankiwi", "Intel", "QuantTrio", "bartowski", "stepfun-ai",
    "XiaomiMiMo", "ByteDance-Seed", "microsoft", "ibm-granite", "allenai", "baidu", "tencent", "inclusionAI",
    "nm-testing", "neuralmagic", "sgl-project", "Sehyo", "Lorbus", "lukealonso", "LibertAIDAI", "cpatonn",
    "TheBloke", "TinyLlama", "Inferact", "AEON-7", "RadixArk", "meta-models", "poolside",
))
MODEL_ID = re.compile(r"(?<![\w./-])([A-Za-z0-9][\w.-]{1,38})/([A-Za-z0-9][\w.-]*[A-Za-z0-9])")


def entries() -> Iterator[str]:
    tomls = [*ROOT.glob("ledger/*.toml"), *ROOT.glob("tests/cases/*.toml"), *ROOT.glob("tests/knowngood/*.toml"),
             ROOT / "tests" / "diagnose" / "index.toml"]
    for path in tomls:
        for value in tomllib.loads(path.read_text(encoding="utf-8")).values():
            if isinstance(value, list):
                yield from (json.dumps(row, ensure_ascii=False) for row in value)
    for name in HELDOUT:
        for path in sorted(p for p in (ROOT / "bench" / name).rglob("*") if p.is_file()):
            text = path.read_text(encoding="utf-8", errors="replace")
            yield from (text.splitlines() if path.name.startswith(LINE_FILES) else [text])
    yield from (ROOT / "bench" / "RESULTS-heldout.md").read_text(encoding="utf-8").splitlines()


def model_ids(texts: list[str]) -> set[str]:
    """org/name ids of model repositories: a Hugging Face org, a hyphenated name with a version or size digit
    (not `nvidia/NVFP4` or `nvidia/cu13`), not a GGUF repository (those have no config.json) nor a file."""
    ids = set()
    for text in texts:
        for org, name in MODEL_ID.findall(text):
            if org in ORGS and "-" in name and re.search(r"\d", name) and not re.search(
                    r"(?i)gguf|\.(json|ya?ml|md|py)$", name):
                ids.add(f"{org}/{name}")
    return ids


def ranking(include_bundled: bool) -> list[tuple[str, int, bool]]:
    texts = list(entries())
    normal = [_normal(t) for t in texts]
    bundled = {k.lower() for k in json.loads((BUNDLE / "index.json").read_text(encoding="utf-8"))}
    ids = model_ids(texts) | {k for k in json.loads((BUNDLE / "index.json").read_text(encoding="utf-8"))}
    rows = Counter({model_id: _count(model_id, ids, texts, normal) for model_id in model_ids(texts)})
    return [(model_id, count, model_id.lower() in bundled) for model_id, count in rows.most_common()
            if include_bundled or model_id.lower() not in bundled]


def _count(model_id: str, ids: set[str], texts: list[str], normal: list[str]) -> int:
    """Entries naming the model; where another org publishes the same repo name (unsloth/ and nvidia/
    Qwen3.6-27B-NVFP4), only entries that write this org's full id."""
    name = model_id.split("/", 1)[1].lower()
    if sum(1 for other in ids if other.split("/", 1)[1].lower() == name) > 1:
        full = model_id.lower()
        return sum(1 for text in texts if full in text.lower())
    return mentions(model_id, normal)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list bundled models too")
    args = parser.parse_args(argv)
    for model_id, count, is_bundled in ranking(args.all):
        print(f"{count:4d}  {model_id}{'  (bundled)' if is_bundled else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
