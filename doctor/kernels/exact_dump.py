"""Read back what Triton's shared-memory allocator placed where (diagnostics for exact mode).

The worker's dump mode stops a compile right after the allocation pass and hands the module
text here: `buffers(module)` lists every allocated op, explicit `local_alloc` buffers with their
byte size and the scratch users (layout conversions, reductions, ...) with their tensor types.
Pure text handling: importable without Triton.
"""

from __future__ import annotations

import re
from typing import Any

_BITS = {"f8E4M3FN": 8, "f8E5M2": 8, "i8": 8, "bf16": 16, "f16": 16, "f32": 32, "i32": 32,
         "i64": 64, "i1": 8, "i16": 16, "f64": 64}


def memdesc_bytes(text: str) -> int | None:
    match = re.search(r"!ttg\.memdesc<([0-9x]+)x([a-zA-Z0-9]+)[,>]", text)
    if not match:
        return None
    count = 1
    for dim in match.group(1).split("x"):
        count *= int(dim)
    return count * _BITS.get(match.group(2), 0) // 8


def tensor_types(line: str) -> list[str]:
    """Every `tensor<...>` type on a line, nested brackets included."""
    found, start = [], line.find("tensor<")
    while start >= 0:
        depth, end = 0, start + len("tensor")
        for end in range(start + len("tensor"), len(line)):
            depth += {"<": 1, ">": -1}.get(line[end], 0)
            if depth == 0:
                break
        found.append(line[start:end + 1])
        start = line.find("tensor<", end)
    return found


def buffers(module: str) -> list[dict[str, Any]]:
    """Every op the allocator gave an offset, in program order."""
    out = []
    for line in module.splitlines():
        offset = re.search(r"allocation\.offset = (\d+)", line)
        if not offset:
            continue
        op = re.search(r"=\s*\"?(\w+\.\w+)|^\s*\"?(\w+\.\w+)", line)
        name = next((g for g in op.groups() if g), "?") if op else "?"
        if line.lstrip().startswith("})"):
            name = "tt.reduce"  # the attribute sits on the line closing the combine region
        entry: dict[str, Any] = {"op": name, "offset": int(offset.group(1))}
        if entry["op"] == "ttg.local_alloc":
            entry["bytes"] = memdesc_bytes(line)
            shape = re.search(r"!ttg\.memdesc<([^,]+),", line)
            entry["type"] = shape.group(1) if shape else ""
        else:
            entry["types"] = tensor_types(line)
        out.append(entry)
    return out


def layouts(module: str) -> dict[str, str]:
    """`#name = #ttg....` layout aliases of the module."""
    return dict(re.findall(r"^(#\w+) = (#ttg\.[^\n]+)$", module, flags=re.MULTILINE))
