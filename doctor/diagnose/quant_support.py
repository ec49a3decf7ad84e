"""What a pasted loader line about a quantized checkpoint means, read from the derived quantization rows of
doctor/data/derived/model_support.json (doctor/engines/quant_support.py): the signatures of rules/loader.toml
capture the ModelOpt list a vLLM release printed (`log_modelopt_algos`), the checkpoint's `quant_algo`
(`log_quant_algo`) and an unknown `quant_method` (`log_quant_method`); `log.quant` says which releases print
that list, which release first accepts the algo, and which releases register the method."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import re2

from doctor.diagnose.read import first_captures
from doctor.engines import model_support as table
from doctor.engines import quant_support

GROUPS = ("log_modelopt_algos", "log_quant_algo", "log_quant_method", "log_quant_config", "log_quant_arg",
          "log_tokenizer_class", "log_gguf_arch")
TOKENIZER_CLASSES = "tokenizer_classes"
QUOTED = re2.compile(r"['\"]([A-Za-z0-9_]+)['\"]")


def quant_log_view(hits: Sequence[Any]) -> dict[str, Any]:
    """`log.quant` for the rules that explain such a line ({} when no signature captured one)."""
    names = first_captures(hits, {group: group for group in GROUPS})
    if not names:
        return {}
    view: dict[str, Any] = {}
    if "log_modelopt_algos" in names:
        view.update(_modelopt_list(names["log_modelopt_algos"], names.get("log_quant_algo")))
    if "log_quant_method" in names:
        view.update(_method(names["log_quant_method"]))
    if "log_gguf_arch" in names:
        view.update(_gguf(names["log_gguf_arch"]))
    if "log_tokenizer_class" in names:
        view.update(_tokenizer(names["log_tokenizer_class"]))
    if "log_quant_config" in names and "log_quant_arg" in names:
        view.update(config_method=names["log_quant_config"], arg_method=names["log_quant_arg"])
    return {"quant": view}


def _modelopt_list(text: str, algo: str | None) -> dict[str, Any]:
    printed = sorted(set(QUOTED.findall(text)))  # type: ignore[arg-type]
    releases = [r for r in table.releases("vllm") if quant_support.accepted_algos("vllm", r) == printed]
    newest = releases[-1] if releases else None
    span = (f"{releases[0]}-{releases[-1]}" if len(releases) > 1 else releases[0]) if releases else \
        "no tabulated release (a source build or an NGC build of another commit)"
    later = _added_after(newest, printed)
    out = {"printed": ", ".join(printed), "printed_by": span, "added_later": later or "none up to the data"}
    if algo:
        algo = algo.upper()
        first = table.first_release("vllm", quant_support.MODELOPT_ALGOS, algo, after=newest)
        out["algo"] = algo
        out["fix"] = (f"pip install 'vllm>={first}' (vLLM {first} is the first release after {newest or 'it'} whose "
                      f"ModelOpt config accepts quant_algo {algo}, derived from its wheel)" if first else
                      f"no vLLM release up to {table.newest('vllm')} accepts ModelOpt quant_algo {algo}: re-export the "
                      "checkpoint with a format vLLM lists (hf_ptq.py --qformat nvfp4 or fp8), or serve it with "
                      "another engine (TensorRT-LLM reads ModelOpt natively)")
    else:
        out["fix"] = (f"compare the checkpoint's quant_algo (hf_quant_config.json, or config.json's "
                      f"quantization_config) with what later vLLM releases accept: {later}" if later else
                      "no later vLLM release accepts more ModelOpt formats; re-export the checkpoint "
                      "(hf_ptq.py --qformat nvfp4 or fp8)")
    return out


def _added_after(release: str | None, printed: list[str]) -> str:
    """Each ModelOpt algo a later release accepts that the printed list lacks, with its first release."""
    added = []
    for algo in table.names("vllm", quant_support.MODELOPT_ALGOS):
        if algo in printed:
            continue
        first = table.first_release("vllm", quant_support.MODELOPT_ALGOS, algo, after=release)
        if first:
            added.append((first, algo))
    added.sort(key=lambda pair: table.releases("vllm").index(pair[0]))
    return ", ".join(f"{algo} from {first}" for first, algo in added)


def _method(method: str) -> dict[str, Any]:
    method = method.lower()
    if not method:
        return {"method": "(none)", "method_known": False,
                "method_text": "the quantization config the engine read has no quant_method at all (a ModelOpt export "
                               "whose config.json quantization_config lacks it, or a config without one)"}
    spans = {name: table.span_text(name, quant_support.QUANT_METHODS, method) for name in table.engines()}
    text = "; ".join(f"{_display(name)} registers `{method}` in {span}" if span != "none" else
                     f"no {_display(name)} release up to {table.newest(name)} registers `{method}`"
                     for name, span in spans.items())
    return {"method": method, "method_text": text, "method_known": any(s != "none" for s in spans.values())}


def _display(engine: str) -> str:
    from doctor.engines import registry

    known = registry.get(engine)
    return known.display_name if known is not None else engine


def _tokenizer(name: str) -> dict[str, Any]:
    """The first transformers release whose AutoTokenizer knows the class, and each engine's first release whose
    own transformers requirement admits one that does (vLLM up to 0.17 caps transformers below 5)."""
    first = table.first_release(table.TRANSFORMERS, TOKENIZER_CLASSES, name)
    out: dict[str, Any] = {"tokenizer_class": name, "tokenizer_known": first is not None,
                           "tokenizer_first": first or f"none up to {table.newest(table.TRANSFORMERS)}"}
    if first is None:
        out["tokenizer_fix"] = (f"no transformers release up to {table.newest(table.TRANSFORMERS)} has {name}: it "
                                "is the checkpoint's own tokenizer code (auto_map in tokenizer_config.json, "
                                "--trust-remote-code) or a typo in tokenizer_config.json's tokenizer_class")
        return out
    engines = []
    for engine in table.engines():
        release = _since(engine, name)
        if release:
            engines.append(f"{_display(engine)} {release}")
    out["tokenizer_fix"] = (f"pip install 'transformers>={first}' inside the engine's requirement (first engine "
                            f"releases that admit one: {', '.join(engines) or 'none tabulated'})")
    if name == "TokenizersBackend":  # transformers 5's generic fast tokenizer: 4.x reads the same tokenizer.json
        out["tokenizer_fix"] += ("; or, keeping the installed transformers, set tokenizer_config.json's "
                                 "\"tokenizer_class\" to \"PreTrainedTokenizerFast\"")
    return out


def _since(engine: str, name: str) -> str | None:
    """The first release of the engine from which every later one admits a transformers with the class (early
    releases with an open requirement admit 5.x on paper but predate it; a later cap below 5 breaks the run)."""
    first = None
    for release in reversed(table.releases(engine)):
        if not _admits(engine, release, name):
            break
        first = release
    return first


def _admits(engine: str, release: str, name: str) -> bool:
    spec = table.requirement(engine, release)
    return any(table.knows(table.TRANSFORMERS, TOKENIZER_CLASSES, name, r) for r in table.admitted(spec or None))


# transformers' own renames before its check (modeling_gguf_pytorch_utils: `updated_architecture`)
GGUF_RENAMES = {"qwen2moe": "qwen2_moe", "qwen3moe": "qwen3_moe"}


def _gguf(arch: str) -> dict[str, Any]:
    """The first transformers release that reads GGUF files of this `general.architecture`."""
    firsts = [f for name in {arch, GGUF_RENAMES.get(arch, arch)}
              if (f := table.first_release(table.TRANSFORMERS, "gguf_architectures", name))]
    first = min(firsts, key=table.releases(table.TRANSFORMERS).index) if firsts else None
    vllm_gguf = table.span_text("vllm", quant_support.QUANT_METHODS, "gguf")
    out: dict[str, Any] = {"gguf_arch": arch, "gguf_first": first or f"none up to {table.newest(table.TRANSFORMERS)}",
                           "gguf_vllm": vllm_gguf}
    if first:
        out["gguf_fix"] = (f"pip install 'transformers>={first}' (the first release that reads GGUF architecture "
                           f"{arch}) inside the engine's requirement, with a vLLM that still has GGUF ({vllm_gguf}); "
                           "or serve the GGUF with llama.cpp (llama-server)")
    else:
        out["gguf_fix"] = (f"serve the GGUF file with {_llama_cpp(arch)}, or serve the model's safetensors "
                           "checkpoint (or an AWQ/GPTQ/NVFP4/FP8 quantization) with vLLM: no transformers release up "
                           f"to {table.newest(table.TRANSFORMERS)} reads GGUF architecture {arch}, and vLLM has no "
                           f"GGUF loader after {vllm_gguf.split('-')[-1]}")
    return out


def _llama_cpp(arch: str) -> str:
    """llama.cpp, with the first sampled build that knows the architecture (doctor/data/llama_cpp/archs.json)."""
    from doctor.engines.llama_cpp.archs import first_known

    _, first = first_known(arch)
    return (f"llama.cpp (llama-server b{first} or newer reads {arch})" if first else
            f"llama.cpp (llama-server; no sampled build in the data names {arch}: check its src/llama-arch.cpp)")
