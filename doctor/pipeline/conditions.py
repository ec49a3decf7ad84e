"""A rule's conditions over the context: dotted-path lookup, the operators, and two ways to judge a condition.
`holds` is the check's verdict (a fact that is absent makes a condition false); `state` is diagnose's, which
reads a log that states only part of a deployment (an absent fact leaves the condition open: None)."""

from __future__ import annotations

import re
from typing import Any

from doctor import specifiers

PLACEHOLDER = re.compile(r"\{([a-zA-Z_][\w.-]*)\}")
MISSING = object()  # what `lookup` returns for a path the context lacks (None is a stated value)


def lookup(context: dict[str, Any], path: str) -> Any:
    value: Any = context
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return MISSING
    return value


def stated(value: Any) -> bool:
    return value is not MISSING and value is not None


def holds(condition: dict[str, Any], context: dict[str, Any]) -> bool:
    if "any" in condition:
        return any(holds(c, context) for c in condition["any"])
    op = operator(condition)
    actual = lookup(context, condition["fact"])
    if op == "exists":
        return stated(actual) == bool(condition[op])
    return stated(actual) and compare(op, actual, condition[op])


def state(condition: dict[str, Any], context: dict[str, Any]) -> bool | None:
    """True or False where the context states the facts the condition reads; None where it leaves one open
    (for `exists` too: a log that does not mention a fact does not say it is absent)."""
    if "any" in condition:
        states = [state(c, context) for c in condition["any"]]
        return True if True in states else (False if all(s is False for s in states) else None)
    if not stated(lookup(context, condition["fact"])):
        return None
    return holds(condition, context)


def facts_of(condition: dict[str, Any]) -> list[str]:
    """The dotted paths a condition reads."""
    if "any" in condition:
        return [f for c in condition["any"] for f in facts_of(c)]
    return [condition["fact"]]


def operator(condition: dict[str, Any]) -> str:
    return next(k for k in condition if k != "fact")


def compare(op: str, actual: Any, expected: Any) -> bool:
    try:
        if op == "eq":
            return actual == expected
        if op == "ne":
            return actual != expected
        if op == "in":
            return actual in expected
        if op == "not_in":
            return actual not in expected
        if op == "contains":
            return expected in actual
        if op == "not_contains":
            return expected not in actual
        if op == "matches":
            return re.search(expected, str(actual)) is not None
        if op == "version":
            return specifiers.satisfies(str(expected), str(actual))
        return {"lt": actual < expected, "le": actual <= expected,
                "gt": actual > expected, "ge": actual >= expected}[op]
    except TypeError:
        return False


def text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def render(template: str, context: dict[str, Any]) -> str:
    def substitute(match: re.Match[str]) -> str:
        value = lookup(context, match.group(1))
        return text(value) if stated(value) else "?"

    return PLACEHOLDER.sub(substitute, template)
