"""llama.cpp's other tools: the command's first word picks llama-bench's, llama-cli's or llama-completion's option
table (held-out F2: llama-bench's `-p 2048` was an LCPP007 error when read as llama-server's)."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main
from doctor.engines.llama_cpp.flags import BENCH_DATA, check_flags, split_tool, table_for_build, unsettled_flags
from tools.llama_bench_flag_tables import options

# llama-bench.cpp's parser as b9842 writes it (abridged): a value where the branch steps ++i, RPC only when built in
BENCH_CPP = r'''
static cmd_params parse_cmd_params(int argc, char ** argv) {
    for (int i = 1; i < argc; i++) {
        arg = argv[i];
        try {
            if (arg == "-h" || arg == "--help") {
                print_usage(argc, argv);
                exit(0);
            } else if (arg == "-p" || arg == "--n-prompt") {
                if (++i >= argc) {
                    invalid_param = true;
                    break;
                }
                auto p = parse_int_range(argv[i]);
            } else if (llama_supports_rpc() && (arg == "-rpc" || arg == "--rpc")) {
                if (++i >= argc) {
                    invalid_param = true;
                    break;
                }
                if (invalid_param) {
                    break;
                }
            } else if (arg == "--no-warmup") {
                params.no_warmup = true;
            } else {
                invalid_param = true;
                break;
            }
        } catch (const std::exception & e) {
            invalid_param = true;
            break;
        }
    }

    if (invalid_param) {
        exit(1);
    }
}
'''
F2_FLAGS = ["-hf", "unsloth/gemma-4-26B-A4B-it-GGUF:MXFP4_MOE", "-ngl", "60", "-ncmoe", "16", "-ub", "1024",
            "-t", "8,10", "-p", "2048"]


def test_bench_parser_reads_the_branch_chain():
    found = options(BENCH_CPP)
    assert found == {"-h,--help": {"names": ["-h", "--help"], "value": False},
                     "-p,--n-prompt": {"names": ["-p", "--n-prompt"], "value": True},
                     "-rpc,--rpc": {"names": ["-rpc", "--rpc"], "value": True, "rpc": True},
                     "--no-warmup": {"names": ["--no-warmup"], "value": False}}


def test_bench_data_has_provenance_for_every_sample():
    data = json.loads(BENCH_DATA.read_text("utf-8"))
    assert data["file"] == "tools/llama-bench/llama-bench.cpp" and len(data["samples"]) >= 20
    assert all("tag b" in source or "b11312" in source for _, source in data["samples"])


def test_split_tool_names_the_tool_by_its_basename():
    assert split_tool(["./build/bin/llama-bench", "-p", "512"]) == ("llama-bench", ["-p", "512"])
    assert split_tool(["C:\\llama\\llama-cli.exe", "-p", "hi"]) == ("llama-cli", ["-p", "hi"])
    assert split_tool(["-p", "512"]) == (None, ["-p", "512"])
    assert split_tool(["llama-quantize", "x"]) == (None, ["llama-quantize", "x"])  # not a tool the doctor reads


def test_llama_bench_takes_its_comma_lists_and_refuses_an_unknown_flag():
    table = table_for_build(9842, "llama-bench")
    assert check_flags(["llama-bench", *F2_FLAGS, "-ub", "512,1024"], table) == []
    assert check_flags(["--n_prompt", "512"], table) == []  # llama-bench turns _ into - after `--`
    assert check_flags(["--bogus"], table) == ["--bogus is not a llama-bench flag"]


def test_llama_bench_n_cpu_moe_boundary():
    """-ncmoe reached llama-bench between the b6431 and b6673 samples: refused at b6431, taken at b6673, unsettled
    between."""
    assert check_flags(["-ncmoe", "16"], table_for_build(6431, "llama-bench")) == ["-ncmoe is not a llama-bench flag"]
    assert check_flags(["-ncmoe", "16"], table_for_build(6673, "llama-bench")) == []
    between = table_for_build(6500, "llama-bench")
    assert check_flags(["-ncmoe", "16"], between) == [] and unsettled_flags(["-ncmoe", "16"], between)


def test_llama_cli_interactive_moved_to_llama_completion():
    """-i is llama-cli's (examples/main, LLAMA_EXAMPLE_MAIN) up to b7347; from b7698 llama-cli is tools/cli
    (LLAMA_EXAMPLE_CLI) and -i is llama-completion's."""
    assert check_flags(["-i"], table_for_build(7347, "llama-cli")) == []
    assert check_flags(["-i"], table_for_build(7698, "llama-cli")) == ["-i is not a llama-cli flag"]
    assert check_flags(["-i"], table_for_build(7698, "llama-completion")) == []
    assert check_flags(["-p", "hello"], table_for_build(7698, "llama-cli")) == []
    assert check_flags(["-p", "hello"], table_for_build(7698, "llama-server")) == ["-p is not a llama-server flag"]


