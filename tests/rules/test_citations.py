"""Every rule cites public sources (an issue, PR, doc or source file at a tag) and nothing in the knowledge
base or the package points at the team's private research notes."""

from __future__ import annotations

import re
from pathlib import Path

from doctor.pipeline.rules import load_rules

REPO = Path(__file__).resolve().parents[2]
# the notes' paths, bare (`research/models.md`, `sglang.md §2`) or under shared/
PRIVATE = re.compile(r"(?<![\w/])shared/(research|seeds|models)|\.\./shared|(?<![\w/.])(research|seeds)/[\w-]+\.md"
                     r"|(?<![\w/.-])(sglang|smem|engines|models|anchors|peers|DESIGN)\.md\b")


def test_every_rule_cites_a_public_url_and_no_reference_repeats():
    for rule in load_rules():
        assert any(ref.startswith("https://") for ref in rule.all_references()), rule.id
        assert len(set(rule.all_references())) == len(rule.all_references()), rule.id


ENGINE_SOURCES = {"sglang": ("sgl-project/", "docs.sglang.io"), "vllm": ("vllm-project/", "docs.vllm.ai"),
                  "tensorrt-llm": ("NVIDIA/TensorRT-LLM",), "llama.cpp": ("ggml-org/",)}


def _engine_of(ref: str) -> str | None:
    return next((engine for engine, marks in ENGINE_SOURCES.items() if any(m in ref for m in marks)), None)


def test_engine_independent_rules_cite_no_engine_in_their_neutral_references():
    """A rule evaluated in every engine's run (its area is no engine's root) keeps each engine's own sources in
    `engine_references`, so a vLLM report never cites SGLang's code and the other way round (issue 24, point 6).
    Rules whose condition names one engine's package (sgl-kernel's wheel, vLLM's _C families) are that
    engine's by their condition."""
    from doctor.engines import registry
    from doctor.pipeline.context import engine_root

    roots = {engine_root(name) for name in registry.engines()}
    about_one_engine = {"WHL001": "sglang", "BIN003": "vllm", "BIN002": "vllm"}
    for rule in load_rules():
        if rule.area in roots:
            continue
        for ref in rule.references:
            engine = _engine_of(ref)
            assert engine is None or about_one_engine.get(rule.id) == engine, (rule.id, ref)
        for engine, refs in rule.engine_references:
            assert all(_engine_of(ref) in (None, engine) for ref in refs), (rule.id, engine)


def test_no_rule_file_or_package_file_cites_private_notes():
    files = [*(REPO / "rules").glob("*.toml"), *(REPO / "doctor").rglob("*.py"),
             *(REPO / "doctor").rglob("*.json"), *(REPO / "doctor").rglob("*.md"), *(REPO / "doctor").rglob("*.toml")]
    offenders = [str(p.relative_to(REPO)) for p in files if PRIVATE.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_a_finding_cites_the_neutral_sources_and_its_own_engines_code_only():
    from tests.rules.builders import build, findings

    argv = ("--tensor-parallel-size", "8")
    [vllm] = findings(build("rtx-pro-6000-x8", "meta-llama/Llama-3.1-8B-Instruct", ("vllm==0.20.0",)), *argv)["TOPO001"]
    [sglang] = findings(build("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", ("sglang==0.5.23",)))["TOPO001"]
    assert vllm.references and all("vllm-project" in ref for ref in vllm.references)
    assert sglang.references and all("sgl-project" in ref for ref in sglang.references)
    [hw] = [r for r in load_rules() if r.id == "HW004"]
    assert hw.references_for("sglang") == hw.references  # no SGLang source known: the neutral one only
    assert set(hw.references_for("vllm")) > set(hw.references)
    assert hw.references_for(None) == hw.all_references()


def test_a_rule_without_a_neutral_source_cites_other_engines_rather_than_nothing():
    [rule] = [r for r in load_rules() if r.id == "CLU003"]
    assert not rule.references and rule.references_for("vllm") == rule.references_for("sglang") != ()
