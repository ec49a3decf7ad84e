"""Every SGLang release with a dispatch table: `engines --tables` lists each one, the derived findings read
exactly the user's release (a post release falls back to its own release, never across releases), the
releases whose install needs a stand-in say so in their provenance and never imported it, and the 0.5.2x
releases (topology published the way the launcher does) build the model on meta."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.version import Version

from doctor.data_tables import derived_coverage
from doctor.engines.derived_tables import table, tabulated
from doctor.engines.sglang import derived
from tools.engine_oracle import stand_ins
from tools.engine_oracle.environment import requirement

REPO = Path(__file__).resolve().parents[2]
RELEASES = tabulated("sglang")


def entry(release: str, capability: str, grid: str) -> dict:
    return next(e for e in table("sglang", release)["entries"] if e["capability"] == capability and e["grid"] == grid)


def test_engines_tables_lists_every_tabulated_release():
    rows = {r["engine"]: r for r in derived_coverage()}
    for engine in ("sglang", "vllm"):
        assert tuple(rows[engine]["releases"]) == tabulated(engine)
        assert rows[engine]["newest"] == tabulated(engine)[-1]
    text = subprocess.run([sys.executable, "-m", "doctor", "engines", "--tables"], cwd=REPO, capture_output=True,
                          text=True, check=True).stdout
    listed = text[text.index("Derived dispatch tables"):]
    assert all(release in listed for release in RELEASES)
    out = subprocess.run([sys.executable, "-m", "doctor", "engines", "--format", "json"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    assert {r["engine"]: tuple(r["releases"]) for r in json.loads(out)["derived_tables"]}["sglang"] == RELEASES


@pytest.mark.parametrize("release", RELEASES)
def test_a_tabulated_release_reads_its_own_table(release):
    assert derived.table_release(Version(release)) == release


def test_a_post_release_without_a_table_is_not_derived(monkeypatch):
    """0.5.6.post2 defaults GQA models to trtllm_mha on SM12x and refuses it; 0.5.6 picks FlashInfer: a post
    release is never read from its release's table, nor a release from its post release's."""
    monkeypatch.setattr(derived, "tabulated", lambda engine: ("0.5.6", "0.5.6.post2", "0.5.7"))
    assert derived.table_release(Version("0.5.6.post2")) == "0.5.6.post2"
    assert derived.table_release(Version("0.5.6.post2+cu130")) == "0.5.6.post2"
    assert derived.table_release(Version("0.5.6.post1")) is None
    assert derived.table_release(Version("0.5.6.post3")) is None
    assert derived.table_release(Version("0.5.8")) is None


def test_0_5_6_post2_refuses_its_own_default_on_sm12x_and_0_5_6_does_not():
    """sglang PR #14291 made trtllm_mha the default where possible; PR #14842 (0.5.7) fixed the SM120 choice."""
    for capability in ("12.0", "12.1"):
        post2 = entry("0.5.6.post2", capability, "gqa-h128-dense:bf16")
        assert any(e["kind"] == "rejection" and "TRTLLM MHA backend is only supported" in e["message"]
                   for e in post2["errors"])
        assert entry("0.5.6", capability, "gqa-h128-dense:bf16")["attention"]["backend"] == "flashinfer"
        assert entry("0.5.7", capability, "gqa-h128-dense:bf16")["attention"]["backend"] == "flashinfer"
    assert entry("0.5.6.post2", "10.0", "gqa-h128-dense:bf16")["attention"]["backend"] == "trtllm_mha"


def test_releases_before_0_5_3_install_their_serving_stack_extra():
    assert requirement("sglang", "0.5.2") == "sglang[srt]==0.5.2"
    assert requirement("sglang", "0.5.3") == "sglang==0.5.3"
    assert requirement("vllm", "0.5.2") == "vllm==0.5.2"


