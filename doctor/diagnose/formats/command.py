"""Launch commands pasted into or echoed by a log, recognised by the launchers each engine declares
(`Engine.launchers`, as `lint` uses them): `COMMAND [SUBCOMMAND] ...` or `python -m MODULE ...`. Split like a
shell; the model and the flags go to `check`."""

from __future__ import annotations

import re
import shlex
from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts

FMT = "command"
MAX_TOKENS = 400  # a pasted command is short; a line of thousands of tokens is not one


def rules() -> tuple[LineRule, ...]:
    from doctor.engines import registry

    found = []
    for engine in registry.engines().values():
        for launcher in engine.launchers:
            head = launcher.module or launcher.command
            if not head:
                continue
            pattern = re.escape(head) + "".join(rf"\s+{re.escape(word)}" for word in launcher.words)
            found.append(LineRule(FMT, rf"(?:^|[\s/`'\"]){pattern}(?P<rest>(?:\s+\S+)+)",
                                  _handler(engine.name, launcher)))
    return tuple(found)


def _handler(engine: str, launcher: Any):
    def handle(m: Any, line: int, facts: LogFacts) -> None:
        facts.saw(FMT, line)
        facts.hint_engine(engine, line)
        tokens = _split(m.group("rest"))[:MAX_TOKENS]
        model, argv = _model_and_flags(tokens, launcher.model_flags, launcher.positional_model)
        if model and "$" not in model and ("/" in model or model.endswith(".gguf")):
            facts.set_once("model", model, line)
        facts.set_once("argv", launcher.engine_args(_without_unexpanded(argv)), line)

    return handle


def _without_unexpanded(argv: list[str]) -> list[str]:
    """Drop `--flag $VAR` pairs (and bare `$VAR` tokens): a shell variable's value is not in the log."""
    kept: list[str] = []
    for token in argv:
        if "$" in token:
            if kept and kept[-1].startswith("-") and "=" not in kept[-1]:
                kept.pop()
            continue
        kept.append(token)
    return kept


def _split(text: str) -> list[str]:
    """The command's words: up to a pipe, an `&&`, or the backtick that closes it in an issue's prose
    (``I ran `vllm serve M --tp 2` and then ...``: the words after it are prose)."""
    text = text.split("`")[0].split(" | ")[0].split(" && ")[0].rstrip("\\ ")
    try:
        return shlex.split(text, comments=False)
    except ValueError:  # an unbalanced quote in a cut line
        return text.split()


def _model_and_flags(tokens: list[str], model_flags: tuple[str, ...], positional: bool
                     ) -> tuple[str | None, list[str]]:
    model = None
    argv: list[str] = []
    index = 0
    if positional and tokens and not tokens[0].startswith("-"):
        model, index = tokens[0], 1
    while index < len(tokens):
        token = tokens[index]
        if token in model_flags and index + 1 < len(tokens):
            model = model or tokens[index + 1]
            index += 2
            continue
        if "=" in token and token.split("=", 1)[0] in model_flags:
            model = model or token.split("=", 1)[1]
        elif token.startswith("-") or argv:
            argv.append(token)
        index += 1
    return model, argv
