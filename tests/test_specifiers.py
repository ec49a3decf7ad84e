"""Rule version ranges: packaging's verdicts, memoised on disk so a warm check does not import it."""

import json
import subprocess
import sys

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from doctor import cache, specifiers

CASES = [(">=0.5.6,<0.5.10", "0.5.8"), ("<0.5.7", "0.5.7"), ("==2.9.1", "2.9.1+cu128"), (">=13", "12.9"),
         ("<0.15.1", "0.15.1rc1"), ("==0.5.*", "0.5.23"), ("~=2.7", "2.9.0"), ("!=4.5.0", "4.5.0"),
         (">=0.20", "not-a-version"), ("<12.9", "12.8.93")]


@pytest.fixture(autouse=True)
def fresh_memo(tmp_path, monkeypatch):
    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path))
    monkeypatch.setattr(specifiers, "_MEMO", cache.DiskMemo("version-verdicts", specifiers._stamp, bool, 4096))


@pytest.mark.parametrize(("spec", "version"), CASES)
def test_verdict_is_packagings(spec, version):
    try:
        expected = SpecifierSet(spec).contains(Version(version), prereleases=True)
    except ValueError:
        expected = False
    assert specifiers.satisfies(spec, version) is expected
    assert specifiers.satisfies(spec, version) is expected  # from the memo


def test_memo_survives_the_process(tmp_path):
    for spec, version in CASES:
        specifiers.satisfies(spec, version)
    specifiers.flush()
    stored = [json.loads(p.read_text()) for p in tmp_path.glob("version-verdicts-*.json")]
    assert len(stored) == 1 and len(stored[0]["value"]) == len(CASES)
    code = ("import sys; from doctor import cache, specifiers as s; "
            f"v = [s.satisfies(a, b) for a, b in {CASES!r}]; "
            "print(int('packaging.specifiers' in sys.modules), v.count(True))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"SM120_DOCTOR_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"}).stdout.split()
    assert out[0] == "0"  # every verdict came from the memo
    assert int(out[1]) == sum(specifiers.satisfies(a, b) for a, b in CASES)


def test_unreadable_memo_only_costs_the_import(tmp_path):
    for path in tmp_path.glob("*"):
        path.unlink()
    (tmp_path / "version-verdicts-garbage.json").write_text("{not json")
    assert specifiers.satisfies("<1.0", "0.9") is True
    specifiers.flush()


def test_invalid_specifiers_are_refused():
    assert specifiers.is_valid(">=0.5,<0.6")
    assert not specifiers.is_valid(">=0.5,,<")
    assert not specifiers.is_valid(None)