def _check(*args: str, capsys: pytest.CaptureFixture[str]) -> dict:
    code = main(["check", "--hardware", "rtx-5070", "--offline", "--format", "json", *args])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    return json.loads(out)


def _ids(report: dict, severity: str | None = None) -> set[str]:
    return {f["id"] for f in report["findings"] if severity is None or f["severity"] == severity}


def test_f2_llama_bench_command_is_clean(capsys):
    report = _check("--engine", "llama.cpp==b9197", "--", "llama-bench", *F2_FLAGS, capsys=capsys)
    assert not _ids(report) & {"LCPP007", "LCPP011"}
    assert report["launches"][0]["argv"][0] == "llama-bench"


def test_f2_bare_flags_are_not_an_error_when_another_tool_takes_them(capsys):
    report = _check("--engine", "llama.cpp==b9197", "--", *F2_FLAGS, capsys=capsys)
    assert "LCPP007" not in _ids(report) and "LCPP011" in _ids(report, "warning")
    message = next(f["message"] for f in report["findings"] if f["id"] == "LCPP011")
    assert "llama-bench" in message and "-p is not a llama-server flag" in message


@pytest.mark.parametrize("tool", ["llama-server", "./build/bin/llama-server"])
def test_named_llama_server_still_refuses_a_bench_flag(tool, capsys):
    """The negative: the command says llama-server, so -p is an error as before."""
    report = _check("--engine", "llama.cpp==b9197", "--", tool, *F2_FLAGS, capsys=capsys)
    assert "LCPP007" in _ids(report, "error")


def test_bare_flags_no_tool_takes_stay_an_error(capsys):
    report = _check("--engine", "llama.cpp==b9197", "--", "-ngl", "60", "--no-such-flag", capsys=capsys)
    assert "LCPP007" in _ids(report, "error")


def test_pasted_llama_bench_command_infers_the_engine_and_the_tool(capsys):
    report = _check("--", "llama-bench", "-m", "model.gguf", "-ngl", "99", "-p", "512", "-n", "128", capsys=capsys)
    assert "llama.cpp" in report["facts"]["libraries"] or report["launches"][0]["engine"] == "llama.cpp"
    assert report["launches"][0]["argv"][0] == "llama-bench"
    assert not _ids(report) & {"LCPP007", "LCPP011"}


def test_lint_and_diagnose_keep_the_tool_word():
    """A launch file's `llama-bench ...` and a log's pasted `./build/bin/llama-bench ...` reach the engine with the
    tool first, so their flags are llama-bench's."""
    from doctor.diagnose.formats import command
    from doctor.diagnose.logfacts import LogFacts
    from doctor.lint.argv import EngineLaunch, recognise

    found = recognise(["llama-bench", "-m", "/m/x.gguf", "-p", "512", "-ub", "512,1024"])
    assert isinstance(found, EngineLaunch) and found.engine == "llama.cpp" and found.model == "/m/x.gguf"
    assert found.engine_args == ("llama-bench", "-p", "512", "-ub", "512,1024")
    server = recognise(["llama-server", "-m", "/m/x.gguf", "-c", "4096"])
    assert isinstance(server, EngineLaunch) and server.engine_args == ("-c", "4096")

    facts = LogFacts()
    line = "$ ./build/bin/llama-bench -m /m/x.gguf -ngl 99 -p 2048"
    rule = next(r for r in command.rules() if r.regex.search(line))
    rule.handler(rule.regex.search(line), 1, facts)
    assert facts.argv is not None and facts.argv.value == ["llama-bench", "-ngl", "99", "-p", "2048"]
