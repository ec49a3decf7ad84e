"""Which rules explain the logged error: each signature hit is judged against the reconstructed deployment.
A rule whose finding fired explains it (first when the log's numbers equal the finding's evidence); a rule the
deployment cannot judge (facts the log does not state) explains it on its signature alone, said so; a rule a
stated fact contradicts does not, and the report says which fact."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from doctor.diagnose.read import SignatureHit
from doctor.pipeline.conditions import MISSING as _MISSING
from doctor.pipeline.conditions import holds as _holds
from doctor.pipeline.context import BASE_ROOTS
from doctor.pipeline.report import Finding, Fix
from doctor.pipeline.rules import PLACEHOLDER, Rule, _fix, _text, lookup

TIED, CONFIRMED, SIGNATURE = "tied", "confirmed", "signature"
ORDER = {TIED: 0, CONFIRMED: 1, SIGNATURE: 2}


@dataclass(frozen=True)
class Explanation:
    rule: str
    severity: str
    status: str  # tied | confirmed | signature
    status_text: str
    title: str
    message: str
    hit: SignatureHit
    fixes: tuple[Fix, ...]
    references: tuple[str, ...]
    specificity: int  # how many rules the same line's signatures name (fewer: more specific)
    support: int = 0  # conditions the deployment confirms (a signature-only match with more ranks first)
    own_engine: bool = False  # a rule about the engine that wrote the log
    engine_unseen: bool = False  # a rule about an engine, on a log that names none: weaker than a general rule
    order: int = 0  # the rule's place in the knowledge base: the last tie-break

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "status": self.status, "why": self.status_text,
                "title": self.title, "message": self.message,
                "signature": {"pattern": self.hit.signature.shown, "url": self.hit.signature.url,
                              "line": self.hit.line, "text": self.hit.text, "groups": self.hit.groups},
                "fixes": [f.to_dict() for f in self.fixes], "references": list(self.references),
                "explain": f"sm120-doctor explain {self.rule}"}


@dataclass(frozen=True)
class RuledOut:
    rule: str
    line: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "line": self.line, "reason": self.reason}


def explain(hits: Sequence[SignatureHit], contexts: set[int], signatures: Sequence[Any], rules: Sequence[Rule],
            findings: Sequence[Finding], context: dict[str, Any], engine: str | None,
            judge: dict[str, Any] | None = None) -> tuple[list[Explanation], list[RuledOut]]:
    """`judge`: the context a rule is ruled out by (default `context`): the log's own facts only, when the rest
    came from a machine the log was not written on."""
    by_id = {r.id: r for r in rules}
    order = {r.id: i for i, r in enumerate(rules)}
    position = {id(s): i for i, s in enumerate(signatures)}
    rules_per_line: dict[int, set[str]] = {}
    for hit in hits:
        rules_per_line.setdefault(hit.line, set()).add(hit.signature.rule)
    best: dict[str, Explanation] = {}
    ruled_out: dict[str, RuledOut] = {}
    for hit in sorted(hits, key=lambda h: h.line):
        rule = by_id.get(hit.signature.rule)
        if rule is None or (hit.signature.context is not None and position[id(hit.signature)] not in contexts):
            continue
        if _other_engine(rule, engine):  # the same text from another engine: not this log's cause
            continue
        judged = _judge(rule, hit, findings, context, engine, len(rules_per_line[hit.line]),
                        context if judge is None else judge)
        if isinstance(judged, Explanation):
            judged = replace(judged, own_engine=_own_engine(rule, engine), order=order[rule.id],
                             engine_unseen=engine is None and _engine_rule(rule))
        if isinstance(judged, RuledOut):
            ruled_out.setdefault(rule.id, judged)
        elif rule.id not in best or _rank(judged) < _rank(best[rule.id]):
            best[rule.id] = judged
    explained = sorted(best.values(), key=_rank)
    return explained, [r for rid, r in ruled_out.items() if rid not in best]


def _rank(e: Explanation) -> tuple[int, ...]:
    return (ORDER[e.status], -int(e.own_engine), int(e.engine_unseen), -e.support, e.specificity, e.hit.line,
            e.order)


def _other_engine(rule: Rule, engine: str | None) -> bool:
    from doctor.pipeline.context import engine_root

    if engine is None or rule.area in BASE_ROOTS:
        return False
    from doctor.engines import registry

    roots = {engine_root(name) for name in registry.engines()}
    return rule.area in roots and rule.area != engine_root(engine)


def _engine_rule(rule: Rule) -> bool:
    from doctor.engines import registry
    from doctor.pipeline.context import engine_root

    return rule.area in {engine_root(name) for name in registry.engines()}


def _own_engine(rule: Rule, engine: str | None) -> bool:
    from doctor.pipeline.context import engine_root

    return engine is not None and rule.area == engine_root(engine)


def _judge(rule: Rule, hit: SignatureHit, findings: Sequence[Finding], context: dict[str, Any],
           engine: str | None, specificity: int, judge: dict[str, Any]) -> Explanation | RuledOut:
    fired = [f for f in findings if f.id == rule.id]
    if fired:
        tied = [f for f in fired if _ties(hit.groups, f.evidence)]
        finding = (tied or fired)[0]
        status = TIED if tied and hit.groups else CONFIRMED
        text = (f"the logged {', '.join(f'{k} {v}' for k, v in hit.groups.items())} equal what the doctor "
                f"works out for this deployment" if status == TIED else
                "the deployment the log describes fires this rule")
        return Explanation(rule.id, finding.severity, status, text, finding.title, finding.message, hit,
                           finding.fixes, finding.references, specificity)
    scoped = _scoped(rule, context)
    verdict, facts, support = _verdict(rule, _scoped(rule, judge))
    if verdict is False:
        return RuledOut(rule.id, hit.line, "the deployment contradicts it: " + "; ".join(facts))
    unknown = f"not stated: {', '.join(facts)}" if facts else "its conditions are about the run, not the log"
    text = f"the log's signature matches; the deployment cannot confirm it ({unknown})"
    fixes = tuple(_fix(spec, _stated(spec, scoped)) for spec in rule.fixes
                  if spec.get("engine") in (None, engine) or engine is None)
    return Explanation(rule.id, rule.severity, SIGNATURE, text, _title(rule.title, scoped), rule.summary, hit,
                       fixes, rule.references, specificity, support)


def _stated(spec: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """The context with every placeholder of a fix the log leaves open reading "(not stated)", not "?"."""
    texts = [str(v) for v in spec.values() if isinstance(v, str)]
    texts += [str(x) for v in spec.values() if isinstance(v, list | dict) for x in (v.values() if isinstance(v, dict)
                                                                                   else v)]
    filled = context
    for text in texts:
        for match in PLACEHOLDER.finditer(text):
            value = lookup(filled, match.group(1))
            if value is _MISSING or value is None:
                filled = _with_path(filled, match.group(1).split("."), "(not stated)")
    return filled


def _with_path(context: dict[str, Any], parts: list[str], value: Any) -> dict[str, Any]:
    head, rest = parts[0], parts[1:]
    inner = context.get(head)
    if not rest:
        return {**context, head: value}
    return {**context, head: _with_path(inner if isinstance(inner, dict) else {}, rest, value)}


def _title(template: str, context: dict[str, Any]) -> str:
    """The rule's title for this deployment; what the log does not state reads as such, not as '?'."""
    def value(match: Any) -> str:
        found = lookup(context, match.group(1))
        return "(not stated)" if found is _MISSING or found is None else _text(found)

    return PLACEHOLDER.sub(value, template)


