"""harness_core.lazy_exports: a package's names imported on first use (PEP 562)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from harness_core import lazy_exports


@pytest.fixture
def package() -> Iterator[types.ModuleType]:
    module = types.ModuleType("lazy_probe_pkg")
    module.__path__ = []  # a package, so relative names resolve
    sys.modules["lazy_probe_pkg"] = module
    yield module
    for name in [n for n in sys.modules if n == "lazy_probe_pkg" or n.startswith("lazy_probe_pkg.")]:
        del sys.modules[name]


def test_a_name_loads_its_module_on_first_use_and_is_cached(package: types.ModuleType) -> None:
    package.__getattr__, package.__dir__ = lazy_exports(  # type: ignore[method-assign]
        "lazy_probe_pkg", {"dedent": "textwrap", "Fraction": "fractions"})
    sys.modules.pop("fractions", None)
    assert "Fraction" not in vars(package)
    from lazy_probe_pkg import Fraction  # type: ignore[import-not-found]

    assert Fraction.__module__ == "fractions" and "fractions" in sys.modules
    assert vars(package)["Fraction"] is Fraction  # cached: later reads are plain attributes
    assert {"dedent", "Fraction"} <= set(dir(package))


def test_an_unknown_name_is_an_attribute_error_naming_the_package(package: types.ModuleType) -> None:
    package.__getattr__, package.__dir__ = lazy_exports("lazy_probe_pkg", {})  # type: ignore[method-assign]
    with pytest.raises(AttributeError, match="module 'lazy_probe_pkg' has no attribute 'nope'"):
        package.nope  # noqa: B018
    with pytest.raises(ImportError):
        from lazy_probe_pkg import nope  # type: ignore[import-not-found]  # noqa: F401


def test_a_relative_module_resolves_against_the_package(package: types.ModuleType) -> None:
    child = types.ModuleType("lazy_probe_pkg.child")
    child.value = 42  # type: ignore[attr-defined]
    sys.modules["lazy_probe_pkg.child"] = child
    package.__getattr__, package.__dir__ = lazy_exports(  # type: ignore[method-assign]
        "lazy_probe_pkg", {"value": ".child"})
    assert package.value == 42
