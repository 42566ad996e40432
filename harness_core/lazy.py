"""Names a package imports on first use (PEP 562), for plugin packages and the core's own.

A plugin's entry-point module is imported by every ``harness`` command, and importing
``yourpkg.plugin`` imports ``yourpkg/__init__.py`` first; a package that re-exports its
public names eagerly makes every user pay for them at start-up. :func:`lazy_exports` gives
the package a module ``__getattr__`` / ``__dir__`` pair over a name -> module table::

    # yourpkg/__init__.py
    from typing import TYPE_CHECKING

    from harness_core import lazy_exports

    if TYPE_CHECKING:  # type checkers and IDEs see the names
        from yourpkg._adapter import YourAdapter

    _LAZY = {"YourAdapter": "yourpkg._adapter"}
    __all__ = ["YourAdapter"]
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY)

This module imports nothing beyond the standard library.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, table: Mapping[str, str]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A PEP 562 ``(__getattr__, __dir__)`` pair for the module named ``package``.

    Args:
        package: the module's ``__name__``.
        table: public name -> the module defining it (absolute, or relative to ``package``
            such as ``"._adapter"``).

    Returns:
        ``__getattr__(name)``, which imports ``name``'s module on first use and caches the
        value in the package (later lookups are plain attribute reads), raising
        :class:`AttributeError` for a name not in ``table``; and ``__dir__()``, the sorted
        union of the package's attributes and ``table``'s names.
    """

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
