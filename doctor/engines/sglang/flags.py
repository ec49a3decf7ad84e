"""SGLang server flags per release: which spellings exist, which are deprecated, which choices they take
(the choices: doctor/data/sglang_choices.json, every release's own lists).

Read from the released wheels' argument definitions (`sglang/srt/server_args.py` `add_argument` calls
through 0.5.16; from 0.5.14 also annotated `A[...]` fields, in `sglang/srt/arg_groups/fields/*.py` by 0.5.23).
`tests/rules/test_sglang_flags.py` checks every entry against the wheels of
the boundary releases 0.5.8, 0.5.9, 0.5.13, 0.5.14, 0.5.16 and 0.5.23 (source text, never imported).

`added` is the first release known to have a spelling and `removed` the first known without it; between two
checked releases the boundary comes from the research notes, or is the checked release on the safe side
(a flag is only offered where it is known to exist).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.engines.spi import closest, flag_pairs, release, suggest

CHECKED_RELEASES = ("0.5.8", "0.5.9", "0.5.13", "0.5.14", "0.5.16", "0.5.23")


@dataclass(frozen=True)
class Flag:
    """One SGLang server flag and the releases that have it."""

    name: str
    added: str | None = None  # None: older than every release checked
    removed: str | None = None
    deprecated: str | None = None
    replacement: tuple[str, ...] = ()  # what to pass instead, once deprecated or removed
    takes_value: bool = True
    value_from: str | None = None  # the replacement takes this flag's value, and that flag goes

    def exists(self, version: Version) -> bool:
        return (self.added is None or reached(version, self.added)) and \
            (self.removed is None or not reached(version, self.removed))

    def is_deprecated(self, version: Version) -> bool:
        return self.deprecated is not None and release(version) >= Version(self.deprecated) and self.exists(version)


def reached(version: Version, boundary: str) -> bool:
    """`version` is at or past `boundary`: on the release (0.5.8rc0 and 0.5.8.post1 are 0.5.8), except where the
    boundary is a post release itself (a flag that first shipped in 0.5.6.post2)."""
    gate = Version(boundary)
    return (Version(version.public) if gate.is_postrelease else release(version)) >= gate


def _f(name: str, **kw: object) -> Flag:
    return Flag(name, **kw)  # type: ignore[arg-type]


FLAGS: dict[str, Flag] = {f.name: f for f in (
    _f("--model-path"),
    _f("--tp-size"), _f("--tensor-parallel-size"),
    _f("--pp-size"), _f("--pipeline-parallel-size"),
    _f("--ep-size"), _f("--ep"), _f("--expert-parallel-size"),
    _f("--dp-size"), _f("--data-parallel-size"),
    _f("--attention-backend"), _f("--prefill-attention-backend"), _f("--decode-attention-backend"),
    _f("--mm-attention-backend"), _f("--moe-runner-backend"), _f("--fp8-gemm-backend", added="0.5.6.post2"),
    _f("--fp4-gemm-backend", added="0.5.8"), _f("--kv-cache-dtype"), _f("--quantization"), _f("--mem-fraction-static"),
    _f("--chunked-prefill-size"), _f("--context-length"), _f("--page-size"),
    _f("--trust-remote-code", takes_value=False),
    _f("--disable-radix-cache", takes_value=False),
    _f("--disable-custom-all-reduce", takes_value=False),
    _f("--disable-shared-experts-fusion", takes_value=False),
    _f("--disable-cuda-graph", takes_value=False, deprecated="0.5.14",
       replacement=("--cuda-graph-backend-decode", "disabled", "--cuda-graph-backend-prefill", "disabled")),
    _f("--cuda-graph-backend-decode", added="0.5.14"),
    _f("--cuda-graph-backend-prefill", added="0.5.14"),
    _f("--disable-decode-cuda-graph", added="0.5.14", takes_value=False),
    _f("--disable-prefill-cuda-graph", added="0.5.14", takes_value=False),
    _f("--cuda-graph-max-bs", deprecated="0.5.14", removed="0.5.20", replacement=("--cuda-graph-max-bs-decode",)),
    _f("--cuda-graph-max-bs-decode", added="0.5.14"),
    # piecewise CUDA graph became default-on in 0.5.10, which added the --disable- spelling (the 0.5.10
    # wheel's server_args.py, in doctor/data/sglang_facts.json)
    _f("--enable-piecewise-cuda-graph", added="0.5.3.post2", removed="0.5.14", takes_value=False),
    _f("--disable-piecewise-cuda-graph", added="0.5.10", removed="0.5.20", deprecated="0.5.14",
       takes_value=False, replacement=("--cuda-graph-backend-prefill", "disabled")),
    # 0.5.20 does not deprecate it yet; 0.5.23 is the first release whose wheel does (doctor/data/sglang_facts.json)
    _f("--enable-dp-attention", deprecated="0.5.23", takes_value=False, replacement=("--attn-dp-size",),
       value_from="--dp-size"),
    _f("--attn-dp-size", added="0.5.22"),
)}

# Spellings people type that argparse resolves (or refuses) by prefix; canonical form to print instead.
ABBREVIATIONS = {"--tp": "--tp-size", "--pp": "--pp-size", "--dp": "--dp-size"}
AMBIGUOUS = {"--pp": ("--pp-size", "--pp-async-batch-depth", "--pp-max-micro-batch-size")}


CHOICES_TABLE = Path(__file__).resolve().parents[2] / "data" / "sglang_choices.json"


@lru_cache(maxsize=1)
def _choices_table() -> dict[str, Any]:
    return json.loads(CHOICES_TABLE.read_text(encoding="utf-8"))


def release_choices(flag: str, version: Version) -> tuple[list[str] | None, bool]:
    """The choices SGLang `version`'s argparse declares for `flag` (read from the release wheels by
    tools/sglang_facts.py) and whether `version` lies within the releases read: a release newer than the
    table may accept more, one older than it is not known. (None, ...) where the flag takes any value or
    its list is not a literal in that release."""
    table = _choices_table()
    releases = [Version(r) for r in table["releases"]]
    v = release(version)
    if v < releases[0]:
        return None, False
    runs = [run for run in table["flags"].get(canonical(flag), []) if Version(run["from"]) <= v]
    return (runs[-1]["choices"] if runs else None), v <= releases[-1]


def canonical(flag: str) -> str:
    """`--tp` → `--tp-size`; `--tp_size` → `--tp-size`; other spellings unchanged."""
    flag = flag.replace("_", "-") if flag.startswith("--") else flag
    return ABBREVIATIONS.get(flag, flag)


def flag_exists(flag: str, version: Version) -> bool | None:
    """True/False when the registry knows the flag, None when it does not."""
    known = FLAGS.get(canonical(flag))
    return None if known is None else known.exists(version)


def choice_valid(flag: str, value: str, version: Version) -> bool | None:
    """False only where the release's own choice list refuses the value; None where the doctor cannot tell
    (no list, or a release newer than the table that may have added it)."""
    choices, within = release_choices(flag, version)
    if choices is None:
        return None
    if value in choices:
        return True
    return False if within else None


def _takes_value(flag: str) -> bool:
    known = FLAGS.get(canonical(flag))
    return known is not None and known.takes_value


def _is_switch(flag: str) -> bool:
    known = FLAGS.get(canonical(flag))
    return known is not None and not known.takes_value


def check_flags(tokens: list[str], version: Version) -> list[str]:
    """Problems with a list of flag tokens for this release: unknown spellings, removed flags, bad choices."""
    problems = []
    for flag, value in flag_pairs(tokens, is_switch=_is_switch, takes_value=_takes_value):
        known = FLAGS.get(canonical(flag))
        if known is not None and not known.exists(version):
            problems.append(f"{flag} does not exist in SGLang {version}")
        elif value is not None and choice_valid(flag, value, version) is False:
            problems.append(f"{flag} {value} is not a choice in SGLang {version}")
    return problems


def user_flag_view(args: list[str], version: Version | None) -> dict[str, list[str]]:
    """For rules: the user's flags this release rejects, deprecates, or cannot resolve."""
    rejected, deprecated, ambiguous = [], [], []
    for token in args:
        if not token.startswith("--"):
            continue
        flag = token.partition("=")[0].replace("_", "-")
        if flag in AMBIGUOUS:
            ambiguous.append(f"{flag} (matches {', '.join(AMBIGUOUS[flag])})")
            continue
        known = FLAGS.get(canonical(flag))
        if known is None or version is None:
            continue
        if not known.exists(version):
            instead = " ".join(known.replacement) or "nothing: drop it"
            rejected.append(f"{flag} (use {instead})")
        elif known.is_deprecated(version) and known.name != "--disable-cuda-graph":  # that one has SGL112
            deprecated.append(f"{flag} (use {' '.join(known.replacement)})")
    return {"rejected_flags": rejected, "deprecated_flags": deprecated, "ambiguous_flags": ambiguous,
            "bad_values": bad_values(args, version), "misspelled_flags": misspelled(args),
            "underscore_flags": underscore_flags(args)}


