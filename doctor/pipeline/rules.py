"""The knowledge base: load rules from `rules/*.toml`, validate them, evaluate them over a context.

A rule is data: conditions over dotted paths into the context (facts + analysis + launch), a message
template with `{path}` placeholders, fixes with a safety level, references. `for_each` evaluates a rule
once per item of a list in the context (e.g. each kernel check), with the item reachable as `item.*`.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doctor import cache, specifiers
from doctor.engines import registry
from doctor.findings import FIX_KINDS, FIX_SAFETY, SEVERITIES, Finding, Fix
from doctor.pipeline.conditions import MISSING as _MISSING
from doctor.pipeline.conditions import (
    PLACEHOLDER,
    RuleError,
    compare,
    condition_facts,
    holds,
    lookup,
    render,
    validate_condition,
)
from doctor.pipeline.context import BASE_ROOTS, context_roots, engine_root
from doctor.pipeline.unconfirmed import unconfirmed

RULE_ID = re.compile(r"^[A-Z][A-Z0-9]{1,4}\d{3}$")  # a built-in rule
# A plug-in engine's rule: `<engine name>/` then a built-in-shaped ID, so no plug-in ID can equal a built-in's
# or another plug-in's (engine names are unique in the registry).
PLUGIN_RULE_ID = re.compile(r"^(?P<namespace>[a-z0-9][a-z0-9._-]*)/[A-Z][A-Z0-9]{1,4}\d{3}$")
RULE_KEYS = {"id", "area", "title", "severity", "summary", "why", "message", "when", "for_each", "evidence",
             "fixes", "references", "engine_references",
             "signatures"}  # signatures: read by doctor/diagnose/signatures.py
FIX_KEYS = {"kind", "safety", "summary", "summary_unstated", "flags", "env", "package", "patch", "config", "command",
            "engine", "versions", "remove"}  # summary_unstated: what `diagnose` shows when the log lacks the facts


def allowed_roots() -> set[str]:
    """Roots a condition, `for_each` or `{placeholder}` may address: what doctor/pipeline/context.py builds,
    plus `item`."""
    return {*context_roots(), "item"}


@dataclass(frozen=True)
class Rule:
    """One rule of the knowledge base, validated from rules/*.toml."""

    id: str
    area: str
    title: str
    severity: str
    summary: str
    why: str
    message: str
    when: tuple[dict[str, Any], ...]
    fixes: tuple[dict[str, Any], ...]
    references: tuple[str, ...]
    for_each: str | None = None
    evidence: tuple[str, ...] = ()
    source: str = ""
    # An engine-independent rule's sources in each engine's own code, cited only in that engine's run
    # (`references` are neutral and always cited): engine name -> references, in the order given
    engine_references: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def references_for(self, engine: str | None) -> tuple[str, ...]:
        """The neutral references, then the run's engine's own; every engine's with no engine analysed, or
        where the rule knows no neutral source and none in this engine's code (a rule must cite something)."""
        own = [refs for name, refs in self.engine_references if name == engine]
        if engine is None or not (own or self.references):
            own = [refs for _, refs in self.engine_references]
        return (*self.references, *(ref for refs in own for ref in refs))

    def all_references(self) -> tuple[str, ...]:
        return self.references_for(None)


def rules_dir() -> Path:
    """The rules shipped in the wheel (`doctor/_rules`), else the checkout's `rules/`."""
    here = Path(__file__).resolve().parents[1]  # the doctor package
    packaged = here / "_rules"
    return packaged if packaged.is_dir() else here.parent / "rules"


def load_rules(folder: Path | None = None) -> list[Rule]:
    """Every rule of `folder`, else the built-in rules and every plug-in engine's own, validated. The
    validated rules are cached as JSON per file set (path, size, mtime): parsing ~70 TOML rules costs ~40 ms,
    a third of a cold `check`."""
    sources: list[tuple[str | None, Path]] = [(None, path) for path in sorted((folder or rules_dir()).glob("*.toml"))]
    if folder is None:  # a named folder (tools, tests) is that folder alone
        sources += registry.rule_files()
    paths = [path for _, path in sources]
    stamp = cache.file_stamp(paths)
    if stamp is not None:
        stamp = [[namespace, *entry] for (namespace, _), entry in zip(sources, stamp, strict=True)]
    key = repr(stamp)
    if stamp is not None and key in _LOADED:  # a check loads the rules once per engine run
        return list(_LOADED[key])
    rules = _from_cache(stamp)
    if rules is None:
        rules = _parse_rules(folder or rules_dir(), sources)
        cache.store("rules", stamp, [dataclasses.asdict(r) for r in rules])
    _LOADED[key] = tuple(rules)
    return rules


def rule_namespace(rule_id: str) -> str | None:
    """The engine a plug-in rule belongs to (`lmdeploy/LMD001` → `lmdeploy`); None for a built-in rule."""
    match = PLUGIN_RULE_ID.match(rule_id)
    return match.group("namespace") if match else None


_LOADED: dict[str, tuple[Rule, ...]] = {}


def _from_cache(stamp: Any) -> list[Rule] | None:
    cached = cache.load("rules", stamp)
    if not isinstance(cached, list):
        return None
    try:
        return [Rule(**{k: _from_json(k, v) for k, v in raw.items()}) for raw in cached]
    except TypeError:
        return None  # a cache from another shape of Rule: parse again


_TUPLE_FIELDS = ("when", "fixes", "references", "evidence")


def _from_json(key: str, value: Any) -> Any:
    if key == "engine_references":
        return tuple((name, tuple(refs)) for name, refs in value)
    return tuple(value) if key in _TUPLE_FIELDS else value


def _parse_rules(folder: Path, sources: list[tuple[str | None, Path]]) -> list[Rule]:
    try:  # imported here: a cached knowledge base needs no TOML parser
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    rules: list[Rule] = []
    for namespace, path in sources:
        name = path.name if namespace is None else str(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise RuleError(f"rule file {name}: {exc}") from exc
        for raw in data.get("rules", []):
            rules.append(_validate(raw, name, namespace))
        extra = set(data) - {"rules"}
        if extra:
            raise RuleError(f"rule file {name}: unknown top-level key {sorted(extra)[0]!r}")
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise RuleError(f"rule {rule.id} is defined twice")
        seen.add(rule.id)
    if not rules:
        raise RuleError(f"no rules found in {folder}")
    return rules


def _validate(raw: Any, source: str, namespace: str | None = None) -> Rule:
    where = f"{source}: rule {raw.get('id', '?') if isinstance(raw, dict) else '?'}"
    if not isinstance(raw, dict):
        raise RuleError(f"{where}: each [[rules]] entry must be a table")
    unknown = set(raw) - RULE_KEYS
    if unknown:
        raise RuleError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    for key in ("id", "area", "title", "severity", "summary", "why", "message", "when", "references"):
        if key not in raw:
            raise RuleError(f"{where}: missing {key!r}")
    _validate_id(raw, where, namespace)
    if raw["severity"] not in SEVERITIES:
        raise RuleError(f"{where}: severity must be one of {SEVERITIES}")
    engine_references = _engine_references(raw.get("engine_references", {}), where)
    if not raw["references"] and not engine_references:
        raise RuleError(f"{where}: a rule must cite at least one reference")
    for condition in raw["when"]:
        validate_condition(condition, where)
    for fix in raw.get("fixes", []):
        _validate_fix(fix, where)
    _validate_paths(raw, where)
    return Rule(id=raw["id"], area=raw["area"], title=raw["title"], severity=raw["severity"],
                summary=raw["summary"].strip(), why=raw["why"].strip(), message=raw["message"].strip(),
                when=tuple(raw["when"]), fixes=tuple(raw.get("fixes", [])),
                references=tuple(raw["references"]), for_each=raw.get("for_each"),
                evidence=tuple(raw.get("evidence", [])), source=source, engine_references=engine_references)


def _engine_references(table: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`[rules.engine_references]`: engine name -> list of references; every name a registered engine."""
    if not isinstance(table, dict):
        raise RuleError(f"{where}: engine_references must be a table of engine name -> list of references")
    engines = tuple(registry.engines())
    entries = []
    for name, refs in table.items():
        if name not in engines:
            raise RuleError(f"{where}: engine_references names {name!r}, not one of {engines}")
        if not (isinstance(refs, list) and refs and all(isinstance(r, str) and r for r in refs)):
            raise RuleError(f"{where}: engine_references.{name} must be a non-empty list of strings")
        entries.append((name, tuple(refs)))
    return tuple(entries)


def _validate_id(raw: dict[str, Any], where: str, namespace: str | None) -> None:
    """Built-in IDs look like SGL101; a plug-in's are `<engine>/SGL101` and its rules are about its engine."""
    rule_id = str(raw["id"])
    if namespace is None:
        if not RULE_ID.match(rule_id):
            raise RuleError(f"{where}: id must look like SGL101 (letters then three digits; "
                            "a digit may stand inside the letters: P2P001)")
        return
    if rule_namespace(rule_id) != namespace:
        raise RuleError(f"{where}: a rule of the {namespace!r} engine needs an id like {namespace}/ABC101")
    if raw["area"] != engine_root(namespace):
        raise RuleError(f"{where}: a rule of the {namespace!r} engine has area {engine_root(namespace)!r}")


def _validate_paths(raw: dict[str, Any], where: str) -> None:
    """Every `{placeholder}`, condition fact, evidence path and `for_each` must start at a known root."""
    texts: list[str] = [raw["title"], raw["message"]]
    for fix in raw.get("fixes", []):
        texts.append(fix["summary"])
        for key in ("flags", "env", "package", "patch", "config", "command"):
            texts.extend(_strings_in(fix.get(key)))
    paths = [m.group(1) for text in texts for m in PLACEHOLDER.finditer(text)]
    paths += condition_facts(raw["when"]) + list(raw.get("evidence", []))
    if raw.get("for_each"):
        paths.append(raw["for_each"])
    roots = allowed_roots()
    for path in paths:
        root = path.split(".")[0]
        if root not in roots or (root == "item" and not raw.get("for_each")):
            raise RuleError(f"{where}: {path!r} does not start at a known context root "
                            f"({', '.join(sorted(roots))}; `item` only with for_each)")


def _strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    if isinstance(value, dict):
        return [v for v in value.values() if isinstance(v, str)]
    return []


def _validate_fix(fix: Any, where: str) -> None:
    if not isinstance(fix, dict):
        raise RuleError(f"{where}: each fix must be a table")
    unknown = set(fix) - FIX_KEYS
    if unknown:
        raise RuleError(f"{where}: fix has unknown key {sorted(unknown)[0]!r}")
    if fix.get("kind") not in FIX_KINDS:
        raise RuleError(f"{where}: fix kind must be one of {FIX_KINDS}")
    if fix.get("safety") not in FIX_SAFETY:
        raise RuleError(f"{where}: fix safety must be one of {FIX_SAFETY}")
    if not fix.get("summary"):
        raise RuleError(f"{where}: fix needs a summary")
    engines = tuple(registry.engines())
    if ("flags" in fix or "remove" in fix or "versions" in fix) and fix.get("engine") not in engines:
        raise RuleError(f"{where}: a fix with flags, remove or versions must name its engine, one of {engines}")
    for key in ("flags", "remove"):
        if key in fix and not (isinstance(fix[key], list) and all(isinstance(v, str) for v in fix[key])):
            raise RuleError(f"{where}: fix {key} must be a list of strings")
    if "env" in fix and not (isinstance(fix["env"], dict) and all(isinstance(v, str) for v in fix["env"].values())):
        raise RuleError(f"{where}: fix env must be a table of strings")
    if "versions" in fix and not specifiers.is_valid(fix["versions"]):
        raise RuleError(f"{where}: bad fix versions specifier {fix['versions']!r}")


# --- evaluation ---------------------------------------------------------------------------------

def evaluate(rules: list[Rule], context: dict[str, Any]) -> list[Finding]:
    findings: list[Finding] = []
    for rule in rules:
        if not _applies_to_run(rule, context):
            continue
        if rule.for_each:
            items = lookup(context, rule.for_each)
            seen: list[tuple[str, dict[str, Any]]] = []
            for item in items if isinstance(items, list) else []:
                scoped = {**context, "item": item}
                if _holds_all(rule.when, scoped):
                    finding = _finding(rule, scoped)
                    if (finding.title, finding.evidence) not in seen:  # items that differ only outside the evidence
                        seen.append((finding.title, finding.evidence))
                        findings.append(finding)
        elif _holds_all(rule.when, context):
            findings.append(_finding(rule, context))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: (order[f.severity], f.id))


def _applies_to_run(rule: Rule, context: dict[str, Any]) -> bool:
    """A rule about one engine is evaluated in that engine's run only (or where no engine is analysed)."""
    engine = context.get("engine")
    if not engine or rule.area not in context or rule.area in BASE_ROOTS:
        return True
    return engine_root(str(engine["name"])) == rule.area


def _holds_all(conditions: tuple[dict[str, Any], ...], context: dict[str, Any]) -> bool:
    return all(holds(c, context) for c in conditions)


def _finding(rule: Rule, context: dict[str, Any]) -> Finding:
    evidence = {}
    for path in rule.evidence:
        value = lookup(context, path)
        evidence[path] = None if value is _MISSING else value
    severity, message = rule.severity, render(rule.message, context)
    paths = {*condition_facts(list(rule.when)), *rule.evidence}
    for assumed in unconfirmed(paths, rule.area, context, severity, _required_absent(rule)):  # at most a warning
        severity = "warning" if severity == "error" else severity
        message += " " + assumed
    return Finding(id=rule.id, severity=severity, title=render(rule.title, context), message=message,
                   evidence=evidence,
                   fixes=tuple(fix_from_spec(spec, context) for spec in rule.fixes if _fix_applies(spec, context)),
                   references=rule.references_for(_run_engine(context)))


def _required_absent(rule: Rule) -> list[str]:
    """The libraries a rule's conditions need not installed (`lib.NAME` or `lib.NAME.version` absent)."""
    names = []
    for condition in rule.when:
        parts = str(condition.get("fact", "")).split(".")
        if condition.get("exists") is False and parts[0] == "lib" and parts[2:] in ([], ["version"]):
            names.append(parts[1])
    return names


def _run_engine(context: dict[str, Any]) -> str | None:
    engine = context.get("engine")
    return str(engine["name"]) if isinstance(engine, dict) and engine.get("name") else None


def _fix_applies(spec: dict[str, Any], context: dict[str, Any]) -> bool:
    """A fix for an engine applies only where that engine is present (at a version inside `versions`)."""
    if "engine" not in spec:
        return True
    version = lookup(context, f"lib.{spec['engine'].replace('.', '_')}.version")
    if (version is _MISSING or version is None) and lookup(context, "engine.name") == spec["engine"]:
        version = lookup(context, "engine.version")  # the engine analysed, e.g. assumed for a GGUF model
    if version is _MISSING or version is None:
        return False
    return "versions" not in spec or compare("version", version, spec["versions"])


def fix_from_spec(spec: dict[str, Any], context: dict[str, Any]) -> Fix:
    """A rule's fix table, its placeholders filled from the context."""
    details = {}
    for key in ("flags", "env", "package", "patch", "config", "command", "engine", "remove"):
        if key in spec:
            value = spec[key]
            if isinstance(value, str):
                value = render(value, context)
            elif isinstance(value, list):
                value = [render(v, context) if isinstance(v, str) else v for v in value]
            elif isinstance(value, dict):
                value = {k: render(v, context) if isinstance(v, str) else v for k, v in value.items()}
            details[key] = value
    return Fix(kind=spec["kind"], safety=spec["safety"], summary=render(spec["summary"], context),
               details=details)
