"""Maps keyed by code-object *identity*.

Code objects compare equal by value (not by filename): the same source
compiled twice, or identical functions at the same line of two files, are
`==`. Every per-code table in sot must tell them apart, so none uses a plain
dict or set with code keys; they use CodeMap, which also keeps its keys alive
(so an id is never reused while the entry exists).
"""
from __future__ import annotations


class CodeMap:
    __slots__ = ("_items",)

    def __init__(self):
        self._items: dict[int, tuple[object, object]] = {}

    def get(self, code, default=None):
        item = self._items.get(id(code))
        return item[1] if item is not None else default

    def __setitem__(self, code, value) -> None:
        self._items[id(code)] = (code, value)

    def __contains__(self, code) -> bool:
        return id(code) in self._items

    def pop(self, code, default=None):
        item = self._items.pop(id(code), None)
        return item[1] if item is not None else default

    def items(self) -> list:
        return list(self._items.values())

    def values(self) -> list:
        return [v for _, v in self._items.values()]

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


class RecentCodes:
    """What was computed from the latest `size` codes (and a key), by code
    identity: a cache of decodings that does not keep every code alive.
    An entry holds its code, so its id is not reused while it is here."""
    __slots__ = ("_items", "_size")

    def __init__(self, size: int):
        self._items: dict = {}
        self._size = size

    def get(self, code, compute, key=None):
        """The value for (code, key), made by ``compute()`` the first time."""
        item = self._items.get((id(code), key))
        if item is None or item[0] is not code:
            if len(self._items) >= self._size:
                del self._items[next(iter(self._items))]
            item = self._items[(id(code), key)] = (code, compute())
        return item[1]
