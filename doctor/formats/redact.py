"""Text for a public bug report: tokens (Hugging Face, OpenAI, GitHub, AWS, Slack, bearer), IP addresses, host
names in shell prompts and `host=` fields, and paths under a home directory are replaced. Environment values go
through doctor/probe/env.py's redaction first (secret-looking names, credentials in URLs)."""

from __future__ import annotations

import re

from doctor.probe.env import REDACTED, redact

_TOKENS = re.compile(
    r"\bhf_[A-Za-z0-9]{20,}|\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}|\bgh[pousr]_[A-Za-z0-9]{30,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{30,}|\bAKIA[0-9A-Z]{16}\b|\bxox[baprs]-[A-Za-z0-9-]{10,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/-]{16,}=*")
# `NAME=value`, `NAME: value`, and a command-line flag with its value (`--hf-token value`); prose that merely
# names tokens ("fewer tokens than one request") is left alone
_SECRET_ASSIGNMENT = re.compile(r"(?i)(\b[\w-]*(?:token|secret|password|passwd|api[_-]?key)[\w-]*)(\s*[=:]\s*)"
                                r"(['\"]?)[^\s'\",}]{4,}\3"
                                r"|((?<![\w-])--?[\w-]*(?:token|secret|password|passwd|api[_-]?key)[\w-]*)(\s+)"
                                r"(['\"]?)[^\s'\",}]{4,}\6")
_IPV4 = re.compile(r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){4,7}[0-9a-fA-F]{1,4}(?![\w:])")
_HOME = re.compile(r"(/home/|/Users/|C:\\Users\\)[^/\\\s'\"]+")
_PROMPT = re.compile(r"\b([\w.-]+)@([\w.-]+)(:[~/])")
_HOST_FIELD = re.compile(r"(?i)\b(host(?:name)?|node)(\s*[=:]\s*)(['\"]?)[\w.-]+\3")
_NCCL_HOST = re.compile(r"(?m)^[\w.-]+(:\d+:\d+ \[\d+\] NCCL)|(\bon\s+)[\w.-]+(\s+device\b)")
_KEEP_IPS = {"0.0.0.0", "127.0.0.1"}


def redact_text(text: str) -> str:
    text = _TOKENS.sub(REDACTED, text)
    text = _NCCL_HOST.sub(lambda m: f"<host>{m.group(1)}" if m.group(1) else f"{m.group(2)}<host>{m.group(3)}", text)
    text = _SECRET_ASSIGNMENT.sub(lambda m: f"{m.group(1) or m.group(4)}{m.group(2) or m.group(5)}{REDACTED}", text)
    text = _IPV4.sub(lambda m: m.group(0) if m.group(0) in _KEEP_IPS else "<ip>", text)
    text = _IPV6.sub("<ip>", text)
    text = _HOME.sub(lambda m: "~" if m.group(1) != "C:\\Users\\" else "%USERPROFILE%", text)
    text = _PROMPT.sub(lambda m: f"<user>@<host>{m.group(3)}", text)
    return _HOST_FIELD.sub(lambda m: f"{m.group(1)}{m.group(2)}<host>", text)


def redact_env(env: dict[str, str]) -> dict[str, str]:
    return {name: redact_text(redact(name, value)) for name, value in env.items()}
