"""A TensorRT-LLM launch as the doctor reads it: `trtllm-serve` flags after `--`, and the LLM-API options YAML
they name (`-- --extra_llm_api_options opts.yaml`), read with PyYAML and checked key by key for the release."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.engines.spi import InputError, Launch, flag_pairs
from doctor.engines.tensorrt_llm import knowledge as kb

MAX_OPTIONS_BYTES = 1 << 20


@dataclass(frozen=True)
class TrtLaunch:
    flags: dict[str, str | None] = field(default_factory=dict)  # canonical flag (first name) -> value
    options: dict[str, Any] = field(default_factory=dict)  # the YAML, as loaded
    options_path: str | None = None

    def option(self, path: str, default: Any = None) -> Any:
        value: Any = self.options
        for part in path.split("."):
            if not isinstance(value, dict) or part not in value:
                return default
            value = value[part]
        return value

    def number(self, flag: str, option: str) -> float | None:
        """A setting given as a flag or in the YAML (the YAML wins, as update_llm_args_with_extra_dict does)."""
        value = self.option(option, self.flags.get(flag))
        try:
            return float(value) if value is not None else None
        except (TypeError, ValueError):
            return None


def canonical(flag: str) -> str:
    """The spelling people type and every known release accepts: `--tp_size`, `--ep_size`, ..."""
    known = kb.FLAG_INDEX.get(flag.partition("=")[0])
    return known.names[-1] if known else flag


def is_switch(flag: str) -> bool:
    known = kb.FLAG_INDEX.get(flag)
    return known is not None and not known.takes_value


def parse(argv: list[str]) -> TrtLaunch:
    flags: dict[str, str | None] = {}
    for flag, value in flag_pairs(argv, is_switch=is_switch):
        flags[canonical(flag)] = value
    path = next((value for flag, value in flags.items() if flag in kb.OPTIONS_FLAGS and value), None)
    return TrtLaunch(flags=flags, options=read_options(path) if path else {}, options_path=path)


def read_options(path: str) -> dict[str, Any]:
    import yaml

    file = Path(path).expanduser()
    try:
        if file.stat().st_size > MAX_OPTIONS_BYTES:
            raise InputError(f"options file {path} is larger than {MAX_OPTIONS_BYTES} bytes")
        loaded = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the TensorRT-LLM options file {path}: {exc.strerror or exc}") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputError(f"TensorRT-LLM options file {path} is not valid YAML: {str(exc).splitlines()[0]}") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise InputError(f"TensorRT-LLM options file {path} must be a YAML mapping of LLM-API options")
    return loaded


def launch_values(parsed: TrtLaunch, argv: list[str]) -> Launch:
    values: dict[str, object] = {}
    for key, flag in (("tp", "--tp_size"), ("pp", "--pp_size"), ("ep", "--ep_size")):
        number = parsed.number(flag, {"tp": "tensor_parallel_size", "pp": "pipeline_parallel_size",
                                      "ep": "moe_expert_parallel_size"}[key])
        if number:
            values[key] = int(number)
    values["moe_backend"] = parsed.option("moe_config.backend")
    values["attention_backend"] = parsed.option("attn_backend")
    values["context_length"] = parsed.number("--max_seq_len", "max_seq_len")
    kv_dtype = parsed.option("kv_cache_config.dtype")
    given = {}
    if kv_dtype and kv_dtype != "auto":
        values["kv_cache_dtype"] = "fp8_e4m3" if kv_dtype == "fp8" else kv_dtype
        given = {"kv_cache_dtype": str(kv_dtype)} if kv_dtype == "fp8" else {}
    return Launch(values={k: v for k, v in values.items() if v is not None}, args=tuple(argv), given=given)


def flag_problems(parsed: TrtLaunch, argv: list[str], version: Version) -> tuple[list[str], list[str]]:
    """(errors, doubts): flags trtllm-serve would refuse, and flags the doctor cannot place in this release."""
    errors, doubts = [], []
    for flag, value in flag_pairs(argv, is_switch=is_switch):
        known = kb.FLAG_INDEX.get(flag)
        if not flag.startswith("-"):
            errors.append(f"{flag!r}: trtllm-serve takes the model as its only argument (it goes before `--`)")
        elif known is None:
            errors.append(f"{flag} is not a trtllm-serve option")
        elif not known.certain and not Version(known.added) <= version:
            doubts.append(f"{flag} may not exist in TensorRT-LLM {version}")
        elif known.choices and value not in known.choices:
            errors.append(f"{flag} {value} is not one of {', '.join(known.choices)}")
    return errors, doubts


def option_problems(options: dict[str, Any], version: Version) -> tuple[list[str], list[str]]:
    """(errors, doubts) for the options YAML: bad values of keys the doctor knows, keys it does not know."""
    errors, doubts = [], []
    for path, value in _leaves(options):
        key = kb.OPTION_KEYS.get(path)
        if key is None:
            if path.split(".")[0] in kb.NESTED or not any(k.startswith(path.split(".")[0]) for k in kb.OPTION_KEYS):
                doubts.append(f"{path}: not a key the doctor knows for TensorRT-LLM {version}")
            continue
        if key.choices and str(value) not in key.choices:
            errors.append(f"{path}: {value!r} is not one of {', '.join(key.choices)}")
        elif path == "moe_config.backend" and not kb.MOE_BACKENDS[str(value)].exists(version):
            doubts.append(f"moe_config.backend {value} may not exist in TensorRT-LLM {version} "
                          f"(first seen in {kb.MOE_BACKENDS[str(value)].added})")
        elif key.kind is not object and not isinstance(value, key.kind):
            errors.append(f"{path}: {value!r} has the wrong type")
        elif key.bounds and not key.bounds[0] < float(value) <= key.bounds[1]:
            errors.append(f"{path}: {value} is outside ({key.bounds[0]}, {key.bounds[1]}]")
    return errors, doubts


def _leaves(options: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for key, value in options.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and path in kb.NESTED:
            out += _leaves(value, path + ".")
        else:
            out.append((path, value))
    return out
