"""Positive and boundary cases for rules/scope13.toml (task scope13): the TMA gather/scatter ptxas lines read as
Triton's (TRI070, TRI071) and as vLLM 0.11's (VLLM580). All three explain a log line only: they fire with their
line shown, on SM12x, inside their release bounds, and never in `check`."""

from __future__ import annotations

from tests.rules.builders import Case, build, lib
from tests.rules.log_line_cases import OTHER, SM12X


def shown(rule, fires, why, profile, engines=(), libs=(), signatures=None):
    log = None if signatures == () else {"signatures": [rule] if signatures is None else list(signatures)}
    return Case(rule, fires, lambda: build(profile, engines=tuple(engines), libs=tuple(libs)), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


def triton(version):
    return (lib("triton", version),)


def _tri070():
    return [
        *(shown("TRI070", True, f"Triton 3.5.1 on {p}", p, libs=triton("3.5.1")) for p in SM12X),
        *(shown("TRI070", False, f"Triton 3.5.1 on {p}: not an SM12x GPU", p, libs=triton("3.5.1")) for p in OTHER),
        shown("TRI070", True, "Triton 3.4.0 (torch 2.8)", "rtx-5090", libs=triton("3.4.0")),
        shown("TRI070", False, "Triton 3.6.0 lowers gather4 into .shared::cta", "rtx-5090", libs=triton("3.6.0")),
        shown("TRI070", False, "Triton 3.7.0", "dgx-spark", libs=triton("3.7.0")),
        shown("TRI070", False, "check: no log", "rtx-5090", libs=triton("3.5.1"), signatures=()),
        shown("TRI070", False, "another rule's line", "rtx-5090", libs=triton("3.5.1"), signatures=("TRI071",)),
    ]


def _tri071():
    return [
        *(shown("TRI071", True, f"its line on {p}", p) for p in SM12X),
        *(shown("TRI071", False, f"its line on {p}: not an SM12x GPU", p) for p in OTHER),
        shown("TRI071", False, "check: no log", "rtx-5090", signatures=()),
        shown("TRI071", False, "another rule's line", "rtx-5090", signatures=("TRI070",)),
    ]


def _vllm580():
    return [
        *(shown("VLLM580", True, f"vLLM 0.11.1 on {p}", p, engines=("vllm==0.11.1",)) for p in SM12X),
        shown("VLLM580", True, "vLLM 0.11.0, the first release read", "rtx-pro-6000", engines=("vllm==0.11.0",)),
        shown("VLLM580", True, "vLLM 0.11.2", "rtx-pro-6000", engines=("vllm==0.11.2",)),
        shown("VLLM580", False, "vLLM 0.12.0 keeps triton_kernels to 9.0-10.x", "rtx-pro-6000",
              engines=("vllm==0.12.0",)),
        shown("VLLM580", False, "vLLM 0.10.2: before the releases read", "rtx-pro-6000", engines=("vllm==0.10.2",)),
        *(shown("VLLM580", False, f"vLLM 0.11.1 on {p}: not an SM12x GPU", p, engines=("vllm==0.11.1",))
          for p in OTHER),
        shown("VLLM580", False, "check: no log", "rtx-pro-6000", engines=("vllm==0.11.1",), signatures=()),
        shown("VLLM580", False, "TRI070's line without vLLM's context", "rtx-pro-6000", engines=("vllm==0.11.1",),
              signatures=("TRI070",)),
    ]


SCOPE13_CASES = [*_tri070(), *_tri071(), *_vllm580()]
