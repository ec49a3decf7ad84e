"""ARCH040-ARCH043: the GGUF architectures a llama.cpp build / Ollama release loads (doctor/data/llama_cpp/archs.json),
at the boundaries the samples set, and `diagnose` on the lines public reports quote."""

from __future__ import annotations

from pathlib import Path

import pytest

from doctor.engines.llama_cpp import archs
from tests.diagnose.corpus import diagnose_text, rules_named

LOGS = Path(__file__).resolve().parents[1] / "diagnose" / "logs"

LINE = ("llama_model_load: error loading model: error loading model architecture: "
        "unknown model architecture: 'qwen35moe'\n")


@pytest.mark.parametrize(("build", "status"), [
    (7836, archs.UNKNOWN),  # the last sample without qwen35moe
    (7000, archs.UNKNOWN),
    (8000, archs.UNSETTLED),  # between b7836 and b8095
    (8095, archs.KNOWN),  # the first sample with it
    (11434, archs.KNOWN),
    (20000, archs.KNOWN),  # newer than the data, the newest sample knows it
    (None, archs.UNSETTLED),
])
def test_qwen35moe_boundaries(build: int | None, status: str) -> None:
    assert archs.verdict("qwen35moe", build).status == status


def test_first_known_bracket() -> None:
    assert archs.first_known("qwen35moe") == (7836, 8095)
    assert archs.first_known("deepseek4") == (9837, 9840)


def test_known_at_every_sample() -> None:
    assert archs.first_known("llama") == (None, 4600)
    assert archs.verdict("llama", 4000).status == archs.KNOWN
    assert archs.verdict("llama", 4600).status == archs.KNOWN


def test_unknown_build_warns_only_where_a_sample_refuses() -> None:
    assert archs.verdict("llama", None).status == archs.KNOWN
    assert archs.verdict("qwen3moe", None).status == archs.UNSETTLED  # b4980 refuses it


def test_llama_cpp_python_releases() -> None:
    assert archs.python_status("0.3.8", "qwen3moe") == archs.UNKNOWN  # llama-cpp-python#2008
    assert archs.python_status("0.3.9", "qwen3moe") == archs.KNOWN
    assert archs.python_status("0.3.16", "qwen35moe") == archs.UNKNOWN
    assert archs.python_status("0.3.17", "qwen35moe") == archs.KNOWN
    assert archs.python_status("0.2.90", "qwen35moe") == archs.UNKNOWN  # older than the data, which lacks it
    assert archs.python_status("0.2.90", "llama") is None
    assert archs.python_status("0.4.0", "qwen35moe") is None  # newer than the data
    assert archs.python_first_release("qwen35moe") == "0.3.17 or newer"


def test_diagnose_llama_cpp_python_package_list() -> None:
    log = "llama_cpp_python          0.3.16\n" + LINE
    found = diagnose_text(log)
    assert rules_named(found)[:1] == ["ARCH040"]
    assert found.explanations[0].severity == "error"
    assert any("0.3.17" in fix.summary for fix in found.explanations[0].fixes)


def test_name_no_sample_knows() -> None:
    assert archs.verdict("not-an-arch", 9000).status == archs.NEVER
    assert archs.verdict("not-an-arch", None).status == archs.NEVER


def test_ollama_releases() -> None:
    assert archs.ollama_status("0.17.0", "qwen35moe") == archs.UNKNOWN  # before OllamaEngineRequired lists it
    assert archs.ollama_status("0.17.1", "qwen35moe") == "engine"
    assert archs.ollama_status("0.24.0", "qwen35moe") == "engine"
    assert archs.ollama_status("0.30.2", "qwen35moe") is None  # llama-server at its build from 0.30.0
    assert archs.ollama_status("0.12.3", "qwen3") == archs.KNOWN
    assert archs.ollama_first_release("qwen35moe") == "0.30.0"


def test_diagnose_llama_cpp_build_before() -> None:
    log = LINE
    found = diagnose_text("build: 7836 (abc1234) with cc for x86_64\n" + log)
    assert rules_named(found)[:1] == ["ARCH040"]
    assert found.explanations[0].severity == "error"
    assert "b8095" in found.explanations[0].message


def test_diagnose_llama_cpp_build_after_claims_nothing() -> None:
    log = LINE
    found = diagnose_text("build: 8095 (abc1234) with cc for x86_64\n" + log)
    assert not [e for e in found.explanations if e.rule in ("ARCH040", "ARCH043") and e.severity == "error"]
    assert "ARCH040" not in rules_named(found)


def test_diagnose_unstated_names_first_build() -> None:
    found = diagnose_text((LOGS / "llamacpp-rocm-65-qwen35moe-unknown-arch.log").read_text())
    assert rules_named(found)[:1] == ["ARCH040"]
    assert found.explanations[0].severity == "warning"  # at only some builds
    assert "b8095" in found.explanations[0].message


def test_diagnose_unknown_everywhere() -> None:
    found = diagnose_text("llama_model_load: error loading model: unknown model architecture: 'frobnicator'\n")
    assert rules_named(found)[:1] == ["ARCH042"]


def test_diagnose_ollama_go_engine_fallback() -> None:
    found = diagnose_text((LOGS / "ollama-14499-qwen35moe-unknown-arch.log").read_text())
    assert rules_named(found)[:1] == ["ARCH043"]
    assert any("0.30.0" in fix.summary for fix in found.explanations[0].fixes)


def test_diagnose_ollama_llama_server_knows_it() -> None:
    text = (LOGS / "ollama-14499-qwen35moe-unknown-arch.log").read_text().replace("version 0.17.4", "version 0.30.2")
    assert not {"ARCH040", "ARCH043"} & set(rules_named(diagnose_text(text)))


@pytest.mark.parametrize("text", [
    "ValueError: GGUF model with architecture olmo2 is not supported yet\n",  # vLLM's GGUF loader (vllm#30691)
    "ValueError: Architecture gemma2 not supported\n",  # transformers' GGUF config reader
    'Error: unsupported architecture "Glm4ForCausalLM"\n',  # ollama create's converter
    "llama_model_load: error loading model: error loading model hyperparameters: unsupported model architecture\n",
])
def test_other_architecture_errors_are_not_claimed(text: str) -> None:
    assert not [rule for rule in rules_named(diagnose_text(text)) if rule.startswith("ARCH0")]


def test_old_lm_studio_json_cause() -> None:
    """LM Studio 0.2.x wrapped llama.cpp's words in its JSON error (lmstudio-ai/model-catalog#71)."""
    found = diagnose_text('  "cause": "llama.cpp error: \'unknown model architecture: \'gemma\'\'",\n')
    assert "ARCH040" not in rules_named(found)  # gemma is in every sample (b4600 on): the build is older than the data
