"""The derived-facts cache: keyed by the files it derives from, and never in the way when it breaks."""

from __future__ import annotations

import os

import pytest

from doctor import cache
from doctor.pipeline import rules
from doctor.pipeline.rules import rules_dir


@pytest.fixture(autouse=True)
def no_memo(monkeypatch):
    """These tests are about the disk cache: the in-process memo of load_rules stays out of the way."""
    monkeypatch.setattr(rules, "_LOADED", {})


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