def underscore_flags(args: list[str]) -> list[str]:
    """Flags spelled with underscores (`--mem_fraction_static`). SGLang's plain argparse registers only the
    dashed names (no release's server args has an underscore: doctor/data/sglang_facts.json), so it refuses
    these, where vLLM's parser would have turned them into dashes."""
    out = []
    for token in args:
        flag = token.partition("=")[0]
        if flag.startswith("--") and "_" in flag:
            out.append(f"{flag} (use {flag.replace('_', '-')})")
    return out


def bad_values(args: list[str], version: Version | None) -> list[str]:
    """Values outside a flag's choices in this release (SGLang's argparse refuses to start)."""
    if version is None:
        return []
    out = []
    for flag, value in flag_pairs(args, is_switch=_is_switch, takes_value=_takes_value):
        if value is not None and choice_valid(flag, value, version) is False:
            known = sorted(release_choices(flag, version)[0] or [])
            close = suggest(flag, value, known)
            hint = f"did you mean {close}?" if close else f"choices: {', '.join(known)}"
            out.append(f"{canonical(flag)} {value} ({hint})")
    return out


def misspelled(args: list[str]) -> list[str]:
    """Flags the doctor does not know that sit one typo away from one it does (`--tp-szie`). Flags far
    from every known one are left alone: the registry holds the flags the doctor reasons about, not all."""
    known = [*FLAGS, *ABBREVIATIONS]
    out = []
    for token in args:
        flag = token.partition("=")[0].replace("_", "-") if token.startswith("--") else None
        if flag is None or flag in FLAGS or flag in ABBREVIATIONS or flag in AMBIGUOUS:
            continue
        close = closest(flag, known, cutoff=0.85)
        if close:
            out.append(f"{flag} (did you mean {close}?)")
    return out
