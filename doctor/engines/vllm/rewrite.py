"""The user's flags rewritten to what one vLLM release accepts: short aliases and argparse prefixes spelled
out, a spelling that release renamed moved to its new name, a flag it does not have dropped (with a note)."""

from __future__ import annotations

from packaging.version import Version

from doctor.engines.spi import Flags
from doctor.engines.vllm import knowledge
from doctor.engines.vllm.flags import renamed_to, table_for


def rewrite_flags(given: Flags, version: Version, notes: list[str]) -> None:
    table = table_for(version)
    label = f"vLLM {version}"
    for flag in list(given.items):
        value = given.items[flag]
        resolved = table.resolve(flag)
        if resolved is not None:
            if flag != resolved.name and not resolved.negated and resolved.json_key is None and flag.startswith("-"):
                given.rename(flag, resolved.name, value)
                notes.append(f"spelled {flag} as {resolved.name}")
            continue
        if not flag.startswith("--"):
            continue
        prefixed = table.prefix_matches(flag)
        renamed = renamed_to(table, flag)
        if len(prefixed) == 1:
            given.rename(flag, prefixed[0], value)
            notes.append(f"spelled {flag} as {prefixed[0]} (argparse expands the prefix)")
        elif renamed:
            given.rename(flag, renamed, value)
            notes.append(f"rewrote {flag} as {renamed} for {label}")
        elif knowledge.flag_history(flag):
            del given.items[flag]
            spans = knowledge.describe_spans(knowledge.flag_history(flag)["releases"])  # type: ignore[index]
            notes.append(f"dropped {flag}: {label} does not have it (releases with it: {spans})")
