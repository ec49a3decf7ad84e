"""What llama.cpp does with a run: flash attention or not, where the experts live, which archs the build can
run on this GPU, the memory model, and what rules may read (the `llama_cpp` context root)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from doctor.binaries import BinaryInfo, verdict_for
from doctor.engines.llama_cpp import archlists, archs, builds
from doctor.engines.llama_cpp import flags as llama_flags
from doctor.engines.llama_cpp.fa_kv import fa_kv_view
from doctor.engines.llama_cpp.ollama_context import ollama_view
from doctor.engines.llama_cpp.options import AUTO, LlamaOptions, parse_options
from doctor.engines.llama_cpp.plan import LlamaCppMemory
from doctor.engines.spi import EngineAnalysis, EngineRun
from doctor.probe.gguf import GgufModel, gguf_files, read_gguf
from doctor.probe.llama_cpp import ENV as BUILD_ENV

# Head sizes ggml-cuda's flash attention has kernels for (ggml/src/ggml-cuda/fattn.cu, build 11312);
# with `-fa auto` llama.cpp turns FA off for others.
FA_HEAD_DIMS = {40, 64, 72, 80, 96, 112, 128, 192, 256, 320, 512, 576}
EVERY_LAYER = 999  # -ngl N with N past the layer count offloads every layer (llama.cpp clamps it)
BLOCK_SCALED_TYPES = {"MXFP4", "NVFP4"}  # native FP4 MMA paths on Blackwell need sm_120a/121a
SM120_SUSPECT_TYPES = {"IQ1_S", "IQ2_S", "IQ3_S"}  # get_int_b2 gave wrong dot products on sm_120 (llama.cpp#27902)


def model_file(model: str) -> str:
    """`-m` needs a file: the first part of a split set, or the one model in a directory. A checkpoint that is
    not GGUF gets the name its conversion would have (llama.cpp cannot load it as it is)."""
    path = Path(model).expanduser()
    if path.is_dir() and any(path.glob("*.gguf")):
        return str(gguf_files(path)[0])
    if not model.lower().endswith(".gguf"):
        return f"{path.name or model}.gguf"
    return model


def gguf_of(run: EngineRun) -> GgufModel | None:
    model = run.facts.model
    if model is None or model.source != "gguf" or not model.source_path:
        return None
    return read_gguf(model.source_path)


def model_arch(run: EngineRun) -> str | None:
    """The GGUF's `general.architecture` (the probe's, or the `-hf` repo's), else the one a log names: the
    architecture llama.cpp refused, or the metadata dump's."""
    model = run.facts.model
    if model is not None and model.source == "gguf" and model.architecture not in (None, "", "unknown"):
        return str(model.architecture)
    details = run.library.details
    return details.get("logged_unknown_arch") or details.get("logged_model_arch")


def _ollama_version(run: EngineRun) -> str | None:
    """The Ollama release whose runner loads the model, where the facts name one and no llama.cpp build."""
    ollama = run.facts.library("ollama")
    unknown_build = build_number(run.library.version) is None or run.library.details.get("assumed")
    return ollama.version if ollama is not None and unknown_build else None


def _arch_view(run: EngineRun) -> dict[str, Any]:
    """The model's architecture against the build number; without one (none found, or a release the user did not
    state) against the llama.cpp Ollama or llama-cpp-python vendors, where the facts name their release."""
    details = run.library.details
    build = None if details.get("assumed") else build_number(run.library.version)
    python = _python_version(run)
    if python and details.get("release_stated") is False:
        build = None  # the stated llama-cpp-python settles it: its vendored tree, not each evaluated build
    return archs.rule_view(model_arch(run), build, _ollama_version(run), python)


def _python_version(run: EngineRun) -> str | None:
    """The llama-cpp-python release whose vendored llama.cpp loads the model: the one found installed as the
    build's source, else one the facts name (`--engine llama-cpp-python==X`, a log's package list)."""
    found = run.library.details.get("llama_cpp_python")
    named = run.facts.library("llama-cpp-python")
    return str(found) if found else named.version if named is not None else None


