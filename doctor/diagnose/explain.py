"""Which rules explain the logged error: each signature hit is judged against the reconstructed deployment.
A rule whose finding fired explains it (first when the log's numbers equal the finding's evidence); a rule the
deployment cannot judge (facts the log does not state) explains it on its signature alone, said so; a rule a
stated fact contradicts does not, and the report says which fact."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from doctor.diagnose.read import SignatureHit
from doctor.findings import Finding, Fix
from doctor.pipeline.conditions import PLACEHOLDER, facts_of, lookup, operator, state, stated, text
from doctor.pipeline.context import BASE_ROOTS
from doctor.pipeline.rules import Rule, fix_from_spec

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
    line_only: bool = False  # a rule that explains a log line only (reads `log.*`): after any rule with a cause
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
            judge: dict[str, Any] | None = None, vetoes: dict[int, tuple[int, str]] | None = None,
            stated: str = ""
            ) -> tuple[list[Explanation], list[RuledOut]]:
    """`judge`: the context a rule is ruled out by (default `context`): the log's own facts only, when the rest
    came from a machine the log was not written on. `vetoes`: signatures (by position) whose `unless` line the
    log has: the error came from another library. `stated`: the packages the user says ran (`--engine`): a
    signature's context (did vLLM run?) may be met by them as well as by a line of the log."""
    by_id = {r.id: r for r in rules}
    order = {r.id: i for i, r in enumerate(rules)}
    position = {id(s): i for i, s in enumerate(signatures)}
    rules_per_line: dict[int, set[str]] = {}
    for hit in hits:  # a family's fallback signature makes no line less specific for the rules it backs up
        if not hit.signature.fallback:
            rules_per_line.setdefault(hit.line, set()).add(hit.signature.rule)
    best: dict[str, Explanation] = {}
    ruled_out: dict[str, RuledOut] = {}
    for hit in sorted(hits, key=lambda h: h.line):
        rule = by_id.get(hit.signature.rule)
        if rule is None or not _in_context(hit.signature, position[id(hit.signature)] in contexts, stated):
            continue
        if _other_engine(rule, engine):  # the same text from another engine: not this log's cause
            continue
        veto = (vetoes or {}).get(position[id(hit.signature)]) if hit.signature.unless is not None else None
        if veto is not None:
            why = hit.signature.note or "another library printed this error"
            ruled_out.setdefault(rule.id, RuledOut(rule.id, hit.line, f"{why} (line {veto[0]}: {veto[1].strip()})"))
            continue
        judged = _judge(rule, hit, findings, context, engine, len(rules_per_line.get(hit.line, set()) | {rule.id}),
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


def shown_rules(hits: Sequence[SignatureHit], contexts: set[int], signatures: Sequence[Any],
                vetoes: dict[int, tuple[int, str]], stated: str = "") -> list[str]:
    """The rules whose signature the log shows, its context met and no `unless` line vetoing it: what
    `log.signatures` holds for the rules that explain a log line and have no deployment check of their own."""
    position = {id(s): i for i, s in enumerate(signatures)}
    shown = {hit.signature.rule for hit in hits
             if _in_context(hit.signature, position[id(hit.signature)] in contexts, stated)
             and not (hit.signature.unless is not None and position[id(hit.signature)] in vetoes)}
    return sorted(shown)


def _in_context(signature: Any, seen: bool, stated: str) -> bool:
    return signature.context is None or seen or bool(stated and signature.context.search(stated))


def _rank(e: Explanation) -> tuple[int, ...]:
    return (ORDER[e.status], int(e.line_only), int(e.hit.signature.fallback), -int(e.own_engine),
            int(e.engine_unseen), -e.support, e.specificity, e.hit.line, e.order)


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
    line_only = _reads_log(rule)
    if fired and line_only:  # it fires on the line itself: no more than a signature match, worded as the finding
        finding = fired[0]
        # a log that names no engine gets every engine's fix (the finding keeps only those of engines present)
        fixes = finding.fixes if engine is not None else tuple(
            fix_from_spec(_without_unstated(spec, context), _stated(spec, context)) for spec in rule.fixes)
        return Explanation(rule.id, finding.severity, SIGNATURE,
                           "the log shows its line and the deployment meets the rule's other conditions", finding.title,
                           finding.message, hit, fixes, finding.references, specificity, len(rule.when),
                           line_only=True)
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
    fixes = tuple(fix_from_spec(_without_unstated(spec, scoped), _stated(spec, scoped)) for spec in rule.fixes
                  if spec.get("engine") in (None, engine) or engine is None)
    return Explanation(rule.id, rule.severity, SIGNATURE, text, _title(rule.title, scoped), rule.summary, hit,
                       fixes, rule.references, specificity, support, line_only=line_only)


def _reads_log(rule: Rule) -> bool:
    """A rule with no deployment check of its own: one of its conditions reads what the log showed."""
    return any(path == "log" or path.startswith("log.") for c in rule.when for path in facts_of(c))


def _without_unstated(spec: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """A fix as the log lets it be said: a command or other text detail with a placeholder the log leaves open
    is left out ("(not stated)" is nothing to run), and a summary with one gives way to the rule's
    `summary_unstated` where it has one (what to do, said without the facts the log lacks)."""
    def open_in(value: Any) -> bool:
        texts = value if isinstance(value, list) else [value]
        return any(not stated(lookup(context, m.group(1))) for t in texts if isinstance(t, str)
                   for m in PLACEHOLDER.finditer(t))

    kept = {key: value for key, value in spec.items()
            if key in ("kind", "safety", "summary", "engine", "summary_unstated") or not open_in(value)}
    if "summary_unstated" in spec and open_in(spec["summary"]):
        kept["summary"] = spec["summary_unstated"]
    return kept


def _stated(spec: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """The context with every placeholder of a fix the log leaves open reading "(not stated)", not "?"."""
    texts = [str(v) for v in spec.values() if isinstance(v, str)]
    texts += [str(x) for v in spec.values() if isinstance(v, list | dict) for x in (v.values() if isinstance(v, dict)
                                                                                   else v)]
    filled = context
    for template in texts:
        for match in PLACEHOLDER.finditer(template):
            if not stated(lookup(filled, match.group(1))):
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
        return text(found) if stated(found) else "(not stated)"

    return PLACEHOLDER.sub(value, template)


def _scoped(rule: Rule, context: dict[str, Any]) -> dict[str, Any]:
    """For a rule over a list (`for_each`): the context with the first item no stated fact rules out, so its
    title and fixes name that item (the arch list, the kernel)."""
    if not rule.for_each:
        return context
    items = lookup(context, rule.for_each)
    for item in items if isinstance(items, list) else []:
        scoped = {**context, "item": item}
        if all(state(c, scoped) is not False for c in rule.when):
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
            missing += facts_of(condition)
            continue
        verdict = state(condition, context)
        if verdict is False and not rule.for_each:
            return False, [_shown(condition, context)], 0
        if verdict is None or verdict is False:
            missing += facts_of(condition)
        else:
            support += 1
    return None, sorted(set(missing)), support


def _about_item(condition: dict[str, Any]) -> bool:
    return any(f.startswith("item.") for f in facts_of(condition))


def _shown(condition: dict[str, Any], context: dict[str, Any]) -> str:
    if "any" in condition:
        return " or ".join(_shown(c, context) for c in condition["any"])
    if "all" in condition:
        return "(" + " and ".join(_shown(c, context) for c in condition["all"]) + ")"
    op = operator(condition)
    actual = lookup(context, condition["fact"])
    return f"{condition['fact']} is {actual!r}, the rule needs {op} {condition[op]!r}"
