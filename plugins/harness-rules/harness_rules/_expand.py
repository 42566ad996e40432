"""Expansions the shell performs on words that bashlex leaves as text.

* :func:`brace_expand` - ``a{b,c}d`` → ``abd acd``, ``{1..3}`` → ``1 2 3``, nested too,
  bounded (``None`` past :data:`MAX_BRACE_WORDS`), so argument and redirection checks see
  every file a word names.
* :func:`parameter_problem` - why a ``${...}`` expansion may run code (a command
  substitution inside it, indirection ``${!x}``, an array subscript or substring offset,
  both arithmetic, the ``@P`` prompt transformation...), or ``None`` for the inert forms
  (``$x``, ``${x}``, ``${x:-text}``, ``${x#pat}``, ``${#x}``...).
* :func:`substitution_texts` - the command texts of ``$(...)`` and backtick substitutions
  found textually inside such an expansion, to be judged as scripts.
"""

from __future__ import annotations

import itertools
import re
from typing import Final

from ._builtins import CODE_ENV_EFFECT, code_env

__all__ = ["MAX_BRACE_WORDS", "brace_expand", "parameter_problem", "substitution_texts"]

MAX_BRACE_WORDS: Final = 256
"""The most words a brace expansion may produce before the word counts as unknown."""

_SEQ: Final = re.compile(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])")


def brace_expand(word: str) -> list[str] | None:
    """The words the shell's brace expansion makes of ``word`` (``[word]`` when it has no
    brace group); ``None`` when it would make more than :data:`MAX_BRACE_WORDS`."""
    out: list[str] = []
    todo = [word]
    while todo:
        current = todo.pop()
        group = _first_group(current)
        if group is None:
            out.append(current)
        else:
            start, end, items = group
            todo.extend(current[:start] + item + current[end:] for item in reversed(items))
        if len(out) + len(todo) > MAX_BRACE_WORDS:
            return None
    return out


def _first_group(word: str) -> tuple[int, int, list[str]] | None:
    """The first brace group with a comma or a sequence: (start, end, alternatives)."""
    i = 0
    while i < len(word):
        if word[i] == "\\":
            i += 2
            continue
        if word[i] == "{" and not (i and word[i - 1] == "$"):
            depth, j, commas = 0, i, []
            while j < len(word):
                ch = word[j]
                if ch == "\\":
                    j += 2
                    continue
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                    if depth == 0:
                        break
                elif ch == "," and depth == 1:
                    commas.append(j)
                j += 1
            if j >= len(word):
                return None
            body = word[i + 1 : j]
            if commas:
                bounds = [i, *commas, j]
                return i, j + 1, [word[a + 1 : b] for a, b in itertools.pairwise(bounds)]
            seq = _sequence(body)
            if seq is not None:
                return i, j + 1, seq
        i += 1
    return None


def _sequence(body: str) -> list[str] | None:
    match = _SEQ.fullmatch(body)
    if match is None:
        return None
    if match.group(4):
        a, b = ord(match.group(4)), ord(match.group(5))
        step = 1 if b >= a else -1
        return [chr(c) for c in range(a, b + step, step)][: MAX_BRACE_WORDS + 1]
    a, b = int(match.group(1)), int(match.group(2))
    step = abs(int(match.group(3) or 1)) or 1
    if abs(b - a) // step > MAX_BRACE_WORDS:
        return [str(a)] * (MAX_BRACE_WORDS + 1)
    step = step if b >= a else -step
    return [str(n) for n in range(a, b + (1 if step > 0 else -1), step)]


_NAME: Final = r"(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])"
_ASSIGNING: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):?=")
_INERT: Final = re.compile(
    rf"#?{_NAME}"  # $x ${#x}
    rf"|{_NAME}(?::?[-=?+]|##?|%%?|//?|\^\^?|,,?)[^$`(){{}}\\[\]]*"  # ${x:-word} ${x#pat} ${x/a/b}
    , re.DOTALL,
)


def parameter_problem(value: str) -> str | None:
    """Why the expansion ``${value}`` may run code, or ``None`` when it cannot.

    Args:
        value: the text inside ``${...}`` (bashlex's ``ParameterNode.value``; ``x`` for
            ``$x``).
    """
    assigned = _ASSIGNING.match(value)
    if assigned is not None and code_env(assigned.group(1)):
        return f"`${{{assigned.group(1)}:=...}}` assigns a variable that {CODE_ENV_EFFECT}"
    if _INERT.fullmatch(value):
        return None
    if "$(" in value or "`" in value or "<(" in value or ">(" in value:
        return "a parameter expansion holds a command substitution, which the shell parser does not read there"
    if value.startswith("!"):
        return "an indirect expansion `${!...}` expands a variable named at run time (and may evaluate a subscript)"
    if "[" in value:
        return "an array subscript is evaluated as arithmetic, which can run commands"
    if "@" in value[1:]:
        return "a parameter transformation `${x@...}` may expand prompts or quote for re-evaluation"
    if re.match(rf"{_NAME}:[^-=?+]", value):
        return "a substring offset is evaluated as arithmetic, which can run commands"
    return "a parameter expansion the rules do not understand"


def substitution_texts(value: str) -> list[str]:
    """The commands of every ``$(...)`` and backtick substitution in ``value`` (textual;
    nested parentheses and quotes balanced), at most 16."""
    found: list[str] = []
    i = 0
    while i < len(value) and len(found) < 16:
        if value.startswith("$(", i) and not value.startswith("$((", i):
            j, depth, quote = i + 2, 1, ""
            while j < len(value) and depth:
                ch = value[j]
                if quote:
                    if ch == quote:
                        quote = ""
                    elif ch == "\\" and quote == '"':
                        j += 1
                elif ch in "'\"":
                    quote = ch
                elif ch == "\\":
                    j += 1
                elif ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                j += 1
            found.append(value[i + 2 : j - 1] if depth == 0 else value[i + 2 :])
            i = j
        elif value[i] == "`":
            j = value.find("`", i + 1)
            found.append(value[i + 1 : j] if j > 0 else value[i + 1 :])
            i = j + 1 if j > 0 else len(value)
        else:
            i += 1
    return found