def options_of(run: EngineRun) -> LlamaOptions:
    return parse_options(list(run.launch.args), flag_table(run))


def flash_attention(options: LlamaOptions, gguf: GgufModel | None) -> tuple[bool, str]:
    if options.fa_enabled is not None:
        return options.fa_enabled, "launch flags (-fa)"
    if gguf is None:
        return True, "-fa auto"
    kv_lora = gguf.arch_value("attention.kv_lora_rank")
    head = (int(kv_lora) + int(gguf.arch_value("rope.dimension_count", 64))) if kv_lora else int(
        gguf.arch_value("attention.key_length", 0) or int(gguf.arch_value("embedding_length", 0)) // max(
            gguf.per_layer("attention.head_count"), default=1))
    if head in FA_HEAD_DIMS:
        return True, f"-fa auto: ggml-cuda has flash-attention kernels for head size {head}"
    return False, f"-fa auto: no ggml-cuda flash-attention kernel for head size {head}, so it stays off"


def memory_model(run: EngineRun) -> LlamaCppMemory:
    gguf, options = gguf_of(run), options_of(run)
    return LlamaCppMemory(run.library.version, gguf, options, flash_attention(options, gguf)[0])


def analyze(run: EngineRun) -> EngineAnalysis:
    gguf, options = gguf_of(run), options_of(run)
    fa, fa_source = flash_attention(options, gguf)
    backends = {"attention": "flash-attn" if fa else "no-flash-attn",
                "kv_cache": f"k {options.cache_type_k} / v {options.cache_type_v}",
                "split": options.split_mode if len(run.facts.gpus) > 1 else "single GPU"}
    sources = {"attention": fa_source, "kv_cache": "launch flags (-ctk/-ctv) or the default f16",
               "split": "launch flags (-sm) or the default layer split"}
    if gguf is not None and int(gguf.arch_value("expert_count", 0) or 0) > 1:
        backends["moe"] = "experts on CPU" if options.cpu_moe else (
            f"experts of {options.n_cpu_moe} layer(s) on CPU" if options.n_cpu_moe else "experts on GPU")
        sources["moe"] = "launch flags (--cpu-moe / --n-cpu-moe / -ot)"
    notes = ["llama.cpp's CUDA kernels are compiled ahead of time with static shared memory: no Triton kernel plan"]
    if gguf is None and run.facts.model is not None:
        notes.append("llama.cpp loads GGUF files: this model is not one (convert it with convert_hf_to_gguf.py)")
    notes += [f"llama.cpp build: {note}" for note in run.library.details.get("notes") or ()]
    if bundled_by := run.library.details.get("bundled_by"):
        notes.append(f"llama.cpp build {run.library.version} is the llama-server {bundled_by} runs: its flags and "
                     f"placement are Ollama's, so the launch command below is llama.cpp's equivalent")
    if run.library.details.get("assumed"):
        notes.append(f"no llama.cpp build found here (llama-server on PATH, ${BUILD_ENV}, llama-cpp-python): "
                     f"analysed as build {run.library.version}")
    return EngineAnalysis(backends=backends, backend_sources=sources, notes=tuple(notes))


def plan_flags_to_add(run: EngineRun) -> list[str]:
    """The placement flags of the plan that fits, where the user left them to llama.cpp's defaults."""
    plan = _plan(run)
    best = plan.get("best") if plan else None
    if not best:
        return []
    canonical = flag_table(run).canonical
    given = {canonical(a) for a in run.launch.args if a.startswith("-")}
    pairs = list(zip(best["flags"][::2], best["flags"][1::2], strict=True))
    offload_given = given & {"--n-gpu-layers", "--n-cpu-moe", "--cpu-moe", "--override-tensor"}
    out: list[str] = []
    for flag, value in pairs:
        name = canonical(flag)
        if name in given or (name in ("--n-gpu-layers", "--n-cpu-moe") and offload_given):
            continue
        out += [flag, _spelled_for_build(run, flag, value)]
    return out


