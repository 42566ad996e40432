"""Commands that read a whole directory tree (``grep -r``, ``rg``, ``cp -r``, ``tar``...).

The shell guard checks each argument of a command against read and edit deny rules. An
argument that is a directory is, for most commands, only a name (``ls src``, ``cd src``,
``grep x src`` fails with "Is a directory"). The commands of :data:`TREE_READERS` instead
read every file below a directory argument, so such an argument is marked
(:attr:`~harness_rules._units.PathAccess.tree`) and the engine walks the tree
(:func:`~harness_rules._probe.probe_tree`, symlinks followed) for denied paths; a tree
holding one is denied, a tree too large to walk is asked about.

Searchers that read the working directory when given no path (``rg x``, ``grep -r x``)
get an implicit ``.`` argument. When the options cannot be read exactly (an option the
grammar does not know), the implicit ``.`` is added anyway: walking a tree the command
might not read can only deny more.

Listing names (``ls -R``, ``find``, ``tree``, ``du``) is not reading contents and is not
walked; a command that reads what ``find`` lists (``find -exec``, ``| xargs``) gets its
arguments at run time and is never allowed automatically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from ._units import Cwds, PathAccess
from ._words import Word
from ._wrappers import subcommand_index

__all__ = ["TREE_READERS", "TreeReader", "mark_trees"]


@attrs.frozen
class TreeReader:
    """How a command says it reads directory trees.

    Attributes:
        short: short option letters that make it recursive (``grep -r``).
        long: long options that make it recursive (``--recursive``, ``--directories=recurse``).
        always: recursive whatever the options (``rg``, ``tar``).
        implicit_dot: reads the working directory when given no path operand.
        valued_short: short options that take a value (attached or next word).
        valued_long: long options that take a value as the next word (``--glob X``).
        pattern_short: short options that supply the pattern (so every operand is a path).
        pattern_long: long options that do the same.
        pattern_operand: without a pattern option, the first operand is the pattern.
        changes_dir: options that change the directory operands are read from
            (``tar -C``): the operands are then only known at run time.
    """

    short: str = ""
    long: frozenset[str] = frozenset()
    always: bool = False
    implicit_dot: bool = False
    valued_short: str = ""
    valued_long: frozenset[str] = frozenset()
    pattern_short: str = ""
    pattern_long: frozenset[str] = frozenset()
    pattern_operand: bool = False
    changes_dir: frozenset[str] = frozenset()


def _set(*names: str) -> frozenset[str]:
    return frozenset(names)


_GREP: Final = TreeReader(
    short="rR", long=_set("--recursive", "--dereference-recursive", "--directories=recurse", "-d=recurse"),
    implicit_dot=True, valued_short="efmABCdD",
    valued_long=_set("--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context",
                     "--directories", "--devices", "--include", "--exclude", "--exclude-dir", "--exclude-from",
                     "--label", "--binary-files"),
    pattern_short="ef", pattern_long=_set("--regexp", "--file"), pattern_operand=True,
)
_RG: Final = TreeReader(
    always=True, implicit_dot=True, valued_short="ABCEMdefgjmrtT",
    valued_long=_set("--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--type-add",
                     "--type-clear", "--max-count", "--after-context", "--before-context", "--context", "--encoding",
                     "--max-depth", "--maxdepth", "--threads", "--replace", "--max-columns", "--sort", "--sortr",
                     "--colors", "--color", "--pre", "--pre-glob", "--path-separator", "--ignore-file",
                     "--max-filesize", "--dfa-size-limit", "--regex-size-limit", "--context-separator",
                     "--field-match-separator", "--field-context-separator", "--engine", "--hyperlink-format"),
    pattern_short="ef", pattern_long=_set("--regexp", "--file", "--files", "--type-list"), pattern_operand=True,
)
_AG: Final = TreeReader(always=True, implicit_dot=True, valued_short="ABCGgm",
                        valued_long=_set("--after", "--before", "--context", "--file-search-regex", "--max-count",
                                         "--depth", "--ignore", "--ignore-dir", "--pager", "--workers"),
                        pattern_long=_set("--files-with-matches-only"), pattern_operand=True)
_COPY: Final = TreeReader(short="rRa", long=_set("--recursive", "--archive"), valued_short="tS",
                          valued_long=_set("--target-directory", "--suffix"))
_ARCHIVE: Final = TreeReader(always=True, changes_dir=_set("-C", "--directory"))

TREE_READERS: Final[dict[str, TreeReader]] = {
    "grep": _GREP, "egrep": _GREP, "fgrep": _GREP, "zgrep": _GREP,
    "rg": _RG, "ugrep": _RG, "ug": _RG,
    "ag": _AG, "ack": _AG, "ack-grep": _AG, "pt": _AG, "sift": _AG,
    "cp": _COPY, "scp": TreeReader(short="r", valued_short="cFiJlPSoD"),
    "rsync": TreeReader(short="ra", long=_set("--recursive", "--archive"), valued_short="e",
                        valued_long=_set("--rsh", "--exclude", "--include", "--filter")),
    "diff": TreeReader(short="r", long=_set("--recursive")),
    "zip": TreeReader(short="rR", long=_set("--recurse-paths", "--recurse-patterns")),
    "tar": _ARCHIVE, "bsdtar": _ARCHIVE, "7z": TreeReader(always=True), "7za": TreeReader(always=True),
    "cpio": TreeReader(always=True), "git grep": TreeReader(always=True, implicit_dot=True, valued_short="efmABC",
                                                              pattern_short="ef", pattern_operand=True),
}
"""Tree readers by command name (``git grep`` by tool and subcommand)."""


@attrs.frozen
class _Reading:
    recursive: bool
    operands: int
    pattern_given: bool
    uncertain: bool
    changes_dir: bool


def _read_options(reader: TreeReader, args: Sequence[Word]) -> _Reading:
    recursive = reader.always
    operands = 0
    pattern_given = uncertain = changes_dir = False
    i = 0
    while i < len(args):
        text = args[i].text
        i += 1
        if args[i - 1].dynamic:
            operands += 1
            uncertain = True
            continue
        if text == "--":
            operands += len(args) - i
            break
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if text in reader.long or (name in reader.long and not eq):
                recursive = True
            if name in reader.pattern_long:
                pattern_given = True
            if name in reader.changes_dir:
                changes_dir = True
            if name == "--directories" and (value if eq else (args[i].text if i < len(args) else "")) == "recurse":
                recursive = True
            if not eq and name in reader.valued_long:
                i += 1
            elif not eq and name not in reader.long and name not in reader.pattern_long:
                uncertain = True  # a long option the grammar does not know may take the next word
            continue
        if text.startswith("-") and len(text) > 1 and not text[1:].isdigit():
            for at, letter in enumerate(text[1:], start=1):
                if letter in reader.short:
                    recursive = True
                if letter in reader.pattern_short:
                    pattern_given = True
                if "-" + letter in reader.changes_dir:
                    changes_dir = True
                if letter in reader.valued_short:
                    value = text[at + 1 :]
                    if not value and i < len(args):
                        value = args[i].text
                        i += 1
                    if letter == "d" and value == "recurse":
                        recursive = True
                    break
            continue
        operands += 1
    return _Reading(recursive, operands, pattern_given, uncertain, changes_dir)


def _tar_creates(args: Sequence[Word]) -> bool:
    """``tar`` creates or appends to an archive (reads its operands): a mode letter ``c``,
    ``r`` or ``u`` in the first word (``czf``) or in a short option, or ``--create``,
    ``--append``, ``--update``. A word computed at run time counts as creating."""
    for index, word in enumerate(args):
        text = word.text
        if word.dynamic:
            return True
        if text == "--":
            break
        if text.startswith("--"):
            if text.partition("=")[0] in ("--create", "--append", "--update"):
                return True
        elif (text.startswith("-") or index == 0) and any(letter in "cru" for letter in text.lstrip("-")):
            return True
    return False


def mark_trees(name: str, args: Sequence[Word], paths: tuple[PathAccess, ...], cwds: Cwds,
               why: str | None) -> tuple[tuple[PathAccess, ...], str | None]:
    """Mark the arguments of a tree-reading command (see the module docs).

    Args:
        name: the command's name (basename).
        args: its argument words.
        paths: the arguments that may name files (from the walker).
        cwds: the directories it may run in.
        why: why some arguments are only known at run time, or ``None``.

    Returns:
        ``(paths, why)``: the paths marked ``tree`` (an implicit ``.`` added when the
        command reads the working directory), and the reason some arguments are known only
        at run time (a directory change such as ``tar -C``, ``git -C``).
    """
    reader = TREE_READERS.get(name)
    if name == "git":
        sub = subcommand_index("git", [a.text for a in args])
        if sub is None or args[sub].text != "grep":
            return paths, why
        if sub > 0:
            return paths, why or "`git` with global options before `grep` may search another directory"
        reader, args = TREE_READERS["git grep"], args[sub + 1 :]
    if reader is None or (reader is _ARCHIVE and not _tar_creates(args)):
        return paths, why  # `tar x`/`tar t` read the archive, not the operands' trees
    reading = _read_options(reader, args)
    if not reading.recursive:
        return paths, why
    if reading.changes_dir:
        why = why or f"`{name}` changes the directory its operands are read from"
    marked = tuple(attrs.evolve(p, tree=True) for p in paths)
    files = reading.operands - (1 if reader.pattern_operand and not reading.pattern_given else 0)
    if reader.implicit_dot and (files <= 0 or reading.uncertain):
        marked += (PathAccess(".", cwds, "read", f"the directory `{name}` searches when given no path", tree=True),)
    return marked, why
