"""One report, one answer per package: the version pins the findings' fixes give, and the step that makes a range
defer to an exact pin another finding of the same report gives inside it.

FI090 says `flashinfer-python>=0.6.14` (the release that fixes the top-k hang), FI041 `flashinfer-python==0.6.14`
(the FlashInfer API that vLLM 0.24-0.25's DeepSeek-V4 path calls): a fresh `pip install 'flashinfer-python>=0.6.14'`
resolves the newest release, not the one FI041 needs, so the range fix names the exact one and says why. Pins are
read from a fix's `package` and from each `pip install ...` its summary or command spells out."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from doctor.findings import Finding, Fix

PIP_INSTALL = re.compile(r"pip install\s+([^;`()]+)")


def requirements_in(text: str) -> Iterator[Requirement]:
    """Every versioned requirement a `pip install ...` in the text names (`'vllm>=0.19.1'`, `transformers==5.14.1`)."""
    for match in PIP_INSTALL.finditer(text):
        for token in match.group(1).split():
            requirement = versioned(token.strip("'\",.:"))
            if requirement is not None:
                yield requirement


def versioned(text: str) -> Requirement | None:
    """`text` as a requirement with a version specifier, else None (an option, a bare name, prose)."""
    if text.startswith("-"):
        return None
    try:
        requirement = Requirement(text.strip())
    except InvalidRequirement:
        return None
    return requirement if requirement.specifier else None


def fix_requirements(fix: Fix) -> list[Requirement]:
    """The versioned requirements one fix gives: its `package` and every `pip install` its text spells out."""
    found = [r for text in (fix.summary, str(fix.details.get("command") or "")) for r in requirements_in(text)]
    package = fix.details.get("package")
    own = versioned(package) if isinstance(package, str) else None
    return found + ([own] if own is not None else [])


def exact_pin(specifier: SpecifierSet) -> str | None:
    """The one version `specifier` pins exactly (`==X`, not `==X.*`), else None."""
    pins = [s.version for s in specifier if s.operator in ("==", "===") and "*" not in s.version]
    return pins[0] if len(pins) == 1 else None


def exact_version(requirement: Requirement) -> str | None:
    return exact_pin(requirement.specifier)


def exact_pins(findings: Sequence[Finding]) -> dict[str, tuple[str, str]]:
    """Package -> (version, finding ID) for each package the findings pin to one exact version; a package two
    findings pin to different versions is left out (nothing to defer to)."""
    seen: dict[str, set[tuple[str, str]]] = {}
    for finding in findings:
        for fix in finding.fixes:
            for requirement in fix_requirements(fix):
                version = exact_version(requirement)
                if version is not None:
                    seen.setdefault(canonicalize_name(requirement.name), set()).add((version, finding.id))
    return {name: min(pins, key=lambda pin: pin[1]) for name, pins in seen.items()
            if len({version for version, _ in pins}) == 1}


def agree(findings: tuple[Finding, ...]) -> tuple[Finding, ...]:
    """The findings with each upgrade fix whose package range admits another finding's exact pin narrowed to it."""
    pins = exact_pins(findings)
    return tuple(dataclasses.replace(f, fixes=tuple(_printed(_deferred(fix, f.id, pins)) for fix in f.fixes))
                 for f in findings)


# upgrades.py's parts of a summary, kept for _deferred_summary only: the printed fix carries the summary itself
DRAFT_KEYS = ("summary_base", "lowest_note")


def _printed(fix: Fix) -> Fix:
    if not any(k in fix.details for k in DRAFT_KEYS):
        return fix
    return dataclasses.replace(fix, details={k: v for k, v in fix.details.items() if k not in DRAFT_KEYS})


def _deferred(fix: Fix, own_id: str, pins: dict[str, tuple[str, str]]) -> Fix:
    package = fix.details.get("package")
    requirement = versioned(package) if fix.kind == "upgrade" and isinstance(package, str) else None
    if requirement is None or exact_version(requirement) is not None:
        return fix
    name = canonicalize_name(requirement.name)
    version, other = pins.get(name, (None, own_id))
    if version is None or other == own_id or not requirement.specifier.contains(version, prereleases=True):
        return fix
    return dataclasses.replace(fix, details={**fix.details, "package": f"{requirement.name}=={version}",
                                             "agrees_with": other},
                               summary=_deferred_summary(fix, requirement, version, other))


def _deferred_summary(fix: Fix, requirement: Requirement, version: str, other: str) -> str:
    """One sentence: the exact release to install, and why (the lowest-clearing note of upgrades.py, where the
    fix carries one, folded in rather than a second parenthesis)."""
    pin = f"{requirement.name}=={version}"
    base, lowest, note = (fix.details.get(k) for k in ("summary_base", "lowest_clearing", "lowest_note"))
    if not isinstance(base, str) or not isinstance(note, str):
        return f"{fix.summary} ({other} in this report needs {pin}, inside {requirement.specifier}: install that " \
               "release, which clears both)"
    if lowest == version:
        return f"{base}: install {pin}, the {note} and the release {other} in this report needs"
    return f"{base}: install {pin}, which {other} in this report needs and which clears this too " \
           f"({requirement.name}>={lowest} is the {note})"
