"""A hub id the doctor cannot read offline, derived from the bundled model its name names
(doctor/probe/derived_name.py): which bundled base a name resolves to (and the near misses that must not), the
quantization its tokens state checked against real checkpoints' configs in tests/knowngood/models/, and what
`check` does with a derived model."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from doctor.cli import main
from doctor.errors import InputError
from doctor.probe import model as model_module
from doctor.probe.derived_name import _spans, resolve
from doctor.probe.model import bundled_models, find_config, load_model

KNOWNGOOD = Path(__file__).resolve().parents[1] / "knowngood" / "models"
OFFLINE = {"HF_HUB_OFFLINE": "1"}


def _resolve(spec: str):
    return resolve(spec, bundled_models())


@pytest.mark.parametrize(("spec", "base", "scheme"), [
    ("Qwen/Qwen3.8-27B-FP8", "Qwen/Qwen3.8-27B", "fp8-block"),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "Qwen/Qwen3-235B-A22B-Instruct-2507", "fp8-block"),
    ("RedHatAI/Qwen3-8B-FP8-Dynamic", "Qwen/Qwen3-8B", "fp8-channel"),
    ("RedHatAI/Qwen3-8B-FP8_DYNAMIC", "Qwen/Qwen3-8B", "fp8-channel"),
    ("cyankiwi/Qwen3.6-35B-A3B-AWQ-4bit", "Qwen/Qwen3.6-35B-A3B", "awq"),
    ("Intel/Qwen3.5-122B-A10B-int4-AutoRound", "Qwen/Qwen3.5-122B-A10B", "auto-round"),
    ("dbirks/Qwen3.8-27B-W4A16-AutoRound", "Qwen/Qwen3.8-27B", "auto-round"),
    ("RedHatAI/Qwen3-8B-quantized.w4a16", "Qwen/Qwen3-8B", "int4-w4a16"),
    ("RedHatAI/Qwen3-8B-quantized.w8a8", "Qwen/Qwen3-8B", "int8-w8a8"),
    ("Qwen/Qwen3-8B-GPTQ-Int8", "Qwen/Qwen3-8B", "gptq"),
    ("unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit", "meta-llama/Llama-3.1-8B-Instruct", "bnb-4bit-dq"),
    ("nvidia/Qwen3-Next-80B-A3B-Instruct-NVFP4", "Qwen/Qwen3-Next-80B-A3B-Instruct", "nvfp4"),
    ("bg-digitalservices/Gemma-4-26B-A4B-it-NVFP4", "google/gemma-4-26B-A4B", "nvfp4"),
    ("someone/MiniMax-M2.5-MXFP8", "MiniMaxAI/MiniMax-M2.5", "mxfp8"),
    # the longest bundled name wins: Instruct-2507, not Qwen3-30B-A3B
    ("someone/Qwen3-30B-A3B-Instruct-2507-FP8", "Qwen/Qwen3-30B-A3B-Instruct-2507", "fp8-block"),
    # a name that is not the bundled Instruct-2507 falls back to the shorter base, its variant words unread
    ("someone/Qwen3-30B-A3B-Thinking-2507-FP8", "Qwen/Qwen3-30B-A3B", "fp8-block"),
    # the unquantized base before the bundled block-FP8 sibling when the name states another FP8
    ("someone/Qwen3-30B-A3B-FP8-Dynamic", "Qwen/Qwen3-30B-A3B", "fp8-channel"),
    # a distill's base is the model it distils into, not the teacher its name starts with
    ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", "Qwen/Qwen3-8B", "bf16"),
])
def test_a_name_resolves_to_its_bundled_base_and_quantization(spec, base, scheme):
    derivation = _resolve(spec)
    assert derivation is not None and derivation.base == base
    model = load_model(spec, OFFLINE)
    assert model.source == "derived" and model.quantization.scheme == scheme
    assert model.derivation and base in model.derivation and "model directory" in model.derivation


@pytest.mark.parametrize("spec", [
    "LibertAIDAI/GLM-5.3-Flash-NVFP4",  # GLM-5 is bundled: '5.3' continues its version, and Flash is another model
    "zai-org/GLM-5.3-Flash",
    "deepseek-ai/DeepSeek-V4.1-Flash",  # DeepSeek-V4-Flash is not in it
    "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",  # DeepSeek-R1 is in it, but 70B and Distill say another model
    "Qwen/Qwen3-Coder-Next-FP8",
    "google/gemma-4-E4B-it",  # gemma-4-26B-A4B's (and the bundled E2B's) family, another size
    "nvidia/Qwen3.8-Flash-Next-NVFP4",
    "someone/Qwen3-8Bx-FP8",  # Qwen3-8B without a token boundary after it
    "local/Qwen3-8B-Q4_K_M.gguf",  # a GGUF file, which a safetensors config does not describe
    "mlx-community/Qwen3-8B-4bit-mlx",
])
def test_near_misses_are_not_derived(spec):
    assert _resolve(spec) is None
    with pytest.raises(InputError, match="no bundled model is named in it"):
        find_config(spec, OFFLINE)


def test_token_boundaries():
    assert list(_spans("qwen3-8b-fp8", "qwen3-8b")) == [(0, 8)]
    assert list(_spans("huihui-qwen3-8b", "qwen3-8b")) == [(7, 15)]
    assert list(_spans("qwen3-8b.w4a16", "qwen3-8b")) == [(0, 8)]  # a '.' that starts no version digit
    assert not list(_spans("glm-5.3-flash", "glm-5"))
    assert not list(_spans("xqwen3-8b", "qwen3-8b"))


def test_an_unknown_suffix_keeps_the_bases_quantization_and_says_so():
    model = load_model("AEON-7/Qwen3.6-27B-DFlash-ft", OFFLINE)
    base = load_model("Qwen/Qwen3.6-27B", OFFLINE)
    assert model.quantization == base.quantization
    assert "no quantization named" in model.derivation and "dflash, ft" in model.derivation


def test_an_owner_only_difference_is_the_bundled_sibling_as_it_is():
    model = load_model("LibertAIDAI/GLM-5.1-NVFP4", OFFLINE)
    sibling = load_model("nvidia/GLM-5.1-NVFP4", OFFLINE)
    assert model.source == "derived" and "nvidia/GLM-5.1-NVFP4, the same name under another owner" in model.derivation
    assert model.quantization == sibling.quantization


def test_several_quantizations_are_not_guessed():
    with pytest.raises(InputError, match=r"several quantizations \(fp8, nvfp4\)"):
        find_config("someone/Qwen3-32B-NVFP4-FP8", OFFLINE)
    # the mix a bundled sibling carries is that sibling's (RedHatAI's compressed-tensors NVFP4 + block FP8)
    derivation = _resolve("someone/DeepSeek-V4-Flash-NVFP4-FP8-v2")
    assert derivation is not None and derivation.base == "RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8"


@pytest.mark.parametrize("spec", ["./no/such/dir", "/definitely/not/here", "not a model id", "a/b/c"])
def test_paths_and_malformed_specs_are_still_one_error(spec):
    with pytest.raises(InputError):
        find_config(spec, OFFLINE)


@pytest.mark.parametrize(("spec", "real"), [
    ("nvidia/Qwen3-8B-NVFP4", "nvidia--Qwen3-8B-NVFP4"),
    ("nvidia/Qwen3-8B-FP4", "nvidia--Qwen3-8B-FP4"),
    ("nvidia/Qwen3-8B-FP8", "nvidia--Qwen3-8B-FP8"),
    ("nvidia/Llama-3.1-8B-Instruct-NVFP4", "nvidia--Llama-3.1-8B-Instruct-NVFP4"),
    ("Intel/Qwen3.6-27B-int4-AutoRound", "qwen3.6-27b-autoround-int4"),
    ("Intel/Qwen3.6-35B-A3B-int4-AutoRound", "qwen3.6-35b-a3b-autoround-int4"),
    ("QuantTrio/Qwen3.5-397B-A17B-AWQ", "QuantTrio--Qwen3.5-397B-A17B-AWQ"),
])
def test_the_derived_model_is_the_published_checkpoints(spec, real):
    """The derived Model equals the one read from the published config.json (and hf_quant_config.json), all but
    where it came from."""
    derived, published = load_model(spec, OFFLINE), load_model(str(KNOWNGOOD / real), OFFLINE)
    where = {"id", "source", "source_path", "derivation"}
    assert {f.name for f in dataclasses.fields(derived) if getattr(derived, f.name) != getattr(published, f.name)
            } <= where


@pytest.mark.parametrize("spec", ["Qwen/Qwen3.6-27B-FP8", "Qwen/Qwen3.6-35B-A3B-FP8", "Qwen/Qwen3.5-397B-A17B-FP8"])
def test_a_withheld_published_fp8_config_derives_as_it_reads(spec, monkeypatch):
    """Qwen's own FP8 configs are bundled. With the copy withheld, the Model derived from the base by name is the
    published one but for the quantization's per-module ignore list, which no name states."""
    published = load_model(spec, OFFLINE)
    index = {k: v for k, v in bundled_models().items() if k != spec}
    monkeypatch.setattr(model_module, "bundled_models", lambda: index)
    derived = load_model(spec, OFFLINE)
    assert (published.source, derived.source) == ("bundled", "derived")
    assert {f.name for f in dataclasses.fields(derived) if getattr(derived, f.name) != getattr(published, f.name)
            } <= {"id", "source", "source_path", "derivation", "quantization"}
    assert dataclasses.replace(derived.quantization, ignored=()) == dataclasses.replace(published.quantization,
                                                                                         ignored=())
    assert published.quantization.ignored and "lm_head" in derived.quantization.ignored


