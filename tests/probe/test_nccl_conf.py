"""/etc/nccl.conf as NCCL's initEnv reads it (src/misc/param.cc setEnvFile): NAME=VALUE lines, the first line of a
name wins, lines without `=` skipped; the doctor keeps the NCCL_* names (NCCL082 reads them)."""

from __future__ import annotations

from doctor.probe.host import nccl_conf, probe_host

# the two settings luxingcom/aicad-nccl-optimization#1 found left in its container image's /etc/nccl.conf
STALE_IMAGE_CONF = "NCCL_IB_USE_INLINE=1\nNCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS=1\n"


def _root(tmp_path, text):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/nccl.conf").write_text(text)
    return tmp_path


def test_the_stale_image_settings_are_read(tmp_path):
    assert nccl_conf(_root(tmp_path, STALE_IMAGE_CONF)) == {"NCCL_IB_USE_INLINE": "1",
                                                            "NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS": "1"}


def test_first_line_wins_and_other_lines_are_skipped(tmp_path):
    text = "# comment\nNCCL_DEBUG=INFO\nNCCL_DEBUG=WARN\nnot a setting\nOTHER=1\nNCCL_SOCKET_IFNAME=enp1s0f1np1\n"
    assert nccl_conf(_root(tmp_path, text)) == {"NCCL_DEBUG": "INFO", "NCCL_SOCKET_IFNAME": "enp1s0f1np1"}


def test_no_file_no_settings(tmp_path):
    assert nccl_conf(tmp_path) == {}


def test_probe_host_carries_them(tmp_path):
    assert probe_host(_root(tmp_path, STALE_IMAGE_CONF)).nccl_conf["NCCL_IB_USE_INLINE"] == "1"
