"""Shell commands taken apart with bashlex, so rules can judge every command that would run.

:func:`analyze_command` parses a command line with :mod:`bashlex` and returns a
:class:`ShellAnalysis`:

* :class:`CommandUnit` - one simple command that would run: each command of a list
  (``&&``, ``||``, ``;``, ``&``, newlines), of a pipeline, of a subshell or group, of a
  compound (``if``/``for``/``while``/``until``), of a function body, and of every command
  substitution (``$(...)``, backticks) and process substitution (``<(...)``, ``>(...)``),
  at any depth;
* :class:`PathAccess` - a file the command line writes (output redirections ``>``, ``>>``,
  ``>|``, ``&>``, ``&>>``, ``<>``, ``>&file``; ``tee`` arguments) or reads (``<``);
  relative paths are resolved against the working directory, following ``cd``;
* :class:`Opaque` - something that cannot be judged (a command name or redirection target
  computed at run time, an option a wrapper does not document, an unquoted here-document
  with command substitutions, a construct bashlex does not support). It is never allowed
  automatically; it carries text for a conservative deny check.

Wrappers are unwrapped: environment prefixes (``FOO=1 cmd``), ``command``, ``builtin``,
``exec``, ``nohup``, ``setsid``, ``nice``, ``timeout``, ``stdbuf``, ``time``, ``env``,
``xargs``, ``watch`` (transparent: the inner command must be allowed), ``sudo``, ``doas``,
``find -exec`` (guarded: the wrapper and the inner command must both be allowed), and
``bash -c`` / ``sh -c`` / ``eval`` / a shell reading a here-document (the script is parsed
and judged command by command). Arguments a wrapper supplies at run time (``xargs``, the
``{}`` of ``find -exec``) appear as ``"\\x00"`` in the unit's forms.

A command whose parse fails gives an analysis with :attr:`ShellAnalysis.error` set and one
:class:`Opaque` item built from a textual split of the command line.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, Final, Literal

import attrs
import bashlex

__all__ = [
    "SENTINEL",
    "CommandUnit",
    "Cwds",
    "Opaque",
    "PathAccess",
    "ShellAnalysis",
    "analyze_command",
]

SENTINEL: Final = "\x00"
"""Stands for arguments only known at run time in a unit's forms."""

MAX_COMMAND_CHARS: Final = 100_000
MAX_DEPTH: Final = 8

Cwds = tuple[str | None, ...]
"""The possible working directories (``None``: unknown, after ``cd $X`` say)."""

SAFE_ENV_NAMES: Final = frozenset({
    "CI", "NODE_ENV", "DEBUG", "RUST_BACKTRACE", "RUST_LOG", "LANG", "LANGUAGE", "TZ",
    "NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS", "LINES", "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "VERBOSE",
})
"""Variables an environment prefix may set without changing which command an allow rule
matches (``CI=1 npm test`` is allowed by ``bash(npm test *)``); ``LC_*`` too. Any other
prefix (``PATH=``, ``LD_PRELOAD=``, ``GIT_SSH_COMMAND=``...) must be written in the rule."""

_PROXY_NAMES: Final = frozenset({"http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"})
_DEV_SINKS: Final = re.compile(r"/dev/(?:null|stdout|stderr|tty|zero|fd/\d+)")
_OUTPUT_REDIRECTS: Final = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"})


@attrs.frozen
class CommandUnit:
    """One simple command that would run.

    Attributes:
        text: the command as normalized (quotes removed, words joined by one space),
            environment prefix included.
        allow_forms: an allow rule matching any of these allows the unit.
        deny_forms: a deny or ask rule that may match any of these holds.
        required: the unit must be allowed for the whole command to be allowed (False for
            transparent wrappers, whose inner command is judged instead, and for ``cd``).
        args: argument words that may name files, with the directories they resolve in.
    """

    text: str
    allow_forms: tuple[str, ...]
    deny_forms: tuple[str, ...]
    required: bool = True
    args: tuple[PathAccess, ...] = ()


@attrs.frozen
class PathAccess:
    """A file a command line touches.

    Attributes:
        path: the path as written (quotes removed; ``~`` kept for the caller to expand).
        cwds: where a relative path resolves.
        access: ``write`` (redirection, ``tee``) or ``read`` (``<``, arguments).
        origin: what touches it, for reasons (``redirection `> out.txt```).
        glob: the word holds wildcard characters the shell would expand.
    """

    path: str
    cwds: Cwds
    access: Literal["write", "read"]
    origin: str
    glob: bool = False


