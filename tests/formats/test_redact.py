"""What a public bug report hides: secrets given as `NAME=value`, `NAME: value` or a flag with its value; prose that
merely names tokens stays readable (MEM002's "fewer tokens than one request" was cut to "<redacted>")."""

from __future__ import annotations

import pytest

from doctor.formats.redact import redact_text


@pytest.mark.parametrize("text, shown", [
    ("HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz", "HF_TOKEN=<redacted>"),
    ("export SECRET_KEY=abcdefg", "export SECRET_KEY=<redacted>"),
    ("api_key: sk-123456", "api_key: <redacted>"),
    ("vllm serve M --hf-token abcdef123 --port 8000", "vllm serve M --hf-token <redacted> --port 8000"),
    ("The KV cache holds fewer tokens than one 262144-token request",
     "The KV cache holds fewer tokens than one 262144-token request"),
    ("max tokens per batch 8192", "max tokens per batch 8192"),
])
def test_secrets_go_and_prose_stays(text, shown):
    assert redact_text(text) == shown
