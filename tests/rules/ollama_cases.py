"""Positive and boundary cases for the Ollama release rules OLL040-OLL059 (doctor/data/llama_cpp/ollama-builds.json:
what each release runs). area_cases.py adds them to AREA_CASES."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build

R5090, SPARK, H100, B200 = "rtx-5090", "dgx-spark", "h100-sxm-x8", "b200-x8"


def ollama(version: str, profile: str = R5090, os: str | None = "Windows",
           env: dict[str, str] | None = None) -> Callable[[], Facts]:
    """`--engine ollama==X` on a profile, the host OS and the Ollama server's environment as given."""
    def facts() -> Facts:
        built = build(profile, engines=(f"ollama=={version}",), env=env)
        return built.replace(host=dataclasses.replace(built.host, os=os)) if os else built
    return facts


OLLAMA_CASES = [
    a("OLL040", True, "0.20.0 on a 5090: Go engine + cgo runner over ec98e2002", ollama("0.20.0", os="Linux")),
    a("OLL040", True, "0.6.0 on GB10: the first release of the table", ollama("0.6.0", SPARK, os="Linux")),
    a("OLL040", True, "0.24.0 on a 5090: the last release before llama-server", ollama("0.24.0", os="Linux")),
    a("OLL040", False, "0.30.0 on a 5090: llama-server at b9452, analysed as llama.cpp", ollama("0.30.0", os="Linux")),
    a("OLL040", False, "0.20.0 on an H100 (9.0)", ollama("0.20.0", H100, os="Linux")),
    a("OLL040", False, "0.20.0 on a B200 (10.0)", ollama("0.20.0", B200, os="Linux")),
    a("OLL040", False, "0.5.13: before the table", ollama("0.5.13", os="Linux")),
    a("OLL041", True, "0.32.15 on a 5090 under Windows, FA not set", ollama("0.32.15")),
    a("OLL041", True, "0.30.0 under Windows: the first --flash-attn auto release", ollama("0.30.0")),
    a("OLL041", True, "0.33.3 under Windows (after the table; ollama#18232's release)", ollama("0.33.3")),
    a("OLL041", True, "GB10-class 12.1 under Windows, FA forced on",
      ollama("0.32.15", SPARK, env={"OLLAMA_FLASH_ATTENTION": "1"})),
    a("OLL041", False, "0.24.0 under Windows: no llama-server runner yet", ollama("0.24.0")),
    a("OLL041", False, "0.32.15 under Linux", ollama("0.32.15", os="Linux")),
    a("OLL041", False, "OLLAMA_FLASH_ATTENTION=0", ollama("0.32.15", env={"OLLAMA_FLASH_ATTENTION": "0"})),
    a("OLL041", False, "OLLAMA_FLASH_ATTENTION=false", ollama("0.32.15", env={"OLLAMA_FLASH_ATTENTION": "false"})),
    a("OLL041", False, "H100 (9.0) under Windows", ollama("0.32.15", H100)),
    a("OLL041", False, "B200 (10.0) under Windows", ollama("0.32.15", B200)),
]


def with_driver(cuda: str, version: str = "0.20.0", profile: str = R5090) -> Callable[[], Facts]:
    """`--engine ollama==X` with the driver's CUDA version as NVML reports it."""
    def facts() -> Facts:
        built = ollama(version, profile, os="Linux")()
        return built.replace(driver=dataclasses.replace(built.driver, cuda_driver_version=cuda))
    return facts


OLLAMA_CASES += [
    a("OLL042", True, "0.20.0 on a 5090, driver for CUDA 13.0", with_driver("13.0")),
    a("OLL042", True, "0.11.11 on GB10: the first release with a CUDA 13 build", with_driver("13.0", "0.11.11", SPARK)),
    a("OLL042", True, "0.32.15 on a 5090, driver not stated", ollama("0.32.15", os="Linux")),
    a("OLL042", False, "0.20.0 on a 5090, driver for CUDA 12.9: the cuda_v12 runner has sm_120", with_driver("12.9")),
    a("OLL042", False, "0.11.10: no CUDA 13 build yet", with_driver("13.0", "0.11.10")),
    a("OLL042", False, "0.20.0 on an H100 (9.0)", with_driver("13.0", "0.20.0", H100)),
    a("OLL042", False, "0.20.0 on a B200 (10.0)", with_driver("13.0", "0.20.0", B200)),
    a("OLL042", False, "0.5.13: before the table", with_driver("13.0", "0.5.13")),
]
