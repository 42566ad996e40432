"""The rules files protect themselves: no tool call may change the rules that judge it.

An agent allowed to edit files (``allow-edits``, ``allow-all``, or an ``edit(./**)`` rule)
could otherwise write ``.harness/rules.local.toml`` with ``allow = ["bash(*)"]``, or
rewrite ``.harness/rules.toml`` without its deny rules, and have its next calls judged by
rules it wrote itself (files are re-read within a second). So every engine built from
rules files also holds one deny rule per rules directory in force:

* ``edit(./.harness)`` when the project or local layer is read (the directory and
  everything in it: creating ``rules.local.toml``, moving the directory away), and
  ``edit(**/.harness/rules.toml)``, ``edit(**/.harness/rules.local.toml)`` for the project
  files of workspaces below the root (a session there reads them);
* ``edit(//<dir>)`` for the user layer's directory (``~/.config/harness``), and
  ``edit(//<file>)`` for each explicit rules file (``--rules``), written absolute.

They are ``edit`` rules, so they hold for ``write`` and every editing tool, for shell
redirections and for the shell guard's written arguments (``cp x .harness/rules.toml``,
``mv``, ``sed -i``, ``tee``), under every spelling of the path. Reading the rules stays
as the other rules say; people edit the files themselves.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from ._errors import RuleSyntaxError
from ._syntax import Action, Rule, RuleOrigin, parse_rule

__all__ = ["PROTECT_LAYER", "PROTECT_SOURCE", "protecting_rules"]

PROTECT_LAYER: Final = "builtin"
"""The layer reported with the protecting rules."""
PROTECT_SOURCE: Final = "<harness-rules: the rules files are not changed through tool calls>"
"""Their source, as reasons show it."""

_GLOB: Final = re.compile(r"([*?\[\]\\])")


def _absolute_pattern(directory: str) -> str | None:
    """``//dir`` with gitignore wildcards escaped, or ``None`` for a path a pattern cannot
    spell (a newline, a trailing blank)."""
    if "\n" in directory or "\r" in directory or directory != directory.rstrip():
        return None
    return "//" + _GLOB.sub(r"\\\1", directory.lstrip("/"))


def protecting_rules(sources: Iterable[tuple[str, Path]]) -> tuple[Rule, ...]:
    """The deny rules protecting the rules files of ``sources`` (``(layer, path)`` pairs,
    existing or not) from tool calls; see the module docs."""
    specs: list[str] = []
    for layer, path in sources:
        if layer in ("project", "local"):  # and the project files of workspaces below this one
            for nested in ("./.harness", "**/.harness/rules.toml", "**/.harness/rules.local.toml"):
                if nested not in specs:
                    specs.append(nested)
            continue
        if layer == "user":
            spec: str | None = _absolute_pattern(os.path.normpath(os.path.abspath(path.parent)))
        else:  # an explicit file may sit anywhere, its directory holding the workspace: the file
            spec = _absolute_pattern(os.path.normpath(os.path.abspath(path)))
        if spec is not None and spec not in specs:
            specs.append(spec)
    rules: list[Rule] = []
    for spec in specs:
        try:
            rules.append(parse_rule(f"edit({spec})", Action.DENY, RuleOrigin(PROTECT_LAYER, PROTECT_SOURCE)))
        except RuleSyntaxError:  # pragma: no cover - a directory no pattern can name
            continue
    return tuple(rules)
