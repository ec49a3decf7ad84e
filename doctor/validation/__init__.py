"""Input validation at the boundary: one validator per input type (facts, model configs, MoE configs,
journals, safetensors headers, argv), each turning a bad value into one line (what, where, why) and exit 2.
These helpers keep echoed input on that one line and bounded in length."""

from __future__ import annotations

import re
from typing import Any

from doctor.errors import InputError

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
MAX_ECHO = 120  # characters of one echoed input value
MAX_MESSAGE = 2000


def shown(value: Any, limit: int = MAX_ECHO) -> str:
    """repr() of an input value for an error message: control characters escaped, at most `limit` long."""
    text = repr(value) if isinstance(value, str) else one_line(repr(value))
    return text if len(text) <= limit else text[:limit - 3] + "..."


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """Newlines and other control characters escaped, so a message stays one line; long text cut."""
    text = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_int(value: Any, where: str, low: int, high: int, unit: str = "") -> int:
    """`value` as an int in [low, high], else one InputError naming where and the plausible range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{where}: expected an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise InputError(f"{where}={value} is not plausible (expected {low}..{high}{' ' + unit if unit else ''})")
    return value
