"""The flag reader (tools/vllm_facts/cli_flags.py) on a small wheel written here, shaped like vLLM 0.33's
sources: the argparse shapes `_compute_kwargs` derives and the edits `add_cli_args` makes must come out as the
release's own parser has them (the real parsers of 0.24.0 and 0.33.0 are compared in test_flag_shapes.py)."""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

import pytest

from tools.vllm_facts.cli_flags import FlagReader
from tools.vllm_facts.parser_rules import dash_o, inverse_prefixes
from tools.vllm_facts.source import WheelSource

SERVE = '''
from vllm.engine.arg_utils import EngineArgs, FrontendArgs

class ServeSubcommand:
    def subparser_init(self, subparsers):
        serve_parser = subparsers.add_parser("serve")
        FrontendArgs.add_cli_args(serve_parser)
        EngineArgs.add_cli_args(serve_parser)
        return serve_parser
'''
CONFIG = '''
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Literal
from pydantic import SkipValidation

RunnerType = Literal["generate", "pooling"]
RunnerOption = Literal["auto", RunnerType]
Backend = Literal["naive", "pplx", "passthrough"]
PASSTHROUGH = "passthrough"

class OptimizationLevel(IntEnum):
    O0 = 0
    O3 = 3

@dataclass
class CacheConfig:
    enable_prefix_caching: bool = True
    cpu_offload: SkipValidation[bool] = None
    block_size: int | None = None
    hash_algo: bool | str | None = None

@dataclass
class SchedulerConfig:
    enable_chunked_prefill: bool = True
    runner: RunnerOption = "auto"
    backend: Backend = "naive"
    level: OptimizationLevel = OptimizationLevel.O3

@dataclass
class CompilationConfig:
    mode: int = 0
'''
ARG_UTILS = '''
import json
from argparse import BooleanOptionalAction
from dataclasses import dataclass, field
from vllm.config.base import CacheConfig, CompilationConfig, SchedulerConfig, PASSTHROUGH

OPTIONAL = "type_hints == {bool, str, type(None)}"

@dataclass
class BaseFrontend:
    allowed_origins: list[str] = field(default_factory=list)
    middleware: list[str] = field(default_factory=list)

    @classmethod
    def _customize_cli_kwargs(cls, frontend_kwargs):
        frontend_kwargs["allowed_origins"]["type"] = json.loads
        del frontend_kwargs["allowed_origins"]["nargs"]
        return frontend_kwargs

@dataclass
class FrontendArgs(BaseFrontend):
    @classmethod
    def _customize_cli_kwargs(cls, frontend_kwargs):
        frontend_kwargs = super()._customize_cli_kwargs(frontend_kwargs)
        frontend_kwargs["middleware"]["action"] = "append"
        if "nargs" in frontend_kwargs["middleware"]:
            del frontend_kwargs["middleware"]["nargs"]
        return frontend_kwargs

    @classmethod
    def add_cli_args(cls, parser):
        frontend_kwargs = get_kwargs(cls)
        frontend_kwargs = cls._customize_cli_kwargs(frontend_kwargs)
        for key, value in frontend_kwargs.items():
            parser.add_argument(f"--{key.replace('_', '-')}", **value)
        return parser

class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        cache_kwargs = get_kwargs(CacheConfig)
        scheduler_kwargs = get_kwargs(SchedulerConfig)
        compilation_kwargs = get_kwargs(CompilationConfig)
        scheduler_kwargs["backend"]["choices"].remove(PASSTHROUGH)
        parser.add_argument("--enable-prefix-caching", **{**cache_kwargs["enable_prefix_caching"], "default": None})
        parser.add_argument("--enable-chunked-prefill", **{**scheduler_kwargs["enable_chunked_prefill"],
                                                           "default": None})
        parser.add_argument("--block-size", **cache_kwargs["block_size"])
        parser.add_argument("--cpu-offload", **cache_kwargs["cpu_offload"])
        parser.add_argument("--hash-algo", **cache_kwargs["hash_algo"])
        parser.add_argument("--runner", **scheduler_kwargs["runner"])
        parser.add_argument("--backend", **scheduler_kwargs["backend"])
        parser.add_argument("--optimization-level", **scheduler_kwargs["level"])
        parser.add_argument("--disable-log-stats", action="store_true")
        parser.add_argument("--spread-last", **{"default": 1, **cache_kwargs["block_size"]})
        return parser
'''
ARGPARSE_UTILS = '''
from argparse import ArgumentParser, BooleanOptionalAction

class EnableDisableAction(BooleanOptionalAction):
    _inverse_prefixes = {"--enable-": "--disable-", "--disable-": "--enable-"}

class FlexibleArgumentParser(ArgumentParser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", BooleanOptionalAction, EnableDisableAction)

    def parse_args(self, args=None, namespace=None):
        processed_args = []
        for i, arg in enumerate(args):
            if arg.startswith("--"):
                processed_args.append(arg)
            elif arg.startswith("-O") and arg != "-O":
                optimization_level = arg[3:] if arg[2] == "=" else arg[2:]
                processed_args += ["--optimization-level", optimization_level]
            elif (
                arg == "-O"
                and i + 1 < len(args)
                and args[i + 1] in {"0", "1", "2", "3"}
            ):
                processed_args.append("--optimization-level")
            else:
                processed_args.append(arg)
'''


