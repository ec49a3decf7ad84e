"""Commands in a shell script, tokenised with `shlex`: backslash continuations and multi-line quotes joined,
`;`/`&&`/`|` split, variables assigned in the script (`MODEL=...`, `export TP=8`, `${X:-default}`)
expanded, heredoc bodies skipped."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping

from doctor.lint.site import Command

SEPARATORS = {";", ";;", "&&", "||", "|", "|&", "&", "(", ")", "{", "}", "\n"}
KEYWORDS = {"then", "do", "else", "elif", "if", "while", "until", "!"}
DECLARE = {"export", "readonly", "declare", "local", "typeset"}
ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")
FD_REDIRECT = re.compile(r"(\s)\d+([<>])")
MAX_JOINED_LINES = 400  # an unterminated quote stops joining here instead of swallowing the file


def shell_commands(text: str, first_line: int = 1, variables: Mapping[str, str] | None = None,
                   one_line: bool = False) -> list[Command]:
    """Every simple command in `text` with its line span (`first_line` is the file line of the text's
    first line; `one_line` maps them all to `first_line`, for text whose layout is not the file's)."""
    scope = _Scope(dict(variables or {}))
    commands: list[Command] = []
    lines = text.splitlines()
    for start, end, tokens in _logical_lines(lines):
        for words in _simple_commands(tokens):
            argv = scope.expand(words)
            if argv and not scope.assign(argv):
                line, end_line = (first_line, first_line) if one_line else (first_line + start, first_line + end)
                commands.append(Command(argv=tuple(argv), line=line, end_line=end_line, env=dict(scope.exported)))
    return commands


def expand(words: list[str], variables: Mapping[str, str]) -> list[str]:
    """`$NAME`, `${NAME}` and `${NAME:-default}` replaced where known (Dockerfile and systemd use these too)."""
    return _Scope(dict(variables)).expand(words)


class _Scope:
    """Variables the script has set so far, and which of them it exported."""

    def __init__(self, variables: dict[str, str]) -> None:
        self.values = variables
        self.exported = dict(variables)

    def assign(self, argv: list[str]) -> bool:
        """Record `A=1 B=2` / `export A=1`; True when the command was only assignments."""
        exporting = argv[0] == "export"
        words = argv[1:] if argv[0] in DECLARE else argv
        words = [w for w in words if not w.startswith("-")]
        matches = [ASSIGNMENT.match(w) for w in words]
        if argv[0] not in DECLARE and not all(matches):
            return False
        for word, match in zip(words, matches, strict=True):
            if match:
                self.values[match.group(1)] = match.group(2)
            if exporting:
                name = match.group(1) if match else word
                if name in self.values:
                    self.exported[name] = self.values[name]
        return True

    def expand(self, words: list[str]) -> list[str]:
        out: list[str] = []
        for word in words:
            whole = VARIABLE.fullmatch(word)
            value = self._substitute(word)
            if whole and value != word and any(c.isspace() for c in value):
                out.extend(_split(value))  # unquoted `$FLAGS` splits into words
            elif value or not whole:
                out.append(value)
        return out

    def _substitute(self, word: str) -> str:
        def value_of(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(4)
            if name in self.values:
                return self.values[name]
            if match.group(2):  # ${NAME:-default}
                return self._substitute(match.group(3))
            return match.group(0)

        return VARIABLE.sub(value_of, word)


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _logical_lines(lines: list[str]) -> Iterator[tuple[int, int, list[str]]]:
    """(first index, last index, tokens) per logical line; heredoc bodies are skipped."""
    i = 0
    while i < len(lines):
        start, text = i, lines[i]
        tokens = None
        while tokens is None:
            while _continues(text) and i + 1 < len(lines):
                i += 1
                text = text[:-1] + lines[i]
            tokens = _tokens(text)
            if tokens is None and i + 1 < len(lines) and i - start < MAX_JOINED_LINES:
                i += 1
                text += "\n" + lines[i]
            elif tokens is None:
                tokens = text.split()
        yield start, i, tokens
        i = _after_heredoc(tokens, lines, i + 1)


def _continues(text: str) -> bool:
    trailing = len(text) - len(text.rstrip("\\"))
    return trailing % 2 == 1


def _tokens(text: str) -> list[str] | None:
    text = FD_REDIRECT.sub(r"\1\2", text)  # `2>&1`: the 2 is no argument
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:  # an unclosed quote: the command goes on on the next line
        return None


def _after_heredoc(tokens: list[str], lines: list[str], i: int) -> int:
    for at, token in enumerate(tokens[:-1]):
        if token in ("<<", "<<-"):
            delimiter = tokens[at + 1].lstrip("-")
            while i < len(lines) and lines[i].strip() != delimiter:
                i += 1
            return i + 1
    return i


def _simple_commands(tokens: list[str]) -> Iterator[list[str]]:
    words: list[str] = []
    redirected = False  # after `> file` nothing up to the next separator is an argument we care about
    for token in tokens:
        if token in SEPARATORS or (set(token) <= set(";&|()") and token):
            if words:
                yield words
            words, redirected = [], False
        elif token and set(token) <= set("<>&"):
            redirected = True
        elif redirected or (not words and token in KEYWORDS):
            continue
        else:
            words.append(token)
    if words:
        yield words
