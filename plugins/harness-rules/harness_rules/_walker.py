"""The shell walker: parses a script (fast pre-pass or bashlex) and walks lists, pipelines,
compound commands, functions, and substitutions at any depth (see :mod:`harness_rules._shell`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from ._builtins import CODE_ENV_EFFECT, code_env
from ._expand import parameter_problem, substitution_texts
from ._fastparse import FastNode, fast_parse
from ._units import (
    MAX_COMMAND_CHARS,
    MAX_DEPTH,
    Cwds,
    Opaque,
    show_command,
    textual_opaque,
    union,
)
from ._walk_simple import SimpleWalker
from ._walk_words import Stdin, Unsupported, behaviour_opaques

__all__ = ["Walker", "may_redefine_output"]

_HEREDOC_QUOTED: Final = re.compile(r"<<(-?)[ \t]*(?:'([\w.-]+)'|\"([\w.-]+)\"|\\([\w.-]+))")
_HEREDOC_PLAIN: Final = re.compile(r"<<-?[ \t]*([\w.-]+)")
_REDEFINES_OUTPUT: Final = re.compile(
    r"(?<![\w-])(?:echo|printf|cat)\s*\(\s*\)"  # a function named echo, printf or cat
    r"|\bfunction\s+(?:echo|printf|cat)\b"
    r"|(?<![\w-])(?:alias|enable|hash)(?![\w-])"  # aliases, disabled builtins, hashed paths
    r"|(?<![\w-])PATH\+?="  # another `cat`
)
"""Text that may change what ``echo``/``printf``/``cat`` print: their output is then not
taken as literal anywhere in the command line."""


def _may_redefine(text: str) -> bool:
    """False when :data:`_REDEFINES_OUTPUT` cannot match ``text``: each of its alternatives
    needs one of these substrings (a cheap test before the regular expression)."""
    return "(" in text or "function" in text or "alias" in text or "enable" in text or "hash" in text \
        or "PATH" in text


def may_redefine_output(text: str) -> bool:
    """True when ``text`` may change what ``echo``/``printf``/``cat`` print (their output
    is then never taken as literal, see :attr:`Walker.literal_ok`)."""
    return _may_redefine(text) and _REDEFINES_OUTPUT.search(text) is not None


class Walker(SimpleWalker):
    """Walks bashlex trees, collecting units, paths and opaque items.

    Args:
        home: the home directory.
        stdin: the standard input commands inherit.
        literal_ok: outputs of ``echo``/``printf``/``cat`` may be taken as literal (False
            once the command line may redefine them).
    """

    # entry points

    def script(self, text: str, cwds: Cwds, depth: int) -> str | None:
        """Walk a whole script; returns an error message when it cannot be parsed."""
        if depth > MAX_DEPTH:
            return f"commands nested more than {MAX_DEPTH} levels deep"
        if len(text) > MAX_COMMAND_CHARS:
            return f"the command is longer than {MAX_COMMAND_CHARS} characters"
        if not text.strip():
            return None
        if "\x00" in text:
            return "the command holds a NUL character"
        self.opaque.extend(behaviour_opaques(text))  # GLOBIGNORE, CDPATH
        if "<" in text:
            self.fd_reads = True
        if self.literal_ok and _may_redefine(text):
            self.literal_ok = _REDEFINES_OUTPUT.search(text) is None
        trees: Sequence[Any] | None = fast_parse(text)  # plain command lines, without bashlex
        if trees is not None:
            self.source = text
        else:
            rewritten = self._unquote_heredocs(text)
            self.source = rewritten
            import bashlex  # imported on first use: plugin discovery stays cheap

            try:
                trees = bashlex.parse(rewritten)
            except Exception as exc:  # bashlex raises ParsingError, NotImplementedError and others
                return f"the shell parser could not parse it ({type(exc).__name__}: {exc})"
        try:
            for tree in trees:  # lines run one after the other, whether or not a `cd` failed
                cwds = union(cwds, self.node(tree, cwds, depth))
        except Unsupported as exc:
            return str(exc)
        except RecursionError:
            return "commands nested too deeply to judge"
        return None

    def _unquote_heredocs(self, text: str) -> str:
        # bashlex cannot parse quoted here-document delimiters (<<'EOF'); the quotes only
        # switch off expansion in the body, so drop them and remember the body is literal.
        def repl(match: re.Match[str]) -> str:
            name = match.group(2) or match.group(3) or match.group(4)
            self.quoted_delimiters.add(name)
            return "<<" + match.group(1) + name

        self.unquoted_delimiters.update(_HEREDOC_PLAIN.findall(text))
        return _HEREDOC_QUOTED.sub(repl, text)

    # nodes

    def node(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        kind = node.kind
        if kind == "command":
            if type(node) is FastNode:
                return self.simple_cached(node, cwds, depth)
            return self.simple(node, cwds, depth)
        if kind == "list":
            return self.sequence(node.parts, cwds, depth)
        if kind == "pipeline":
            return self.pipeline(node, cwds, depth)
        if kind == "compound":
            return self.compound(node, cwds, depth)
        if kind in ("if", "for", "while", "until"):
            after = cwds
            if kind == "for":
                self.loop_variable(node)
            for part in node.parts:
                if part.kind == "word":
                    self.substitutions(part, cwds, depth)
                elif part.kind not in ("reservedword", "operator"):
                    after = union(after, self.node(part, cwds, depth))
            return after
        if kind == "function":
            name = next((p.word for p in node.parts if p.kind == "word"), "?")
            saved, self.stdin = self.stdin, Stdin("pipe", origin=f"whatever the callers of `{name}` feed it")
            try:
                for part in node.parts:
                    if part.kind not in ("word", "reservedword") and self.node(part, cwds, depth) != cwds:
                        self.opaque.append(Opaque(f"{name}()", f"the function `{name}` changes the directory, so "
                                                  "where commands after a call run is not known here", kind="read"))
            finally:
                self.stdin = saved
            return cwds
        if kind in ("reservedword", "operator", "pipe"):
            return cwds
        raise Unsupported(f"unsupported shell construct {kind!r}")

    def loop_variable(self, node: Any) -> None:
        """``for PATH in ...``, ``for HOME in ...``: the loop assigns a variable that makes
        the commands in its body run code or name other files; never allowed."""
        name = next((p.word for p in node.parts if p.kind == "word"), "")
        if code_env(name):
            self.opaque.append(Opaque(f"for {name} in ...", f"the loop assigns `{name}`, which {CODE_ENV_EFFECT}"))

    def pipeline(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        """Each stage reads the previous stage's output."""
        saved = self.stdin
        previous: Any = None
        try:
            for part in node.parts:
                if part.kind in ("pipe", "reservedword"):
                    continue
                if previous is not None:
                    start, end = previous.pos
                    shown = f"the output of `{self.source[start:min(end, start + 80)]}`"
                    text = self.literal_output(previous)
                    self.stdin = Stdin("pipe", origin=shown) if text is None else Stdin("literal", text, shown)
                self.node(part, cwds, depth)
                previous = part
        finally:
            self.stdin = saved
        return cwds

    def sequence(self, parts: Sequence[Any], cwds: Cwds, depth: int) -> Cwds:
        current = cwds
        before = cwds
        for part in parts:
            if part.kind == "operator":
                if part.op == "&&":
                    continue
                current = union(before, current)
                continue
            before = current
            current = self.node(part, current, depth)
        return current

    def compound(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        if self.source.startswith("((", node.pos[0]):
            raise Unsupported("an arithmetic command `(( ... ))` evaluates expressions, which can run commands "
                               "(bashlex reads it as nested subshells)")
        items = list(node.list)
        subshell = bool(items) and items[0].kind == "reservedword" and items[0].word == "("
        stdin = self.stdin
        for redirect in getattr(node, "redirects", ()) or ():
            stdin = self.redirect(redirect, cwds, depth, "(compound command)") or stdin
        saved, self.stdin = self.stdin, stdin
        after = cwds
        try:
            for item in items:
                if item.kind == "reservedword":
                    continue
                after = self.node(item, after, depth)
        finally:
            self.stdin = saved
        return cwds if subshell else after

    def substitutions(self, node: Any, cwds: Cwds, depth: int) -> None:
        """Walk the command and process substitutions inside a word or assignment; the
        commands of an output process substitution ``>(...)`` read what is written to it."""
        for part in getattr(node, "parts", ()) or ():
            if part.kind == "processsubstitution" and self.source[part.pos[0] : part.pos[0] + 2] == ">(":
                saved, self.stdin = self.stdin, Stdin("pipe", origin="what is written to `>(...)`")
                try:
                    self.node(part.command, cwds, depth)
                finally:
                    self.stdin = saved
            elif part.kind in ("commandsubstitution", "processsubstitution"):
                self.node(part.command, cwds, depth)
                self.multiline(part, node, cwds, depth)
            elif part.kind == "parameter":
                self.parameter(part, cwds, depth)
            else:
                self.substitutions(part, cwds, depth)

    def multiline(self, part: Any, word: Any, cwds: Cwds, depth: int) -> None:
        """A substitution spanning lines that bashlex did not read whole: it stops at the
        first line (``echo "$(true<newline>rm x)"`` gives ``true`` alone; a comment may
        hide the ``)``). Unless only blanks separate what it parsed (here-documents
        included) from the closing ``)``, the text is judged again as a script of its own
        and textually (deny rules hold), and it is never allowed automatically."""
        start = part.pos[0]
        end = max(part.pos[1], getattr(word, "pos", (0, 0))[1])
        text = self.source[start:end]
        if "\n" not in text:
            return
        closer = "`" if text[0] == "`" else ")"
        rest = self.source[_last_end(part.command, part.pos[0]) : end].lstrip(" \t\n")
        if rest.startswith(closer):
            return
        texts = substitution_texts(("$(" + text[2:]) if text[:2] in ("<(", ">(") else text)
        if texts:
            self.nested_script(texts[0], cwds, depth, "a substitution spanning lines")
        self.opaque.append(Opaque(show_command(text, 80), "a command or process substitution spanning lines is "
                                  "not read whole by the shell parser the rules use",
                                  tuple(textual_opaque(text[2:], "").deny_forms)))

    def parameter(self, node: Any, cwds: Cwds, depth: int) -> None:
        """A parameter expansion: bashlex does not parse what is inside ``${...}``, so
        command substitutions there are found textually and judged, and any form that
        may run code (substitutions, indirection, subscripts, arithmetic offsets, ``@P``)
        is never allowed automatically."""
        value = str(getattr(node, "value", ""))
        problem = parameter_problem(value)
        if problem is None:
            return
        shown = "${" + value + "}"
        for inner in substitution_texts(value):
            self.nested_script(inner, cwds, depth, f"a substitution inside `{show_command(shown, 80)}`")
        self.opaque.append(Opaque(shown, problem, tuple(textual_opaque(value, "").deny_forms)))



def _last_end(node: Any, floor: int) -> int:
    """The end of the last text any node below ``node`` (here-documents included) covers."""
    last = floor
    stack = [node]
    while stack:
        item = stack.pop()
        pos = getattr(item, "pos", None)
        if pos is not None:
            last = max(last, pos[1])
        for value in vars(item).values() if hasattr(item, "__dict__") else ():
            if isinstance(value, list):
                stack.extend(v for v in value if hasattr(v, "kind"))
            elif hasattr(value, "kind"):
                stack.append(value)
    return last