def test_fp8_dynamic_reads_as_llm_compressors_own():
    derived = load_model("RedHatAI/gemma-4-26B-A4B-it-FP8-Dynamic", OFFLINE).quantization
    published = load_model(str(KNOWNGOOD / "gemma-4-26b-a4b-it-fp8-dynamic"), OFFLINE).quantization
    assert (derived.scheme, derived.method, derived.bits, derived.activation) == (
        published.scheme, published.method, published.bits, published.activation)


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = main(["check", "--offline", "--format", "json", *args])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    return json.loads(out)


def test_check_on_a_derived_id_matches_the_published_config(capsys):
    args = ("--hardware", "dgx-spark", "--engine", "vllm==0.30.0")
    derived = _check(capsys, "Intel/Qwen3.6-27B-int4-AutoRound", *args)
    published = _check(capsys, str(KNOWNGOOD / "qwen3.6-27b-autoround-int4"), *args)
    assert [(f["id"], f["severity"]) for f in derived["findings"]] == [
        (f["id"], f["severity"]) for f in published["findings"]]
    plan, real = derived["analyses"][0]["plan"], published["analyses"][0]["plan"]
    assert plan["requested"]["weights_per_gpu_gib"] == real["requested"]["weights_per_gpu_gib"]
    assert plan["requested"]["kv_budget_gib"] == real["requested"]["kv_budget_gib"]
    assert plan["notes"][0].startswith("estimated: Intel/Qwen3.6-27B-int4-AutoRound's config is derived from bundled")
    model = derived["facts"]["model"]
    assert model["source"] == "derived"
    assert model["derivation"].startswith("derived from bundled Qwen/Qwen3.6-27B + AutoRound int4")


