"""What vLLM does with a run's tensor-parallel all-reduce, per release, on the run's topology: whether its
custom all-reduce is built or disabled (and why, in vLLM's own log message), the symmetric-memory and
FlashInfer paths, and the NCCL the release brings. The gates are the release's own tests, kept as source text
in doctor/data/vllm (tools/vllm_facts/allreduce.py) and evaluated here with the run's answers: the TP size,
whether the TP group is fully NVLink-connected, whether P2P works between its GPUs, and the environment.

P2P, when the facts do not record it: GeForce cards (the RTX 5090 included) have no PCIe P2P (NCCL
maintainers, nvidia/nccl-tests#287), so the driver answers no and vLLM disables the custom kernel; other
boards are taken to answer yes. vLLM asks the driver (`torch.cuda.can_device_access_peer`) while
VLLM_SKIP_P2P_CHECK is set (its default from 0.11.0), and otherwise runs its own write-and-verify test, which
fails where an IOMMU in translated mode drops peer writes (vllm#51513)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from doctor.engines.spi import EngineRun
from doctor.engines.vllm import knowledge
from doctor.engines.vllm.evaluate import UNKNOWN, NotStatic, Stub, run_function
from doctor.hardware.p2p import forcing_dwords, is_geforce

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off", "")


@dataclass(frozen=True)
class P2P:
    works: bool | None
    source: str
    check: str  # "driver": vLLM trusts the driver's answer; "functional": vLLM tests a real peer write


@dataclass(frozen=True)
class CustomAllReduce:
    state: str  # "runs", "disabled" (vLLM turns it off), "flag" (--disable-custom-all-reduce), "single", "unknown"
    reason: str
    where: str
    p2p: P2P

    @property
    def runs(self) -> bool:
        return self.state == "runs"


def env_value(run: EngineRun, facts: dict[str, Any], name: str) -> Any:
    """The variable as vLLM reads it: the user's value, else the release's default; on/off strings as bools."""
    entry = facts["envs"]["table"].get(name)
    raw = run.facts.env.get(name, entry.get("default") if entry else None)
    text = str(raw).strip().lower() if raw is not None else None
    return True if text in TRUE else False if text in FALSE else raw


def group_links(run: EngineRun) -> tuple[bool, list[Any]]:
    """The TP groups as vLLM lays them out (consecutive blocks of `tp` GPUs, one per pipeline stage): every
    pair NVLink?, and the recorded links inside them."""
    tp, pp = run.tp, max(1, int(run.launch.get("pp") or 1))
    index = run.facts.link_index
    all_nv = index.groups(tp, pp)[1] if tp > 1 else True
    order = [g.index for g in run.facts.gpus]
    links = [index.link(x, y) for s in range(pp) for i, x in enumerate(order[s * tp:(s + 1) * tp])
             for y in order[s * tp + i + 1:(s + 1) * tp]]
    return all_nv, [link for link in links if link is not None]


def p2p(run: EngineRun, facts: dict[str, Any], links: list[Any]) -> P2P:
    check = "driver" if env_value(run, facts, "VLLM_SKIP_P2P_CHECK") is True else "functional"
    if any(link.p2p_read is False or link.p2p_write is False for link in links):
        return P2P(False, "the facts record P2P read or write as unsupported", check)
    translated = run.facts.host.iommu_mode == "translated"
    if check == "functional" and translated:
        return P2P(False, "vLLM's write-and-verify P2P test fails: the IOMMU translates DMA and drops peer writes",
                   check)
    if links and all(link.p2p_read and link.p2p_write for link in links):
        return P2P(True, "the facts record P2P read and write as supported", check)
    gpu = run.gpu
    switches = forcing_dwords(run.facts.host.nvidia_registry_dwords)
    if gpu is not None and is_geforce(gpu.name) and switches:
        return P2P(True, f"{gpu.name} with P2P forced by a patched module ({';'.join(switches)})", check)
    if gpu is not None and is_geforce(gpu.name):
        return P2P(False, f"{gpu.name} is a GeForce card: no PCIe P2P (nvidia/nccl-tests#287)", check)
    return P2P(True, "P2P not recorded; taken as reported by the driver, as on RTX PRO and data-centre boards",
               check)


def _ask(test: str, scope: dict[str, Any]) -> Any:
    node = ast.parse(test, mode="eval").body
    wrapper = ast.FunctionDef(name="gate", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                              kw_defaults=[], defaults=[]), body=[ast.Return(node)], decorator_list=[], lineno=0)
    return run_function(wrapper, scope)


def _scope(run: EngineRun, facts: dict[str, Any], custom: dict[str, Any], all_nv: bool, link: P2P) -> dict[str, Any]:
    """What each gate asks, answered for this run. A question not listed stays unanswered (NotStatic)."""
    allows = (custom.get("platform_allows") or {}).get("value")
    batch_invariant = env_value(run, facts, "VLLM_BATCH_INVARIANT") is True
    answers = {"all(in_the_same_node_as(group, source_rank=0))": True, "_can_p2p(rank, world_size)": link.works,
               "vllm_is_batch_invariant()": batch_invariant, "self.nnodes > 1": False,
               "_group_can_attempt_mnnvl(group, device)": False}

    def hook(node: ast.expr) -> Any:
        key = ast.unparse(node)
        if key in answers and answers[key] is not None:
            return answers[key]
        raise NotStatic(key)

    platform = Stub(is_rocm=lambda: False, is_cuda=lambda: True, is_cuda_alike=lambda: True,
                    use_custom_allreduce=lambda: allows)
    envs = Stub(VLLM_BATCH_INVARIANT=batch_invariant)
    return {"custom_ar": True, "world_size": run.tp, "same_node": True, "fully_connected": all_nv,
            "CustomAllreduce": Stub(_SUPPORTED_WORLD_SIZES=(custom.get("world_sizes") or {}).get("value") or []),
            "current_platform": platform, "envs": envs, UNKNOWN: hook}


def custom_all_reduce(run: EngineRun) -> CustomAllReduce | None:
    facts = knowledge.facts_for(run.version)
    section = facts.get("allreduce") or {}
    custom = section.get("custom")
    if custom is None:
        return None
    all_nv, links = group_links(run)
    link = p2p(run, facts, links)
    if run.tp <= 1:
        return CustomAllReduce("single", "TP 1: no all-reduce", "", link)
    if run.launch.get("disable_custom_all_reduce"):
        return CustomAllReduce("flag", "--disable-custom-all-reduce: NCCL carries every all-reduce", "", link)
    scope = _scope(run, facts, custom, all_nv, link)
    for gate in section.get("config_disables", []):
        verdict = _gate(gate, scope, f"{gate['file']}:{gate['line']}",
                        f"ParallelConfig sets disable_custom_all_reduce ({gate['test']})")
        if verdict is not None:
            return CustomAllReduce(*verdict, link)
    sizes = str(scope["CustomAllreduce"].get("_SUPPORTED_WORLD_SIZES"))
    for gate in custom["gates"]:
        says = (gate.get("says") or gate["test"]).replace("%d", str(run.tp)).replace("%s", sizes)
        verdict = _gate(gate, scope, f"{custom['file']}:{gate['line']}", says)
        if verdict is not None:
            return CustomAllReduce(*verdict, link)
    return CustomAllReduce("runs", f"TP {run.tp} passes every gate of CustomAllreduce.__init__",
                           f"{custom['file']}:{custom['line']}", link)


def _gate(gate: dict[str, Any], scope: dict[str, Any], where: str, says: str) -> tuple[str, str, str] | None:
    try:
        fires = bool(_ask(gate["test"], scope))
    except (NotStatic, TypeError, ValueError, KeyError, AttributeError) as exc:
        return "unknown", f"cannot answer `{gate['test']}` for this run ({exc})", where
    return ("disabled", says, where) if fires else None


def nccl(run: EngineRun) -> dict[str, Any] | None:
    """The NCCL this run uses: the installed one when vLLM is installed, else the one the release's torch pin
    brings (a what-if vLLM is installed with its own torch)."""
    installed = run.facts.library("nccl")
    pinned = (knowledge.facts_for(run.version).get("nccl") or {})
    pin = pinned.get("nccl") or {}
    torch = (pinned.get("torch") or {}).get("version")
    release = knowledge.known_release(run.version)
    if installed is not None and not installed.what_if and not run.library.what_if:
        return {"version": installed.version, "source": "installed", "release_pin": pin.get("version"),
                "torch": torch}
    if not pin:
        return None
    return {"version": pin["version"], "package": pin["package"], "torch": torch, "release_pin": pin["version"],
            "source": f"vLLM {release} pins torch=={torch}, which pins {pin['package']}=={pin['version']}"}


def other_paths(run: EngineRun) -> list[str]:
    """The symmetric-memory and FlashInfer all-reduce paths of this release, as they stand on this GPU."""
    facts = knowledge.facts_for(run.version)
    section = facts.get("allreduce") or {}
    gpu = run.gpu
    if gpu is None or run.tp <= 1:
        return []
    major, minor = gpu.capability
    out = []
    symm = section.get("symm_mem")
    if symm and symm.get("max_sizes"):
        table = symm["max_sizes"]
        on = env_value(run, facts, symm["env"])
        if f"{major}.{minor}" not in table["keys"]:
            out.append(f"torch symmetric-memory all-reduce ({symm['env']}={'1' if on is True else on}): "
                       f"SymmMemCommunicator knows capabilities {', '.join(table['keys'])} only "
                       f"({table['file']}:{table['line']}), so it stays off on {major}.{minor}")
    fusion = (section.get("flashinfer") or {}).get("fusion_max_sizes")
    if fusion and str(major * 10 + minor) not in fusion["keys"]:
        out.append(f"FlashInfer all-reduce fusion sizes exist for capabilities {', '.join(fusion['keys'])} only "
                   f"({fusion['file']}:{fusion['line']}); none for {major * 10 + minor}")
    return out


def notes(run: EngineRun) -> list[str]:
    """The all-reduce plan in words: custom all-reduce, the other paths, and the NCCL the run uses."""
    if run.tp <= 1 or run.gpu is None:
        return []
    out = []
    custom = custom_all_reduce(run)
    if custom is not None:
        words = {"runs": "runs", "disabled": "is disabled", "flag": "is off", "unknown": "is undecided",
                 "single": "is not needed"}[custom.state]
        where = f" ({custom.where})" if custom.where else ""
        out.append(f"custom all-reduce {words} at TP {run.tp}: {custom.reason}{where}; P2P: "
                   f"{'yes' if custom.p2p.works else 'no'} ({custom.p2p.source}), checked by "
                   f"{'the driver (VLLM_SKIP_P2P_CHECK)' if custom.p2p.check == 'driver' else 'a real peer write'}")
    out += other_paths(run)
    used = nccl(run)
    if used is not None:
        out.append(f"NCCL {used['version']}: {used['source']}")
    return out


def view(run: EngineRun) -> dict[str, Any]:
    custom = custom_all_reduce(run)
    return {
        "custom": None if custom is None else {
            "state": custom.state, "runs": custom.runs, "reason": custom.reason, "where": custom.where,
            "p2p": custom.p2p.works, "p2p_source": custom.p2p.source, "p2p_check": custom.p2p.check},
        "other_paths": other_paths(run),
    }