@attrs.frozen
class Opaque:
    """Something the analysis cannot judge; never allowed automatically.

    Attributes:
        text: what could not be judged.
        reason: why.
        deny_forms: command texts for a conservative deny check (every word suffix).
        write_targets: redirection targets found textually (unparsable commands only).
        kind: ``command`` or ``path`` (a write to a path computed at run time).
    """

    text: str
    reason: str
    deny_forms: tuple[str, ...] = ()
    write_targets: tuple[str, ...] = ()
    kind: Literal["command", "path"] = "command"


@attrs.frozen
class ShellAnalysis:
    """The parts of one command line (see the module docs).

    Attributes:
        command: the command line.
        units: the simple commands, in source order.
        paths: the files written or read through redirections and ``tee``.
        opaque: what could not be judged.
        error: the parser's message when the whole line could not be parsed.
    """

    command: str
    units: tuple[CommandUnit, ...] = ()
    paths: tuple[PathAccess, ...] = ()
    opaque: tuple[Opaque, ...] = ()
    error: str | None = None


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
    walker = _Walker(home)
    error = walker.script(command, (cwd,), 0)
    if error is not None:
        return ShellAnalysis(command, error=error, opaque=(textual_opaque(command, error),))
    return ShellAnalysis(command, tuple(walker.units), tuple(walker.paths), tuple(walker.opaque))


# -- textual fallback ------------------------------------------------------------------

_SPLIT: Final = re.compile(r"\|\||&&|\$\(|[;&|\n(){}`]")
_TEXT_REDIRECT: Final = re.compile(r"(?:&>>?|>>?|>\||<>)\s*([^\s;&|<>()]+)")
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def textual_opaque(command: str, reason: str) -> Opaque:
    """An :class:`Opaque` item for a command that could not be parsed.

    The command line is split at every shell operator; every word suffix of every piece
    (leading assignments dropped, quotes removed where possible) becomes a deny form, so a
    denied command anywhere in it is still found. Redirection targets are found textually.
    """
    forms: list[str] = []
    for piece in _SPLIT.split(command):
        words = _loose_words(piece)
        while words and _ASSIGNMENT.match(words[0]):
            words = words[1:]
        forms.extend(_suffix_forms(words))
    targets = tuple(t.strip("'\"") for t in _TEXT_REDIRECT.findall(command))
    targets = tuple(t for t in targets if t and not t.isdigit() and t != "-" and not _DEV_SINKS.fullmatch(t))
    return Opaque(command, reason, tuple(dict.fromkeys(forms)), targets)


def _loose_words(text: str) -> list[str]:
    try:
        return shlex.split(text, posix=True)
    except ValueError:
        return [w.strip("'\"") for w in text.split()]


def _suffix_forms(words: Sequence[str]) -> list[str]:
    """Every word suffix joined (and with a path command name's basename), for deny checks;
    words with one comma brace group are also expanded as the shell would."""
    expanded: list[str] = []
    for word in words:
        match = _ONE_BRACE.fullmatch(word)
        if match is None:
            expanded.append(word)
        else:
            pre, items, post = match.groups()
            expanded.extend(pre + item + post for item in items.split(","))
    if expanded != list(words):
        return _plain_suffix_forms(words) + _plain_suffix_forms(expanded)
    return _plain_suffix_forms(words)


_ONE_BRACE: Final = re.compile(r"([^{}]*)\{([^{}]*,[^{}]*)\}([^{}]*)")


def _plain_suffix_forms(words: Sequence[str]) -> list[str]:
    forms: list[str] = []
    for index in range(len(words)):
        tail = list(words[index:])
        forms.append(" ".join(tail))
        if "/" in tail[0]:
            forms.append(" ".join([posixpath.basename(tail[0]), *tail[1:]]))
    return forms


# -- words -----------------------------------------------------------------------------


@attrs.frozen
class _Word:
    text: str
    dynamic: bool = False  # holds a parameter expansion or a substitution
    tilde: bool = False  # starts with an unquoted ~ the shell expands


