"""Path patterns: gitignore-style globs with a base, path spellings, and search probing.

A path specifier is compiled into a :class:`PathPattern`: a *base* directory and a
gitignore-style pattern relative to it (matched with :mod:`pathspec`'s gitignore patterns).

========================  ==========================  =====================================
specifier                  base                        pattern
========================  ==========================  =====================================
``./src/**``, ``./.env``   the workspace root          anchored at the base (``/src/**``)
``src/*.py``               the workspace root          anchored (it has a slash inside)
``*.pem``, ``secrets/``    the workspace root          at any depth below the base
``~/.ssh/**``              the home directory          anchored
``//etc/**``               ``/``                       anchored
``../shared/**``           the root's parent           anchored
========================  ==========================  =====================================

A single leading ``/`` is refused as ambiguous (absolute or workspace-relative?), as are
patterns that can match nothing (empty, ``//``, ``~``, an unclosed ``[``, negation).

A call's path is checked under every *spelling*: the lexically normalized absolute path
(``.`` and ``..`` folded, relative paths joined to the working directory) and the path with
every symlink resolved (:func:`os.path.realpath`), each matched against the base as written
and the base with its symlinks resolved. Denials match any spelling; an allow must hold for
every spelling.

Search roots (grep, glob, or any path that is an existing directory) are checked for what
they could reveal: a deny or ask pattern holds when it matches the directory or anything
below it, found by a bounded walk pruned to the subtrees the pattern can reach.
"""

from __future__ import annotations

from ._bases import Bases, normalize, relative
from ._pattern import BaseKind, PathPattern, compile_path_pattern
from ._probe import ProbeResult, probe_tree
from ._spellings import Spelling, spellings

__all__ = [
    "BaseKind",
    "Bases",
    "PathPattern",
    "ProbeResult",
    "Spelling",
    "compile_path_pattern",
    "normalize",
    "probe_tree",
    "relative",
    "spellings",
]
