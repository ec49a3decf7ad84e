"""What a pasted `unrecognized arguments: --FLAG` line from `vllm serve` means, read from the flag tables of the
vLLM wheels (doctor/data/vllm/index.json, the same tables VLLM013 checks a launch against): VLLM013's signatures
capture the flag (`log_vllm_flag`), and `log.flags.vllm` says which releases register it and, where the log or
`--engine` states the release, what that release has instead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.diagnose.read import first_captures
from doctor.engines.vllm import flags as vllm_flags
from doctor.engines.vllm import knowledge
from doctor.pipeline.facts import Facts

GROUPS = {"log_vllm_flag": "vllm", "log_vllm_value": "value"}
# A flag every release the tables hold accepts, refused all the same
ELSEWHERE = ("look at how it was passed: a flag and its value given as one word (`\"--host 0.0.0.0\"` in a "
             "subprocess or compose list) is unknown to argparse, and a dev build, a fork or another command "
             "(`python -m vllm.entrypoints.openai.api_server` of an old image) may not have it; `vllm --version` "
             "where it ran says which vLLM parsed it")


def log_view(hits: Sequence[Any], facts: Facts) -> dict[str, Any]:
    """`log.flags.vllm`: one sentence on the flag the log's `unrecognized arguments` line names."""
    names = first_captures(hits, GROUPS)
    if not names:
        return {}
    library = facts.library("vllm")
    stated = library.version if library is not None and library.details.get("release_stated") is not False \
        else None
    if "value" in names:
        return {"flags": {"vllm": value_advice(names["vllm"], names["value"], stated)}}
    return {"flags": {"vllm": flag_advice(names["vllm"], stated)}}


def value_advice(flag: str, value: str, stated: str | None) -> str:
    """Which vLLM releases take `flag VALUE` (argparse's `invalid choice`), from each release's choices."""
    name = vllm_flags.normalise(flag)
    releases = knowledge.releases()
    entries = {r: found.entry for r in releases if (found := vllm_flags.table(r).resolve(name)) is not None}
    if not any(vllm_flags.valid_values(entry) for entry in entries.values()):
        return (f"the vLLM flag tables hold no choices for `{name}` ({releases[0]}-{releases[-1]}): the line's own "
                f"`choose from` list is what the build that printed it takes")
    having = [r for r, entry in entries.items() if vllm_flags.value_ok(entry, value)]
    read = f"the vLLM wheels read, {releases[0]}-{releases[-1]}"
    if not having:
        choices = vllm_flags.accepted_values(releases[-1], name) or []
        listed = f"; {releases[-1]} takes {', '.join(choices)}" if choices else ""
        return f"no vLLM release accepts `{name} {value}` ({read}){listed}"
    spans = knowledge.release_spans(having, releases)
    elsewhere = "a dev build, a fork or another command refused it; `vllm --version` where it ran says which"
    return (f"vLLM accepts `{name} {value}` in {knowledge.describe_spans(spans)} ({read})"
            f"{_at_release(spans, stated, elsewhere)}")


def flag_advice(flag: str, stated: str | None) -> str:
    """Which vLLM releases register `flag` (the wheels read), and what the stated release does with it."""
    name = vllm_flags.normalise(flag.split("=", 1)[0])
    releases = knowledge.releases()
    base = name.partition(".")[0]
    if base != name and vllm_flags.table(releases[-1]).resolve(name) is not None:
        name = base  # `--compilation-config.mode`: JSON dot notation of a flag the newest release has
    read = f"the vLLM wheels read, {releases[0]}-{releases[-1]}"
    history = knowledge.flag_history(name)
    renamed = knowledge.index()["alias_of"].get(name)
    if history is None:
        known = f"no vLLM release registers `{name}` ({read})"
        if renamed:
            return f"{known}: it is an old spelling of `{renamed}`, use that"
        close = vllm_flags.table(releases[-1]).closest(name)
        return f"{known}: drop it, or use the closest flag {releases[-1]} has, `{close}`" if close else \
            f"{known}: drop it"
    spans = history["releases"]
    if spans == [[releases[0], releases[-1]]]:
        known = f"vLLM registers `{name}` in every release read ({releases[0]}-{releases[-1]})"
    else:
        known = f"vLLM registers `{name}` in {knowledge.describe_spans(spans)} ({read})"
    return f"{known}{_at_release(spans, stated)}"


def _at_release(spans: list[list[str]], stated: str | None, elsewhere: str = "") -> str:
    """What the stated release does with a flag some release has: too old, too new, or it has it (so the parser
    that refused it was not that release's `vllm serve`)."""
    try:
        version = Version(stated) if stated else None
    except InvalidVersion:
        version = None
    if version is None:
        first, last = spans[0][0], spans[-1][1]
        later = vllm_flags.next_release(last)
        when = [f"added in {first}"] if first != knowledge.releases()[0] else []
        when += [f"removed in {later}"] if later else []
        if not when:
            return f": {elsewhere or ELSEWHERE}"
        return f": {', '.join(when)}; run a release that has it or drop the flag"
    release = knowledge.known_release(version)
    if knowledge.in_ranges(release, spans):
        return f"; vLLM {stated} reads as {release}, which has it: {elsewhere or ELSEWHERE}"
    if Version(release) < Version(spans[0][0]):
        return f"; vLLM {stated} is older: upgrade to {spans[0][0]} or newer, or drop the flag"
    if Version(release) < Version(spans[-1][1]):
        return f"; vLLM {stated} reads as {release}, which lacks it: drop the flag or use a release that has it"
    later = vllm_flags.next_release(spans[-1][1])
    return f"; vLLM {stated} is newer (removed in {later}; last in {spans[-1][1]}): drop the flag"
