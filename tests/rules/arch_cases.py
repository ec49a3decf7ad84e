"""Cases of "the model is newer than the engine" (ARCH001-ARCH004, rules/arch.toml), read from the derived table
doctor/data/derived/model_support.json. Each positive has negatives just outside it: the release just before and
at the first one that registers the architecture, the stated transformers just before and at the first release
with the model class (the Transformers fallback), --model-impl, an auto_map checkpoint with and without
--trust-remote-code, a release newer than the data (not derived), and a model every release knows. The engines'
registries do not gate on the GPU: the same deployment on Hopper (9.0) and datacenter Blackwell (10.0) fails the
same way, so those cases fire alike."""

from __future__ import annotations

from tests.rules.builders import Case, a, build

QWEN35, GEMMA4, LLAMA = "Qwen/Qwen3.5-35B-A3B", "google/gemma-4-26B-A4B", "meta-llama/Llama-3.1-8B-Instruct"
QWEN35_ARCH = "Qwen3_5MoeForConditionalGeneration"
MINIMAX_M3 = "MiniMaxAI/MiniMax-M3"  # aiconfigurator's copy: its MiniMaxM3ForCausalLM is no engine's class
MINIMAX = "nvidia/MiniMax-M2.5-NVFP4"  # MiniMaxM2ForCausalLM with an auto_map (AutoConfig, AutoModelForCausalLM)
R5090, SPARK, PRO, H100, B200 = "rtx-5090", "dgx-spark", "rtx-pro-6000", "h100-sxm-x8", "b200-x8"


def vl(version, transformers=None, model=QWEN35, profile=R5090):
    engines = (f"vllm=={version}",) + ((f"transformers=={transformers}",) if transformers else ())
    return lambda: build(profile, model, engines)


def sg(version, transformers=None, model=QWEN35, profile=R5090):
    engines = (f"sglang=={version}",) + ((f"transformers=={transformers}",) if transformers else ())
    return lambda: build(profile, model, engines)


