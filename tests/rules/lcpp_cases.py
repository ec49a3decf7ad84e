"""Positive and boundary cases for the llama.cpp build-provenance rules of know-lcpp (LCPP050-LCPP052: the arch
list a build's own log prints, the official release assets) and the LCPP006 narrowing to builds with nothing to
JIT. area_cases.py adds them to AREA_CASES."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

R5090, PRO, SPARK, H100, B200 = "rtx-5090", "rtx-pro-6000-x8", "dgx-spark", "h100-sxm-x8", "b200-x8"
CUDA_124_LIST = ["500", "610", "700", "750", "800", "860", "890", "900"]  # the win-cuda-12.4 asset's ARCHS line


def logged(archs: list[str], profile: str = R5090) -> Callable[[], Facts]:
    """A llama.cpp whose log's `system_info` printed `CUDA : ARCHS = <archs>` (no library read)."""
    return lambda: build(profile, libs=(lib("llama.cpp", "9835", logged_cuda_archs=list(archs)),))


def asset(name: str, profile: str = R5090) -> Callable[[], Facts]:
    """`--engine llama.cpp==<release asset name>`."""
    return lambda: build(profile, engines=(f"llama.cpp=={name}",))


def built(profile: str = R5090, toolkit: str = "12.4.131", *archs: str) -> Callable[[], Facts]:
    return lambda: build(profile, libs=(lib("llama.cpp", "9835", cuda_library="/x/libggml-cuda.so",
                                            cuda_archs=list(archs), toolkit=toolkit),))


WIN_124 = "llama-b9835-bin-win-cuda-12.4-x64.zip"
WIN_133 = "llama-b9835-bin-win-cuda-13.3-x64.zip"

CASES = [
    a("LCPP050", True, "ARCHS up to 900 on a 5090 (the 12.4 asset)", logged(CUDA_124_LIST)),
    a("LCPP050", True, "ARCHS up to 890 on GB10", logged(CUDA_124_LIST[:-1], SPARK)),
    a("LCPP050", False, "ARCHS with 1200 on a 5090", logged([*CUDA_124_LIST, "1200"])),
    a("LCPP050", False, "ARCHS up to 900 on an H100 (9.0)", logged(CUDA_124_LIST, H100)),
    a("LCPP050", False, "ARCHS up to 900 on a B200 (10.0)", logged(CUDA_124_LIST, B200)),
    a("LCPP050", False, "no ARCHS line", lambda: build(R5090, libs=(lib("llama.cpp", "9835"),))),
    a("LCPP051", True, "GB10, ARCHS 890,1200", logged(["890", "1200"], SPARK)),
    a("LCPP051", False, "GB10, ARCHS 1200,1210", logged(["890", "1200", "1210"], SPARK)),
    a("LCPP051", False, "5090 (12.0), ARCHS 890,1200", logged(["890", "1200"])),
    a("LCPP051", False, "GB10, ARCHS up to 900 (LCPP050's)", logged(CUDA_124_LIST, SPARK)),
    a("LCPP052", True, "win-cuda-12.4 asset on a 5090", asset(WIN_124)),
    a("LCPP052", True, "short asset name on a PRO 6000", asset("b9835-win-cuda-12.4", PRO)),
    a("LCPP052", False, "win-cuda-13.3 asset on a 5090", asset(WIN_133)),
    a("LCPP052", False, "ubuntu-cuda-12.8 asset on a 5090", asset("llama-b9835-bin-ubuntu-cuda-12.8-x64.tar.gz")),
    a("LCPP052", False, "win-cuda-12.4 asset on an H100", asset(WIN_124, H100)),
    a("LCPP052", False, "win-cuda-12.4 asset on a B200", asset(WIN_124, B200)),
    a("LCPP052", False, "a build number alone", asset("b9835")),
    a("LCPP004", True, "the 12.4 asset reaches 12.0 by compute_90 PTX", asset(WIN_124)),
    a("LCPP004", False, "the 13.3 asset has sm_120a", asset(WIN_133)),
    a("LCPP006", False, "CUDA 12.4 build with PTX: LCPP004's, it runs",
      built(R5090, "12.4.131", "sm_86", "compute_80")),
    a("LCPP005", False, "GB10, CUDA 12.8 default list (120a + compute_90 PTX): JIT, LCPP004's",
      built(SPARK, "12.8.93", "sm_86", "sm_89", "sm_120a", "compute_80", "compute_90")),
    a("LCPP004", True, "GB10, CUDA 12.8 default list reaches 12.1 by compute_90 PTX",
      built(SPARK, "12.8.93", "sm_86", "sm_89", "sm_120a", "compute_80", "compute_90")),
    a("LCPP005", True, "GB10, 120a SASS only", built(SPARK, "12.8.93", "sm_86", "sm_89", "sm_120a")),
    a("LCPP006", True, "CUDA 12.4 build without PTX", built(R5090, "12.4.131", "sm_86", "sm_89")),
    a("LCPP006", False, "CUDA 12.4 build without PTX on an H100", built(H100, "12.4.131", "sm_86", "sm_89")),
]


def sglang_node(version: str = "0.5.19", profile: str = SPARK, env: dict[str, str] | None = None
                ) -> Callable[[], Facts]:
    """One node of a multi-node SGLang launch (the flags go after it)."""
    return lambda: build(profile, "meta-llama/Llama-3.1-8B-Instruct", (f"sglang=={version}",), env=env)


WORKER = ("--nnodes", "2", "--node-rank", "1", "--tp-size", "2")
RENDEZVOUS = ("--dist-init-addr", "192.168.100.10:20000")
FABRIC = {"NCCL_SOCKET_IFNAME": "enp1s0f0np0", "GLOO_SOCKET_IFNAME": "enp1s0f0np0"}

