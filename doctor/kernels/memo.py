"""Closed-form estimates memoised on disk. Each estimator is a pure function of its arguments and of the
estimator source (doctor/kernels/*.py, stamped by path, size and mtime), while building the linear layouts it
reasons on costs a `check` some 10-20 ms of a ~0.12 s cold start; so a repeated config is a lookup and the
estimator modules are imported only on a miss. A memo that cannot be read or written only costs the
computation; errors (a ValueError for launch parameters no kernel takes) are never memoised."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable
from typing import Any

from doctor import cache


def _stamp() -> list[Any] | None:
    here = os.path.dirname(os.path.abspath(__file__))
    sources = sorted(os.path.join(here, name) for name in os.listdir(here) if name.endswith(".py"))
    return cache.file_stamp(sources)  # type: ignore[arg-type]


# estimates kept; a fresh memo starts when it is full
_MEMO = cache.DiskMemo("smem-estimates", _stamp, int, limit=8192)


def memoised(module: str, name: str) -> Callable[..., int]:
    """`doctor.kernels.<module>.<name>`, answered from the memo when it has seen the same call."""

    def estimator(*args: Any, **kwargs: Any) -> int:
        key = json.dumps([name, args, sorted(kwargs.items())], default=str)
        value = _MEMO.get(key)
        if value is None:
            value = getattr(importlib.import_module(f"doctor.kernels.{module}"), name)(*args, **kwargs)
            _MEMO.put(key, value)
        return value

    estimator.__name__ = estimator.__qualname__ = name
    estimator.__doc__ = f"doctor.kernels.{module}.{name}, memoised on disk (doctor.kernels.memo)."
    return estimator