def test_a_derived_run_never_yields_an_error(capsys):
    """Qwen3-235B-A22B-FP8 does not fit one 5090: an error on the bundled config, a warning that says what would
    confirm it on a config derived from a name."""
    args = ("--hardware", "rtx-5090", "--engine", "vllm==0.30.0")
    bundled = _check(capsys, "Qwen/Qwen3-235B-A22B-FP8", *args)
    assert any(f["id"] == "MEM001" and f["severity"] == "error" for f in bundled["findings"])
    for spec in ("someone/Qwen3-235B-A22B-FP8", "someone/Qwen3-235B-A22B-Instruct-2507-FP8"):
        report = _check(capsys, spec, *args)
        assert not [f for f in report["findings"] if f["severity"] == "error"]
        memory = next(f for f in report["findings"] if f["id"] == "MEM001")
        assert memory["severity"] == "warning" and "its config.json confirms this finding" in memory["message"]


def test_the_derivation_is_printed_once(capsys):
    code = main(["check", "--offline", "Qwen/Qwen3.8-27B-FP8", "--hardware", "dgx-spark", "--engine", "vllm==0.30.0"])
    out = re.sub(r"\s+", " ", capsys.readouterr().out)
    assert code in (0, 1)
    assert out.count("give the model directory for an exact check") == 1
    code = main(["check", "--offline", "--format", "markdown", "Qwen/Qwen3.8-27B-FP8", "--hardware", "dgx-spark",
                 "--engine", "vllm==0.30.0"])
    assert capsys.readouterr().out.count("derived from bundled Qwen/Qwen3.8-27B") == 1


