"""tools/model_support.py: the static readers on the shapes the real files have (vLLM's registry dicts and its
`_CONFIG_REGISTRY` in both spellings, SGLang's `EntryClass`, transformers' mappings before and after 5.6 moved the
generated part to auto_mappings.py), the run-length form, and (slow) the newest release of each package the
table holds against its own wheel on PyPI."""

from __future__ import annotations

import json

import pytest

from doctor.engines import model_support
from tools import model_support as tool

REGISTRY = '''
_TEXT_GENERATION_MODELS = {
    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),
    "Qwen3_5MoeForConditionalGeneration": ("qwen3_5", "Qwen3_5MoeForConditionalGeneration"),
}
_MULTIMODAL_MODELS: dict[str, tuple[str, str]] = {"Gemma4ForConditionalGeneration": ("gemma4", "Gemma4")}
_PREVIOUSLY_SUPPORTED_MODELS = {"MotifForCausalLM": "0.10.2"}
_VLLM_MODELS = {**_TEXT_GENERATION_MODELS, **_MULTIMODAL_MODELS}
'''


def test_vllm_registry_keys_without_the_removed_ones():
    assert tool.vllm_architectures(REGISTRY) == {"LlamaForCausalLM", "Qwen3_5MoeForConditionalGeneration",
                                                 "Gemma4ForConditionalGeneration"}


def test_vllm_config_registry_as_dict_literal_and_as_lazy_call():
    old = '_CONFIG_REGISTRY: dict[str, type[PretrainedConfig]] = {\n    "chatglm": ChatGLMConfig,\n}\n'
    new = ('_CONFIG_REGISTRY: dict[str, type[PretrainedConfig]] = LazyConfigDict(\n    afmoe="AfmoeConfig",\n'
           '    qwen3_5="Qwen3_5Config",\n)\n')
    assert tool.vllm_config_types(old) == {"chatglm"}
    assert tool.vllm_config_types(new) == {"afmoe", "qwen3_5"}


def test_sglang_entry_class_one_or_a_list_and_config_model_types():
    assert tool.entry_classes("class A: pass\nEntryClass = A\n") == {"A"}
    assert tool.entry_classes("EntryClass = [Qwen3_5ForConditionalGeneration, Qwen3_5MoeForConditionalGeneration]\n"
                              ) == {"Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"}
    assert tool.class_model_types('class Qwen3_5Config(PretrainedConfig):\n    model_type = "qwen3_5"\n') == \
        {"qwen3_5"}


def test_transformers_mappings_before_and_after_auto_mappings():
    before = ('CONFIG_MAPPING_NAMES = OrderedDict(\n    [\n        ("gemma3", "Gemma3Config"),\n'
              '        ("qwen3_next", "Qwen3NextConfig"),\n    ]\n)\n')
    after = ('from .auto_mappings import CONFIG_MAPPING_NAMES\nCONFIG_MAPPING_NAMES.update(\n    {\n'
             '        "EvollaModel": "EvollaConfig",\n    }\n)\n'
             'CONFIG_MAPPING_NAMES = OrderedDict(**{"gpt-sw3": "GPT2Config"}, **CONFIG_MAPPING_NAMES)\n')
    assert tool.mapping_entries(before, tool.config_mapping)[0] == {"gemma3", "qwen3_next"}
    assert tool.mapping_entries(after, tool.config_mapping)[0] == {"EvollaModel", "gpt-sw3"}
    models = ('MODEL_FOR_CAUSAL_LM_MAPPING_NAMES = OrderedDict(\n    [\n        ("gemma3", ("Gemma3ForCausalLM", '
              '"Gemma3ForConditionalGeneration")),\n    ]\n)\n')
    classes = tool.mapping_entries(models, tool.model_mapping)[1]
    assert classes == {"Gemma3ForCausalLM", "Gemma3ForConditionalGeneration"}


def test_runs_of_consecutive_releases():
    found = tool.runs(["1", "2", "3", "4"], [{"a"}, {"a", "b"}, {"b"}, {"a", "b"}])
    assert found == {"a": "1..2,4..4", "b": "2..4"}


def test_the_reader_answers_from_runs():
    assert model_support.first_release("vllm", model_support.ARCHITECTURES, "Qwen3_5MoeForConditionalGeneration") \
        == "0.17.0"
    assert model_support.first_release("vllm", model_support.ARCHITECTURES, "Qwen3_5MoeForConditionalGeneration",
                                       after="0.20.0") == "0.20.1"
    assert model_support.knows("vllm", model_support.ARCHITECTURES, "Qwen3_5MoeForConditionalGeneration", "0.17.0")
    assert not model_support.knows("vllm", model_support.ARCHITECTURES, "Qwen3_5MoeForConditionalGeneration",
                                   "0.16.0")
    assert model_support.table_release("vllm", "0.34.0") is None
    assert model_support.table_release("vllm", "0.16.1.dev5+g1234abc") is None


@pytest.mark.slow
@pytest.mark.parametrize("package", ["vllm", "sglang", "transformers"])
def test_newest_release_in_the_table_matches_its_wheel(package):
    """The newest release the table holds, read again from its wheel (cached, else PyPI by ranges)."""
    data = json.loads(model_support.TABLE.read_text())["packages"][package]
    newest = data["releases"][-1]
    read = tool.read_release(package, newest, tool.final_releases(package)[newest])
    for kind, names in read["names"].items():
        held = {name for name in data[kind] if model_support.knows(package, kind, name, newest)}
        assert held == names, (package, newest, kind, sorted(held ^ names)[:10])
    if package != "transformers":
        assert data["requires_transformers"][newest] == read["requires_transformers"]


def test_the_fix_names_the_release_that_registers_and_the_one_that_also_loads():
    # vLLM 0.15.0 registers Glm4MoeLiteForCausalLM, but its transformers requirement admits no release that knows
    # glm4_moe_lite; the fix must not call the later release the first that registers it
    text = model_support.fix_text("vllm", "vLLM", "Glm4MoeLiteForCausalLM", "glm4_moe_lite", "0.14.0")
    target = model_support.working_release("vllm", "Glm4MoeLiteForCausalLM", "glm4_moe_lite", "0.14.0")[0]
    assert target != "0.15.0"
    assert "vLLM 0.15.0 registers Glm4MoeLiteForCausalLM, but no transformers its requirement admits" in text
    assert f"{target} is the first release after 0.14.0 that does both" in text
    plain = model_support.fix_text("vllm", "vLLM", "Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe", "0.16.0")
    assert "is the first release after 0.16.0 that registers Qwen3_5MoeForConditionalGeneration" in plain
