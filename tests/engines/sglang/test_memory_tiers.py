"""SGLang's GPU-size tiers (`_handle_gpu_memory_settings`) at the release where the 20-35 GiB tier moves: read in
the wheels, 0.5.9 to 0.5.19 give a 32 GB RTX 5090 (32607 MiB) a 2048-token chunk and 24 decode graphs (80 at TP4+),
0.5.20 to 0.5.23 give it 4096 and 48 (160); the other tiers do not move."""

from __future__ import annotations

import pytest

from doctor.engines.sglang import memory

RTX_5090_MIB, PRO_6000_MIB, RTX_5060_TI_MIB, L40S_MIB = 32607, 97887, 16311, 46068


@pytest.mark.parametrize(("version", "tp", "expected"), [
    ("0.5.9", 1, (2048, 24)), ("0.5.14", 1, (2048, 24)), ("0.5.19", 1, (2048, 24)), ("0.5.19", 4, (2048, 80)),
    ("0.5.20", 1, (4096, 48)), ("0.5.20", 4, (4096, 160)), ("0.5.23", 2, (4096, 48)),
])
def test_the_20_to_35_gib_tier_moves_at_0_5_20(version, tp, expected):
    defaults = memory.memory_defaults(version, RTX_5090_MIB, tp=tp, pp=1)
    assert (defaults.chunked_prefill_size, defaults.cuda_graph_max_bs) == expected


def test_the_5090s_static_fraction_at_0_5_19_and_0_5_20():
    # 512 + 2048 x 1.5 + 24 x 2 + 1/8 x 1024 = 3760 MiB; 512 + 4096 x 1.5 + 48 x 2 + 128 = 6880 MiB
    assert memory.memory_defaults("0.5.19", RTX_5090_MIB, tp=1, pp=1).mem_fraction_static == pytest.approx(0.885)
    assert memory.memory_defaults("0.5.20", RTX_5090_MIB, tp=1, pp=1).mem_fraction_static == pytest.approx(0.789)


@pytest.mark.parametrize("gpu_mib", [RTX_5060_TI_MIB, L40S_MIB, PRO_6000_MIB])
def test_other_tiers_do_not_move(gpu_mib):
    before = memory.memory_defaults("0.5.19", gpu_mib, tp=1, pp=1)
    after = memory.memory_defaults("0.5.20", gpu_mib, tp=1, pp=1)
    assert (before.chunked_prefill_size, before.cuda_graph_max_bs, before.mem_fraction_static) == \
        (after.chunked_prefill_size, after.cuda_graph_max_bs, after.mem_fraction_static)