MULTINODE_CASES = [
    a("CLU020", True, "worker without --dist-init-addr", sglang_node(), *WORKER),
    a("CLU020", True, "0.5.1, --host 0.0.0.0", sglang_node("0.5.1"), *WORKER, "--host", "0.0.0.0"),
    a("CLU020", True, "0.5.23 on a PRO 6000 node", sglang_node("0.5.23", PRO), *WORKER),
    a("CLU020", False, "with --dist-init-addr", sglang_node(), *WORKER, *RENDEZVOUS),
    a("CLU020", False, "with the old --nccl-init-addr", sglang_node(), *WORKER, "--nccl-init-addr", "10.0.0.1:5000"),
    a("CLU020", False, "with --host the head's address", sglang_node(), *WORKER, "--host", "192.168.100.10"),
    a("CLU020", False, "init-method override", sglang_node(env={"SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE": "env://"}),
      *WORKER),
    a("CLU020", False, "--nnodes 1", sglang_node(), "--nnodes", "1", "--tp-size", "1"),
    a("CLU020", False, "sglang 0.5.0 (not read)", sglang_node("0.5.0"), *WORKER),
    a("CLU021", True, "tp 1 over 2 nodes", sglang_node(), "--nnodes", "2", "--node-rank", "0", *RENDEZVOUS),
    a("CLU021", True, "tp 2 pp 1 over 4 nodes", sglang_node("0.5.9"), "--nnodes", "4", "--tp-size", "2",
      *RENDEZVOUS),
    a("CLU021", False, "tp 2 over 2 nodes", sglang_node(), *WORKER, *RENDEZVOUS),
    a("CLU021", False, "tp 2 pp 2 over 4 nodes", sglang_node(), "--nnodes", "4", "--tp-size", "2", "--pp-size", "2",
      *RENDEZVOUS),
    a("CLU021", False, "ep join mode given", sglang_node("0.5.23"), "--nnodes", "2", "--ep-join-mode", "scale",
      *RENDEZVOUS),
    a("CLU021", False, "sglang 0.5.0 (not read)", sglang_node("0.5.0"), "--nnodes", "2", *RENDEZVOUS),
    a("CLU022", True, "fabric pinned, SGLANG_HOST_IP unset", sglang_node(env=FABRIC), *WORKER, *RENDEZVOUS),
    a("CLU022", False, "SGLANG_HOST_IP set", sglang_node(env={**FABRIC, "SGLANG_HOST_IP": "192.168.100.11"}),
      *WORKER, *RENDEZVOUS),
    a("CLU022", False, "HOST_IP set", sglang_node(env={**FABRIC, "HOST_IP": "192.168.100.11"}), *WORKER, *RENDEZVOUS),
    a("CLU022", False, "no interface pinned", sglang_node(), *WORKER, *RENDEZVOUS),
    a("CLU022", False, "one node", sglang_node(env=FABRIC), "--tp-size", "1"),
]
CASES += MULTINODE_CASES


def uma_logged(profile: str = R5090) -> Callable[[], Facts]:
    """A llama.cpp build whose log shows its unified-memory free-memory read (llama.cpp#17536)."""
    return lambda: build(profile, libs=(lib("llama.cpp", "7166", logged_uma_available_kb=56701456),))


CASES += [
    a("LCPP053", True, "5090, UMA read logged", uma_logged()),
    a("LCPP053", True, "PRO 6000, UMA read logged", uma_logged(PRO)),
    a("LCPP053", False, "GB10, UMA read is its own", uma_logged(SPARK)),
    a("LCPP053", False, "5090, no UMA line", lambda: build(R5090, libs=(lib("llama.cpp", "7166"),))),
    a("LCPP053", False, "H100 (9.0)", uma_logged(H100)),
]


def ollama(version: str, profile: str = SPARK, os: str | None = None) -> Callable[[], Facts]:
    """`--engine ollama==X` on a profile (the host OS of the profile unless given)."""
    def facts() -> Facts:
        import dataclasses

        built = build(profile, engines=(f"ollama=={version}",))
        return built.replace(host=dataclasses.replace(built.host, os=os)) if os else built
    return facts


CASES += [
    a("OLL001", True, "0.30.2 on GB10", ollama("0.30.2")),
    a("OLL001", True, "0.32.1 on GB10", ollama("0.32.1")),
    a("OLL001", False, "0.32.2 on GB10: --direct-io (72116bafb)", ollama("0.32.2")),
    a("OLL001", False, "0.32.5 on GB10: --direct-io", ollama("0.32.5")),
    a("OLL001", True, "0.30.0 on GB10", ollama("0.30.0")),
    a("OLL001", False, "0.32.6 on GB10: --load-mode dio", ollama("0.32.6")),
    a("OLL001", False, "0.29.9 on GB10: no llama-server runner yet", ollama("0.29.9")),
    a("OLL001", False, "0.30.2 on an RTX 5090 (discrete)", ollama("0.30.2", R5090)),
    a("OLL001", False, "0.30.2 on 12.1 under Windows (RTX Spark N1X: mmap off by default there)",
      ollama("0.30.2", os="Windows")),
    a("OLL001", False, "0.30.2 on an H100", ollama("0.30.2", H100)),
]

CASES += [
    a("LCPP041", False, "Ollama 0.32.8's llama-server (b10353): Ollama passes --load-mode dio", ollama("0.32.8")),
    a("LCPP041", True, "llama.cpp b10353 on its own on GB10: mmap by default",
      lambda: build(SPARK, engines=("llama.cpp==10353",))),
]
