"""One command that would run, judged with what it wraps: environment prefixes, evaluating
builtins, wrappers (:mod:`harness_rules._wrappers`), nested scripts, and the arguments
that may name files."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

import attrs

from ._builtins import EVALUATING_BUILTINS, code_env
from ._expand import brace_expand
from ._option_risks import option_problem
from ._trees import TREE_READERS, mark_trees
from ._units import (
    GLOB,
    CommandUnit,
    Cwds,
    Opaque,
    PathAccess,
    expands,
    guessed_names,
    safe_env,
    show_command,
    suffix_forms,
    textual_opaque,
    word_suffixes,
)
from ._walk_redirects import RedirectReader
from ._walk_words import INHERITED, Stdin
from ._words import SENTINEL, Suffixes, Word, texts
from ._wrappers import LEAF_COMMANDS, SHELLS, WRAPPERS, Unwrap

__all__ = ["CommandWalker", "argument_paths", "link_targets", "literal_argument", "make_unit", "plain_word", "unit_forms"]


class CommandWalker(RedirectReader):
    """Records commands (see the module docs)."""

    def unit(self, assignments: Sequence[Word], words: Sequence[Word], cwds: Cwds, *, required: bool,
             args: Sequence[PathAccess] = (), suffixes: Sequence[Suffixes] = (),
             unknown_args: str | None = None) -> CommandUnit:
        return make_unit(texts(assignments), texts(words), required, args, suffixes, unknown_args)

    def command(self, assignments: Sequence[Word], words: Sequence[Word], cwds: Cwds, depth: int,
                *, required: bool = True, stdin: Stdin = INHERITED) -> None:
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
        if name in ("cd", "pushd", "popd"):  # reached through a wrapper (`command cd`, `builtin cd`): not followed
            self.opaque.append(Opaque(label, "a directory change through a wrapper is not followed, so where later "
                                             "commands run is not known here", kind="read"))
        hidden = [a for a in assignments if code_env(a.text.partition("=")[0])]
        if hidden:
            self.env_code(hidden, assignments, words, cwds, depth, label)
            return
        check = EVALUATING_BUILTINS.get(name)
        problem = check(args) if check is not None else option_problem(name, [a.text for a in args])
        if problem is not None:
            paths, why = self.arguments(args, cwds, name)  # the files it names are still guarded
            self.units.append(self.unit(assignments, words, cwds, required=False, args=paths, unknown_args=why))
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
            if name in TREE_READERS or name == "git":
                paths, why = mark_trees(name, args, paths, cwds, why)
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
                *, required: bool, stdin: Stdin, label: str) -> None:
        """Record a wrapper and what it runs (see :class:`~harness_rules._wrappers.Unwrap`)."""
        for target, needed in outcome.writes:
            self.write_target(target, cwds, f"written by `{label}`", required=needed)
        if outcome.caveat:
            self.opaque.append(Opaque(label, outcome.caveat, tuple(suffix_forms(texts(words)))))
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
            before = len(self.units)
            self.nested_script(outcome.script, cwds, depth, label, stdin=stdin, placeholder=outcome.placeholder)
            if words[0].text.rpartition("/")[2] in ("eval", ".", "source") and any(
                    u.name in ("cd", "pushd", "popd") for u in self.units[before:]):  # runs in this shell
                self.opaque.append(Opaque(label, "a directory change in text this shell runs (`eval`, `source`) is "
                                                 "not followed, so where later commands run is not known here",
                                          kind="read"))
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

    def nested_script(self, script: str, cwds: Cwds, depth: int, label: str, *, stdin: Stdin = INHERITED,
                      placeholder: str | None = None) -> None:
        nested = type(self)(self.home, stdin, self.literal_ok)
        nested.fd_reads = self.fd_reads  # descriptors opened around the nested script stay open in it
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
        operands = False  # after `--`, every word is a file name, even `-x`
        for arg in args:
            if arg.dynamic and arg.output is not None and SENTINEL not in arg.output:
                arg = Word(arg.output, raw=arg.raw)  # "$(cat <<'EOF' ... EOF)": fixed text
            if arg.dynamic or SENTINEL in arg.text:
                why = why or (f"`{show_command(arg.raw or arg.text, 60)}` is only known at run time")
                continue
            if arg.text == "--" and not operands:
                operands = True
                continue
            found = literal_argument(arg.text, arg.tilde, cwds, origin, self.home, out, operand=operands)
            why = why or found
        if name == "ln":
            out.extend(PathAccess(p, cwds, "read", origin, glob=GLOB.search(p) is not None)
                       for p in link_targets([a.text for a in args if not a.dynamic]))
        return tuple(out), why


def unit_forms(assignments: Sequence[str], words: Sequence[str]) -> tuple[str, tuple[str, ...], tuple[str, ...], str]:
    """``(text, allow_forms, deny_forms, name)`` of a command of ``words`` (texts) run with
    the environment prefix ``assignments`` (``NAME=value`` texts): what
    :class:`CommandUnit` holds of them (a safe prefix may be left out of an allow form; a
    path command name also denies by its basename)."""
    stripped = " ".join(words)
    full = " ".join([*assignments, *words]) if assignments else stripped
    allow: list[str] = [full]
    if assignments and all(safe_env(a.partition("=")[0]) for a in assignments):
        allow.append(stripped)
    deny = [full, stripped]
    name = ""
    if words:
        first = words[0]
        name = first.rpartition("/")[2]
        if "/" in first:
            deny.append(" ".join([name, *words[1:]]))
    return full, tuple(dict.fromkeys(allow)), tuple(dict.fromkeys(deny)), name


def make_unit(assignments: Sequence[str], words: Sequence[str], required: bool, args: Sequence[PathAccess] = (),
              suffixes: Sequence[Suffixes] = (), unknown_args: str | None = None) -> CommandUnit:
    """The :class:`CommandUnit` of a command of ``words`` (texts) run with the environment
    prefix ``assignments`` (``NAME=value`` texts): its allow and deny forms
    (:func:`unit_forms`), name and the rest (see :class:`CommandUnit`)."""
    full, allow, deny, name = unit_forms(assignments, words)
    return CommandUnit(full, allow, deny, required, tuple(args), tuple([s for s in suffixes if s.indexes]),
                       unknown_args, name)


def plain_word(text: str) -> bool:
    """True when the argument ``text`` can only name the file ``text`` itself (no option,
    ``~``, brace, ``NAME=value`` or ``@file``): the common case, judged without
    :func:`argument_paths`."""
    return bool(text) and text[0] not in "-~{@" and "{" not in text and "=" not in text


def argument_paths(text: str, tilde: bool, home: str, *,
                   operand: bool = False) -> tuple[tuple[tuple[str, bool], ...], str | None]:
    """``(paths, why)``: the paths the literal argument ``text`` may name, each with whether
    it holds wildcard characters (each brace alternative; an option's ``=value`` or
    attached short-option value too; the value of ``NAME=value`` (``dd if=FILE``) and the
    file of ``@FILE`` (``curl -d @FILE``) too; ``~`` expanded to ``home`` when ``tilde``),
    and why part of it cannot be read (too many brace alternatives) or ``None``. An
    ``operand`` (after ``--``) is never an option. Pure string work."""
    if not text:
        return (), None
    if plain_word(text):  # the common case: one plain word
        return ((text, GLOB.search(text) is not None),), None
    why: str | None = None
    candidates = [text]
    if not operand and text.startswith("-") and len(text) > 1:
        _, eq, value = text.partition("=")
        candidates = [value] if eq and value else []
        if not text.startswith("--") and len(text) > 2:
            candidates.append(text[2:])  # -f.env
    for candidate in list(candidates):  # what a program may open of `if=FILE`, `@FILE`
        if "=" in candidate and not candidate.startswith("-") and candidate.partition("=")[2]:
            candidates.append(candidate.partition("=")[2])
        if candidate.startswith("@") and len(candidate) > 1:
            candidates.append(candidate[1:])
    out: list[tuple[str, bool]] = []
    for candidate in candidates:
        alternatives = brace_expand(candidate) if "{" in candidate else [candidate]
        if alternatives is None:
            why = why or f"`{show_command(candidate, 60)}` expands to too many words"
            continue
        for one in alternatives:
            if tilde and (one == "~" or one.startswith("~/")):
                one = home + one[1:]
            out.append((one, GLOB.search(one) is not None))
    return tuple(out), why


def literal_argument(text: str, tilde: bool, cwds: Cwds, origin: str, home: str, out: list[PathAccess], *,
                     operand: bool = False) -> str | None:
    """Append to ``out`` the paths the literal argument ``text`` may name
    (:func:`argument_paths`); returns why part of it cannot be read or ``None``."""
    paths, why = argument_paths(text, tilde, home, operand=operand)
    for path, glob in paths:
        out.append(PathAccess(path, cwds, "read", origin, glob=glob))
    return why


def link_targets(args: Sequence[str]) -> list[str]:
    """For ``ln -s`` with ``args``: each relative target joined to the directory the link
    is made in (the kernel reads a relative link from there, not from the working
    directory: ``ln -s ../.env src/x`` links to ``.env``), for the shell guard; ``[]``
    for a hard link or no relative target."""
    symbolic = False
    operands: list[str] = []
    target_dir: str | None = None
    i = 0
    while i < len(args):
        text = args[i]
        if text == "--":
            operands.extend(args[i + 1:])
            break
        if text.startswith("--"):
            symbolic = symbolic or text == "--symbolic"
            if text.startswith("--target-directory="):
                target_dir = text.partition("=")[2]
        elif text.startswith("-") and len(text) > 1:
            symbolic = symbolic or "s" in text[1:]
            if text[-1] in "tS" and i + 1 < len(args):  # -t DIR, -S SUFFIX take the next word
                if text[-1] == "t":
                    target_dir = args[i + 1]
                i += 1
        else:
            operands.append(text)
        i += 1
    if not symbolic:
        return []
    if target_dir is not None:
        return [posixpath.join(target_dir, t) for t in operands if not t.startswith("/")]
    if len(operands) == 2:
        target, link = operands
        if target.startswith("/"):
            return []
        return [posixpath.join(posixpath.dirname(link), target), posixpath.join(link, target)]
    return [posixpath.join(operands[-1], t) for t in operands[:-1] if not t.startswith("/")]

