"""A generic, validating reader from JSON-like data into frozen dataclasses (the Facts tree): every value is
checked against its field's type hint, so a hostile or stale file gives one clear error with its path."""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Callable
from typing import Any, Union

from doctor.errors import InputError
from doctor.validation import one_line, shown

# One converter per type hint, built once per class: a facts file of a large host holds hundreds of
# thousands of links, and resolving hints or formatting paths per value cost more than the data itself.

_MAX_INT = 1 << 62  # anything larger in a facts file is corrupt, not a real quantity

Converter = Callable[[Any], Any]


class _Bad(Exception):
    """A value that does not fit its hint; `path` grows (innermost first) as the error unwinds."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str] = []


def from_dict(cls: type, data: Any, where: str) -> Any:
    try:
        return _reader(cls)(data)
    except _Bad as bad:
        raise InputError(f"{where}{''.join(reversed(bad.path))}: {bad.reason}") from None


@functools.cache
def _reader(cls: type) -> Converter:
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    converters = {f.name: _converter(hints[f.name]) for f in fields}
    required = [f.name for f in fields if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]

    def read(data: Any) -> Any:
        if type(data) is not dict:
            raise _Bad(f"expected an object, got {_type_name(data)}")
        if not converters.keys() >= data.keys():
            raise _Bad(f"unknown field {shown(sorted(map(str, data.keys() - converters.keys()))[0])}")
        for name in required:
            if name not in data:
                raise _Bad(f"missing field {name!r}")
        values = {}
        for name, value in data.items():
            try:
                values[name] = converters[name](value)
            except _Bad as bad:
                bad.path.append(f".{name}")
                raise
        return cls(**values)

    return read


def _converter(hint: Any) -> Converter:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) != 1:
            raise TypeError(f"facts reader: unsupported union {hint!r}")
        inner = _converter(options[0])
        return (lambda value: None if value is None else inner(value)) if type(None) in args else inner
    if hint is Any:
        return lambda value: value
    if dataclasses.is_dataclass(hint):
        return _reader(hint)
    if origin is tuple:
        return _tuple_of(_converter(args[0]))
    if origin is dict:
        return _dict_of(_converter(args[1]))
    if hint in _SCALARS:
        return _SCALARS[hint]
    raise TypeError(f"facts reader: unsupported type {hint!r}")


def _tuple_of(item: Converter) -> Converter:
    def convert(value: Any) -> tuple[Any, ...]:
        if type(value) is not list:
            raise _Bad(f"expected a list, got {_type_name(value)}")
        out = []
        for i, v in enumerate(value):
            try:
                out.append(item(v))
            except _Bad as bad:
                bad.path.append(f"[{i}]")
                raise
        return tuple(out)

    return convert


def _dict_of(item: Converter) -> Converter:
    def convert(value: Any) -> dict[str, Any]:
        if type(value) is not dict:
            raise _Bad(f"expected an object, got {_type_name(value)}")
        out = {}
        for k, v in value.items():
            try:
                out[str(k)] = item(v)
            except _Bad as bad:
                bad.path.append(f".{one_line(str(k), 80)}")
                raise
        return out

    return convert


def _int(value: Any) -> int:
    if type(value) is int and -_MAX_INT <= value <= _MAX_INT:
        return value
    if type(value) is int:
        raise _Bad(f"value {shown(value)} is out of range")
    raise _Bad(f"expected int, got {_type_name(value)}")


def _float(value: Any) -> float:
    if type(value) in (int, float) and math.isfinite(value):
        return float(value)
    raise _Bad(f"expected a finite number, got {shown(value)}")


def _str(value: Any) -> str:
    if type(value) is str:
        return value
    raise _Bad(f"expected str, got {_type_name(value)}")


def _bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise _Bad(f"expected bool, got {_type_name(value)}")


_SCALARS: dict[Any, Converter] = {int: _int, float: _float, str: _str, bool: _bool}


def _type_name(value: Any) -> str:
    return {dict: "object", list: "list", type(None): "null"}.get(type(value), type(value).__name__)
