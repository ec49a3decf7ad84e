"""A log that shows a WSL2 host (a collect_env platform line, vLLM's own WSL warning) states the host is WSL2,
so WSL2 rules are judged on it instead of on the base's host; a native Linux kernel line states nothing."""

from __future__ import annotations

import io

from doctor.diagnose.diagnosis import diagnose
from tests.diagnose.corpus import empty_base

UVA = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu/buffer_utils.py", line 47, in __init__\n'
       '    raise RuntimeError("UVA is not available")\n'
       "RuntimeError: UVA is not available\n")
VLLM_029 = "INFO 09-19 10:02:31 [utils.py:344]   █▄█▀ █     █     █     █  version 0.29.0\n"


def _diagnose(text: str):
    return diagnose(io.BufferedReader(io.BytesIO(text.encode())), "t.log", empty_base(), "nothing (test)", {})


def test_collect_env_platform_line_states_wsl2():
    log = ("Python platform              : Linux-6.6.87.2-microsoft-standard-WSL2-x86_64-with-glibc2.39\n"
           + VLLM_029 + UVA)
    diagnosis = _diagnose(log)
    assert diagnosis.deployment.facts.host.wsl is True
    assert "host wsl" in diagnosis.deployment.sources
    top = diagnosis.explanations[0]
    assert top.rule == "WSL020" and top.status == "confirmed", (top.rule, top.status, top.status_text)


def test_vllm_wsl_warning_states_wsl2():
    log = "WARNING 05-22 10:02:31 [interface.py:729] Using 'pin_memory=False' as WSL is detected.\n" + UVA
    assert _diagnose(log).deployment.facts.host.wsl is True


def test_native_kernel_states_nothing():
    log = "Python platform              : Linux-6.8.0-60-generic-x86_64-with-glibc2.39\n" + VLLM_029 + UVA
    diagnosis = _diagnose(log)
    assert diagnosis.deployment.facts.host.wsl is None
    assert diagnosis.explanations[0].status == "signature"
