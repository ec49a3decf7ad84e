"""The one parser of GPU architecture names: every command and library takes `sm120`, `sm_121a`,
`compute_120`, `12.0`, `12,1`, `120` or `(12, 0)` and gets a (major, minor) compute capability."""

from __future__ import annotations

import re

_FORMS = (
    re.compile(r"^(?:sm|compute)_?(\d{2,3})[af]?$"),
    re.compile(r"^(\d{1,2})[.,](\d)[af]?$"),
    re.compile(r"^(\d{2,3})$"),
)

Capability = tuple[int, int]


def parse_capability(value: str | int | tuple[int, int] | list[int]) -> Capability:
    """(major, minor) of a GPU target; ValueError for anything that is not one (`12` is ambiguous)."""
    if isinstance(value, tuple | list):
        major, minor = (int(v) for v in value)
        return major, minor
    text = str(value).strip().lower()
    for form in _FORMS:
        match = form.match(text)
        if not match:
            continue
        if len(match.groups()) == 2:
            capability = int(match.group(1)), int(match.group(2))
        else:
            number = int(match.group(1))
            capability = number // 10, number % 10
        if capability[0] >= 3:
            return capability
    raise ValueError(f"cannot parse GPU arch {value!r} (try sm120, sm_121, 12.0 or 120)")


def capability_name(capability: Capability) -> str:
    """(12, 0) → `sm_120`, the spelling nvcc and the fatbin reader use."""
    return f"sm_{capability[0]}{capability[1]}"