ARCH_CASES = [
    # ARCH001: vLLM does not register the architecture and every transformers it admits lacks the class
    a("ARCH001", True, "Qwen3.5 MoE on 0.16.0 (requires transformers<5; the class is in 5.2.0)", vl("0.16.0")),
    a("ARCH001", False, "Qwen3.5 MoE on 0.17.0, the first release that registers it", vl("0.17.0")),
    a("ARCH001", True, "Gemma 4 on 0.18.1, the release before the first (0.19.0)", vl("0.18.1", model=GEMMA4,
                                                                                        profile=SPARK)),
    a("ARCH001", False, "Gemma 4 on 0.19.0", vl("0.19.0", model=GEMMA4, profile=SPARK)),
    a("ARCH001", True, "0.16.0 + transformers 5.1.0 stated: the class is not there yet", vl("0.16.0", "5.1.0")),
    a("ARCH001", False, "0.16.0 + transformers 5.2.0 stated: the fallback may take it (ARCH002)",
      vl("0.16.0", "5.2.0")),
    a("ARCH001", False, "0.11.0 admits any transformers >= 4.55.2 (ARCH002)", vl("0.11.0")),
    a("ARCH001", True, "0.11.0 with --model-impl vllm: no fallback at all", vl("0.11.0"), "--model-impl", "vllm"),
    # a bundled copy whose `architectures` is not the hub file's (index.json architecture_unverified): never an error
    a("ARCH001", False, "MiniMax-M3's bundled copy names a class no release registers", vl("0.31.0", model=MINIMAX_M3)),
    a("ARCH002", True, "MiniMax-M3's bundled copy: a warning that names the copy", vl("0.31.0", model=MINIMAX_M3)),
    a("ARCH003", False, "MiniMax-M3's bundled copy on SGLang", sg("0.5.23", model=MINIMAX_M3)),
    a("ARCH001", False, "0.17.0 with --model-impl vllm: registered", vl("0.17.0"), "--model-impl", "vllm"),
    a("ARCH001", True, "MiniMax-M2.5 (auto_map) on 0.11.0 + transformers 4.57.1 without --trust-remote-code",
      vl("0.11.0", "4.57.1", model=MINIMAX)),
    a("ARCH001", False, "the same with --trust-remote-code: its own code may serve it (ARCH002)",
      vl("0.11.0", "4.57.1", model=MINIMAX), "--trust-remote-code"),
    a("ARCH001", False, "MiniMax-M2.5 on 0.11.1, the first release that registers it",
      vl("0.11.1", "4.57.1", model=MINIMAX)),
    a("ARCH001", False, "0.34.0, newer than the data: not derived", vl("0.34.0")),
    a("ARCH001", False, "a source build of 0.16: not derived", vl("0.16.1.dev5+g1234abc")),
    a("ARCH001", False, "Llama on 0.16.0", vl("0.16.0", model=LLAMA)),
    a("ARCH001", True, "Hopper: the registry does not gate on the GPU", vl("0.16.0", profile=H100)),
    a("ARCH001", True, "datacenter Blackwell alike", vl("0.16.0", profile=B200)),
    a("ARCH001", True, "RTX PRO 6000", vl("0.16.0", profile=PRO)),
    # ARCH002: not registered, a fallback may apply
    a("ARCH002", True, "0.11.0, transformers not stated (admits releases newer than the data)", vl("0.11.0")),
    a("ARCH002", True, "0.16.0 + transformers 5.2.0 stated", vl("0.16.0", "5.2.0")),
    a("ARCH002", True, "MiniMax-M2.5 with --trust-remote-code", vl("0.11.0", "4.57.1", model=MINIMAX),
      "--trust-remote-code"),
    a("ARCH002", False, "0.16.0, no fallback (ARCH001)", vl("0.16.0")),
    a("ARCH002", False, "0.17.0 registers it", vl("0.17.0", "5.2.0")),
    a("ARCH002", False, "0.34.0: not derived", vl("0.34.0")),
    # ARCH003: SGLang does not register it; its exact transformers pin lacks the class
    a("ARCH003", True, "Qwen3.5 MoE on 0.5.8 (pins transformers 4.57.1)", sg("0.5.8")),
    a("ARCH003", False, "0.5.9, the first release that registers it", sg("0.5.9")),
    a("ARCH003", True, "Gemma 4 on 0.5.10 (pins 5.3.0; the class is in 5.5.0)", sg("0.5.10", model=GEMMA4,
                                                                                     profile=SPARK)),
    a("ARCH003", False, "Gemma 4 on 0.5.11", sg("0.5.11", model=GEMMA4, profile=SPARK)),
    a("ARCH003", False, "0.5.8 + transformers 5.2.0 stated: the fallback may take it (ARCH004)",
      sg("0.5.8", "5.2.0")),
    a("ARCH003", True, "0.5.8 + transformers 5.1.0 stated", sg("0.5.8", "5.1.0")),
    a("ARCH003", True, "0.5.8 + 5.2.0 with --model-impl sglang: no fallback", sg("0.5.8", "5.2.0"),
      "--model-impl", "sglang"),
    a("ARCH003", False, "0.5.24, newer than the data: not derived", sg("0.5.24")),
    a("ARCH003", False, "Llama on 0.5.8", sg("0.5.8", model=LLAMA)),
    a("ARCH003", True, "Hopper alike", sg("0.5.8", profile=H100)),
    a("ARCH003", False, "SGLANG_EXTERNAL_MODEL_PACKAGE set: another package may register it (ARCH004)",
      lambda: build(R5090, QWEN35, ("sglang==0.5.8",), env={"SGLANG_EXTERNAL_MODEL_PACKAGE": "my_models"})),
    # ARCH004
    a("ARCH004", True, "SGLANG_EXTERNAL_MODEL_PACKAGE set",
      lambda: build(R5090, QWEN35, ("sglang==0.5.8",), env={"SGLANG_EXTERNAL_MODEL_PACKAGE": "my_models"})),
    a("ARCH004", True, "0.5.8 + transformers 5.2.0 stated", sg("0.5.8", "5.2.0")),
    a("ARCH004", False, "0.5.8 with its own pin (ARCH003)", sg("0.5.8")),
    a("ARCH004", False, "0.5.9 registers it", sg("0.5.9", "5.2.0")),
]


