"""A flag value a finding prints back is one the engine release's own parser accepts (issue #25/#26, trust).

Two sources print values: rule templates (`--kv-cache-dtype {launch.kv_cache_dtype}`, any `--FLAG {launch.KEY}`
in a title, message, fix summary, fix flags or command), and the memory plan's layout flags. The first is
generic over the registry: every such template, for every release of the engine it runs in, for every value that
release's `FLAG` accepts, parsed by that engine's own launch parser and rendered through the `launch` root the
rules see, must print a value the release accepts (the user's spelling, not the doctor's `fp4_e2m1`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from packaging.version import Version

from doctor.engines import registry
from doctor.engines.sglang.flags import _choices_table, release_choices
from doctor.engines.spi import LayoutShape
from doctor.engines.vllm import knowledge
from doctor.engines.vllm.flags import accepted_values
from doctor.pipeline.conditions import render
from doctor.pipeline.context import launch_view
from doctor.pipeline.rules import Rule, load_rules
from doctor.plan.kv import SPELLINGS

PRINTED = re.compile(r"(--[a-z0-9][a-z0-9-]*)[ =](\{launch\.[a-z0-9_]+\})")
ENGINES = ("vllm", "sglang")


def _texts(rule: Rule) -> Iterator[str]:
    yield rule.title
    yield rule.message
    for fix in rule.fixes:
        yield fix["summary"]
        yield " ".join(str(v) for v in fix.get("flags", []))
        yield str(fix.get("command", ""))


def printed_launch_values() -> list[tuple[str, str, str]]:
    """(rule ID, flag, template fragment) for every `--FLAG {launch.KEY}` a rule prints."""
    found = set()
    for rule in load_rules():
        for text in _texts(rule):
            for match in PRINTED.finditer(text):
                found.add((rule.id, match.group(1), match.group(0)))
    return sorted(found)


def engines_of(rule_id: str) -> tuple[str, ...]:
    area = next(r.area for r in load_rules() if r.id == rule_id)
    return (area,) if area in ENGINES else ENGINES


def accepted(engine: str, release: str, flag: str) -> list[str] | None:
    if engine == "vllm":
        return accepted_values(release, flag)
    return release_choices(flag, Version(release))[0]


def releases(engine: str) -> list[str]:
    return list(knowledge.releases()) if engine == "vllm" else list(_choices_table()["releases"])


PRINTS = printed_launch_values()


def test_the_registry_prints_launch_values():
    """The scan finds the templates this test is about (a scan that finds nothing would pass vacuously)."""
    flags = {flag for _, flag, _ in PRINTS}
    assert {"--kv-cache-dtype", "--attention-backend", "--moe-runner-backend"} <= flags
    assert "ATTN004" in {rule for rule, _, _ in PRINTS} and len(PRINTS) >= 10


@pytest.mark.parametrize(("rule_id", "flag", "fragment"), PRINTS, ids=[f"{r}:{f}" for r, f, _ in PRINTS])
def test_a_printed_launch_value_is_one_the_release_accepts(rule_id, flag, fragment):
    checked = 0
    for engine in engines_of(rule_id):
        parse = registry.get(engine).parse_launch
        for release in releases(engine):
            values = accepted(engine, release, flag)
            for value in values or ():  # a flag that takes any text (a number, a path) prints it as given
                context = {"launch": launch_view(parse([flag, value]), 1)}
                shown = render(fragment, context).split(" ", 1)[-1].split("=", 1)[-1]
                assert shown in values, f"{rule_id} prints `{flag} {shown}` for `{flag} {value}` ({engine} {release})"
                checked += 1
    if flag == "--kv-cache-dtype":
        assert checked, f"{rule_id}: no release of {engines_of(rule_id)} has choices for {flag}"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_memory_plan_spells_the_kv_dtype_as_each_release_accepts_it(engine):
    """The plan's layout flags (console, MEM fixes, composed command) for every planner dtype a release takes."""
    checked = 0
    for release in releases(engine):
        values = accepted(engine, release, "--kv-cache-dtype")
        if values is None:
            continue
        memory = _memory(engine, release)
        for dtype, spellings in SPELLINGS.items():
            if not set(spellings) & set(values):
                continue
            flags = memory.layout_flags(LayoutShape(1, 1, 1), _settings(engine), dtype, True, None, False)
            shown = flags[flags.index("--kv-cache-dtype") + 1]
            assert shown in values, f"{engine} {release}: plan prints --kv-cache-dtype {shown} for {dtype}"
            checked += 1
    assert checked >= 20


def _memory(engine: str, release: str):
    if engine == "vllm":
        from doctor.engines.vllm.memory import VLLMMemory

        return VLLMMemory(Version(release), (12, 0))
    from doctor.engines.sglang.memory import SGLangMemory

    return SGLangMemory(release)


def _settings(engine: str) -> dict[str, float]:
    return {"gpu_memory_utilization": 0.9} if engine == "vllm" else {"mem_fraction_static": 0.8}
