"""Error signatures that rules carry: the exact text or an re2 pattern a real log prints when the rule's cause
strikes, each citing a public report. Matched in linear time (RE2), all at once per line (an RE2 set)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import re2

SIGNATURE_KEYS = {"text", "pattern", "context", "unless", "url", "note", "fallback"}
MAX_PATTERN = 1000  # characters: a signature is one log line's shape, not a program


class SignatureError(ValueError):
    """A signature table that does not validate (rules.py reports it with the rule's name)."""


def validate_signature(raw: Any) -> None:
    if not isinstance(raw, dict):
        raise SignatureError("must be a table")
    unknown = set(raw) - SIGNATURE_KEYS
    if unknown:
        raise SignatureError(f"has unknown key {sorted(unknown)[0]!r}")
    if ("text" in raw) == ("pattern" in raw):
        raise SignatureError("needs exactly one of 'text' (exact) or 'pattern' (re2)")
    url = raw.get("url")
    if not isinstance(url, str) or not url.startswith("https://"):
        raise SignatureError("must cite the public report it comes from (url = \"https://...\")")
    for key in ("text", "pattern", "context", "unless"):
        value = raw.get(key)
        if key in raw and (not isinstance(value, str) or not value.strip() or len(value) > MAX_PATTERN):
            raise SignatureError(f"{key!r} must be a non-empty string of at most {MAX_PATTERN} characters")
    for key in ("pattern", "context", "unless"):
        if key in raw:
            _compile(raw[key], key)
    if not isinstance(raw.get("fallback", False), bool):
        raise SignatureError("'fallback' must be true or false")


def _compile(pattern: str, key: str) -> re2._Regexp:
    try:
        compiled = re2.compile(pattern)
    except re2.error as exc:
        raise SignatureError(f"{key} {pattern!r} is not an re2 pattern: {exc}") from exc
    for name in compiled.groupindex:
        if not name.replace("_", "").isalnum():
            raise SignatureError(f"{key} group {name!r}: a group names an evidence path, dots as '_'")
    return compiled


@dataclass(frozen=True)
class Signature:
    """One compiled signature of one rule."""

    rule: str
    index: int  # its position among the rule's signatures
    regex: Any  # re2 pattern of the error line
    context: Any | None  # re2 pattern another line of the same log must match (a traceback frame)
    unless: Any | None  # re2 pattern no line of the log may match: it shows another library printed the error
    url: str
    shown: str  # the text or pattern as the rule file wrote it
    note: str = ""  # why `unless` rules the signature out, said when it does
    # a family's catch-all (rules/arch_gates.toml): any other rule the log matches explains it first
    fallback: bool = False

    def groups(self, line: str) -> dict[str, str]:
        match = self.regex.search(line)
        return {k: v for k, v in match.groupdict().items() if v is not None} if match else {}


def compile_signatures(table: dict[str, tuple[dict[str, Any], ...]]) -> tuple[Signature, ...]:
    return tuple(_signature(rule_id, i, raw) for rule_id, raws in table.items() for i, raw in enumerate(raws))


def rule_signatures() -> dict[str, tuple[dict[str, Any], ...]]:
    """Every rule's `signatures`, read from the same files as the rules (built-in and plug-in engines') and
    validated; cached per file set like the rules. A bad one fails loudly, naming its file and rule."""
    from doctor import cache
    from doctor.engines import registry
    from doctor.pipeline.rules import rules_dir

    sources = [path for path in sorted(rules_dir().glob("*.toml"))] + [path for _, path in registry.rule_files()]
    stamp = cache.file_stamp(sources)
    cached = cache.load("signatures", stamp)
    if isinstance(cached, dict):
        return {rule_id: tuple(raws) for rule_id, raws in cached.items()}
    table = _read_signatures(sources)
    cache.store("signatures", stamp, {rule_id: list(raws) for rule_id, raws in table.items()})
    return table


def _read_signatures(paths: list[Any]) -> dict[str, tuple[dict[str, Any], ...]]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    from doctor.pipeline.rules import RuleError

    table: dict[str, tuple[dict[str, Any], ...]] = {}
    for path in paths:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise RuleError(f"rule file {path.name}: {exc}") from exc
        for raw in data.get("rules", []):
            if isinstance(raw, dict) and "signatures" in raw:
                where = f"{path.name}: rule {raw.get('id', '?')}"
                try:
                    validate_signatures(raw["signatures"])
                except SignatureError as exc:
                    raise RuleError(f"{where}: {exc}") from exc
                table[str(raw["id"])] = tuple(raw["signatures"])
    return table


def validate_signatures(signatures: Any) -> None:
    if not isinstance(signatures, list):
        raise SignatureError("signatures must be a list of tables")
    for index, signature in enumerate(signatures):
        try:
            validate_signature(signature)
        except SignatureError as exc:
            raise SignatureError(f"signature {index + 1} {exc}") from exc


def _signature(rule: str, index: int, raw: dict[str, Any]) -> Signature:
    pattern = re2.escape(raw["text"]) if "text" in raw else raw["pattern"]
    context = re2.compile(raw["context"]) if raw.get("context") else None
    unless = re2.compile(raw["unless"]) if raw.get("unless") else None
    return Signature(rule=rule, index=index, regex=re2.compile(pattern), context=context, unless=unless,
                     url=raw["url"], shown=raw.get("text") or raw["pattern"], note=raw.get("note", ""),
                     fallback=bool(raw.get("fallback", False)))


@functools.cache
def options() -> re2.Options:
    opts = re2.Options()
    opts.max_mem = 64 << 20  # a set of a few hundred alternations; RE2's default 8 MiB can refuse it
    return opts