def logged(rule, fires, why, arch=QWEN35_ARCH, engine="vllm", version=None, shown=None):
    """`diagnose` on the line that names `arch`: the log's engine (and release, if logged) as what-ifs, and
    `log.model_support` as doctor/diagnose/model_support.py reads it; `shown=()` is `check` (no log)."""
    from doctor.diagnose.model_support import _architecture

    engines = (f"{engine}=={version}",) if version else ()

    def launch_file():
        facts = build(R5090, engines=engines)
        log = {"signatures": [rule] if shown is None else list(shown), "architecture": arch,
               "model_support": _architecture(arch, engine, facts)}
        return {"image": None, "recipe": None, "log": log}

    return Case(rule, fires, lambda: build(R5090, engines=engines), (), (), why,
                launch_file if shown != () else None)


ARCH_CASES += [
    logged("ARCH010", True, "vLLM 0.16.0 logged: the release before the first that registers it", version="0.16.0"),
    logged("ARCH010", False, "vLLM 0.17.0 logged: it registers it (ARCH012)", version="0.17.0"),
    logged("ARCH010", False, "no release logged (ARCH011)"),
    logged("ARCH010", False, "0.34.0, newer than the data (ARCH011)", version="0.34.0"),
    logged("ARCH010", True, "SGLang 0.5.8 logged", engine="sglang", version="0.5.8"),
    logged("ARCH010", False, "SGLang 0.5.9 logged", engine="sglang", version="0.5.9"),
    logged("ARCH010", False, "check: no log", version="0.16.0", shown=()),
    logged("ARCH010", False, "another rule's line", version="0.16.0", shown=("DSP057",)),
    logged("ARCH011", True, "no release logged"),
    logged("ARCH011", True, "0.34.0: not derived", version="0.34.0"),
    logged("ARCH011", False, "0.16.0 logged (ARCH010)", version="0.16.0"),
    logged("ARCH011", False, "check: no log", shown=()),
    logged("ARCH012", True, "vLLM 0.17.0 logged: registered, its module failed", version="0.17.0"),
    logged("ARCH012", False, "vLLM 0.16.0 logged: not registered (ARCH010)", version="0.16.0"),
    logged("ARCH012", False, "no release logged (ARCH011)"),
    logged("ARCH013", True, "failed to be inspected, no release logged", arch="LlamaForCausalLM"),
    logged("ARCH013", False, "a release logged that registers it (ARCH012)", arch="LlamaForCausalLM",
           version="0.17.0"),
    logged("ARCH013", False, "check: no log", arch="LlamaForCausalLM", shown=()),
]


def logged_type(fires, why, model_type="qwen3_5_moe", shown=None):
    """ARCH014: `diagnose` on transformers' unknown-model-type line in an SGLang log."""
    from doctor.diagnose.model_support import _model_type

    def launch_file():
        log = {"signatures": ["ARCH014"] if shown is None else list(shown), "model_type": model_type,
               "model_support": _model_type(model_type, "sglang")}
        return {"image": None, "recipe": None, "log": log}

    return Case("ARCH014", fires, lambda: build(R5090, engines=("sglang==0.5.8",)), (), (), why,
                launch_file if shown != () else None)


ARCH_CASES += [
    logged_type(True, "qwen3_5_moe: SGLang 0.5.9 ships its configuration"),
    logged_type(True, "gemma4: the first SGLang whose pin knows it", model_type="gemma4"),
    logged_type(False, "a model type no SGLang release loads", model_type="no_such_model_type"),
    logged_type(False, "check: no log", shown=()),
    logged_type(False, "another rule's line", shown=("DSP057",)),
]
