"""/dev/shm's size limit from /proc/mounts (NCCL024): Docker's 64 MiB default, --shm-size, a host's tmpfs."""

from __future__ import annotations

import pytest

from doctor.probe.host import dev_shm_bytes


@pytest.mark.parametrize(("mounts", "size"), [
    ("shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n", 64 << 20),  # docker run default
    ("shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=16777216k,inode64 0 0\n", 16 << 30),  # --shm-size=16g
    ("tmpfs /dev/shm tmpfs rw,relatime,size=2g 0 0\n", 2 << 30),
    ("tmpfs /dev/shm tmpfs rw,nosuid,nodev,inode64 0 0\n", None),  # a host's tmpfs: no size= (half of RAM)
    ("tmpfs /run tmpfs rw,size=65536k 0 0\n", None),  # no /dev/shm mount of its own
    ("", None),
    ("garbage\n/dev/shm\n", None),
])
def test_dev_shm_size_from_proc_mounts(tmp_path, mounts, size):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/mounts").write_text(mounts)
    assert dev_shm_bytes(tmp_path) == size


def test_no_proc_mounts_is_unknown(tmp_path):
    assert dev_shm_bytes(tmp_path) is None
