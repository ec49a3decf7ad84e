"""What `lint` finds in a file: a command as written (argv, where, environment, image) and, once its
engine is recognised, a launch site the check pipeline can analyse."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Command:
    """A command found in a file, before anyone knows whether it launches an engine."""

    argv: tuple[str, ...]
    line: int  # 1-based, where the command starts
    end_line: int
    env: Mapping[str, str] = field(default_factory=dict)
    image: str | None = None  # the container image it runs in, where the file says
    image_line: int | None = None
    entrypoint: tuple[str, ...] = ()  # what the container runs before argv (the image's ENTRYPOINT), if kept
    script_line: int | None = None  # file line of the first line of a `sh -c` script argument, where its
    # lines are the file's lines (a YAML `|` block, a quoted script in a shell file); else all map to `line`


@dataclass(frozen=True)
class Pin:
    """An engine version the file itself fixes: an image tag or a `pip install NAME==VERSION`."""

    engine: str
    version: str
    line: int
    how: str  # e.g. "image vllm/vllm-openai:v0.11.0"

    def describe(self) -> str:
        return f"{self.how} (line {self.line})"


@dataclass(frozen=True)
class LaunchSite:
    """An engine launch found in a file, with the model, flags and version pin it carries."""

    path: str
    line: int
    end_line: int
    engine: str  # the serving engine's registry name (doctor/engines/registry.py)
    model: str | None
    engine_args: tuple[str, ...]
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    pin: Pin | None = None
    suppressed: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()
    image: str | None = None  # the container image the launch runs in
    recipe: Mapping[str, Any] | None = None  # the file's build recipe (doctor/lint/recipes.py: Recipe.view)
