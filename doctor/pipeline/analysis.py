"""Pure derivations from Facts, one Analysis per engine run: the engine's backends and kernels (asked of the
engine behind doctor.engines.base.Engine), binary verdicts, and the memory plan by the engine's own formula."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from doctor.engines import registry
from doctor.engines.base import Engine
from doctor.engines.run import EngineAnalysis, EngineRun, parse_version
from doctor.kernels.check import KernelCheck
from doctor.launch import Launch
from doctor.pipeline.facts import Facts, Library
from doctor.plan.memory import MemoryModel
from doctor.plan.summary import plan_summary

# With no engine installed or named, the planner still answers, by this engine's formula (said in a note).
FALLBACK_MEMORY_ENGINE = ("sglang", "0.5.9")


@dataclass(frozen=True)
class Analysis:
    """One engine run's analysis: backends, kernel launches, binaries and the memory plan."""

    engine: str | None = None
    engine_version: str | None = None
    tp: int = 1
    backends: dict[str, str] = field(default_factory=dict)
    backend_sources: dict[str, str] = field(default_factory=dict)
    kernels: tuple[KernelCheck, ...] = ()
    binaries: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    plan: dict[str, Any] | None = None  # doctor.plan.summary: requested and best layout, memory verdict
    run: EngineRun | None = field(default=None, compare=False, repr=False)

    @property
    def attention_backend(self) -> str | None:
        return self.backends.get("attention")

    def to_dict(self) -> dict[str, Any]:
        return {"engine": self.engine, "engine_version": self.engine_version, "tp": self.tp,
                "attention_backend": self.attention_backend,
                "attention_backend_source": self.backend_sources.get("attention"),
                "backends": dict(self.backends), "backend_sources": dict(self.backend_sources),
                "kernels": [k.to_dict() for k in self.kernels], "binaries": list(self.binaries),
                "notes": list(self.notes), "plan": self.plan}


Options = Mapping[str, int]  # the doctor's own layout options: tp, pp, ep, context_length


def engine_argv(engine: Engine, argv: list[str], options: Options | None) -> list[str]:
    """The engine's launch: the doctor's layout options in this engine's spelling, then the user's flags
    (given after `--`, in the engine's own spelling; a flag given both ways is the user's)."""
    return [*engine.option_flags(options), *argv] if options else list(argv)


def engine_runs(facts: Facts, argv: list[str], environ: dict[str, str] | None = None,
                options: Options | None = None) -> list[EngineRun]:
    """One run per engine to analyse (what-ifs when given, else every engine installed)."""
    runs = []
    for engine, library in registry.engines_to_analyze(facts):
        version = parse_version(library.version)
        if version is not None:
            bundled = registry.bundled_flags(library, facts)  # before the user's: a flag given is theirs
            launch = engine.parse_launch([*bundled, *engine_argv(engine, argv, options)])
            runs.append(EngineRun(facts, library, version, launch, environ or {}))
    return runs


def analyze_all(facts: Facts, argv: list[str], environ: dict[str, str] | None = None,
                numbers_only: bool = False, options: Options | None = None) -> list[Analysis]:
    """`numbers_only`: the caller reads which rules fire, not the analysis' sentences (plan_summary)."""
    runs = engine_runs(facts, argv, environ, options)
    if not runs:
        fallback = registry.get(FALLBACK_MEMORY_ENGINE[0])
        launch = fallback.parse_launch(engine_argv(fallback, argv, options)) if fallback else Launch()
        return [analyze_without_engine(facts, launch)]
    return [analyze_run(run, numbers_only) for run in runs]


def analyze(facts: Facts, launch: Launch) -> Analysis:
    """The first engine's analysis for a parsed launch (what a single-engine check reports)."""
    runs = engine_runs(facts, list(launch.args))
    return analyze_run(runs[0]) if runs else analyze_without_engine(facts, launch)


def analyze_run(run: EngineRun, numbers_only: bool = False) -> Analysis:
    engine = registry.get_for(run.library)
    result = engine.analyze(run)
    notes = [n for n in (engine.knowledge_note(run.version),) if n] + list(result.notes) + skipped_binary_notes(
        run.facts)
    memory = engine.memory_model(run)
    plan = plan_summary(run.facts, run.launch, memory, numbers_only=numbers_only) if memory is not None else \
        _no_memory_model(engine, run)
    return Analysis(engine=engine.name, engine_version=run.library.version, tp=run.tp, backends=result.backends,
                    backend_sources=result.backend_sources, kernels=result.kernels, notes=tuple(notes),
                    binaries=_binaries(run.facts), plan=plan, run=run)


