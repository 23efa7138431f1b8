"""Events and the router: handlers or queue, order kept, topic filters."""

from __future__ import annotations

from greenroom.events import Event, EventRouter, normalize_topics, topic_list


def test_event_accessors():
    event = Event("lifecycle", {"seq": 4, "t": 12.5, "hook": "viewDidLoad"})
    assert (event.seq, event.t, event["hook"], event.get("missing", 0)) == (4, 12.5, "viewDidLoad", 0)
    assert Event("x", [1]).seq is None


def test_topic_helpers():
    assert normalize_topics(None) is None
    assert normalize_topics("page") == frozenset({"page"})
    assert normalize_topics(["page", "range"]) == frozenset({"page", "range"})
    assert topic_list("page") == ["page"] and topic_list(("b", "a")) == ["b", "a"]


def test_router_queues_when_no_handler_and_takes_by_topic_in_order():
    router = EventRouter()
    events = [Event("page", {"seq": 1}), Event("range", {"seq": 2}), Event("page", {"seq": 3})]
    for event in events:
        assert router.route(event) == []
    assert router.queued() == 3 and router.queued(frozenset({"page"})) == 2
    assert router.take(frozenset({"range"})) is events[1]
    assert router.take() is events[0]
    assert router.take(frozenset({"range"})) is None
    assert router.take() is events[2]
    assert router.take() is None


def test_router_hands_events_to_handlers_instead():
    router = EventRouter()
    first, second = (lambda p: None), (lambda p: None)
    router.on("page", first)
    router.on("page", second)
    assert router.route(Event("page", {})) == [first, second]
    router.off("page", first)
    assert router.route(Event("page", {})) == [second]
    router.off("page")
    assert router.route(Event("page", {})) == [] and router.queued() == 1
