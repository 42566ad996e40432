"""Shell commands taken apart, so rules can judge every command that would run.

:func:`analyze_command` parses a command line - with the fast pre-pass of
:mod:`harness_rules._fastparse` when it is plain, else with :mod:`bashlex` (imported on
first use) - walks the tree and returns a :class:`ShellAnalysis` (the types live in
:mod:`harness_rules._units`):

* :class:`CommandUnit` - one simple command that would run: each command of a list
  (``&&``, ``||``, ``;``, ``&``, newlines), of a pipeline, of a subshell or group, of a
  compound (``if``/``for``/``while``/``until``), of a function body, and of every command
  substitution (``$(...)``, backticks) and process substitution (``<(...)``, ``>(...)``),
  at any depth;
* :class:`PathAccess` - a file the command line writes (output redirections ``>``, ``>>``,
  ``>|``, ``&>``, ``&>>``, ``<>``, ``>&file``; ``tee`` arguments; files wrappers write) or
  reads (``<``); relative paths are resolved against the working directory, following
  ``cd``;
* :class:`Opaque` - something that cannot be judged (a command name or redirection target
  computed at run time, an option a wrapper does not document, a shell reading commands
  from a pipe, an unquoted here-document with command substitutions, a construct bashlex
  does not support). It is never allowed automatically; it carries text for a
  conservative deny check.

Wrappers (:mod:`harness_rules._wrappers`) are unwrapped: environment prefixes
(``FOO=1 cmd``), harmless wrappers whose inner command alone is judged (``nice``,
``ionice``, ``timeout``, ``env``, ``xargs``, ``busybox``...), guarded wrappers judged
together with their inner command (``sudo``, ``su -c``, ``find -exec``...), and wrappers
running shell text, which is parsed and judged command by command (``bash -c``, ``eval``,
``script -c``, ``parallel``...). A shell (or ``. /dev/stdin``) reading its standard input
runs what it reads: a here-document, a here-string, or the output of ``echo``/``printf``
of fixed text or ``cat`` of a literal here-document piped into it is judged as a script;
any other input is opaque. Arguments a wrapper supplies at run time (``xargs``, the ``{}``
of ``find -exec``) appear as ``"\\x00"`` in the unit's forms.

A command whose parse fails gives an analysis with :attr:`ShellAnalysis.error` set and one
:class:`Opaque` item built from a textual split of the command line.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Final, Literal

import attrs

from ._builtins import EVALUATING_BUILTINS, code_env
from ._expand import brace_expand, parameter_problem, substitution_texts
from ._fastparse import FastNode, FastWord, fast_parse
from ._units import (
    DEV_SINKS,
    GLOB,
    MAX_COMMAND_CHARS,
    MAX_DEPTH,
    OUTPUT_REDIRECTS,
    PROXY_NAMES,
    SAFE_ENV_NAMES,
    WORD_SPACE,
    CommandUnit,
    Cwds,
    Opaque,
    PathAccess,
    ShellAnalysis,
    expands,
    guessed_names,
    safe_env,
    show_command,
    suffix_forms,
    textual_opaque,
    union,
    word_suffixes,
)
from ._words import SENTINEL, Options, Suffixes, Word, skip_options, texts
from ._wrappers import LEAF_COMMANDS, SHELLS, WRAPPERS, Unwrap

__all__ = [
    "MAX_COMMAND_CHARS",
    "SAFE_ENV_NAMES",
    "SENTINEL",
    "WORD_SPACE",
    "CommandUnit",
    "Cwds",
    "Opaque",
    "PathAccess",
    "ShellAnalysis",
    "analyze_command",
    "show_command",
]

def analyze_command(command: str, cwd: str, home: str) -> ShellAnalysis:
    """Take ``command`` apart (see the module docs).

    Args:
        command: the shell command line.
        cwd: the absolute directory it starts in (the workspace root).
        home: the home directory (``cd`` with no argument, ``~``).

    Returns:
        The :class:`ShellAnalysis`; results are cached per ``(command, cwd, home)``.
    """
    return _analyze_cached(command, cwd, home)


@lru_cache(maxsize=4096)
def _analyze_cached(command: str, cwd: str, home: str) -> ShellAnalysis:
    if len(command) > MAX_COMMAND_CHARS:
        reason = (f"the command is {len(command)} characters long, more than the {MAX_COMMAND_CHARS} the rules "
                  "analyse")
        return ShellAnalysis(command, error=reason, opaque=(Opaque(show_command(command, 80), reason),))
    walker = _Walker(home)
    error = walker.script(command, (cwd,), 0)
    if error is not None:
        return ShellAnalysis(command, error=error, opaque=(textual_opaque(command, error),))
    return ShellAnalysis(command, tuple(walker.units), tuple(walker.paths), tuple(walker.opaque))


_TEE = Options(flags="aip", long_flags=frozenset({"--append", "--ignore-interrupts", "--output-error"}))
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
_ECHO_FLAGS: Final = re.compile(r"-[neE]+")
_UNSAFE_LITERAL: Final = re.compile(r"[\\*?\[{~]")


@attrs.frozen
class _Stdin:
    """Where a command's standard input comes from.

    ``inherited``: the caller's; ``literal``: ``text`` (a here-document, a here-string,
    fixed output piped in); ``pipe``: output known only at run time; ``file``: a file.
    """

    kind: Literal["inherited", "literal", "pipe", "file"]
    text: str = ""
    origin: str = ""


_INHERITED: Final = _Stdin("inherited")


# -- the walker ------------------------------------------------------------------------


class _Walker:
    """Walks bashlex trees, collecting units, paths and opaque items.

    Args:
        home: the home directory.
        stdin: the standard input commands inherit.
        literal_ok: outputs of ``echo``/``printf``/``cat`` may be taken as literal (False
            once the command line may redefine them).
    """

    def __init__(self, home: str, stdin: _Stdin = _INHERITED, literal_ok: bool = True) -> None:
        self.home = home
        self.units: list[CommandUnit] = []
        self.paths: list[PathAccess] = []
        self.opaque: list[Opaque] = []
        self.quoted_delimiters: set[str] = set()
        self.unquoted_delimiters: set[str] = set()
        self.source = ""
        self.stdin = stdin
        self.exec_stdin: _Stdin | None = None
        self.literal_ok = literal_ok

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
        self.literal_ok = self.literal_ok and _REDEFINES_OUTPUT.search(text) is None
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
        except _Unsupported as exc:
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

    # words

    def word(self, node: Any, *, unsplit: bool = False) -> Word:
        """A bashlex word node as a :class:`Word`.

        bashlex decodes ``$'...'`` (ANSI-C) and ``$"..."`` (locale) quoting wrongly, so a
        word written with them is treated as computed at run time. ``unsplit``: the word is
        not split into several (a here-string), so an unquoted substitution's output is
        its value.
        """
        if type(node) is FastWord:  # the fast pre-pass: literal text, no expansions
            start, end = node.pos
            return Word(node.word, raw=self.source[start:end])
        parts = list(getattr(node, "parts", ()) or ())
        kinds = {part.kind for part in parts}
        start, end = getattr(node, "pos", (0, 0))
        raw = self.source[start:end]
        output: str | None = None
        if len(parts) == 1 and parts[0].kind in ("commandsubstitution", "processsubstitution"):
            sub_start, sub_end = parts[0].pos
            whole = self.source[sub_start:sub_end]
            # a process substitution is one file name; a command substitution is one word
            # only inside double quotes (unquoted, its output is split and globbed)
            quoted = raw == f'"{whole}"' or (  # bashlex ends the node early when it holds a here-document
                raw.startswith('"$(') and raw.endswith(')"') and substitution_texts(raw[1:-1]) == [raw[3:-2]])
            if (raw == whole and (parts[0].kind == "processsubstitution" or unsplit)) or quoted:
                output = self.literal_output(parts[0].command)
        return Word(
            node.word,
            dynamic=bool(kinds & {"parameter", "commandsubstitution", "processsubstitution"})
            or "$'" in raw or '$"' in raw,
            tilde="tilde" in kinds,
            raw=raw,
            output=output,
        )

    def literal_output(self, node: Any) -> str | None:
        """What ``node`` prints when that is fixed text: ``echo`` or ``printf`` of plain words
        (no escapes, wildcards, expansions or ``printf`` directives), ``cat`` of a literal
        here-document or here-string; else ``None``."""
        if not self.literal_ok or node.kind != "command":
            return None
        words: list[Word] = []
        redirects: list[Any] = []
        for part in node.parts:
            if part.kind == "word":
                words.append(self.word(part))
            elif part.kind == "redirect":
                redirects.append(part)
            else:
                return None
        if not words or any(w.dynamic or w.tilde for w in words):
            return None
        name, args = words[0].text, texts(words[1:])
        if name == "echo" and not redirects:
            while args and _ECHO_FLAGS.fullmatch(args[0]):
                args = args[1:]
            return None if any(_UNSAFE_LITERAL.search(a) for a in args) else " ".join(args)
        if name == "printf" and not redirects and len(args) == 1:
            return None if "%" in args[0] or _UNSAFE_LITERAL.search(args[0]) else args[0]
        if name == "cat" and not args and len(redirects) == 1:
            redirect = redirects[0]
            if redirect.type == "<<<" and hasattr(redirect.output, "kind"):
                word = self.word(redirect.output, unsplit=True)
                return None if word.dynamic else word.text
            if redirect.type in ("<<", "<<-"):
                body, literal = self.heredoc_body(redirect)
                return body if literal or not re.search(r"[$`\\]", body) else None
        return None

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
            for part in node.parts:
                if part.kind == "word":
                    self.substitutions(part, cwds, depth)
                elif part.kind not in ("reservedword", "operator"):
                    after = union(after, self.node(part, cwds, depth))
            return after
        if kind == "function":
            name = next((p.word for p in node.parts if p.kind == "word"), "?")
            saved, self.stdin = self.stdin, _Stdin("pipe", origin=f"whatever the callers of `{name}` feed it")
            try:
                for part in node.parts:
                    if part.kind not in ("word", "reservedword"):
                        self.node(part, cwds, depth)
            finally:
                self.stdin = saved
            return cwds
        if kind in ("reservedword", "operator", "pipe"):
            return cwds
        raise _Unsupported(f"unsupported shell construct {kind!r}")

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
                    self.stdin = _Stdin("pipe", origin=shown) if text is None else _Stdin("literal", text, shown)
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
            raise _Unsupported("an arithmetic command `(( ... ))` evaluates expressions, which can run commands "
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
                saved, self.stdin = self.stdin, _Stdin("pipe", origin="what is written to `>(...)`")
                try:
                    self.node(part.command, cwds, depth)
                finally:
                    self.stdin = saved
            elif part.kind in ("commandsubstitution", "processsubstitution"):
                self.node(part.command, cwds, depth)
            elif part.kind == "parameter":
                self.parameter(part, cwds, depth)
            else:
                self.substitutions(part, cwds, depth)

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

    # simple commands

    def simple_cached(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        """:meth:`simple` for a command of the fast pre-pass, cached by its normalized text.

        Such a command holds no expansion or substitution, so what it contributes (units,
        paths, opaque items, the directories after it, an ``exec`` input) depends only on
        its words and redirections and on the context in the key: the directories it runs
        in, its standard input, whether ``echo`` output may be taken as literal, the
        shell's ``exec`` input, the nesting depth and the home directory. The same command
        inside different command lines is analysed once.
        """
        words = tuple(_fast_key(p) for p in node.parts)
        key = (words, cwds, self.stdin, self.literal_ok, self.exec_stdin, depth, self.home)
        hit = _SIMPLE_CACHE.get(key)
        if hit is None:
            units, paths, opaque = len(self.units), len(self.paths), len(self.opaque)
            source = self.source
            after = self.simple(node, cwds, depth)
            if self.source is source:
                hit = (tuple(self.units[units:]), tuple(self.paths[paths:]), tuple(self.opaque[opaque:]), after,
                       self.exec_stdin)
                if len(_SIMPLE_CACHE) >= 8192:
                    _SIMPLE_CACHE.clear()
                _SIMPLE_CACHE[key] = hit
            return after
        self.units.extend(hit[0])
        self.paths.extend(hit[1])
        self.opaque.extend(hit[2])
        self.exec_stdin = hit[4]
        cached: Cwds = hit[3]
        return cached

    def simple(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        assignments: list[Word] = []
        words: list[Word] = []
        redirects: list[Any] = []
        for part in node.parts:
            if part.kind == "assignment":
                self.substitutions(part, cwds, depth)
                if words:  # `cmd A=1` - an argument, not an assignment
                    words.append(self.word(part))
                else:
                    assignments.append(self.word(part))
            elif part.kind == "word":
                self.substitutions(part, cwds, depth)
                words.append(self.word(part))
            elif part.kind == "redirect":
                redirects.append(part)
            else:
                raise _Unsupported(f"unsupported part {part.kind!r} in a simple command")
        label = " ".join(texts(assignments + words)) or "(redirection)"
        stdin = self.stdin if self.stdin.kind != "inherited" or self.exec_stdin is None else self.exec_stdin
        for redirect in redirects:
            stdin = self.redirect(redirect, cwds, depth, label) or stdin
        if len(words) == 1 and words[0].text == "exec" and redirects:
            # `exec <file` redirects the shell itself: later commands read the same input
            self.exec_stdin = stdin if stdin.kind in ("inherited", "pipe") else _Stdin("pipe", origin=label)
        if not words:
            if assignments:
                self.assignment_only(assignments)
            return cwds
        name = words[0].text.rpartition('/')[2]
        if name in ("cd", "pushd", "popd") and not assignments:
            self.units.append(self.unit([], words, cwds, required=False))
            return self.change_directory(name, words[1:], cwds)
        self.command(assignments, words, cwds, depth, stdin=stdin)
        return cwds

    def assignment_only(self, assignments: Sequence[Word]) -> None:
        """``NAME=value`` alone: neutral unless it may change what later commands do."""
        names = [a.text.partition("=")[0] for a in assignments]
        text = " ".join(texts(assignments))
        neutral = all(safe_env(n) or (n.islower() and n not in PROXY_NAMES) for n in names)
        self.units.append(CommandUnit(text, (text,), (text,), required=not neutral))

    def change_directory(self, name: str, args: Sequence[Word], cwds: Cwds) -> Cwds:
        operands = [a for a in args if not (a.text.startswith("-") and len(a.text) > 1)]
        if name == "popd" or len(operands) > 1:
            return (None,)
        if not operands:
            return (self.home,) if name == "cd" else (None,)
        target = operands[0]
        if target.dynamic or target.text == "-":
            return (None,)
        path = target.text
        if target.tilde and (path == "~" or path.startswith("~/")):
            path = self.home + path[1:]
        out: list[str | None] = []
        for cwd in cwds:
            if posixpath.isabs(path):
                out.append(posixpath.normpath(path))
            elif cwd is None:
                out.append(None)
            else:
                out.append(posixpath.normpath(posixpath.join(cwd, path)))
        return tuple(dict.fromkeys(out))

    def unit(self, assignments: Sequence[Word], words: Sequence[Word], cwds: Cwds, *, required: bool,
             args: Sequence[PathAccess] = (), suffixes: Sequence[Suffixes] = (),
             unknown_args: str | None = None) -> CommandUnit:
        word_texts = texts(words)
        stripped = " ".join(word_texts)
        full = " ".join(texts(assignments) + word_texts)
        allow: list[str] = [full]
        if assignments and all(safe_env(a.text.partition("=")[0]) for a in assignments):
            allow.append(stripped)
        deny = [full, stripped]
        if words and "/" in words[0].text:
            deny.append(" ".join([words[0].text.rpartition('/')[2], *word_texts[1:]]))
        name = words[0].text.rpartition('/')[2] if words else ""
        return CommandUnit(full, tuple(dict.fromkeys(allow)), tuple(dict.fromkeys(deny)), required, tuple(args),
                           tuple([s for s in suffixes if s.indexes]), unknown_args, name)

    def command(self, assignments: Sequence[Word], words: Sequence[Word], cwds: Cwds, depth: int,
                *, required: bool = True, stdin: _Stdin = _INHERITED) -> None:
        """Record one command (and what it wraps)."""
        label = " ".join(texts([*assignments, *words]))
        why = "the command name is computed at run time" if words[0].dynamic else expands(words[0].text)
        if why is not None:
            forms = suffix_forms(texts(words))
            if words[0].dynamic:
                forms += guessed_names(words[0], texts(words[1:]))
            self.opaque.append(Opaque(label, why, tuple(forms)))
            return
        name = words[0].text.rpartition('/')[2]
        args = list(words[1:])
        hidden = [a for a in assignments if code_env(a.text.partition("=")[0])]
        if hidden:
            self.env_code(hidden, assignments, words, cwds, depth, label)
            return
        check = EVALUATING_BUILTINS.get(name)
        problem = check(args) if check is not None else None
        if problem is not None:
            self.units.append(self.unit(assignments, words, cwds, required=False))
            self.opaque.append(Opaque(label, problem, tuple(suffix_forms(texts(words)))))
            return
        handler = WRAPPERS.get(name)
        outcome = handler(args) if handler is not None else None
        if outcome is None:
            if name == "tee":
                self.tee(args, cwds, label)
            unknown = handler is None and name not in LEAF_COMMANDS
            suffixes = [word_suffixes(name, words)] if unknown else []
            if unknown and stdin.kind == "literal" and any(
                not w.dynamic and posixpath.basename(w.text) in SHELLS for w in args
            ):  # `ssh host bash <<< 'CMD'`, `docker exec -i c sh <<EOF`: the input may be run
                suffixes += textual_opaque(stdin.text, "").deny_forms
            paths, why = self.arguments(args, cwds, name)
            self.units.append(self.unit(assignments, words, cwds, required=required, args=paths,
                                        suffixes=suffixes, unknown_args=why))
            return
        self.wrapped(outcome, assignments, words, cwds, depth, required=required, stdin=stdin, label=label)

    def env_code(self, hidden: Sequence[Word], assignments: Sequence[Word], words: Sequence[Word], cwds: Cwds,
                 depth: int, label: str) -> None:
        """A command run with a variable that makes it run code its line does not show
        (``LD_PRELOAD=``, ``PATH=``, ``BASH_ENV=``, ``BASH_FUNC_x%%=``...): the command is
        still judged (deny rules hold) but never allowed automatically; an exported
        function's body is judged as a script."""
        for word in hidden:
            name, _, value = word.text.partition("=")
            if name.startswith("BASH_FUNC_") and value.lstrip().startswith("()"):
                self.nested_script("f" + value.lstrip(), cwds, depth, f"the function exported by `{name}`")
        plain = [a for a in assignments if a not in hidden]
        self.command(plain, words, cwds, depth, required=False)
        self.units.append(self.unit(assignments, words, cwds, required=False))
        names = ", ".join(f"`{w.text.partition('=')[0]}=`" for w in hidden)
        self.opaque.append(Opaque(label, f"{names} makes the command run code its command line does not show",
                                  tuple(suffix_forms(texts(words)))))

    def wrapped(self, outcome: Unwrap, assignments: Sequence[Word], words: Sequence[Word], cwds: Cwds, depth: int,
                *, required: bool, stdin: _Stdin, label: str) -> None:
        """Record a wrapper and what it runs (see :class:`~harness_rules._wrappers.Unwrap`)."""
        for target, needed in outcome.writes:
            self.write_target(target, cwds, f"written by `{label}`", required=needed)
        spelled = any(not safe_env(a.text.partition("=")[0]) for a in assignments)
        wrapper_required = required and (outcome.guarded or (spelled and outcome.kind != "argv"))
        if outcome.kind == "opaque":
            self.units.append(self.unit(assignments, words, cwds, required=False))
            self.opaque.append(Opaque(label, outcome.reason, tuple(suffix_forms(texts(words)))))
            return
        if outcome.kind == "argv":
            self.units.append(self.unit(assignments, words, cwds, required=wrapper_required))
            for inner in outcome.inners:
                self.command([*assignments, *outcome.assignments], inner, cwds, depth, required=required, stdin=stdin)
            return
        if outcome.kind == "script":
            self.units.append(self.unit(assignments, words, cwds, required=wrapper_required))
            self.nested_script(outcome.script, cwds, depth, label, stdin=stdin, placeholder=outcome.placeholder)
            return
        # the wrapper runs what it reads from standard input
        if stdin.kind == "literal":
            self.units.append(self.unit(assignments, words, cwds, required=wrapper_required))
            self.nested_script(stdin.text, cwds, depth, f"{label} reading {stdin.origin}")
            return
        if stdin.kind == "pipe" or outcome.stdin_fallback == "opaque":
            where = stdin.origin or ("a file" if stdin.kind == "file" else "the caller's standard input")
            self.units.append(self.unit(assignments, words, cwds, required=False))
            self.opaque.append(Opaque(label, f"{outcome.reason} ({where})", tuple(suffix_forms(texts(words)))))
            return
        self.units.append(self.unit(assignments, words, cwds, required=required))  # judged as written

    def nested_script(self, script: str, cwds: Cwds, depth: int, label: str, *, stdin: _Stdin = _INHERITED,
                      placeholder: str | None = None) -> None:
        nested = _Walker(self.home, stdin, self.literal_ok)
        error = nested.script(script, cwds, depth + 1)
        if error is not None:
            self.opaque.append(textual_opaque(script, f"{label}: {error}"))
            return
        if placeholder is None:
            self.units.extend(nested.units)
            self.paths.extend(nested.paths)
            self.opaque.extend(nested.opaque)
            return
        # `parallel`: replacement strings stand for arguments known only at run time
        pattern = re.compile(placeholder)

        def unknown(text: str) -> str:
            return pattern.sub(SENTINEL, text)

        for unit in nested.units:
            holes = [a for a in unit.args if pattern.search(a.path) is not None]
            self.units.append(attrs.evolve(
                unit, text=unknown(unit.text), allow_forms=tuple(unknown(f) for f in unit.allow_forms),
                deny_forms=tuple(unknown(f) for f in unit.deny_forms),
                suffixes=tuple(s.mapped(unknown) for s in unit.suffixes),
                args=tuple(a for a in unit.args if a not in holes),
                unknown_args=unit.unknown_args or ("`parallel` supplies arguments at run time" if holes else None),
            ))
        for access in nested.paths:
            if pattern.search(access.path) is None:
                self.paths.append(access)
            elif access.access == "write":
                self.opaque.append(Opaque(access.path, f"{access.origin} writes to a path known only at run time",
                                          kind="path"))
        for item in nested.opaque:
            self.opaque.append(attrs.evolve(item, deny_forms=tuple(f.mapped(unknown) for f in item.deny_forms)))

    def arguments(self, args: Sequence[Word], cwds: Cwds, name: str) -> tuple[tuple[PathAccess, ...], str | None]:
        """The argument words that may name files (each brace alternative; an option's
        ``=value`` or attached short-option value too), and why some arguments are only
        known at run time (``None`` when all are literal)."""
        out: list[PathAccess] = []
        why: str | None = None
        origin = f"an argument of `{name}`"
        for arg in args:
            if arg.dynamic and arg.output is not None and SENTINEL not in arg.output:
                arg = Word(arg.output, raw=arg.raw)  # "$(cat <<'EOF' ... EOF)": fixed text
            if arg.dynamic or SENTINEL in arg.text:
                why = why or (f"`{show_command(arg.raw or arg.text, 60)}` is only known at run time")
                continue
            text = arg.text
            if not text:
                continue
            if text[0] not in "-~{" and "{" not in text:  # the common case: one plain word
                out.append(PathAccess(text, cwds, "read", origin, glob=GLOB.search(text) is not None))
                continue
            candidates = [text]
            if text.startswith("-") and len(text) > 1:
                _, eq, value = text.partition("=")
                candidates = [value] if eq and value else []
                if not text.startswith("--") and len(text) > 2:
                    candidates.append(text[2:])  # -f.env
            for candidate in candidates:
                alternatives = brace_expand(candidate) if "{" in candidate else [candidate]
                if alternatives is None:
                    why = why or f"`{show_command(candidate, 60)}` expands to too many words"
                    continue
                for one in alternatives:
                    if arg.tilde and (one == "~" or one.startswith("~/")):
                        one = self.home + one[1:]
                    out.append(PathAccess(one, cwds, "read", origin, glob=bool(GLOB.search(one))))
        return tuple(out), why

    def tee(self, args: Sequence[Word], cwds: Cwds, label: str) -> None:
        scanned = skip_options(args, _TEE)
        files = args if scanned is None else args[scanned[0] :]
        if scanned is None:
            files = [a for a in args if not a.text.startswith("-")]
        for word in files:
            self.write_target(word, cwds, f"written by `{label}`")

    def redirect(self, node: Any, cwds: Cwds, depth: int, label: str) -> _Stdin | None:
        """Record a redirection; returns the standard input it sets up, if it does."""
        rtype = node.type
        output = node.output
        to_stdin = getattr(node, "input", None) in (None, 0)
        if rtype in ("<<", "<<-"):
            stdin = self.heredoc(node)
            return stdin if to_stdin else None
        if not hasattr(output, "kind"):  # a file-descriptor duplication such as 2>&1 or <&3
            if rtype == "<&" and to_stdin and output != 0:
                return _Stdin("pipe", origin=f"file descriptor {output}")
            return None
        self.substitutions(output, cwds, depth)
        word = self.word(output, unsplit=rtype == "<<<")
        if rtype == "<<<":
            if not to_stdin:
                return None
            if not word.dynamic:
                return _Stdin("literal", word.text, "a here-string")
            if word.output is not None:
                return _Stdin("literal", word.output, "a here-string")
            return _Stdin("pipe", origin="a here-string computed at run time")
        if rtype in OUTPUT_REDIRECTS:
            if rtype == ">&" and (word.text.isdigit() or word.text == "-"):
                return None
            self.write_target(word, cwds, f"written by `{label} {rtype} {word.text}`")
        elif rtype in ("<", "<&"):
            if rtype == "<&" and word.text == "-":
                return None
            if word.dynamic:
                self.opaque.append(Opaque(word.raw or word.text, f"`{label} {rtype}` reads a file named at run time",
                                          kind="read"))
                if not to_stdin:
                    return None
                if word.output is not None and word.raw.startswith("<("):  # `bash < <(echo ...)`
                    return _Stdin("literal", word.output, "a process substitution")
                return _Stdin("pipe", origin=f"`{show_command(word.raw or word.text, 60)}`, computed at run time")
            path = self._tilde(word)
            self.paths.append(PathAccess(path, cwds, "read", f"read by `{label} {rtype} {word.text}`",
                                         glob=bool(GLOB.search(path))))
            if to_stdin:
                return _Stdin("file", origin=f"`{word.text}`")
        return None

    def write_target(self, word: Word, cwds: Cwds, origin: str, *, required: bool = True) -> None:
        if word.dynamic:
            self.opaque.append(Opaque(word.text, f"{origin} writes to a path computed at run time", kind="path"))
            return
        path = self._tilde(word)
        if DEV_SINKS.fullmatch(path):
            return
        self.paths.append(PathAccess(path, cwds, "write", origin, glob=bool(GLOB.search(path)), required=required))

    def heredoc_body(self, node: Any) -> tuple[str, bool]:
        """A here-document's body and whether it is literal (quoted delimiter)."""
        delimiter = getattr(node.output, "word", "")
        body = getattr(getattr(node, "heredoc", None), "value", "") or ""
        if body.endswith(delimiter):
            body = body[: -len(delimiter)]
        # literal only when every here-document with this delimiter had it quoted
        literal = delimiter in self.quoted_delimiters and delimiter not in self.unquoted_delimiters
        return body, literal

    def heredoc(self, node: Any) -> _Stdin:
        body, literal = self.heredoc_body(node)
        if not literal and ("$(" in body or "`" in body):
            self.opaque.append(textual_opaque(body, "an unquoted here-document runs command substitutions"))
            return _Stdin("pipe", origin="a here-document with command substitutions")
        return _Stdin("literal", body, "a here-document")

    def _tilde(self, word: Word) -> str:
        text = word.text
        if word.tilde and (text == "~" or text.startswith("~/")):
            return self.home + text[1:]
        return text


_SIMPLE_CACHE: dict[Any, Any] = {}
"""Analyses of fast pre-pass simple commands (see :meth:`_Walker.simple_cached`)."""


def _fast_key(part: Any) -> Any:
    if part.kind == "redirect":
        output = part.output
        return ("redirect", part.type, getattr(part, "input", None), output if isinstance(output, int) else output.word)
    return (part.kind, part.word)


class _Unsupported(Exception):
    """A construct the walker refuses to judge."""
