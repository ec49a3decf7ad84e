"""Whether the findings of one report give fixes that contradict each other (issue #25/#26, trust).

A finding's fixes are alternatives, and one fix's text may offer several ("X; or upgrade to vLLM 0.28.0"): each
alternative is a bundle of constraints (package pins, engine flags, environment variables). Two findings of one
report

- **contradict** when no alternative of one can be followed together with any alternative of the other: every
  pair pins a package to version sets with nothing in common (`pip install 'transformers==4.53.3'` against
  `transformers==5.14.1`), sets a flag to another value or removes it, or sets an environment variable to another
  value (`package`, `flag`, `env`);
- **diverge** when two alternatives for the same engine release pin one package differently and one of them
  exactly (`transformers==5.14.1` against `transformers>=5.5.1`: both admit 5.14.1, but a fresh install of the
  second resolves the newest release; the two read different facts): `divergent`.

One alternative whose own pins admit no version (`pip install triton==3.3.1` beside `triton>=3.4.0`) contradicts
itself: `self`.

An alternative that upgrades the engine (`pip install 'vllm>=0.19.1'`, "upgrade to vLLM 0.19.1") scopes its other
pins to those releases; one that does not is about the release the report checked. Pins are read from `package`
(upgrade fixes) and every `pip install ...` a fix's summary or command spells out (doctor/pipeline/agree.py). Run
`python -m tests.fix_consistency` for the list over the cases, the known-good corpus and the grid below."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations, product

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from doctor.findings import Finding, Fix
from doctor.launch import flag_pairs
from doctor.pipeline.agree import exact_pin, requirements_in, versioned
from doctor.pipeline.report import Report

REMOVED = "<removed>"
ENGINES = ("vllm", "sglang")
ENGINE_UPGRADE = re.compile(r"\b(?:upgrade|move|moving|upgrading) (?:\w+ )?to (vLLM|SGLang) (\d+(?:\.\d+)+)\b")


@dataclass(frozen=True)
class Conflict:
    kind: str  # self | package | flag | env | divergent
    name: str
    first: str  # "RULE: value"
    second: str

    def __str__(self) -> str:
        return f"{self.kind} {self.name}: {self.first} vs {self.second}"


@dataclass
class Alternative:
    """One way to follow a finding: the pins, flags and environment it asks for together."""

    pins: dict[str, SpecifierSet] = field(default_factory=dict)
    flags: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def pin(self, name: str, spec: SpecifierSet) -> None:
        key = canonicalize_name(name)
        self.pins[key] = self.pins[key] & spec if key in self.pins else spec


def _segments(fix: Fix) -> list[str]:
    return [part for text in (fix.summary, str(fix.details.get("command") or "")) if text
            for part in re.split(r";\s+or\s+|\.\s+Or\s+", text)] or [""]


def alternatives(finding: Finding) -> list[Alternative]:
    out = []
    for fix in finding.fixes:
        for segment in _segments(fix):
            alternative = _details(fix)
            for requirement in requirements_in(segment):
                alternative.pin(requirement.name, requirement.specifier)
            for engine, version in ENGINE_UPGRADE.findall(segment):
                alternative.pin(engine.lower(), SpecifierSet(f">={version}"))
            out.append(alternative)
    return out


def _details(fix: Fix) -> Alternative:
    """What a fix's structured details ask for, whichever of its text's alternatives is followed."""
    details = fix.details
    alternative = Alternative()
    package = details.get("package")
    if isinstance(package, str) and (own := versioned(package)) is not None:
        alternative.pin(own.name, own.specifier)
    for flag, value in flag_pairs([str(f) for f in details.get("flags") or []]):
        if flag.startswith("-"):
            alternative.flags[flag] = value or ""
    for flag in details.get("remove") or []:
        alternative.flags[str(flag)] = REMOVED
    alternative.env.update({str(k): str(v) for k, v in (details.get("env") or {}).items()})
    return alternative


def _probe_versions(specs: Iterable[SpecifierSet]) -> list[Version]:
    """Versions that tell whether specifier sets overlap: each bound, and just above and below it."""
    versions: set[Version] = set()
    for spec in specs:
        for one in spec:
            try:
                bound = Version(one.version.replace(".*", ""))
            except InvalidVersion:
                continue
            parts = list(bound.release) + [0] * (3 - len(bound.release))
            versions.add(bound)
            versions.add(Version(".".join(map(str, [*parts[:-1], parts[-1] + 1]))))
            versions.add(Version(".".join(map(str, [*parts, 1]))))
            nonzero = [i for i, part in enumerate(parts) if part > 0]
            if nonzero:  # just below: 2.9 -> 2.8.99, 3.0.1 -> 3.0.0.99
                i = nonzero[-1]
                versions.add(Version(".".join(map(str, [*parts[:i], parts[i] - 1, 99]))))
    return sorted(versions)


def disjoint(first: SpecifierSet, second: SpecifierSet) -> bool:
    return not any(first.contains(v) and second.contains(v) for v in _probe_versions((first, second)))


def clashes(a: Alternative, b: Alternative) -> list[tuple[str, str, str, str]]:
    """(kind, key, a's value, b's value) for every constraint the two alternatives cannot both meet."""
    found = [("package", name, str(a.pins[name]), str(b.pins[name])) for name in a.pins.keys() & b.pins.keys()
             if disjoint(a.pins[name], b.pins[name])]
    found += [("flag", key, a.flags[key], b.flags[key]) for key in a.flags.keys() & b.flags.keys()
              if a.flags[key] != b.flags[key]]
    return found + [("env", key, a.env[key], b.env[key]) for key in a.env.keys() & b.env.keys()
                    if a.env[key] != b.env[key]]


def _scope(alternative: Alternative, engines: Mapping[str, str]) -> dict[str, SpecifierSet]:
    return {name: alternative.pins.get(name, SpecifierSet(f"=={version}")) for name, version in engines.items()}


def same_release(a: Alternative, b: Alternative, engines: Mapping[str, str]) -> bool:
    """Whether the two alternatives are about one engine release (the report's, or an upgrade both allow)."""
    mine, theirs = _scope(a, engines), _scope(b, engines)
    return all(not disjoint(mine[name], theirs[name]) for name in engines)


def _divergent(a: Alternative, b: Alternative, engines: Mapping[str, str]) -> list[tuple[str, str, str, str]]:
    if not same_release(a, b, engines):
        return []
    return [("divergent", name, str(a.pins[name]), str(b.pins[name])) for name in a.pins.keys() & b.pins.keys()
            if name not in engines and str(a.pins[name]) != str(b.pins[name])
            and (exact_pin(a.pins[name]) or exact_pin(b.pins[name]))]


def conflicts(findings: Sequence[Finding], engines: Mapping[str, str] | None = None) -> list[Conflict]:
    """The contradictions and divergences between the findings of one report. `engines`: the engine releases the
    report checked (package -> version), which an alternative that upgrades none of them is about."""
    engines = dict(engines or {})
    read = [(f.id, alternatives(f)) for f in findings]
    found = [Conflict("self", name, f"{rule}: {spec}", f"{rule}: {spec}") for rule, options in read
             for option in options for name, spec in option.pins.items() if disjoint(spec, spec)]
    for (a_id, mine), (b_id, theirs) in combinations(read, 2):
        pairs = list(product(mine, theirs))
        if pairs and all(clashes(a, b) for a, b in pairs):
            kind, key, first, second = clashes(*pairs[0])[0]
            found.append(Conflict(kind, key, f"{a_id}: {first}", f"{b_id}: {second}"))
            continue  # a contradiction says more than the divergences of the same pair
        seen = set()
        for a, b in pairs:
            for kind, key, first, second in _divergent(a, b, engines):
                if (key, first, second) not in seen:
                    seen.add((key, first, second))
                    found.append(Conflict(kind, key, f"{a_id}: {first}", f"{b_id}: {second}"))
    return found


def report_engines(report: Report) -> dict[str, str]:
    """The engine releases a report checked: vLLM's and SGLang's library versions in its facts."""
    libraries = report.facts.libraries
    return {name: str(libraries[name].version) for name in ENGINES
            if name in libraries and _release(libraries[name].version)}


def _release(version: str | None) -> bool:
    """A PEP 440 version (a container tag such as `26.02-py3` is not one: no scope is read from it)."""
    try:
        return bool(version) and Version(str(version)) is not None
    except InvalidVersion:
        return False


def report_conflicts(report: Report) -> list[Conflict]:
    return conflicts(report.findings, report_engines(report))


# The grid: every bundled model on a consumer and a GB10 profile, x a few releases of each engine (the first with
# SM12x code, boundary releases the rules name, the newest the doctor knows).
GRID_PROFILES = ("rtx-pro-6000-x8", "dgx-spark")
GRID_ENGINES = ("vllm==0.15.0", "vllm==0.19.0", "vllm==0.24.0", "vllm==0.33.0", "sglang==0.5.8", "sglang==0.5.23")


# Launch flags per engine that reach the rules with the most fixes (KV dtype, forced backends, expert parallel)
GRID_FLAGS = {"vllm": ((), ("--kv-cache-dtype", "fp8"), ("--attention-backend", "FLASHINFER"),
                       ("-tp", "2", "--enable-expert-parallel")),
              "sglang": ((), ("--attention-backend", "fa3"), ("--moe-runner-backend", "flashinfer_trtllm"),
                         ("--kv-cache-dtype", "fp8_e4m3", "--tp-size", "2"))}


def grid_reports(models: Sequence[str] | None = None, profiles: Sequence[str] = GRID_PROFILES,
                 engines: Sequence[str] = GRID_ENGINES, with_flags: bool = False
                 ) -> Iterator[tuple[str, Report]]:
    from doctor.hardware import load_profile
    from doctor.pipeline.check import check_facts
    from doctor.pipeline.gather import with_engines
    from doctor.probe.model import bundled_models, load_model

    for model_id in models if models is not None else sorted(bundled_models()):
        model = load_model(model_id, {}, offline=True)
        for profile in profiles:
            for engine in engines:
                facts = with_engines(load_profile(profile), [engine]).replace(model=model)
                for argv in GRID_FLAGS[engine.partition("==")[0]] if with_flags else ((),):
                    yield f"{model_id} on {profile} with {engine} -- {' '.join(argv)}", check_facts(facts, list(argv))


def case_reports() -> Iterator[tuple[str, Report]]:
    from tests.cases.deployment import load_cases, run_case

    for case in load_cases():
        yield f"case {case.id} ({case.url})", run_case(case)


def knowngood_reports() -> Iterator[tuple[str, Report]]:
    from tests.knowngood.corpus import load_entries, run_entry

    for entry in load_entries():
        yield f"known-good {entry.id} ({entry.url})", run_entry(entry)


# The scan `python -m tests.fix_consistency` runs: the grid's releases plus the first with SM12x code and boundaries
SCAN_ENGINES = (*GRID_ENGINES, "vllm==0.9.2", "vllm==0.12.0", "vllm==0.28.0", "sglang==0.5.14")


def main() -> int:
    """Every conflict of the cases, the known-good corpus, the grid (3 profiles, SCAN_ENGINES) and the grid with
    4 launches per engine (RTX PRO 6000 x8), one line each, and a count per part."""
    parts = (("cases", case_reports()), ("known-good", knowngood_reports()),
             ("grid", grid_reports(profiles=(*GRID_PROFILES, "rtx-5090"), engines=SCAN_ENGINES)),
             ("flags-grid", grid_reports(profiles=("rtx-pro-6000-x8",), engines=SCAN_ENGINES, with_flags=True)))
    total = 0
    for name, reports in parts:
        count = checked = 0
        for where, report in reports:
            checked += 1
            for conflict in report_conflicts(report):
                print(f"{where}: {conflict}")
                count += 1
        print(f"== {name}: {checked} reports, {count} conflicts")
        total += count
    return 1 if total else 0


if __name__ == "__main__":
    raise SystemExit(main())