def _spelled_for_build(run: EngineRun, flag: str, value: str) -> str:
    """`-ngl all` for builds whose -ngl takes an int only (b7347 and older samples; b7698 takes `all`): a count
    past every layer, which llama.cpp clamps to all of them."""
    if value == "all" and flag_table(run).integer(flag):
        return str(EVERY_LAYER)
    return value


def _plan(run: EngineRun) -> dict[str, Any] | None:
    if run.facts.model is None or not run.facts.gpus:
        return None
    return memory_model(run).own_summary(run.facts, run.launch)


def build_view(run: EngineRun) -> dict[str, Any]:
    details = run.library.details
    capabilities = [g.capability for g in run.facts.gpus]
    sass, ptx = _archs(details.get("cuda_archs") or [])
    view: dict[str, Any] = {
        "found": not run.library.what_if, "source": details.get("source"), "server": details.get("server"),
        "cuda_library": details.get("cuda_library"), "build": _int(details.get("build")),
        "toolkit": details.get("toolkit"), "cuda_archs": [*sass, *ptx],
        **_runtime_view(details, run.facts.driver),
        "cuda_arch_list": ";".join(dict.fromkeys(builds.arch_target(c) for c in capabilities)) or "120a-real",
        "cmake": builds.cmake_line(capabilities), "min_toolkit": builds.min_toolkit(capabilities),
    }
    gpu = run.gpu
    view.update(_logged_view(details, gpu.capability if gpu else None))
    if gpu is None or not (sass or ptx) or view["cuda_library"] is None:
        return view
    verdict = verdict_for(BinaryInfo(path=str(view["cuda_library"]), sass=sass, ptx=ptx), gpu.capability)
    own = f"sm_{gpu.capability[0]}{gpu.capability[1]}"
    view.update(arch_verdict=verdict.verdict, arch_reason=verdict.reason,
                has_arch_specific=any(a in (own + "a", own + "f", f"sm_{gpu.capability[0]}0f") for a in sass),
                gb10_has_only_120a=gpu.capability == (12, 1) and "sm_120a" in sass
                and not any(a.startswith("sm_121") or a == "sm_120" or a.endswith("f") for a in sass),
                toolkit_too_old=_older(view["toolkit"], "12.8"))
    return view


def _runtime_view(details: dict[str, Any], driver: Any) -> dict[str, Any]:
    """The CUDA runtime the build links against the toolkit that compiled it and the driver that must serve it."""
    toolkit, cudart = details.get("toolkit"), details.get("cudart_major")
    toolkit_major = _int(str(toolkit or "").split(".")[0] or None)
    return {"cudart_major": cudart, "cudart_link": cudart_link(toolkit, cudart), "toolkit_dir": _toolkit_dir(toolkit),
            "driver_cuda_major": driver_cuda_major(driver), "runtime_major": _int(cudart) or toolkit_major}


def cudart_link(toolkit: Any, cudart_major: Any) -> str | None:
    """"mismatch" where nvcc 13 or newer compiled the CUDA code but the library links libcudart.so.12: CUDA 13's
    headers call the plain cudaGetDeviceProperties, which libcudart.so.12 still exports with its old struct layout,
    so every field read after the removed ones comes from the wrong offset. "matched" where the majors agree,
    None where either is not known. (The other way round does not link: libcudart.so.13 has no
    cudaGetDeviceProperties_v2, which CUDA 12's headers call.)"""
    major = _int(str(toolkit).split(".")[0]) if toolkit else None
    cudart = _int(cudart_major)
    if major is None or cudart is None:
        return None
    return "mismatch" if major >= 13 and cudart == 12 else "matched"


# R580 is the first driver branch that serves CUDA 13.x (NVIDIA's CUDA compatibility table); R525 the first 12.x.
FIRST_DRIVER_OF_CUDA = ((580, 13), (525, 12))


def driver_cuda_major(driver: Any) -> int | None:
    """The newest CUDA major release the driver serves: from its CUDA version when stated, else its branch."""
    stated = str(getattr(driver, "cuda_driver_version", None) or "")
    if stated.split(".")[0].isdigit():
        return int(stated.split(".")[0])
    major = _int(str(getattr(driver, "driver_version", None) or "").split(".")[0] or None)
    if major is None or not getattr(driver, "present", True):
        return None
    return next((cuda for first, cuda in FIRST_DRIVER_OF_CUDA if major >= first), None)