def _word(node: Any, source: str) -> _Word:
    """A bashlex word node as a :class:`_Word`.

    bashlex decodes ``$'...'`` (ANSI-C) and ``$"..."`` (locale) quoting wrongly, so a word
    written with them is treated as computed at run time.
    """
    kinds = {part.kind for part in getattr(node, "parts", ()) or ()}
    start, end = getattr(node, "pos", (0, 0))
    raw = source[start:end]
    return _Word(
        node.word,
        dynamic=bool(kinds & {"parameter", "commandsubstitution", "processsubstitution"})
        or "$'" in raw or '$"' in raw,
        tilde="tilde" in kinds,
    )


_BRACE: Final = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_GLOB: Final = re.compile(r"[*?\[]")


def _expands(text: str) -> str | None:
    """Why the shell may turn a command name into something else, or ``None``."""
    if _BRACE.search(text):
        return "the command name undergoes brace expansion"
    if _GLOB.search(text):
        return "the command name is a wildcard the shell expands"
    return None


def _texts(words: Iterable[_Word]) -> list[str]:
    return [w.text for w in words]


# -- option scanning for wrappers ------------------------------------------------------


@attrs.frozen
class _Options:
    flags: str = ""
    valued: str = ""
    long_flags: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    numeric: bool = False  # ``-10`` style options (nice)


def _skip_options(args: Sequence[_Word], spec: _Options) -> tuple[int, list[tuple[str, str | None]]] | None:
    """Index of the first operand and the options seen, or ``None`` on an unknown option."""
    seen: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if word.dynamic:
            return None
        if text == "--":
            return i + 1, seen
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if name in spec.long_valued:
                if eq:
                    seen.append((name, value))
                elif i + 1 < len(args):
                    seen.append((name, args[i + 1].text))
                    i += 1
                else:
                    return None
            elif name in spec.long_flags and not eq:
                seen.append((name, None))
            else:
                return None
            i += 1
            continue
        if text.startswith("-") and len(text) > 1:
            if spec.numeric and text[1:].isdigit():
                i += 1
                continue
            j = 1
            while j < len(text):
                ch = text[j]
                if ch in spec.valued:
                    rest = text[j + 1 :]
                    if rest:
                        seen.append(("-" + ch, rest))
                    elif i + 1 < len(args):
                        seen.append(("-" + ch, args[i + 1].text))
                        i += 1
                    else:
                        return None
                    break
                if ch in spec.flags:
                    seen.append(("-" + ch, None))
                    j += 1
                    continue
                return None
            i += 1
            continue
        return i, seen
    return i, seen


_NICE = _Options(valued="n", long_valued=frozenset({"--adjustment"}), numeric=True)
_TIMEOUT = _Options(flags="v", valued="sk", long_flags=frozenset({"--foreground", "--preserve-status", "--verbose"}),
                    long_valued=frozenset({"--signal", "--kill-after"}))
_STDBUF = _Options(valued="ioe", long_valued=frozenset({"--input", "--output", "--error"}))
_ENV = _Options(flags="i0v", valued="u", long_flags=frozenset({"--ignore-environment", "--null", "--debug"}),
                long_valued=frozenset({"--unset"}))
_SUDO = _Options(flags="EHnSbkKAPis", valued="ugCDhprtTU",
                 long_flags=frozenset({"--preserve-env", "--login", "--shell", "--non-interactive", "--stdin",
                                       "--background", "--reset-timestamp", "--remove-timestamp", "--askpass",
                                       "--preserve-groups", "--set-home"}),
                 long_valued=frozenset({"--user", "--group", "--close-from", "--host", "--prompt", "--role",
                                        "--type", "--command-timeout", "--other-user"}))
