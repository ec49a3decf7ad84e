"""Cases for the log-line rules of rules/log_lines_2026.toml (task know-diag3), and TPK001 read from a log. Each
fires with its own signature shown on the GPUs (or the torch release) it is about, and stays silent in `check` (no
log), with another rule's signature shown, and just outside its bound: Hopper 9.0 and datacenter Blackwell 10.0
for the GPU-bound ones, the first torch release whose cpp_extension knows the arch for BLD030/BLD031."""

from __future__ import annotations

from tests.rules.builders import Case, build, lib
from tests.rules.log_line_cases import OTHER, SM12X, logged

GPU_BOUND = ("KRN030", "KRN031", "DRV030", "TRI025", "KRN032")
PCIE_SM120 = ("rtx-5090-x2", "rtx-pro-6000-x2")


TORCH_CUDA = {"2.6.0": "12.6", "2.7.0": "12.8", "2.8.0": "12.9"}  # each release's newest CUDA build


def torch(version: str) -> tuple:
    return (lib("torch", version, cuda_version=TORCH_CUDA[version]),)


LOG_LINE_DIAG3_CASES = [
    *(logged(rule, True, f"its line on {profile}", profile) for rule in GPU_BOUND for profile in SM12X),
    *(logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for rule in GPU_BOUND
      for profile in OTHER),
    *(logged(rule, False, "check: no log", "rtx-5090", shown=()) for rule in GPU_BOUND),
    *(logged(rule, False, "another rule's line", "rtx-5090", shown=("TORCH001",)) for rule in GPU_BOUND),
    logged("BLD030", True, "torch 2.6.0: supported_arches ends at 10.0", "rtx-5090", libs=torch("2.6.0")),
    logged("BLD030", False, "torch 2.7.0 lists 12.0", "rtx-5090", libs=torch("2.7.0")),
    logged("BLD030", False, "torch not stated", "rtx-5090"),
    logged("BLD030", False, "check: no log", "rtx-5090", shown=(), libs=torch("2.6.0")),
    logged("BLD031", True, "torch 2.7.0 lists 12.0, not 12.1", "dgx-spark", libs=torch("2.7.0")),
    logged("BLD031", False, "torch 2.8.0 lists 12.1", "dgx-spark", libs=torch("2.8.0")),
    logged("BLD031", False, "check: no log", "dgx-spark", shown=(), libs=torch("2.7.0")),
    logged("BLD031", False, "another rule's line", "dgx-spark", shown=("BLD030",), libs=torch("2.7.0")),
    logged("BLD032", True, "nvcc refused compute_120 (RTX 5090)", "rtx-5090"),
    logged("BLD032", True, "nvcc refused compute_121a (GB10)", "dgx-spark"),
    logged("BLD032", False, "check: no log", "rtx-5090", shown=()),
    logged("BLD032", False, "another rule's line", "rtx-5090", shown=("BLD010",)),
]


def _tpk001(fires: bool, why: str, version: str, shown: tuple[str, ...] | None) -> Case:
    """TPK001 without the LMCache connector in the launch: a log whose failing frame is LMCache's stands for it."""
    log = None if shown is None else {"signatures": list(shown)}
    libs = (lib("lmcache", version),)
    return Case("TPK001", fires, lambda: build("rtx-pro-6000", engines=("vllm==0.13.0",), libs=libs), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


LOG_LINE_DIAG3_CASES += [
    _tpk001(True, "lmcache 0.3.9, the log's LMCache frame", "0.3.9", ("TPK001",)),
    _tpk001(False, "lmcache 0.4.5 has sm_120", "0.4.5", ("TPK001",)),
    _tpk001(False, "lmcache 0.3.9, another rule's line", "0.3.9", ("TORCH001",)),
    _tpk001(False, "lmcache 0.3.9, check without the connector", "0.3.9", None),
]

LOG_LINE_DIAG3_CASES += [
    *(logged("NCCL040", True, f"early collective timed out on {profile}", profile) for profile in PCIE_SM120),
    logged("NCCL040", False, "GB10 pairs go over the network", "dgx-spark"),
    *(logged("NCCL040", False, f"{profile}: not an SM120 card", profile) for profile in OTHER),
    logged("NCCL040", False, "check: no log", "rtx-5090-x2", shown=()),
    logged("NCCL040", False, "another rule's line", "rtx-5090-x2", shown=("COMM001",)),
]