def test_an_id_no_bundled_name_is_in_exits_2_with_one_line(capsys):
    code = main(["check", "--offline", "LibertAIDAI/GLM-5.3-Flash-NVFP4", "--hardware", "dgx-spark"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "no bundled model is named in it (nearest bundled: " in err


@pytest.mark.parametrize(("logged", "model_source", "tied_severity"), [
    ("someorg/GLM-4.7-FP8", "bundled", "error"),  # a bundled config of the logged name comes before a derived one
    ("someorg/GLM-4.7-FP8-Dynamic", "derived", "warning"),  # derived from zai-org/GLM-4.7: at most a warning
    ("/models/GLM-4.7-FP8", "bundled", "error"),
    ("/models/GLM-4.7-FP8-Dynamic", "derived", "warning"),  # a directory not here: derived from its name
])
def test_diagnose_reads_a_logged_id_as_check_does(logged, model_source, tied_severity):
    """The SGLang 0.5.8 fused-MoE overflow of tests/diagnose/test_corpus.py, with the model under another name."""
    import io

    from doctor.diagnose.diagnosis import diagnose
    from tests.diagnose.corpus import empty_base

    log = (f"[2026-01-10 10:00:00] server_args=ServerArgs(model_path='{logged}', tp_size=8)\n".encode()
           + b"[pip3] sglang==0.5.8\n"
           b"GPU 0: NVIDIA RTX PRO 6000 Blackwell Server Edition\n"
           b"[2026-01-10 10:00:09 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
           b"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, "
           b"Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n")
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log)), "t", empty_base(), "nothing", {})
    model = diagnosis.report.facts.model
    assert model is not None and model.source == model_source
    assert [f.severity for f in diagnosis.report.findings if f.id == "SGL102"] == [tied_severity]


@pytest.mark.parametrize(("path", "hub_id"), [
    ("/models/Qwen3.6-27B-FP8", ["local/Qwen3.6-27B-FP8"]),
    ("/root/.cache/huggingface/hub/models--RedHatAI--Qwen3-8B-FP8-dynamic/snapshots/0a1b",
     ["RedHatAI/Qwen3-8B-FP8-dynamic"]),
    ("Qwen/Qwen3-8B", []),  # a hub id is looked up as itself
    ("Qwen3-8B", []),
    ("/models/a name with spaces", []),
])
def test_a_logged_directory_stands_for_the_hub_id_its_name_gives(path, hub_id):
    from doctor.probe.derived_name import hub_id_of_path

    assert hub_id_of_path(path) == hub_id


def test_a_pasted_commands_directory_not_here_is_derived_from_its_name(capsys):
    report = _check(capsys, "--hardware", "dgx-spark", "--", "vllm", "serve", "/models/Qwen3.6-27B-FP8")
    model = report["facts"]["model"]
    assert (model["id"], model["source"]) == ("/models/Qwen3.6-27B-FP8", "derived")
    assert model["quantization"]["scheme"] == "fp8-block"
    assert not [f for f in report["findings"] if f["severity"] == "error"]
