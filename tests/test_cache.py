"""The derived-facts cache: keyed by the files it derives from, and never in the way when it breaks."""

from __future__ import annotations

import os

import pytest

from doctor import cache
from doctor.pipeline import rules
from doctor.pipeline.rules import rules_dir


@pytest.fixture(autouse=True)
def no_memo(monkeypatch):
    """These tests are about the disk cache: the in-process memo of load_rules stays out of the way, and the
    folder comes from XDG_CACHE_HOME, not the test session's own cache."""
    monkeypatch.setattr(rules, "_LOADED", {})
    monkeypatch.delenv("SM120_DOCTOR_CACHE", raising=False)


def load_rules():
    rules._LOADED.clear()
    return rules.load_rules()


def test_the_memo_serves_a_second_load_in_the_same_process(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = rules.load_rules()
    for path in (tmp_path / "sm120-doctor").glob("rules-*.json"):
        path.write_text("not json")  # a memo hit never reads the file
    assert rules.load_rules() == first
    assert rules.load_rules() is not rules.load_rules()  # a fresh list each time: callers may change theirs


def test_rules_come_back_identical_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = load_rules()
    assert list((tmp_path / "sm120-doctor").glob("rules-*.json"))
    assert load_rules() == first


def test_a_corrupt_cache_is_parsed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = load_rules()
    for path in (tmp_path / "sm120-doctor").glob("rules-*.json"):
        path.write_text('[{"id": "X"}]')
    assert load_rules() == first
    for path in (tmp_path / "sm120-doctor").glob("rules-*.json"):
        path.write_text("not json")
    assert load_rules() == first


def test_an_edited_rule_file_changes_the_key(tmp_path):
    folder = tmp_path / "rules"
    folder.mkdir()
    source = next(rules_dir().glob("*.toml"))
    target = folder / source.name
    target.write_text(source.read_text())
    before = cache.file_stamp([target])
    target.write_text(source.read_text() + "\n# edited\n")
    os.utime(target, ns=(1, 1))
    assert cache.file_stamp([target]) != before


def test_an_unwritable_cache_only_costs_the_parse(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the directory should be
    assert load_rules()
    assert cache.load("rules", ["x"]) is None


def test_each_kind_keeps_only_its_newest_files(tmp_path, monkeypatch):
    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path))
    for n in range(cache.KEEP_PER_NAME + 5):
        cache.store("toy", [["file", n]], n)
        os.utime(cache._path("toy", cache._key([["file", n]])), ns=(n * 10**9, n * 10**9))
    cache.store("other", [["file"]], "kept")
    cache.store("toy", [["file", "newest"]], "newest")
    assert len(list(tmp_path.glob("toy-*.json"))) == cache.KEEP_PER_NAME
    assert cache.load("toy", [["file", "newest"]]) == "newest"
    assert cache.load("toy", [["file", 0]]) is None  # the oldest went first
    assert cache.load("toy", [["file", cache.KEEP_PER_NAME + 4]]) == cache.KEEP_PER_NAME + 4
    assert cache.load("other", [["file"]]) == "kept"  # another kind is not counted against this one


def test_a_killed_writers_temporary_file_is_removed_once_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path))
    stale, fresh = tmp_path / ".toy-stale.tmp", tmp_path / ".toy-fresh.tmp"
    stale.write_text("")
    fresh.write_text("")  # a writer that may still be running
    os.utime(stale, ns=(0, 0))
    cache.store("toy", [["file"]], 1)
    assert not stale.exists() and fresh.exists()


def test_a_full_memo_keeps_its_newest_entries(tmp_path, monkeypatch):
    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path))
    memo = cache.DiskMemo("toy-memo", lambda: ["stamp"], int, limit=3)
    for n in range(5):
        memo.put(f"k{n}", n)
    memo.flush()
    again = cache.DiskMemo("toy-memo", lambda: ["stamp"], int, limit=3)
    assert [again.get(f"k{n}") for n in range(5)] == [None, None, 2, 3, 4]