def test_the_stand_in_wheel_holds_metadata_only(tmp_path):
    wheel = stand_ins.build_stand_in("cuda-tile", "1.6.0rc5", tmp_path)
    assert wheel.name == "cuda_tile-1.6.0rc5-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert all(name.startswith("cuda_tile-1.6.0rc5.dist-info/") for name in names)
        assert "Version: 1.6.0rc5" in archive.read("cuda_tile-1.6.0rc5.dist-info/METADATA").decode()
    overrides = stand_ins.overrides_file("sglang", "0.5.20", tmp_path)
    assert overrides is not None and overrides.read_text().startswith("cuda-tile @ file://")
    assert stand_ins.overrides_file("sglang", "0.5.17", tmp_path) is None  # 0.5.17 resolves the real 1.7.0
    assert stand_ins.overrides_file("sglang", "0.5.23", tmp_path) is None


def test_importers_finds_each_import_form(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("import cuda.tile as ct\n")
    (tmp_path / "pkg" / "b.py").write_text("def f():\n    from cuda.tile import compilation\n")
    (tmp_path / "pkg" / "c.py").write_text("from cuda import tile\n")
    (tmp_path / "pkg" / "d.py").write_text("import cuda.bindings.driver as cuda  # cuda.tile in a comment\n")
    (tmp_path / "pkg" / "e.py").write_text("from cuda import tiles\n")
    assert stand_ins.importers(tmp_path, "cuda.tile") == ["pkg/a.py", "pkg/b.py", "pkg/c.py"]


STOOD_IN = [r for r in RELEASES if stand_ins.stand_ins_for("sglang", r)]


@pytest.mark.parametrize("release", STOOD_IN)
def test_a_stood_in_install_says_so_and_never_imported_its_module(release):
    recorded = table("sglang", release)["pinned"]["stand_ins"]["cuda-tile"]
    assert recorded["version"] == "1.6.0rc5" and "stand-in" in recorded["installed"]
    # the one attempt the runs make is FlashInfer's availability probe (is_cuda_tile_available's
    # importlib.util.find_spec("cuda.tile.tune")), which answers "absent" with the real wheel too (no tileiras)
    for hit in recorded["imported_during_run"]:
        assert "(import)" not in hit and "flashinfer/cutile/cutile_common.py" in hit, hit
    assert not any(path.startswith("sglang/") for path in recorded["importers"])


NEW_CONSTRUCTION = [r for r in RELEASES if Version(r) >= Version("0.5.17")]


@pytest.mark.parametrize("release", NEW_CONSTRUCTION)
def test_the_launchers_topology_lets_the_model_build_on_meta(release):
    """0.5.2x reads each rank from get_parallel(): with the launcher's SpawnRanks published the model is built
    on meta (its layers' decisions are in the table), not stopped at set-up."""
    for capability in ("12.0", "12.1", "10.0"):
        e = entry(release, capability, "gqa-h128-moe:fp8-block" if capability != "10.0" else "mla-moe:native")
        assert e["moe"] and e["linear"], (release, capability)
        assert not any(err["stage"] == "setup" for err in e["errors"]), (release, capability)


def test_the_import_watch_tells_a_probe_from_an_import(tmp_path, monkeypatch):
    import importlib.util

    from tools.engine_oracle.inside import import_watch
    (tmp_path / "fakecuda").mkdir()
    (tmp_path / "fakecuda" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    hits = import_watch.install("fakecuda.tile")
    try:
        with pytest.raises(ModuleNotFoundError):  # the parent is absent, as with the stand-in
            importlib.util.find_spec("fakecuda.tile.tune")
        with pytest.raises(ImportError):
            import fakecuda.tile
        import fakecuda  # noqa: F401  (not watched)
    finally:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, import_watch.ImportWatch)]
    assert [h.split(" from ")[0] for h in hits] == ["fakecuda.tile (find_spec)", "fakecuda.tile (import)"]
    assert all(h.split(" from ")[1].startswith(str(Path(__file__))) for h in hits)