def write_wheel(folder: Path, files: dict[str, str]) -> Path:
    wheel = folder / "vllm-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, textwrap.dedent(text))
    return wheel


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    files = {"vllm/entrypoints/cli/serve.py": SERVE, "vllm/config/base.py": CONFIG,
             "vllm/engine/arg_utils.py": ARG_UTILS, "vllm/utils/argparse_utils.py": ARGPARSE_UTILS}
    wheel = write_wheel(tmp_path_factory.mktemp("wheel"), files)
    opened = WheelSource(wheel)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def flags(source):
    return FlagReader(source).read()


def test_a_bool_field_spread_inside_a_dict_literal_is_a_switch(flags):
    """`**{**kwargs["enable_prefix_caching"], "default": None}` (vLLM 0.12-0.33): the field's bool makes it
    BooleanOptionalAction; the dict literal only overrides the default."""
    for name in ("--enable-prefix-caching", "--enable-chunked-prefill"):
        assert flags[name]["takes_value"] is False and flags[name]["boolean_optional"] is True, name
        assert flags[name]["field"].endswith(name[2:].replace("-", "_"))


def test_a_pydantic_skip_validation_bool_is_a_switch(flags):
    """vLLM 0.9-0.11 annotate `enable_chunked_prefill: SkipValidation[bool]`: Annotated[bool, ...] to typing."""
    assert flags["--cpu-offload"]["takes_value"] is False and flags["--cpu-offload"]["boolean_optional"] is True


def test_explicit_keys_after_a_spread_still_win_and_keys_before_it_lose(flags):
    assert flags["--spread-last"]["takes_value"] is True and flags["--spread-last"]["value"] == "int"


def test_negations_follow_the_registered_enable_disable_action(flags):
    assert flags["--enable-prefix-caching"]["negations"] == ["--no-enable-prefix-caching",
                                                             "--disable-prefix-caching"]
    assert "negations" not in flags["--disable-log-stats"]  # store_true: no inverse


def test_without_the_registered_action_only_argparse_no_form(tmp_path):
    plain = ARGPARSE_UTILS.replace('self.register("action", BooleanOptionalAction, EnableDisableAction)', "pass")
    files = {"vllm/entrypoints/cli/serve.py": SERVE, "vllm/config/base.py": CONFIG,
             "vllm/engine/arg_utils.py": ARG_UTILS, "vllm/utils/argparse_utils.py": plain}
    opened = WheelSource(write_wheel(tmp_path, files))
    try:
        assert inverse_prefixes(opened) == {}
        assert FlagReader(opened).read()["--enable-chunked-prefill"]["negations"] == ["--no-enable-chunked-prefill"]
    finally:
        opened.close()


def test_optional_bool_and_plain_optional_int(flags):
    assert flags["--block-size"]["takes_value"] is True and flags["--block-size"]["value"] == "int"
    # `_compute_kwargs` has the `{bool, str, None}` branch (vLLM 0.21+): a bare flag or a value, not a switch
    assert flags["--hash-algo"]["takes_value"] == "optional"


def test_edits_made_through_customize_cli_kwargs_and_super(flags):
    """`del kwargs["allowed_origins"]["nargs"]` in the base class's `_customize_cli_kwargs` (reached through
    `super()`) and `action="append"` in the subclass's: one value each, not a list."""
    assert "nargs" not in flags["--allowed-origins"]
    assert flags["--middleware"].get("repeatable") is True and "nargs" not in flags["--middleware"]


def test_nested_literal_aliases_and_a_removed_choice(flags):
    assert flags["--runner"]["choices"] == ["auto", "generate", "pooling"]
    assert flags["--backend"]["choices"] == ["naive", "pplx"]


def test_an_int_enum_accepts_its_values_and_names(flags):
    assert set(flags["--optimization-level"]["enum_members"]) == {"O0", "O3", "0", "3"}


def test_dash_o_rewrite_is_read_from_parse_args(source):
    rule = dash_o(source)
    assert rule is not None
    assert rule["attached"] == "--optimization-level" and rule["separate_levels"] == ["0", "1", "2", "3"]
    assert rule["attached_skips_dot"] is False and rule["dotted_to"] is None
