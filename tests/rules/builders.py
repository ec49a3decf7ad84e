"""Facts fixtures for rule tests: built-in hardware profiles, bundled model configs, `--engine` what-ifs,
replaced libraries and drivers, launch flags after `--`. The rule engine itself is never mocked: every
case runs analyze → build_context → evaluate over all shipped rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from doctor.findings import Finding
from doctor.hardware import load_profile
from doctor.kernels.check import KernelCheck
from doctor.launch import parse_launch
from doctor.pipeline.analysis import analyze
from doctor.pipeline.context import build_context
from doctor.pipeline.facts import Driver, Facts, Gpu, Library, Link
from doctor.pipeline.gather import with_engines
from doctor.pipeline.rules import evaluate, load_rules
from doctor.probe.model import load_model

RULES = load_rules()


def build(profile: str = "rtx-pro-6000-x8", model: str | None = None, engines: tuple[str, ...] = (),
          libs: tuple[Library, ...] = (), env: dict[str, str] | None = None, driver: str | None = None,
          cuda_driver: str | None = None, gpus: Callable[[tuple[Gpu, ...]], tuple[Gpu, ...]] | None = None,
          topology: Callable[[tuple[Link, ...]], tuple[Link, ...]] | None = None,
          attention: dict[str, Any] | None = None, quant: dict[str, Any] | None = None,
          vision_head_dim: int | None = None, iommu: str | None = None) -> Facts:
    facts = with_engines(load_profile(profile), list(engines))
    if libs:
        facts = facts.replace(libraries={**facts.libraries, **{lib.name: lib for lib in libs}})
    if env:
        facts = facts.replace(env=dict(env))
    if driver or cuda_driver:
        facts = facts.replace(driver=Driver(present=True, driver_version=driver, cuda_driver_version=cuda_driver))
    if gpus:
        facts = facts.replace(gpus=gpus(facts.gpus))
    if topology:
        facts = facts.replace(topology=topology(facts.topology))
    if iommu:
        facts = facts.replace(host=dataclasses.replace(facts.host, iommu_mode=iommu, iommu_source="test"))
    if model:
        m = load_model(model, {}, offline=True)
        if attention:
            m = dataclasses.replace(m, attention=dataclasses.replace(m.attention, **attention))
        if quant:
            m = dataclasses.replace(m, quantization=dataclasses.replace(m.quantization, **quant))
        if vision_head_dim is not None:
            assert m.vision is not None
            m = dataclasses.replace(m, vision=dataclasses.replace(m.vision, head_dim=vision_head_dim))
        facts = facts.replace(model=m)
    return facts


def lib(name: str, version: str, **details: Any) -> Library:
    return Library(name=name, version=version, details=details)


def findings(facts: Facts, *launch_args: str, kernels: tuple[KernelCheck, ...] = (),
             launch_file: dict[str, Any] | None = None) -> dict[str, list[Finding]]:
    launch = parse_launch(list(launch_args))
    analysis = analyze(facts, launch)
    if kernels:  # fixture kernels stand in for the analysis' own checks of the same kernel
        replaced = {k.kernel for k in kernels}
        kept = tuple(k for k in analysis.kernels if k.kernel not in replaced)
        analysis = dataclasses.replace(analysis, kernels=(*kept, *kernels))
    out: dict[str, list[Finding]] = {}
    # the engine's own reading of the flags, as check_facts hands the context its run's launch
    engine_launch = analysis.run.launch if analysis.run is not None else launch
    for finding in evaluate(RULES, build_context(facts, analysis, engine_launch, launch_file)):
        out.setdefault(finding.id, []).append(finding)
    return out


def fused_moe(fits: bool, source: str = "default", triton_dir: str = "triton_3_5_1", nbytes: int | None = None,
              limit: int = 101376) -> KernelCheck:
    """A fused-MoE kernel check with exactly the fields the analysis promises (see the brief)."""
    name = ("E=161,N=192,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition,dtype=fp8_w8a8,"
            "per_channel_quant=True.json")
    config = ({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 32, "num_warps": 8,
               "num_stages": 4} if not fits else
              {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 256, "GROUP_SIZE_M": 64, "num_warps": 4,
               "num_stages": 2})
    return KernelCheck(
        kernel="fused_moe", engine="sglang", path="moe-up", when="every MoE layer, batches with M > E",
        shape={"E": 161, "N": 192, "K": 5120, "dtype": "fp8_w8a8", "per_channel": True, "block_shape": None,
               "m_range": "M > 161"},
        config=config, bytes=nbytes or (147456 if not fits else 49152), limit=limit, method="analytic",
        details={"config_file": name,
                 "config_path": None if source == "default" else f"/site/sglang/configs/{triton_dir}/{name}",
                 "triton_dir": triton_dir, "source": source})


def decode_attention(fits: bool, engine: str = "sglang") -> KernelCheck:
    """A decode-attention check: no rule of its own, so KRN001 reports it when it overflows."""
    return KernelCheck(
        kernel="decode_attention", engine=engine, path="decode-grouped", when="every decode step",
        shape={"lk": 576, "lv": 512, "kv_dtype": "bf16"},
        config={"block_n": 64 if not fits else 32, "block_h": 16, "num_warps": 4, "num_stages": 2},
        bytes=125952 if not fits else 89088, limit=101376, method="analytic", details={})


@dataclass(frozen=True)
class Case:
    rule: str
    fires: bool
    facts: Callable[[], Facts]
    args: tuple[str, ...] = ()
    kernels: tuple[KernelCheck, ...] = field(default_factory=tuple)
    why: str = ""
    launch_file: Callable[[], dict[str, Any]] | None = None  # what `lint` read beside a launch (image, recipe)

    @property
    def name(self) -> str:
        return f"{self.rule}-{'fires' if self.fires else 'quiet'}-{self.why}".replace(" ", "_")


def a(rule: str, fires: bool, why: str, facts: Callable[[], Facts], *args: str,
      kernels: tuple[KernelCheck, ...] = ()) -> Case:
    return Case(rule, fires, facts, tuple(args), kernels, why)