def _scoped(rule: Rule, context: dict[str, Any]) -> dict[str, Any]:
    """For a rule over a list (`for_each`): the context with the first item no stated fact rules out, so its
    title and fixes name that item (the arch list, the kernel)."""
    if not rule.for_each:
        return context
    items = lookup(context, rule.for_each)
    for item in items if isinstance(items, list) else []:
        scoped = {**context, "item": item}
        if all(_state(c, scoped) is not False for c in rule.when):
            return scoped
    return context


def _ties(groups: dict[str, str], evidence: dict[str, Any]) -> bool:
    """Every named group of the signature equals the evidence path it names (`item_bytes` → item.bytes)."""
    if not groups:
        return False
    flat = {k.replace(".", "_").replace("-", "_"): v for k, v in evidence.items()}
    return all(name in flat and str(flat[name]) == value for name, value in groups.items())


def _verdict(rule: Rule, context: dict[str, Any]) -> tuple[bool | None, list[str], int]:
    """False with the facts that contradict the rule; None with the facts the deployment lacks, and how many
    conditions it does confirm. A rule over a list is never contradicted: the log proves its kernel ran."""
    missing: list[str] = []
    support = 0
    scoped = rule.for_each is not None and "item" in context
    for condition in rule.when:
        if rule.for_each and not scoped and _about_item(condition):
            missing += _facts(condition)
            continue
        state = _state(condition, context)
        if state is False and not rule.for_each:
            return False, [_shown(condition, context)], 0
        if state is None or state is False:
            missing += _facts(condition)
        else:
            support += 1
    return None, sorted(set(missing)), support


def _about_item(condition: dict[str, Any]) -> bool:
    return any(f.startswith("item.") for f in _facts(condition))


def _state(condition: dict[str, Any], context: dict[str, Any]) -> bool | None:
    if "any" in condition:
        states = [_state(c, context) for c in condition["any"]]
        return True if True in states else (False if all(s is False for s in states) else None)
    if "all" in condition:  # inside an `any`: (a and b)
        states = [_state(c, context) for c in condition["all"]]
        return False if False in states else (True if all(s is True for s in states) else None)
    op = next(k for k in condition if k != "fact")
    actual = lookup(context, condition["fact"])
    if op != "exists" and (actual is _MISSING or actual is None):
        return None
    if op == "exists" and (actual is _MISSING or actual is None):
        return None  # absent from a log only means not stated
    return _holds(condition, context)


def _facts(condition: dict[str, Any]) -> list[str]:
    group = condition.get("any") or condition.get("all")
    if group:
        return [f for c in group for f in _facts(c)]
    return [condition["fact"]]


def _shown(condition: dict[str, Any], context: dict[str, Any]) -> str:
    if "any" in condition:
        return " or ".join(_shown(c, context) for c in condition["any"])
    if "all" in condition:
        return "(" + " and ".join(_shown(c, context) for c in condition["all"]) + ")"
    op = next(k for k in condition if k != "fact")
    actual = lookup(context, condition["fact"])
    return f"{condition['fact']} is {actual!r}, the rule needs {op} {condition[op]!r}"
