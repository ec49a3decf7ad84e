"""diagnose on the lines of "the model is newer than the engine" (rules/arch.toml ARCH010-ARCH013, DSP057's model
type): the architecture or model type the line names is looked up in doctor/data/derived/model_support.json.
Boundaries: the logged release just before and at the first release that registers the architecture, a release
newer than the data, no release logged, the other engine's log, and a model type no transformers release knows."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, rules_named

NOT_SUPPORTED = ("(APIServer pid=1)   Value error, Model architectures ['{arch}'] are not supported for now. "
                 "Supported architectures: dict_keys(['AfmoeForCausalLM', 'ApertusForCausalLM'])\n")
BANNER = "(APIServer pid=1) INFO 05-10 12:00:00 [api_server.py:1278] vLLM API server version {version}\n"
QWEN35 = "Qwen3_5MoeForConditionalGeneration"


def _vllm(arch: str, version: str | None = None):
    return diagnose_text((BANNER.format(version=version) if version else "") + NOT_SUPPORTED.format(arch=arch))


def _first(diagnosis):
    return diagnosis.explanations[0]


def test_release_before_the_first_that_registers_it_is_an_error_naming_that_release():
    diagnosis = _vllm(QWEN35, "0.16.0")
    top = _first(diagnosis)
    assert (top.rule, top.severity) == ("ARCH010", "error")
    assert "0.17.0-0.33.0" in top.message
    assert any("vllm>=0.17.0" in fix.summary for fix in top.fixes)


def test_release_that_registers_it_means_its_module_failed_to_load():
    top = _first(_vllm(QWEN35, "0.17.0"))
    assert (top.rule, top.severity) == ("ARCH012", "warning")
    assert any("transformers>=5.2.0" in fix.summary for fix in top.fixes)


def test_release_newer_than_the_data_is_not_derived():
    names = rules_named(_vllm(QWEN35, "0.34.0"))
    assert names[0] == "ARCH011" and "ARCH010" not in names and "ARCH012" not in names


def test_no_release_logged_names_every_release_that_registers_it():
    top = _first(_vllm(QWEN35))
    assert top.rule == "ARCH011"
    assert "vLLM registers" in top.message


def test_sglang_log_names_sglang_releases_only():
    log = ('  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/model_loader/utils.py", line 98, in '
           "resolve_transformers_arch\n"
           "ValueError: Cannot find model module. 'Gemma4ForConditionalGeneration' is not a registered model in the "
           "Transformers library (only relevant if the model is meant to be in Transformers) and 'AutoModel' is not "
           "present in the model config's 'auto_map' (relevant if the model is custom).\n")
    top = _first(diagnose_text(log))
    assert top.rule == "ARCH011"
    assert "SGLang registers Gemma4ForConditionalGeneration in 0.5.11" in top.message
    assert "vLLM" not in top.message


def test_architecture_no_release_knows_points_at_the_checkpoint_code():
    top = _first(_vllm("Spark2_5ForCausalLM"))
    assert "no vLLM release up to" in top.message
    assert any("--trust-remote-code" in fix.summary for fix in top.fixes)


def test_model_type_line_names_the_first_transformers_release():
    log = ("Value error, The checkpoint you are trying to load has model type `qwen3_5` but Transformers does not "
           "recognize this architecture. This could be because of an issue with the checkpoint, or because your "
           "version of Transformers is out of date.\n")
    top = _first(diagnose_text(log))
    assert top.rule == "DSP057"
    assert "from 5.2.0" in top.message
    assert any("transformers>=5.2.0" in fix.summary for fix in top.fixes)


def test_model_type_no_transformers_knows_needs_the_checkpoint_code():
    log = ("Value error, The checkpoint you are trying to load has model type `kimi_k3` but Transformers does not "
           "recognize this architecture.\n")
    top = _first(diagnose_text(log))
    assert top.rule == "DSP057"
    assert "no transformers release up to" in top.message
    assert "vLLM loads it with a configuration of its own from 0.27.0" in top.message


SGLANG_TRACEBACK = ('[2026-03-02 16:32:40] Scheduler hit an exception: Traceback (most recent call last):\n'
                    '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py", line 2014, in '
                    'run_scheduler_process\n'
                    "ValueError: The checkpoint you are trying to load has model type `{model_type}` but Transformers "
                    "does not recognize this architecture.\n")


def test_model_type_line_in_sglang_names_the_sglang_release_that_loads_it():
    top = _first(diagnose_text(SGLANG_TRACEBACK.format(model_type="gemma4")))
    assert top.rule == "ARCH014"
    assert any("sglang>=0.5.11" in fix.summary and "transformers==5.6.0" in fix.summary for fix in top.fixes)


def test_model_type_line_in_a_wrapper_log_that_only_mentions_sglang_is_not_sglangs():
    log = ("2026-03-02 16:32:39 - gpustack.worker.backends.sglang - INFO - Starting SGLang model instance: q\n"
           "2026-03-02 16:32:40 - gpustack.worker.backends.base - ERROR - Failed to get pretrained config: The "
           "checkpoint you are trying to load has model type `qwen3_5_moe` but Transformers does not recognize this "
           "architecture.\n")
    assert "ARCH014" not in rules_named(diagnose_text(log))


def test_transformers_backend_refusing_the_class_names_the_first_native_release():
    sglang = ('  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/model_loader/utils.py", line 120, in '
              "resolve_transformers_arch\nValueError: Gemma4ForConditionalGeneration has no SGlang implementation "
              "and the Transformers implementation is not compatible with SGLang.\n")
    top = _first(diagnose_text(sglang))
    assert top.rule == "ARCH011" and any("sglang>=0.5.11" in fix.summary for fix in top.fixes)
    vllm = (BANNER.format(version="0.18.0") + "(APIServer pid=1) ValueError: The Transformers implementation of "
            "'Gemma4ForConditionalGeneration' is not compatible with vLLM.\n")
    top = _first(diagnose_text(vllm))
    assert (top.rule, top.severity) == ("ARCH010", "error")
    assert any("vllm>=0.19.0" in fix.summary for fix in top.fixes)
