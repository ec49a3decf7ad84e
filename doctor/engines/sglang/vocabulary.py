"""SGLang's whole flag vocabulary per release (every `add_argument` of each release wheel's server_args.py, read
by tools/sglang_facts.py into doctor/data/sglang_facts.json): whether some release takes a launch's flags, for
inferring the engine from flags alone. The flag registry in flags.py holds only the flags the doctor reasons
about; this is every flag, read only on that path."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from packaging.version import Version

from doctor.engines.sglang.flags import canonical, check_flags

FACTS = Path(__file__).resolve().parents[2] / "data" / "sglang_facts.json"


@lru_cache(maxsize=1)
def release_flags() -> dict[str, frozenset[str]]:
    data = json.loads(FACTS.read_text(encoding="utf-8"))
    return {release: frozenset(entry["flags"]) for release, entry in data.items() if entry.get("flags")}


def accepted_somewhere(tokens: Sequence[str]) -> bool:
    """Some release has every flag in `tokens` (exactly, or as argparse's unique prefix) and finds nothing
    wrong with their values."""
    names = [t.partition("=")[0] for t in tokens if t.startswith("-") and not _number(t)]
    return any(all(_known(name, flags) for name in names) and not check_flags(list(tokens), Version(release))
               for release, flags in release_flags().items())


def _known(name: str, flags: frozenset[str]) -> bool:
    flag = canonical(name)
    if flag in flags:
        return True
    return flag.startswith("--") and sum(1 for f in flags if f.startswith(flag)) == 1  # allow_abbrev


def _number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