def _toolkit_dir(toolkit: Any) -> str | None:
    """Where NVIDIA's installers put a toolkit release: /usr/local/cuda-13.3 for 13.3 or 13.3.73."""
    parts = str(toolkit or "").split(".")
    return f"/usr/local/cuda-{parts[0]}.{parts[1]}" if len(parts) >= 2 and all(p.isdigit() for p in parts[:2]) else None


def _logged_view(details: dict[str, Any], capability: tuple[int, int] | None) -> dict[str, Any]:
    """The build's own `CUDA : ARCHS` list (a log's system_info line), the free memory it read from /proc/meminfo
    (its unified-memory path, logged), and the release asset it came from."""
    logged = [str(a) for a in details.get("logged_cuda_archs") or ()]
    asset = details.get("release_asset")
    uma_kb = details.get("logged_uma_available_kb")
    return {"logged_smem_abort": logged_smem_abort(details),
            "logged_mmq_no_tile": details.get("logged_mmq_no_tile"),
            "logged_cuda_archs": ",".join(logged) or None,
            "logged_uma_available_gib": round(int(uma_kb) / (1 << 20), 1) if uma_kb is not None else None,
            "logged_arch_verdict": archlists.logged_arch_verdict(logged, capability) if capability else None,
            "release_asset": asset, "asset_before_sm12x": bool(asset) and _older(details.get("toolkit"), "12.8"),
            "bundled_by": details.get("bundled_by")}


# Where a bad shared-memory-per-block ceiling (ggml-cuda's smpbo) ends the process: SOFT_MAX and the MoE id
# helper raise their dynamic shared memory to it (CUDA_SET_SHARED_MEMORY_LIMIT), MMQ picks its tile from it.
SMEM_ABORT_SITES = ("SOFT_MAX", "ggml_cuda_launch_mm_ids_helper", "ggml_cuda_mul_mat_q")


def logged_smem_abort(details: dict[str, Any]) -> str | None:
    """The op or function a log shows aborting with `CUDA error: invalid argument` where ggml-cuda hands its
    shared-memory ceiling to the runtime; None for any other logged error."""
    if str(details.get("logged_cuda_error") or "").strip() != "invalid argument":
        return None
    for site in (details.get("logged_failed_op"), details.get("logged_cuda_error_function")):
        if site in SMEM_ABORT_SITES:
            return str(site)
    return None


def rule_view(run: EngineRun) -> dict[str, Any]:
    gguf, options = gguf_of(run), options_of(run)
    table = flag_table(run)
    problems, unsettled = flag_problems(run, table)
    fa, _ = flash_attention(options, gguf)
    view: dict[str, Any] = {
        "version": run.library.version, **build_view(run), "flag_table": table.source,
        "flag_problems": problems, "flag_unsettled": unsettled, "flash_attn": fa, "tool": table.tool,
        "flash_attn_flag": options.flash_attn, "cache_type_k": options.cache_type_k,
        "cache_type_v": options.cache_type_v, "quantized_v": options.cache_type_v not in ("f16", "f32", "bf16"),
        # --parallel / -np as given; None when left to the server (auto slots), which no rule reads as a count
        "parallel": options.parallel if options.parallel >= 0 else None,
        "offload_auto": options.n_gpu_layers == AUTO and options.fit and not options.overrides,
        "model_is_gguf": gguf is not None,
        "mmap_on_igpu": mmap_on_igpu(options.load_mode, build_number(run.library.version)),
        **_arch_view(run), "ollama": ollama_view(run, gguf, options, fa),
        **fa_kv_view(run.library.details.get("logged_kv_types"), options.cache_type_k, options.cache_type_v,
                     options.fa_enabled, build_number(run.library.version), _kv_placement(options)),
    }
    if gguf is not None:
        types = sorted(gguf.type_counts)
        view.update(tensor_types=types, block_scaled_types=sorted(BLOCK_SCALED_TYPES & set(types)),
                    sm120_suspect_types=sorted(SM120_SUSPECT_TYPES & set(types)),
                    tensor_bytes=gguf.tensor_bytes, file_type=gguf.file_type)
    return view


