"""Cases for the rules that explain a log line only (rules/log_lines.toml, task know-diag). Such a rule reads
`log.signatures`, which only `diagnose` fills with the rules whose signatures the log showed: each fires with its
own signature shown on the GPUs its message is about, and stays silent in `check` (no log), with another rule's
signature shown, and just outside its GPU bound (Hopper 9.0, datacenter Blackwell 10.0)."""

from __future__ import annotations

from tests.rules.builders import Case, build, lib

SM12X = ("rtx-5090", "dgx-spark", "rtx-pro-6000")
OTHER = ("h100-sxm-x8", "b200-x8")
GPU_BOUND = ("TRI010", "KRN010", "BLD021", "BLD022")


def logged(rule, fires, why, profile, shown=None, libs=()):
    """`profile`'s facts as `diagnose` rebuilds them, with `shown` (default: the rule itself) as the rules whose
    signatures the log showed; `shown=()` is `check` (no log at all)."""
    log = None if shown == () else {"signatures": [rule] if shown is None else list(shown)}
    return Case(rule, fires, lambda: build(profile, libs=libs), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


TORCH_CU130 = (lib("torch", "2.9.1+cu130", cuda_version="13.0"),)
TORCH_CU128 = (lib("torch", "2.9.1+cu128", cuda_version="12.8"),)

LOG_LINE_CASES = [
    *(logged(rule, True, f"its line on {profile}", profile) for rule in GPU_BOUND for profile in SM12X),
    *(logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for rule in GPU_BOUND
      for profile in OTHER),
    *(logged(rule, False, "check: no log", "rtx-5090", shown=()) for rule in GPU_BOUND),
    *(logged(rule, False, "another rule's line", "rtx-5090", shown=("TORCH001",)) for rule in GPU_BOUND),
    logged("KRN011", True, "capture invalidated on an RTX 5090", "rtx-5090"),
    logged("KRN011", True, "capture invalidated on GB10", "dgx-spark"),
    logged("KRN011", False, "check: no log", "rtx-5090", shown=()),
    logged("KRN011", False, "another rule's line", "rtx-5090", shown=("TRI010",)),
    logged("BLD020", True, "libcudart.so.12 missing beside torch cu130", "dgx-spark", libs=TORCH_CU130),
    logged("BLD020", True, "on an RTX 5090 with torch cu130", "rtx-5090", libs=TORCH_CU130),
    logged("BLD020", False, "torch cu128: the CUDA 12 runtime is there, only off the path", "rtx-5090",
           libs=TORCH_CU128),
    logged("BLD020", False, "torch not stated", "rtx-5090"),
    logged("BLD020", False, "check: no log", "dgx-spark", shown=(), libs=TORCH_CU130),
]

BNB_OLD = (lib("bitsandbytes", "0.45.2"),)
BNB_FIXED = (lib("bitsandbytes", "0.45.3"),)

LOG_LINE_CASES += [
    logged("BLD023", True, "bitsandbytes 0.45.2: no CUDA 12.8 build", "rtx-5090", libs=BNB_OLD),
    logged("BLD023", True, "bitsandbytes 0.45.2 on GB10", "dgx-spark", libs=BNB_OLD),
    logged("BLD023", False, "0.45.3 ships the CUDA 12.8 build with sm_120", "rtx-5090", libs=BNB_FIXED),
    logged("BLD023", False, "Hopper", "h100-sxm-x8", libs=BNB_OLD),
    logged("BLD023", False, "datacenter Blackwell", "b200-x8", libs=BNB_OLD),
    logged("BLD023", False, "check: no log", "rtx-5090", shown=(), libs=BNB_OLD),
]

LOG_LINE_CASES += [
    *(logged("KRN012", True, f"its line on {profile}", profile) for profile in SM12X),
    *(logged("KRN012", False, f"its line on {profile}: not an SM12x GPU", profile) for profile in OTHER),
    logged("KRN012", False, "check: no log", "rtx-5090", shown=()),
]

LOG_LINE_CASES += [
    logged("DRV020", True, "PTX refused on an RTX 5090", "rtx-5090"),
    logged("DRV020", True, "PTX refused on GB10", "dgx-spark"),
    logged("DRV020", False, "check: no log", "rtx-5090", shown=()),
    logged("DRV020", False, "another rule's line", "rtx-5090", shown=("KRN011",)),
]

LOG_LINE_CASES += [
    *(logged("BLD024", True, f"its line on {profile}", profile) for profile in SM12X),
    *(logged("BLD024", False, f"its line on {profile}: flash-attn accepts it", profile) for profile in OTHER),
    logged("BLD024", False, "check: no log", "rtx-5090", shown=()),
]

LOG_LINE_CASES += [
    logged("BLD025", True, "undefined torch symbol on an RTX 5090", "rtx-5090"),
    logged("BLD025", True, "undefined torch symbol on GB10", "dgx-spark"),
    logged("BLD025", False, "check: no log", "rtx-5090", shown=()),
    logged("BLD025", False, "another rule's line", "rtx-5090", shown=("SGL181",)),
]

LOG_LINE_CASES += [
    logged("BLD026", True, "libcudart.so.13 missing beside torch cu128", "rtx-5090", libs=TORCH_CU128),
    logged("BLD026", True, "on GB10 with torch cu128", "dgx-spark", libs=TORCH_CU128),
    logged("BLD026", False, "torch cu130: the CUDA 13 runtime is there, only off the path", "rtx-5090",
           libs=TORCH_CU130),
    logged("BLD026", False, "torch not stated", "rtx-5090"),
    logged("BLD026", False, "check: no log", "rtx-5090", shown=(), libs=TORCH_CU128),
]
