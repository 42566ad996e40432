"""Deep-frozen JSON data: the form in which tool schemas are kept once defined.

:func:`freeze_json` turns JSON data into :class:`FrozenJsonObject` (a ``dict``) and
:class:`FrozenJsonArray` (a ``list``) all the way down. They *are* a dict and a list, so
everything that reads JSON keeps working unchanged (``json.dumps``, SDK clients, pydantic,
``jsonschema``, equality with plain data), but every mutating method raises
:class:`TypeError`. :func:`thaw_json` (or ``.to_json()``) gives a plain, mutable deep copy
for code that wants to edit one; ``dict(frozen)`` and ``frozen.copy()`` give plain shallow
copies (whose nested values stay frozen). ``copy.copy`` / ``copy.deepcopy`` return the
frozen value itself (it cannot change, so a copy is never needed) and pickling round-trips.

This guards against mistakes (an adapter or a test editing a tool's schema in place),
not against code that calls ``dict.__setitem__`` on purpose.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

__all__ = ["FrozenJsonArray", "FrozenJsonObject", "freeze_json", "thaw_json"]


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"{type(self).__name__} is frozen: use .to_json() for a mutable copy")


class FrozenJsonObject(dict[str, Any]):
    """A JSON object that cannot change: a ``dict`` whose mutating methods raise ``TypeError``.

    Build one with :func:`freeze_json` (values are frozen too).
    """

    __slots__ = ()

    def __new__(cls, items: Iterable[tuple[str, Any]] | Mapping[str, Any] = ()) -> FrozenJsonObject:
        obj = super().__new__(cls)
        pairs = items.items() if isinstance(items, Mapping) else items
        dict.update(obj, ((key, freeze_json(value)) for key, value in pairs))
        return obj

    def __init__(self, items: Iterable[tuple[str, Any]] | Mapping[str, Any] = ()) -> None:
        """Filled by ``__new__``; calling ``__init__`` again changes nothing."""

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset((key, _hashable(value)) for key, value in self.items()))

    def __copy__(self) -> FrozenJsonObject:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenJsonObject:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenJsonObject, (thaw_json(self),))

    def to_json(self) -> dict[str, Any]:
        """A plain, mutable deep copy (``dict`` and ``list`` all the way down)."""
        result: dict[str, Any] = thaw_json(self)
        return result


class FrozenJsonArray(list[Any]):
    """A JSON array that cannot change: a ``list`` whose mutating methods raise ``TypeError``.

    Build one with :func:`freeze_json` (items are frozen too).
    """

    __slots__ = ()

    def __new__(cls, items: Iterable[Any] = ()) -> FrozenJsonArray:
        obj = super().__new__(cls)
        list.extend(obj, (freeze_json(item) for item in items))
        return obj

    def __init__(self, items: Iterable[Any] = ()) -> None:
        """Filled by ``__new__``; calling ``__init__`` again changes nothing."""

    __setitem__ = _refuse
    __delitem__ = _refuse
    __iadd__ = _refuse
    __imul__ = _refuse
    append = _refuse
    extend = _refuse
    insert = _refuse
    pop = _refuse
    remove = _refuse
    clear = _refuse
    sort = _refuse
    reverse = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(_hashable(item) for item in self))

    def __copy__(self) -> FrozenJsonArray:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenJsonArray:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenJsonArray, (thaw_json(self),))

    def to_json(self) -> list[Any]:
        """A plain, mutable deep copy."""
        result: list[Any] = thaw_json(self)
        return result


def _hashable(value: Any) -> Any:
    return value if not isinstance(value, dict | list) else hash(value)


def freeze_json(value: Any) -> Any:
    """``value`` with every mapping a :class:`FrozenJsonObject` and every list or tuple a
    :class:`FrozenJsonArray`, recursively; other values (str, numbers, bools, None) as they
    are. Frozen values are returned as they are (no copy)."""
    if isinstance(value, FrozenJsonObject | FrozenJsonArray):
        return value
    if isinstance(value, Mapping):
        return FrozenJsonObject(value)
    if isinstance(value, list | tuple):
        return FrozenJsonArray(value)
    return value


def thaw_json(value: Any) -> Any:
    """A plain, mutable deep copy of JSON data: mappings become ``dict``, lists and tuples
    ``list``; other values as they are."""
    if isinstance(value, Mapping):
        return {key: thaw_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw_json(item) for item in value]
    return value
