"""A tiny synchronous signal: the core announces changes without depending on Qt.

The Qt layer connects its own slots (which may re-emit as Qt signals); tests connect plain
functions. Slots are called in connection order, on the emitting thread, before `emit` returns.
"""

from __future__ import annotations

from typing import Any, Callable


class Signal:
    """A list of callables; `emit(*args)` calls each with the arguments.

    Slots are held by strong reference, so disconnect a bound method when its owner goes away.
    Connecting the same callable twice keeps one connection (Qt would call it twice, which is
    never what a listener in this code base wants).
    """

    def __init__(self) -> None:
        self._slots: list[Callable[..., Any]] = []

    def connect(self, fn: Callable[..., Any]) -> None:
        if not callable(fn):
            raise TypeError(f"cannot connect a non-callable {fn!r}")
        if fn not in self._slots:
            self._slots.append(fn)

    def disconnect(self, fn: Callable[..., Any]) -> bool:
        """Remove `fn`; return whether it was connected (no error if it was not)."""
        try:
            self._slots.remove(fn)
        except ValueError:
            return False
        return True

    def emit(self, *args: Any) -> None:
        # Iterate over a copy: a slot may connect or disconnect slots while we emit.
        for fn in list(self._slots):
            fn(*args)

    def __len__(self) -> int:
        return len(self._slots)