def _kv_placement(options: LlamaOptions) -> str:
    """Where the attention's layers and KV cache live, as fa_kv_view reads it."""
    if options.n_gpu_layers == 0:
        return "cpu"
    return "open" if options.no_kv_offload else "gpu"


# `--load-mode auto` (llama.cpp#26081) became the default between b10362 and b10380: it turns mmap off where the
# device reports no mmap support, which ggml-cuda says of every integrated GPU (cudaDeviceProp::integrated).
LAST_MMAP_DEFAULT, FIRST_LOAD_MODE_AUTO = 10362, 10380


def mmap_on_igpu(load_mode: str, build: int | None) -> str | None:
    """Whether llama-server memory-maps the weights on an integrated GPU: "asked" (--mmap, --load-mode mmap),
    "default" (a build from before load-mode auto, mmap on unless --no-mmap), "off", or None where the build
    number does not settle the default."""
    if load_mode in ("mmap", "mmap+mlock"):
        return "asked"
    if load_mode != "default":
        return "off"
    if build is None or LAST_MMAP_DEFAULT < build < FIRST_LOAD_MODE_AUTO:
        return None
    return "default" if build <= LAST_MMAP_DEFAULT else "off"


def flag_table(run: EngineRun) -> llama_flags.FlagTable:
    """The tool the launch names first (llama-server when none): for llama-server the found build's own --help,
    else the tool's table at the release that covers its build number."""
    tool = llama_flags.split_tool(list(run.launch.args))[0] or llama_flags.SERVER
    server = run.library.details.get("server")
    found = (llama_flags.table_for_binary(str(server)) if server and tool == llama_flags.SERVER
             and not run.library.what_if else None)
    return found or llama_flags.table_for_build(build_number(run.library.version), tool)


def flag_problems(run: EngineRun, table: llama_flags.FlagTable) -> tuple[list[str], list[str]]:
    """(problems the tool would refuse, problems the data cannot settle). Flags given bare (no tool named) are
    read as llama-server's; where every problem is a flag llama-server lacks and another tool at this build takes
    the whole command (llama-bench's `-p 512`), the tool is not settled, so neither are the problems."""
    argv = list(run.launch.args)
    problems, unsettled = llama_flags.check_flags(argv, table), llama_flags.unsettled_flags(argv, table)
    if not problems or llama_flags.split_tool(argv)[0] is not None:
        return problems, unsettled
    if len(llama_flags.unknown_flags(argv, table)) != len(problems):  # a bad value or a stray word: refused anyway
        return problems, unsettled
    build = build_number(run.library.version)
    others = [tool for tool in llama_flags.TOOLS if tool != llama_flags.SERVER and _takes(argv, build, tool)]
    if not others:
        return problems, unsettled
    why = (f"the flags name no tool, so llama-server was assumed, but {' and '.join(others)} take every one of "
           f"them: put the tool's name before the flags (`-- {others[-1]} ...`)")
    return [], [*unsettled, *(f"{problem} ({why})" for problem in problems)]


def _takes(argv: list[str], build: int | None, tool: str) -> bool:
    """Does `tool` at this build certainly take every flag (no problem, settled or not)?"""
    table = llama_flags.table_for_build(build, tool)
    return not llama_flags.check_flags(argv, table) and not llama_flags.unsettled_flags(argv, table)


def build_number(version: str) -> int | None:
    """llama.cpp's build number from a library version: "7551" → 7551; unknown ("0") or a llama-cpp-python
    version ("0.3.16") → None."""
    return int(version) if version.isdigit() and int(version) > 0 else None


def _archs(tokens: list[str]) -> tuple[list[str], list[str]]:
    return [t for t in tokens if t.startswith("sm_")], [t for t in tokens if t.startswith("compute_")]


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _older(version: Any, than: str) -> bool | None:
    if not version:
        return None
    parts = tuple(int(p) for p in str(version).split(".")[:2])
    return parts < tuple(int(p) for p in than.split("."))
