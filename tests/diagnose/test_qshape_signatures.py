"""QNT020/QNT021 (rules/quant_shapes.toml): Marlin's repack and shape-check messages, as the kernels format them
(gptq_marlin_repack.cu's TORCH_CHECKs; marlin_utils.py's verify_marlin_supports_shape, whose f-string leaves two
spaces before `min_thread_n`), in the sizes public reports quote: 672 (Nemotron-3-Super NVFP4 at TP4), 2736
(GLM-4.5-Air's 10944 gate/up at TP8), 8608 (an INT4 vision MLP of 2 x 4304 on one GPU)."""

from __future__ import annotations

from tests.diagnose.corpus import claimed

WORKER = "(Worker_TP1 pid=461912) ERROR 03-17 15:06:17 [multiproc_executor.py:852] "
REPACK = "RuntimeError: size_n = {n} is not divisible by tile_n_size = 64\n"
REPACK_K = "RuntimeError: size_k = 88 is not divisible by tile_k_size = 16\n"
VERIFY = ("ValueError: Weight output_size_per_partition = 6848 is not divisible by  min_thread_n = 64. Consider "
          "reducing tensor_parallel_size or running with --quantization gptq.\n")
VERIFY_K = ("ValueError: Weight input_size_per_partition = 1760 is not divisible by min_thread_k = 128. Consider "
            "reducing tensor_parallel_size or running with --quantization gptq.\n")
PRO = "  Device 0: NVIDIA RTX PRO 6000 Blackwell Workstation Edition, compute capability 12.0\n"
H100 = "  Device 0: NVIDIA H100 80GB HBM3, compute capability 9.0\n"



def test_the_repack_line_is_qnt020s_with_or_without_the_worker_prefix():
    for n in (672, 2736, 8608):
        assert claimed(WORKER + REPACK.format(n=n))[:1] == ["QNT020"]
        assert "QNT020" in claimed(PRO + REPACK.format(n=n))
    assert "QNT020" in claimed(REPACK_K)


def test_the_shape_check_lines_are_qnt021s():
    assert claimed(VERIFY)[:1] == ["QNT021"]
    assert claimed(PRO + VERIFY_K)[:1] == ["QNT021"]


def test_not_on_a_gpu_the_log_names_outside_sm12x():
    assert "QNT020" not in claimed(H100 + REPACK.format(n=672))
    assert "QNT021" not in claimed(H100 + VERIFY)


def test_other_divisibility_messages_are_not_claimed():
    others = ("AssertionError: 25 is not divisible by 4\n",
              "RuntimeError: size_n = 672 is not divisible by tile_n_size = 128\n",
              "ValueError: Total number of attention heads (40) must be divisible by tensor parallel size (3).\n")
    for line in others:
        assert not {"QNT020", "QNT021", "QNT022", "QNT023"} & set(claimed(line)), line


BLOCK = ("ValueError: Weight output_partition_size = 320 is not divisible by weight quantization block_n = 128.\n",
         "ValueError: Weight input_size_per_partition = 1368 is not divisible by weight quantization block_k = 128.\n",
         "ValueError: The output_size of gate's and up's weight = 176 is not divisible by weight quantization "
         "block_n = 128.\n",
         "ValueError: The input_size of down's weight = 176 is not divisible by weight quantization block_k = 128.\n")


def test_the_block_quantization_lines_are_qnt023s():
    for line in BLOCK:
        assert claimed(line)[:1] == ["QNT023"], line
        assert "QNT023" not in claimed(H100 + line), line


THREAD = ("RuntimeError: Invalid thread config: thread_m_blocks = 4, thread_k = -1, thread_n = -1, num_threads = -1 "
          "for MKN = [32768, 2880, 2880]\n")


def test_the_gemm_thread_config_line_is_qnt022s():
    assert claimed(THREAD)[:1] == ["QNT022"]
    assert "QNT022" in claimed(PRO + THREAD)
    assert "QNT022" not in claimed(H100 + THREAD)
    found = "RuntimeError: Invalid thread config: thread_m_blocks = 4, thread_k = 128, thread_n = 128\n"
    assert "QNT022" not in claimed(found)
