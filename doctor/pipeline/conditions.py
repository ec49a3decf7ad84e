"""The rule condition language: `{ fact = "dotted.path", <op> = value }`, `{ any = [...] }`, and `{ all = [...] }`
inside an `any` for (a and b) or c; validated when a rule file loads, evaluated over a check's context."""

from __future__ import annotations

import re
from typing import Any

from doctor import specifiers
from doctor.errors import DoctorError

OPS = ("eq", "ne", "in", "not_in", "lt", "le", "gt", "ge", "version", "exists", "contains", "not_contains",
       "matches")
MISSING = object()


class RuleError(DoctorError):
    """A rule file that does not validate: the knowledge base must fail loudly, never half-load."""


def group_of(condition: Any) -> str | None:
    """'any' or 'all' for a group of conditions, else None."""
    if isinstance(condition, dict) and "fact" not in condition:
        return next((key for key in ("any", "all") if key in condition), None)
    return None


def condition_facts(conditions: list[Any]) -> list[str]:
    facts = []
    for condition in conditions:
        group = group_of(condition)
        if group:
            facts += condition_facts(condition[group])
        elif isinstance(condition, dict) and "fact" in condition:
            facts.append(condition["fact"])
    return facts


def validate_condition(condition: Any, where: str) -> None:
    if not isinstance(condition, dict):
        raise RuleError(f"{where}: each condition must be a table")
    group = group_of(condition)
    if group:
        if set(condition) != {group} or not isinstance(condition[group], list) or not condition[group]:
            raise RuleError(f"{where}: an '{group}' condition holds only a non-empty list of conditions")
        for inner in condition[group]:
            validate_condition(inner, where)
        return
    ops = [k for k in condition if k != "fact"]
    if "fact" not in condition or len(ops) != 1 or ops[0] not in OPS:
        raise RuleError(f"{where}: a condition needs 'fact' and exactly one of {', '.join(OPS)}: {condition}")
    if ops[0] == "version" and not specifiers.is_valid(condition["version"]):
        raise RuleError(f"{where}: bad version specifier {condition['version']!r}")
    if ops[0] == "matches":
        try:
            re.compile(condition["matches"])
        except re.error as exc:
            raise RuleError(f"{where}: bad regular expression {condition['matches']!r}") from exc


def holds(condition: dict[str, Any], context: dict[str, Any]) -> bool:
    if "any" in condition:
        return any(holds(c, context) for c in condition["any"])
    if "all" in condition:  # inside an `any`: (a and b) or c
        return all(holds(c, context) for c in condition["all"])
    op = next(k for k in condition if k != "fact")
    expected = condition[op]
    actual = lookup(context, condition["fact"])
    if op == "exists":
        return (actual is not MISSING and actual is not None) == bool(expected)
    if actual is MISSING or actual is None:
        return False
    return compare(op, actual, expected)


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


def lookup(context: dict[str, Any], path: str) -> Any:
    value: Any = context
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return MISSING
    return value


# --- for readers of a partial deployment (diagnose) and for messages ------------------------------------------

PLACEHOLDER = re.compile(r"\{([a-zA-Z_][\w.-]*)\}")


def stated(value: Any) -> bool:
    """A looked-up value that says something: neither absent from the context nor None."""
    return value is not MISSING and value is not None


def state(condition: dict[str, Any], context: dict[str, Any]) -> bool | None:
    """Three-valued `holds`: True or False where the context states the facts the condition reads, None where
    it leaves one open (for `exists` too: a log that does not mention a fact does not say it is absent)."""
    if "any" in condition:
        states = [state(c, context) for c in condition["any"]]
        return True if True in states else (False if all(s is False for s in states) else None)
    if "all" in condition:
        states = [state(c, context) for c in condition["all"]]
        return False if False in states else (True if all(s is True for s in states) else None)
    if not stated(lookup(context, condition["fact"])):
        return None
    return holds(condition, context)


def facts_of(condition: dict[str, Any]) -> list[str]:
    """The dotted paths one condition (or group) reads."""
    return condition_facts([condition])


def operator(condition: dict[str, Any]) -> str:
    return next(k for k in condition if k != "fact")


# What a template prints where the context states nothing: words, never a bare `?` or `None` (an empty list reads
# the same: "its compiled archs are [none]" would claim a reading; tests/rules/test_rendered_text.py)
NOT_KNOWN = "not known"


def text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) if value else "none"
    return str(value)


def shown(context: dict[str, Any], path: str) -> Any:
    """What a template prints for `path`: a launch value as the user wrote it (`launch.given`, where the engine's
    parser stored another spelling: a pasted `--kv-cache-dtype {launch.kv_cache_dtype}` must be what the user's
    engine release accepts), else the fact itself."""
    root, _, key = path.partition(".")
    if root == "launch" and key:
        given = lookup(context, f"launch.given.{key}")
        if stated(given):
            return given
    return lookup(context, path)


def render(template: str, context: dict[str, Any]) -> str:
    """A template with each `{path}` filled from the context; NOT_KNOWN where the context has nothing."""
    def substitute(match: re.Match[str]) -> str:
        value = shown(context, match.group(1))
        return text(value) if stated(value) else NOT_KNOWN

    return PLACEHOLDER.sub(substitute, template)
