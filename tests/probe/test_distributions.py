"""The dist-info reader answers what importlib.metadata answers, for the questions the doctor asks."""

from __future__ import annotations

from importlib import metadata

from doctor.probe.distributions import distribution, distributions, entry_points, normalize


def test_same_names_and_versions_as_importlib_metadata():
    theirs = {}
    for dist in metadata.distributions():
        theirs.setdefault(normalize(dist.metadata["Name"]), dist.version)
    mine = {name: d.version for name, d in distributions().items()}
    assert mine == theirs


def test_location_and_lookup_by_any_spelling():
    dist = distribution("Packaging")
    assert dist is not None and dist.version == metadata.version("packaging")
    assert str(metadata.distribution("packaging").locate_file("")) == dist.location
    assert distribution("no-such-distribution-here") is None


def test_entry_points_of_a_group(tmp_path):
    site = tmp_path
    meta = site / "demo_pkg-1.2.3.dist-info"
    meta.mkdir()
    (meta / "entry_points.txt").write_text("[console_scripts]\ndemo = demo:main\n\n[my.group]\nx = demo.mod:Thing\n")
    legacy = site / "Old_Pkg.egg-info"
    legacy.mkdir()
    (legacy / "PKG-INFO").write_text("Metadata-Version: 1.0\nName: Old-Pkg\nVersion: 0.9\n\nbody\n")
    found = distributions([str(site)])
    assert found["demo-pkg"].version == "1.2.3" and found["old-pkg"].version == "0.9"
    assert found["demo-pkg"].entry_points("my.group") == [("x", "demo.mod:Thing")]
    assert found["old-pkg"].entry_points("my.group") == []
    assert all(group != "my.group" for _, group, _ in entry_points("my.group"))  # not on sys.path


def test_the_cached_listing_follows_installs_and_metadata_edits(tmp_path, monkeypatch):
    from doctor.probe import distributions as module

    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path / "cache"))
    site = tmp_path / "site"
    site.mkdir()
    (site / "alpha-1.0.dist-info").mkdir()
    legacy = site / "beta.egg-info"
    legacy.mkdir()
    (legacy / "PKG-INFO").write_text("Name: beta\nVersion: 2.0\n")

    def listed():
        module._index.cache_clear()  # a new process: only the disk cache remains
        return {name: d.version for name, d in distributions([str(site)]).items()}

    assert listed() == {"alpha": "1.0", "beta": "2.0"}
    assert list((tmp_path / "cache").glob("distributions-*.json"))
    (legacy / "PKG-INFO").write_text("Name: beta\nVersion: 2.1\n")  # rewritten in place: the directory is unchanged
    (site / "gamma-0.1.dist-info").mkdir()  # an install adds an entry: the directory's mtime moves
    assert listed() == {"alpha": "1.0", "beta": "2.1", "gamma": "0.1"}