def analyze_without_engine(facts: Facts, launch: Launch) -> Analysis:
    names = ", ".join(sorted(registry.engines()))
    unread = (f"; the launch flags ({' '.join(launch.args)}) were not checked against any engine"
              if launch.args else "")
    notes = (f"no serving engine installed ({names}): pass --engine NAME==VERSION to analyse one{unread}",
             *skipped_binary_notes(facts))
    plan = None
    if facts.model is not None and facts.gpus:
        memory, _, note = memory_model_for(facts, list(launch.args))
        plan = plan_summary(facts, launch, memory, note=note) if memory is not None else None
    return Analysis(tp=launch.tp(len(facts.gpus)), notes=notes, binaries=_binaries(facts), plan=plan)


def memory_model_for(facts: Facts, argv: list[str]) -> tuple[MemoryModel | None, str, str | None]:
    """(memory model, engine name, note) of the first engine to analyse, for the `plan` command; with no
    engine, the fallback engine's formula and a note saying so."""
    runs = engine_runs(facts, argv)
    if runs:
        engine = registry.get_for(runs[0].library)
        return engine.memory_model(runs[0]), engine.display_name, engine.knowledge_note(runs[0].version)
    name, version = FALLBACK_MEMORY_ENGINE
    engine = registry.get(name)
    assert engine is not None
    launch = engine.parse_launch(argv)
    run = EngineRun(facts, Library(name=engine.package, version=version, what_if=True), parse_version(version),  # type: ignore[arg-type]
                    launch)
    note = f"no engine installed: memory defaults of {engine.display_name} {version} assumed"
    return engine.memory_model(run), engine.display_name, note


def _no_memory_model(engine: Engine, run: EngineRun) -> dict[str, Any] | None:
    if run.facts.model is None or not run.facts.gpus:
        return None
    return {"engine": engine.display_name, "engine_version": run.library.version, "requested": None, "best": None,
            "notes": [f"{engine.display_name} has no memory model in the doctor yet: no memory plan for it"]}


def _binaries(facts: Facts) -> tuple[dict[str, Any], ...]:
    gpu = facts.gpus[0] if facts.gpus else None
    return tuple(binary_verdicts(facts, gpu.capability)) if gpu else ()


def skipped_binary_notes(facts: Facts) -> list[str]:
    """The installed binaries the scan did not read (a dangling or looping link, a special file): their archs
    are unknown, so no verdict covers them."""
    return [f"{name}: {entry['path']} not read ({entry['why']}): its CUDA archs are not checked"
            for name, library in sorted(facts.libraries.items())
            for entry in library.details.get("skipped_binaries") or ()]


def binary_verdicts(facts: Facts, capability: tuple[int, int]) -> list[dict[str, Any]]:
    """Per package: can this GPU run the CUDA code the probe found in its extensions?"""
    if not any(library.details.get("cuda_binaries") for library in facts.libraries.values()):
        return []
    from doctor.binaries import BinaryInfo, verdict_for

    out = []
    for name, library in sorted(facts.libraries.items()):
        files = library.details.get("cuda_binaries")
        if not files:
            continue
        verdicts = [(f, verdict_for(BinaryInfo(**f), capability)) for f in files]
        counted = [(f, v) for f, v in verdicts if not v.deliberate] or verdicts
        worst = "none" if any(v.verdict == "none" for _, v in counted) else \
            "ptx-jit" if any(v.verdict == "ptx-jit" for _, v in counted) else "native"
        out.append({
            "package": name, "version": library.version, "verdict": worst,
            "none_files": [f["path"] for f, v in counted if v.verdict == "none"],
            "ptx_jit_files": [f["path"] for f, v in counted if v.verdict == "ptx-jit"],
            "deliberate_none_files": [f["path"] for f, v in verdicts if v.deliberate and v.verdict == "none"],
            "reasons": sorted({v.reason for _, v in counted if v.verdict != "native"}),
            "sass": sorted({t for f in files for t in f["sass"]}), "ptx": sorted({t for f in files for t in f["ptx"]}),
            **_family_summary(verdicts),
        })
    return out


def _family_summary(verdicts: list[tuple[dict[str, Any], Any]]) -> dict[str, Any]:
    """Kernel families (from the kernels' symbol names) across the package's files: a family runs when any
    file has an image of it for the GPU. `none_families` lists those with no image at all, deliberate
    builds for other GPUs included: whether the engine needs one on this GPU is the rules' knowledge."""
    best: dict[str, str] = {}
    rank = {"native": 2, "ptx-jit": 1, "none": 0}
    for _, verdict in verdicts:
        for family in verdict.families:
            if rank[family.verdict] >= rank.get(best.get(family.family, "none"), 0):
                best[family.family] = family.verdict
    return {"families": best, "none_families": sorted(f for f, v in best.items() if v == "none"),
            "ptx_jit_families": sorted(f for f, v in best.items() if v == "ptx-jit")}


__all__ = ["Analysis", "EngineAnalysis", "analyze", "analyze_all", "analyze_run", "binary_verdicts", "engine_runs"]
