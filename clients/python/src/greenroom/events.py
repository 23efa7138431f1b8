"""Events: host notifications, their handlers and the queue they wait in.

The rule both clients follow, in one place: a notification goes to the
handlers registered for its topic with ``on``; when its topic has none, it
waits in the queue that ``events()`` reads. Nothing is dropped and the order
of arrival is kept in both paths.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event", "EventRouter", "Handler", "TOPICS", "normalize_topics", "topic_list"]

#: The topics the host publishes (docs/protocol.md, "Events").
TOPICS = ("lifecycle", "pool", "page", "range", "prefetch", "batch", "host", "task", "viewable", "presentation")

#: A handler receives the notification's ``params`` (sync client: a plain
#: function; async client: a plain function or a coroutine function).
Handler = Callable[[Any], Any]


@dataclass(frozen=True)
class Event:
    """One notification from the host: ``topic`` is its method, ``params`` the event.

    ``event["kind"]`` and ``event.get("kind")`` read ``params``.
    """

    topic: str
    params: Any = field(default_factory=dict)

    @property
    def seq(self) -> int | None:
        """The per-connection sequence number (strictly increasing from 1)."""
        seq: int | None = self.get("seq")  # as the host sends it: params are not checked here
        return seq

    @property
    def t(self) -> float | None:
        """The host clock when the event happened, in milliseconds."""
        t: float | None = self.get("t")
        return t

    def get(self, key: str, default: Any = None) -> Any:
        """``params[key]`` or ``default`` (also when params is not an object)."""
        if isinstance(self.params, dict):
            return self.params.get(key, default)
        return default

    def __getitem__(self, key: str) -> Any:
        return self.params[key]


def normalize_topics(topics: str | Iterable[str] | None) -> frozenset[str] | None:
    """``"page"`` -> ``{"page"}``, an iterable -> a frozenset, None -> None (all topics)."""
    if topics is None:
        return None
    if isinstance(topics, str):
        return frozenset((topics,))
    return frozenset(topics)


def topic_list(topics: str | Iterable[str]) -> list[str]:
    """The ``topics`` member of ``events.subscribe``: ``"page"`` -> ``["page"]``, order kept."""
    return [topics] if isinstance(topics, str) else list(topics)


class EventRouter:
    """Handlers per topic plus the queue of events no handler took."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {}
        self._queue: deque[Event] = deque()

    def on(self, topic: str, handler: Handler) -> None:
        """Call ``handler(params)`` for every later event of ``topic``."""
        self._handlers.setdefault(topic, []).append(handler)

    def off(self, topic: str, handler: Handler | None = None) -> None:
        """Remove ``handler`` from ``topic`` (every handler of it when None)."""
        if handler is None:
            self._handlers.pop(topic, None)
            return
        handlers = self._handlers.get(topic, [])
        if handler in handlers:
            handlers.remove(handler)
        if not handlers:
            self._handlers.pop(topic, None)

    def route(self, event: Event) -> list[Handler]:
        """The handlers to call for ``event``; when there are none it is queued instead."""
        handlers = self._handlers.get(event.topic)
        if handlers:
            return list(handlers)
        self._queue.append(event)
        return []

    def take(self, topics: frozenset[str] | None = None) -> Event | None:
        """Remove and return the oldest queued event of ``topics`` (any topic when None)."""
        if topics is None:
            return self._queue.popleft() if self._queue else None
        for index, event in enumerate(self._queue):
            if event.topic in topics:
                del self._queue[index]
                return event
        return None

    def queued(self, topics: frozenset[str] | None = None) -> int:
        """How many queued events match ``topics``."""
        if topics is None:
            return len(self._queue)
        return sum(1 for event in self._queue if event.topic in topics)
