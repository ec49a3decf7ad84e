"""SGLang launch flags as a release accepts them: abbreviations spelled out, renamed or removed flags
rewritten (doctor.engines.sglang.flags holds which release has which spelling)."""

from __future__ import annotations

from packaging.version import Version

from doctor.engines.sglang import flags as sglang_flags
from doctor.engines.spi import SWITCHES, Flags, flag_pairs, normal_flag


def is_switch(flag: str) -> bool:
    known = sglang_flags.FLAGS.get(sglang_flags.canonical(flag))
    return normal_flag(flag) in SWITCHES or (known is not None and not known.takes_value)


def rewrite_flags(given: Flags, version: Version, notes: list[str]) -> None:
    """Abbreviations to full spellings; flags this release renamed or dropped to what it accepts."""
    for flag in list(given.items):
        if flag not in given.items:  # taken by an earlier rewrite (value_from)
            continue
        value = given.items[flag]
        full = sglang_flags.ABBREVIATIONS.get(flag)
        if full and flag not in sglang_flags.AMBIGUOUS:
            given.rename(flag, full, value)
            notes.append(f"spelled {flag} as {full}")
            continue
        known = sglang_flags.FLAGS.get(flag)
        if known is None:
            continue
        if not known.exists(version) or (known.is_deprecated(version) and flag != "--disable-cuda-graph"):
            if known.value_from and known.value_from in given.items:
                value = given.items.pop(known.value_from)
                notes.append(f"moved the value of {known.value_from} to {known.replacement[0]}")
            _replace(given, flag, known.replacement, value, str(version), notes)


def _replace(given: Flags, flag: str, replacement: tuple[str, ...], value: str | None, version: str,
             notes: list[str]) -> None:
    del given.items[flag]
    if not replacement:
        notes.append(f"dropped {flag}: SGLang {version} does not have it")
        return
    pairs = flag_pairs(list(replacement))
    if len(pairs) == 1 and pairs[0][1] is None and value is not None:
        pairs = [(pairs[0][0], value)]
    for new_flag, new_value in pairs:
        given.set(new_flag, new_value, "you", [])
    notes.append(f"rewrote {flag} as {' '.join(replacement)} for SGLang {version}")
