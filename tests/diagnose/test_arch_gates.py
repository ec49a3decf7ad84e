"""The arch-gate family (rules/arch_gates.toml) on every message of tests/diagnose/arch_gate_messages.toml: on an
RTX 5090 and a GB10 the message's rule ranks first (a specific rule before the GATE fallback); on Hopper 9.0 and
datacenter Blackwell 10.0 no GATE rule explains it; the fixes name each engine's setting when the log names no
engine and only the log's engine's when it does."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.diagnose.corpus import diagnose_text, rules_named

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

CATALOG = Path(__file__).resolve().parent / "arch_gate_messages.toml"
GPU_LINES = {"rtx-5090": "GPU 0: NVIDIA GeForce RTX 5090", "dgx-spark": "GPU 0: NVIDIA GB10",
             "h100": "GPU 0: NVIDIA H100 80GB HBM3", "b200": "GPU 0: NVIDIA B200"}
SM = {"rtx-5090": "120", "dgx-spark": "121", "h100": "90", "b200": "100"}
NAMED = re.compile(r"(?<!\d)12[01](?!\d)")


@dataclass(frozen=True)
class Message:
    library: str
    line: str
    rule: str
    report: str = ""
    source: str = ""
    names_capability: bool = False
    sm12x_path: str = ""  # which releases of the library have a path for 12.x, where one exists
    gpus: tuple[str, ...] = ("rtx-5090", "dgx-spark")

    def on(self, gpu: str) -> str:
        """The log of this message on `gpu`: its own capability rewritten, or a GPU line before it."""
        if self.names_capability:
            return NAMED.sub(SM[gpu], self.line, count=1) + "\n"
        return f"{GPU_LINES[gpu]}\n{self.line}\n"


def _catalog() -> list[Message]:
    raw = tomllib.loads(CATALOG.read_text(encoding="utf-8"))["message"]
    return [Message(**{**m, "gpus": tuple(m.get("gpus", ("rtx-5090", "dgx-spark")))}) for m in raw]


MESSAGES = _catalog()
GATES = re.compile(r"^GATE\d{3}$")
SOURCE = re.compile(r"/blob/[^/]+/.+#L\d+$|^https://pypi\.org/project/[\w-]+/[\w.]+/$")


def _ids(cases):
    return [f"{m.rule}:{m.line[:50]}@{gpu}" for m, gpu in cases]


SM12X_CASES = [(m, gpu) for m in MESSAGES for gpu in m.gpus]
OTHER_CASES = [(m, gpu) for m in MESSAGES for gpu in ("h100", "b200")]


@pytest.mark.parametrize(("message", "gpu"), SM12X_CASES, ids=_ids(SM12X_CASES))
def test_the_message_is_explained_by_its_rule_on_sm12x(message, gpu):
    named = rules_named(diagnose_text(message.on(gpu)))
    assert named and named[0] == message.rule, (message.line, gpu, named)


@pytest.mark.parametrize(("message", "gpu"), OTHER_CASES, ids=_ids(OTHER_CASES))
def test_no_gate_rule_claims_the_message_on_hopper_or_datacenter_blackwell(message, gpu):
    named = rules_named(diagnose_text(message.on(gpu)))
    assert not [r for r in named if GATES.match(r)], (message.line, gpu, named)


def test_the_catalog_cites_a_report_or_a_source_line_for_every_message():
    assert len(MESSAGES) >= 20 and len({m.library.split(" (")[0] for m in MESSAGES}) >= 8
    for m in MESSAGES:
        # a report, the raising line at a tag, or the wheel whose compiled strings were read
        assert m.report or SOURCE.search(m.source), m.line
        assert not m.names_capability or NAMED.search(m.line), m.line
        assert m.sm12x_path, m.line
    gate_rules = {m.rule for m in MESSAGES if GATES.match(m.rule)}
    assert gate_rules == {"GATE001", "GATE002", "GATE003", "GATE004", "GATE005", "GATE006", "GATE007", "GATE008",
                          "GATE030"}


def test_a_specific_rule_on_the_same_line_ranks_before_the_gate_family():
    """`mm_fp4 ... with capability 120` is GATE002's shape too; SGL118 (its own cause) ranks first, GATE002 after."""
    named = rules_named(diagnose_text("BackendSupportedError: mm_fp4 does not support backend 'trtllm' with "
                                      "capability 120\n"))
    assert named[0] == "SGL118" and "GATE002" in named and named.index("GATE002") > named.index("SGL118")


def _fix_texts(diagnosis) -> str:
    top = diagnosis.explanations[0]
    return " | ".join(f.summary + " " + " ".join(f.details.get("flags", []) + [f"{k}={v}" for k, v in
                                                                            (f.details.get("env") or {}).items()])
                      for f in top.fixes)


def test_without_an_engine_in_the_log_every_engines_fix_is_given():
    fixes = _fix_texts(diagnose_text("GPU 0: NVIDIA GeForce RTX 5090\nAssertionError: expected sm90 or sm100\n"))
    assert "VLLM_USE_DEEP_GEMM=0" in fixes and "SGLANG_ENABLE_JIT_DEEPGEMM=0" in fixes


def test_with_the_engine_of_the_log_only_its_fix_is_given():
    log = ("INFO 06-12 08:49:30 [api_server.py:1] vLLM API server version 0.24.0\n"
           "GPU 0: NVIDIA GeForce RTX 5090\n"
           "RuntimeError: Only SM90 and SM100 are supported\n")
    diagnosis = diagnose_text(log)
    assert rules_named(diagnosis)[0] == "GATE003"
    fixes = _fix_texts(diagnosis)
    assert "TRITON_MLA" in fixes and "SGLang" not in fixes


def test_the_capability_the_gate_names_is_the_logs_gpu():
    """A line that names the device it refused states the GPU's capability: 12.0 is judged as SM12x, 9.0 rules
    the family out (the deployment contradicts `gpu.capability_major == 12`)."""
    sm120 = diagnose_text("bmm_bf16 does not support backend 'cutlass' with capability 120\n")
    assert sm120.deployment.facts.gpus[0].compute_capability == "12.0"
    hopper = diagnose_text("bmm_bf16 does not support backend 'cutlass' with capability 90\n")
    assert hopper.deployment.facts.gpus[0].compute_capability == "9.0" and not rules_named(hopper)


@pytest.mark.parametrize("line", [
    # vLLM's DEBUG list of the backends it passed over on a healthy SM12x start (vllm/platforms/cuda.py at v0.33.0,
    # `Some attention backends are not valid for {device} with {config}. Reasons: {...}`, reasons from flashmla.py)
    "DEBUG 06-12 08:49:30 [cuda.py:460] Some attention backends are not valid for cuda with AttentionSelectorConfig("
    "head_size=576, use_mla=True). Reasons: {FLASHMLA: [compute capability not supported, FlashMLA Dense is only "
    "supported on Hopper devices.], CUTLASS_MLA: [compute capability not supported]}.",
])
def test_a_healthy_start_that_names_an_sm90_only_backend_is_not_a_failure(line):
    named = rules_named(diagnose_text(f"GPU 0: NVIDIA GeForce RTX 5090\n{line}\n"))
    assert not [r for r in named if GATES.match(r)], named
