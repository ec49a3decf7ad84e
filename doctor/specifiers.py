"""Does a version fall in a rule's range? packaging's SpecifierSet decides, always; but importing it costs a
cold start ~15 ms (packaging.utils pulls in packaging.tags and with it logging, platform and subprocess), so
its verdicts are memoised on disk. A verdict is a pure function of the two strings and packaging's release,
which key the memo; a memo that cannot be read or written only costs the import."""

from __future__ import annotations

from doctor import cache


def _stamp() -> list[str]:
    import packaging

    return [packaging.__version__]


# (range, version) pairs seen; a fresh memo starts when it is full
_MEMO = cache.DiskMemo("version-verdicts", _stamp, bool, limit=4096)


def satisfies(specifier: str, version: str) -> bool:
    """`version` is inside `specifier` (pre-releases included); False for a version packaging cannot read."""
    key = f"{specifier} {version}"
    verdict = _MEMO.get(key)
    if verdict is None:
        verdict = _decide(specifier, version)
        _MEMO.put(key, verdict)
    return verdict


def is_valid(specifier: object) -> bool:
    """A specifier packaging can read (rules are validated with it when their files are parsed)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(specifier)  # type: ignore[arg-type]
    except (InvalidSpecifier, TypeError):
        return False
    return True


def flush() -> None:
    """Write the memo if this run added verdicts."""
    _MEMO.flush()


def _decide(specifier: str, version: str) -> bool:
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        return SpecifierSet(specifier).contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False