_DOAS = _Options(flags="ns", valued="uC")
_XARGS = _Options(flags="0rtpxo", valued="adEILnPs",
                  long_flags=frozenset({"--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit",
                                        "--open-tty"}),
                  long_valued=frozenset({"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines",
                                         "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}))
_SHELL = _Options(flags="abefhkmnprstuvxBCEHPTlic", valued="oO",
                  long_flags=frozenset({"--login", "--norc", "--noprofile", "--posix", "--restricted",
                                        "--noediting", "--verbose"}),
                  long_valued=frozenset({"--rcfile", "--init-file"}))
_WATCH = _Options(flags="bcegtpwrx", valued="nd", long_flags=frozenset({"--beep", "--color", "--errexit",
                  "--chgexit", "--no-title", "--precise", "--no-wrap", "--exec"}),
                  long_valued=frozenset({"--interval", "--differences"}))
_TIME = _Options(flags="pvaq", valued="fo", long_flags=frozenset({"--portability", "--verbose", "--append", "--quiet"}),
                 long_valued=frozenset({"--format", "--output"}))
_SETSID = _Options(flags="cfw", long_flags=frozenset({"--ctty", "--fork", "--wait"}))
_EXEC = _Options(flags="cl", valued="a")
_COMMAND = _Options(flags="pvV")
_TEE = _Options(flags="aip", long_flags=frozenset({"--append", "--ignore-interrupts", "--output-error"}))


# -- the walker ------------------------------------------------------------------------

_HEREDOC_QUOTED: Final = re.compile(r"<<(-?)[ \t]*(?:'([\w.-]+)'|\"([\w.-]+)\"|\\([\w.-]+))")
_HEREDOC_PLAIN: Final = re.compile(r"<<-?[ \t]*([\w.-]+)")


class _Walker:
    """Walks bashlex trees, collecting units, paths and opaque items."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.units: list[CommandUnit] = []
        self.paths: list[PathAccess] = []
        self.opaque: list[Opaque] = []
        self.quoted_delimiters: set[str] = set()
        self.unquoted_delimiters: set[str] = set()
        self.source = ""

    # entry points

    def script(self, text: str, cwds: Cwds, depth: int) -> str | None:
        """Walk a whole script; returns an error message when it cannot be parsed."""
        if depth > MAX_DEPTH:
            return f"commands nested more than {MAX_DEPTH} levels deep"
        if len(text) > MAX_COMMAND_CHARS:
            return f"command longer than {MAX_COMMAND_CHARS} characters"
        if not text.strip():
            return None
        if "\x00" in text:
            return "the command holds a NUL character"
        rewritten = self._unquote_heredocs(text)
        self.source = rewritten
        try:
            trees = bashlex.parse(rewritten)
        except Exception as exc:  # bashlex raises ParsingError, NotImplementedError and others
            return f"the shell parser could not parse it ({type(exc).__name__}: {exc})"
        try:
            for tree in trees:  # lines run one after the other, whether or not a `cd` failed
                cwds = _union(cwds, self.node(tree, cwds, depth))
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

    # nodes

    def node(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        kind = node.kind
        if kind == "command":
            return self.simple(node, cwds, depth)
        if kind == "list":
            return self.sequence(node.parts, cwds, depth)
        if kind == "pipeline":
            for part in node.parts:
                if part.kind not in ("pipe", "reservedword"):
                    self.node(part, cwds, depth)
            return cwds
        if kind == "compound":
            return self.compound(node, cwds, depth)
        if kind in ("if", "for", "while", "until"):
            after = cwds
            for part in node.parts:
                if part.kind == "word":
                    self.substitutions(part, cwds, depth)
                elif part.kind not in ("reservedword", "operator"):
                    after = _union(after, self.node(part, cwds, depth))
            return after
        if kind == "function":
            for part in node.parts:
                if part.kind not in ("word", "reservedword"):
                    self.node(part, cwds, depth)
            return cwds
        if kind in ("reservedword", "operator", "pipe"):
            return cwds
        raise _Unsupported(f"unsupported shell construct {kind!r}")

    def sequence(self, parts: Sequence[Any], cwds: Cwds, depth: int) -> Cwds:
        current = cwds
        before = cwds
        for part in parts:
            if part.kind == "operator":
                if part.op == "&&":
                    continue
                current = _union(before, current)
                continue
            before = current
            current = self.node(part, current, depth)
        return current

    def compound(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        items = list(node.list)
        subshell = bool(items) and items[0].kind == "reservedword" and items[0].word == "("
        after = cwds
        for item in items:
            if item.kind == "reservedword":
                continue
            after = self.node(item, after, depth)
        for redirect in getattr(node, "redirects", ()) or ():
            self.redirect(redirect, cwds, depth, "(compound command)", None)
        return cwds if subshell else after

    def substitutions(self, node: Any, cwds: Cwds, depth: int) -> None:
        """Walk the command and process substitutions inside a word or assignment."""
        for part in getattr(node, "parts", ()) or ():
            if part.kind in ("commandsubstitution", "processsubstitution"):
                self.node(part.command, cwds, depth)
            else:
                self.substitutions(part, cwds, depth)

    # simple commands

    def simple(self, node: Any, cwds: Cwds, depth: int) -> Cwds:
        assignments: list[_Word] = []
        words: list[_Word] = []
        redirects: list[Any] = []
        for part in node.parts:
            if part.kind == "assignment":
                self.substitutions(part, cwds, depth)
                if words:  # `cmd A=1` - an argument, not an assignment
                    words.append(_word(part, self.source))
                else:
                    assignments.append(_word(part, self.source))
            elif part.kind == "word":
                self.substitutions(part, cwds, depth)
                words.append(_word(part, self.source))
            elif part.kind == "redirect":
                redirects.append(part)
            else:
                raise _Unsupported(f"unsupported part {part.kind!r} in a simple command")
        label = " ".join(_texts(assignments + words)) or "(redirection)"
        shell_name = posixpath.basename(words[0].text) if words and not words[0].dynamic else None
        for redirect in redirects:
            self.redirect(redirect, cwds, depth, label, shell_name if shell_name in _SHELLS else None)
        if not words:
            if assignments:
                self.assignment_only(assignments)
            return cwds
        name = posixpath.basename(words[0].text)
        if name in ("cd", "pushd", "popd") and not assignments:
            self.units.append(self.unit([], words, cwds, required=False))
            return self.change_directory(name, words[1:], cwds)
        self.command(assignments, words, cwds, depth)
        return cwds

    def assignment_only(self, assignments: Sequence[_Word]) -> None:
        """``NAME=value`` alone: neutral unless it may change what later commands do."""
        names = [a.text.partition("=")[0] for a in assignments]
        text = " ".join(_texts(assignments))
        neutral = all(_safe_env(n) or (n.islower() and n not in _PROXY_NAMES) for n in names)
        self.units.append(CommandUnit(text, (text,), (text,), required=not neutral))

    def change_directory(self, name: str, args: Sequence[_Word], cwds: Cwds) -> Cwds:
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

    def unit(self, assignments: Sequence[_Word], words: Sequence[_Word], cwds: Cwds, *, required: bool,
             args: Sequence[PathAccess] = ()) -> CommandUnit:
        word_texts = _texts(words)
        stripped = " ".join(word_texts)
        full = " ".join(_texts(assignments) + word_texts)
        allow: list[str] = [full]
        if assignments and all(_safe_env(a.text.partition("=")[0]) for a in assignments):
            allow.append(stripped)
        deny = [full, stripped]
        if words and "/" in words[0].text:
            deny.append(" ".join([posixpath.basename(words[0].text), *word_texts[1:]]))
        return CommandUnit(full, tuple(dict.fromkeys(allow)), tuple(dict.fromkeys(deny)), required, tuple(args))

    def command(self, assignments: Sequence[_Word], words: Sequence[_Word], cwds: Cwds, depth: int,
                *, required: bool = True) -> None:
        """Record one command (and what it wraps)."""
        why = "the command name is computed at run time" if words[0].dynamic else _expands(words[0].text)
        if why is not None:
            self.opaque.append(Opaque(" ".join(_texts([*assignments, *words])), why,
                                      tuple(_suffix_forms(_texts(words)))))
            return
        name = posixpath.basename(words[0].text)
        args = list(words[1:])
        handler = _WRAPPERS.get(name)
        outcome = handler(args) if handler is not None else None
        if outcome is not None:
            label = " ".join(_texts([*assignments, *words]))
            if outcome.mode == "opaque":
                self.units.append(self.unit(assignments, words, cwds, required=False))
                self.opaque.append(Opaque(label, outcome.reason, tuple(_suffix_forms(_texts(words)))))
                return
            if outcome.mode == "script":
                self.units.append(self.unit(assignments, words, cwds, required=False))
                self.nested_script(outcome.script, cwds, depth, label)
                return
            guarded = outcome.mode == "guarded"
            self.units.append(self.unit(assignments, words, cwds, required=required and guarded))
            for inner in outcome.inners:
                self.command([*assignments, *outcome.assignments], inner, cwds, depth, required=required)
            return
        if name == "tee":
            self.tee(args, cwds, " ".join(_texts(words)))
        self.units.append(self.unit(assignments, words, cwds, required=required, args=self.arguments(args, cwds, name)))

    def nested_script(self, script: str, cwds: Cwds, depth: int, label: str) -> None:
        nested = _Walker(self.home)
        error = nested.script(script, cwds, depth + 1)
        if error is not None:
            self.opaque.append(textual_opaque(script, f"{label}: {error}"))
            return
        self.units.extend(nested.units)
        self.paths.extend(nested.paths)
        self.opaque.extend(nested.opaque)

    def arguments(self, args: Sequence[_Word], cwds: Cwds, name: str) -> tuple[PathAccess, ...]:
        out: list[PathAccess] = []
        for arg in args:
            if arg.dynamic or not arg.text or SENTINEL in arg.text:
                continue
            text = arg.text
            if text.startswith("-"):
                _, eq, value = text.partition("=")
                if not eq or not value:
                    continue
                text = value
            if arg.tilde and (text == "~" or text.startswith("~/")):
                text = self.home + text[1:]
            out.append(PathAccess(text, cwds, "read", f"an argument of `{name}`", glob=bool(re.search(r"[*?\[]", text))))
        return tuple(out)

    def tee(self, args: Sequence[_Word], cwds: Cwds, label: str) -> None:
        scanned = _skip_options(args, _TEE)
        files = args if scanned is None else args[scanned[0] :]
        if scanned is None:
            files = [a for a in args if not a.text.startswith("-")]
        for word in files:
            self.write_target(word, cwds, f"written by `{label}`")

    def redirect(self, node: Any, cwds: Cwds, depth: int, label: str, shell: str | None) -> None:
        rtype = node.type
        output = node.output
        if rtype in ("<<", "<<-"):
            self.heredoc(node, cwds, depth, shell)
            return
        if not hasattr(output, "kind"):
            return  # a file-descriptor duplication such as 2>&1
        self.substitutions(output, cwds, depth)
        word = _word(output, self.source)
        if rtype == "<<<":
            if shell is not None and not word.dynamic:
                self.nested_script(word.text, cwds, depth, f"{shell} <<<")
            return
        if rtype in _OUTPUT_REDIRECTS:
            if rtype == ">&" and (word.text.isdigit() or word.text == "-"):
                return
            self.write_target(word, cwds, f"written by `{label} {rtype} {word.text}`")
        elif rtype in ("<", "<&"):
            if rtype == "<&" and (word.text.isdigit() or word.text == "-"):
                return
            if not word.dynamic:
                self.paths.append(PathAccess(self._tilde(word), cwds, "read", f"read by `{label} {rtype} {word.text}`"))

    def write_target(self, word: _Word, cwds: Cwds, origin: str) -> None:
        if word.dynamic:
            self.opaque.append(Opaque(word.text, f"{origin} writes to a path computed at run time", kind="path"))
            return
        path = self._tilde(word)
        if _DEV_SINKS.fullmatch(path):
            return
        self.paths.append(PathAccess(path, cwds, "write", origin, glob=bool(re.search(r"[*?\[]", path))))

    def heredoc(self, node: Any, cwds: Cwds, depth: int, shell: str | None) -> None:
        delimiter = getattr(node.output, "word", "")
        body = getattr(getattr(node, "heredoc", None), "value", "") or ""
        if body.endswith(delimiter):
            body = body[: -len(delimiter)]
        # literal only when every here-document with this delimiter had it quoted
        literal = delimiter in self.quoted_delimiters and delimiter not in self.unquoted_delimiters
        if not literal and ("$(" in body or "`" in body):
            self.opaque.append(textual_opaque(body, "an unquoted here-document runs command substitutions"))
            return
        if shell is not None:
            self.nested_script(body, cwds, depth, f"{shell} <<{delimiter}")

    def _tilde(self, word: _Word) -> str:
        text = word.text
        if word.tilde and (text == "~" or text.startswith("~/")):
            return self.home + text[1:]
        return text


class _Unsupported(Exception):
    """A construct the walker refuses to judge."""


def _union(a: Cwds, b: Cwds) -> Cwds:
    return tuple(dict.fromkeys((*a, *b)))


def _safe_env(name: str) -> bool:
    return name in SAFE_ENV_NAMES or name.startswith("LC_")


# -- wrappers --------------------------------------------------------------------------

@attrs.frozen
class _Unwrap:
    """How a wrapper runs what it wraps.

    ``transparent``: only the inner commands must be allowed; ``guarded``: the wrapper and
    the inner commands; ``script``: ``script`` is parsed and judged; ``opaque``: ``reason``.
    """

    mode: Literal["transparent", "guarded", "script", "opaque"]
    inners: tuple[tuple[_Word, ...], ...] = ()
    assignments: tuple[_Word, ...] = ()
    script: str = ""
    reason: str = ""


_Outcome = _Unwrap | None
"""``None``: not wrapping anything here (a plain command)."""


def _opaque(reason: str) -> _Unwrap:
    return _Unwrap("opaque", reason=reason)


def _wraps(*inners: Sequence[_Word], mode: Literal["transparent", "guarded"] = "transparent",
           assignments: Sequence[_Word] = ()) -> _Unwrap:
    return _Unwrap(mode, tuple(tuple(i) for i in inners if i), tuple(assignments))


def _after_options(spec: _Options, what: str) -> Callable[[list[_Word]], _Outcome]:
    def handler(args: list[_Word]) -> _Outcome:
        scanned = _skip_options(args, spec)
        if scanned is None:
            return _opaque(f"`{what}` with options the rules do not know")
        start, _ = scanned
        inner = args[start:]
        if not inner:
            return None
        return _wraps(inner)

    return handler


def _command_builtin(args: list[_Word]) -> _Outcome:
    scanned = _skip_options(args, _COMMAND)
    if scanned is None:
        return _opaque("`command` with options the rules do not know")
    start, seen = scanned
    if any(opt in ("-v", "-V") for opt, _ in seen) or not args[start:]:
        return None  # only looks the name up
    return _wraps(args[start:])


def _exec(args: list[_Word]) -> _Outcome:
    scanned = _skip_options(args, _EXEC)
    if scanned is None:
        return _opaque("`exec` with options the rules do not know")
    inner = args[scanned[0] :]
    return _wraps(inner) if inner else None


def _timeout(args: list[_Word]) -> _Outcome:
    scanned = _skip_options(args, _TIMEOUT)
    if scanned is None:
        return _opaque("`timeout` with options the rules do not know")
    rest = args[scanned[0] :]
    if len(rest) < 2:
        return None
    return _wraps(rest[1:])


def _env(args: list[_Word]) -> _Outcome:
    if any(a.text in ("-S", "-C") or a.text.startswith(("--split-string", "--chdir", "-S", "-C")) for a in args):
        return _opaque("`env` that splits strings or changes directory")
    cleaned = [a for a in args if a.text != "-"]
    scanned = _skip_options(cleaned, _ENV)
    if scanned is None:
        return _opaque("`env` with options the rules do not know")
    rest = cleaned[scanned[0] :]
    assignments: list[_Word] = []
    while rest and _ASSIGNMENT.match(rest[0].text):
        assignments.append(rest[0])
        rest = rest[1:]
    if not rest:
        return None
    return _wraps(rest, assignments=assignments)


def _privileged(spec: _Options, what: str) -> Callable[[list[_Word]], _Outcome]:
    def handler(args: list[_Word]) -> _Outcome:
        if what == "sudo" and any(a.text in ("-e", "--edit") for a in args):
            return _opaque("`sudo -e` edits files as another user")
        if any(a.text.startswith(("--chdir", "-D")) for a in args):
            return _opaque(f"`{what}` that changes directory")
        scanned = _skip_options(args, spec)
        if scanned is None:
            return _opaque(f"`{what}` with options the rules do not know")
        inner = args[scanned[0] :]
        if not inner:
            return None
        return _wraps(inner, mode="guarded")

    return handler


def _xargs(args: list[_Word]) -> _Outcome:
    replace: str | None = None
    cleaned: list[_Word] = []
    for arg in args:
        text = arg.text
        if text.startswith("-i") and not text.startswith("--"):  # -i[R]: replace mode
            replace = text[2:] or "{}"
            continue
        if text.startswith(("-e", "-l")) and not text.startswith("--") and len(text) > 2:
            continue  # -eEOF / -lN with attached values
        if text in ("-e", "-l"):
            continue
        cleaned.append(arg)
    scanned = _skip_options(cleaned, _XARGS)
    if scanned is None:
        return _opaque("`xargs` with options the rules do not know")
    start, seen = scanned
    for option, value in seen:
        if option in ("-I", "--replace"):
            replace = value or "{}"
    inner = cleaned[start:] or [_Word("echo")]
    if replace:
        words = [_Word(w.text.replace(replace, SENTINEL), w.dynamic, w.tilde) for w in inner]
    else:
        words = [*inner, _Word(SENTINEL)]
    return _wraps(words)


def _find(args: list[_Word]) -> _Outcome:
    inners: list[list[_Word]] = []
    i = 0
    while i < len(args):
        if args[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            inner: list[_Word] = []
            while j < len(args) and args[j].text not in (";", "+"):
                inner.append(_Word(args[j].text.replace("{}", SENTINEL), args[j].dynamic, args[j].tilde))
                j += 1
            if j == len(args) or not inner:
                return _opaque("`find -exec` without its terminating `;` or `+`")
            inners.append(inner)
            i = j
        i += 1
    if not inners:
        return None
    return _wraps(*inners, mode="guarded")


def _shell(args: list[_Word]) -> _Outcome:
    script_mode = False
    i = 0
    while i < len(args):
        text = args[i].text
        if args[i].dynamic:
            return _opaque("a shell started with options computed at run time")
        if text == "--":
            i += 1
            break
        if text.startswith("--"):
            if text in _SHELL.long_flags:
                i += 1
                continue
            if text in _SHELL.long_valued:
                i += 2
                continue
            return _opaque(f"a shell started with the option {text!r}")
        if text.startswith(("-", "+")) and len(text) > 1:
            letters = text[1:]
            if not all(ch in _SHELL.flags + _SHELL.valued for ch in letters):
                return _opaque(f"a shell started with the option {text!r}")
            if "c" in letters:
                script_mode = True
            if letters[-1] in _SHELL.valued:
                i += 1
            i += 1
            continue
        break
    if not script_mode:
        return None  # runs a script file or reads standard input: judged as written
    if i >= len(args):
        return _opaque("`-c` without a command string")
    if args[i].dynamic:
        return _opaque("a shell running a command string computed at run time")
    return _Unwrap("script", script=args[i].text)


def _eval(args: list[_Word]) -> _Outcome:
    if any(a.dynamic for a in args):
        return _opaque("`eval` of text computed at run time")
    if not args:
        return None
    return _Unwrap("script", script=" ".join(_texts(args)))


def _watch(args: list[_Word]) -> _Outcome:
    scanned = _skip_options(args, _WATCH)
    if scanned is None:
        return _opaque("`watch` with options the rules do not know")
    start, seen = scanned
    rest = args[start:]
    if not rest:
        return None
    if any(opt in ("-x", "--exec") for opt, _ in seen):
        return _wraps(rest)
    if any(a.dynamic for a in rest):
        return _opaque("`watch` of text computed at run time")
    return _Unwrap("script", script=" ".join(_texts(rest)))


def _time(args: list[_Word]) -> _Outcome:
    scanned = _skip_options(args, _TIME)
    if scanned is None:
        return _opaque("`time` with options the rules do not know")
    start, seen = scanned
    for option, value in seen:
        if option in ("-o", "--output") and value:
            return _opaque("`time -o` writes a file")
    rest = args[start:]
    return _wraps(rest) if rest else None


_WRAPPERS: Final[dict[str, Callable[[list[_Word]], _Outcome]]] = {
    "command": _command_builtin,
    "builtin": _after_options(_Options(), "builtin"),
    "exec": _exec,
    "nohup": _after_options(_Options(), "nohup"),
    "setsid": _after_options(_SETSID, "setsid"),
    "nice": _after_options(_NICE, "nice"),
    "timeout": _timeout,
    "stdbuf": _after_options(_STDBUF, "stdbuf"),
    "time": _time,
    "env": _env,
    "sudo": _privileged(_SUDO, "sudo"),
    "doas": _privileged(_DOAS, "doas"),
    "xargs": _xargs,
    "find": _find,
    "eval": _eval,
    "watch": _watch,
    **{name: _shell for name in _SHELLS},
}
