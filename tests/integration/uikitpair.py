"""Driving the host and the independent UIKit model (uikitmodel.py) together: every call goes to both, and the
host's events (lifecycle and presentation, with `animated`, sizes and host-clock times) and errors must equal the
model's. Used by the tests of presentations and tab bars."""

from __future__ import annotations

import os

from grhost import EventCursor
from uikitmodel import Model, ModelError, from_wire

W, H = 390.0, 844.0


class Pair:
    """One host connection and the model, driven together: every call goes to both, and the events the host
    sent for it must equal the model's."""

    def __init__(self, conn, uikit: int = 17):
        self.p = EventCursor(conn).subscribe(["lifecycle", "presentation"])
        # UIKit tells every controller of a resize; Greenroom tells the classes that ask (an optional hook).
        self.cls = "Sized"
        self.p.conn.call("classes.define", {"name": self.cls, "hooks": {"viewWillTransitionToSize": {}}})
        self.m = Model(uikit_generation=uikit)
        self.m.now = float(self.p("clock.now")["ms"])
        self.log: list = []
        self.all_events: list = []

    def host_events(self):
        out = []
        for e in self.p.events():
            if e["method"] in ("lifecycle", "presentation"):
                out.append(from_wire(e["method"], e["params"]))
        return out

    def window(self) -> tuple[str, str]:
        """A stack holding one container (its window and root), at rest; setup events are not compared."""
        s = self.p("stack.create", {"width": W, "height": H})["stack"]
        root = self.p("container.create", {"class": self.cls})["container"]
        self.p("stack.push", {"stack": s, "container": root, "animated": False})
        self.m.create(root)
        self.m.window(s, W, H, root)
        self.p.skip()
        return s, root

    def container(self) -> str:
        c = self.p("container.create", {"class": self.cls})["container"]
        self.p.skip()
        self.m.create(c)
        return c

    def both(self, method: str, params: dict, model_call):
        """Runs `method` on the host and `model_call()` on the model; returns the host's reply. A ModelError
        must be the host's error code; a model warning (UIKit refuses and logs) must be the host's -32003
        with a `reason`; the events must be equal."""
        warnings = len(self.m.warnings)
        self.log.append((method, params))
        try:
            expected = model_call()
            model_error = None
        except ModelError as e:
            # A refusal after the transitions running on the chain completed: those end calls still came.
            expected, model_error = self.m._take(), e
        if isinstance(expected, tuple):
            expected = expected[0]
        reply = self.p.conn.call(method, params)
        got = self.host_events()
        self.all_events += got
        # PAIR_LOG=N shows the last N calls of a failing sequence (default 6).
        where = f"after {self.log[-int(os.environ.get('PAIR_LOG', 6)):]}"
        if model_error is not None:
            assert "error" in reply, f"model refused ({model_error}) but the host answered {reply} {where}"
            assert reply["error"]["code"] == model_error.code, (reply, str(model_error), where)
        elif len(self.m.warnings) > warnings:
            assert "error" in reply and reply["error"]["code"] == -32003, (reply, self.m.warnings[-1], where)
            assert reply["error"]["data"]["reason"] in ("alreadyPresenting", "presentationInProgress",
                                                        "notInWindowHierarchy"), reply
        else:
            assert "result" in reply, f"{reply} {where}"
        assert [str(e) for e in got] == [str(e) for e in expected], where
        return reply

    def present(self, presenter, container, style="pageSheet", animated=True, duration=None, modal=False,
                removes=None):
        params = {"presenter": presenter, "container": container, "style": style, "animated": animated}
        if duration is not None:
            params["duration"] = duration
        if modal:
            params["modalInPresentation"] = True
        if removes is not None:
            params["removesPresenterViews"] = removes
        return self.both("presentation.present", params,
                         lambda: self.m.present(presenter, container, style, animated, duration, modal, removes))

    def dismiss(self, container, animated=True, duration=None):
        params = {"container": container, "animated": animated}
        if duration is not None:
            params["duration"] = duration
        return self.both("presentation.dismiss", params, lambda: self.m.dismiss(container, animated, duration))

    def begin(self, container, should=True):
        return self.both("presentation.beginInteractiveDismiss", {"container": container, "shouldDismiss": should},
                         lambda: self.m.begin_interactive_dismiss(container, should))

    def update(self, container, progress):
        return self.both("presentation.updateInteractiveDismiss", {"container": container, "progress": progress},
                         lambda: self.m.update_interactive_dismiss(container, progress))

    def finish(self, container, duration=None):
        params = {"container": container} | ({"duration": duration} if duration is not None else {})
        return self.both("presentation.finishInteractiveDismiss", params,
                         lambda: self.m.finish_interactive_dismiss(container, duration))

    def cancel(self, container, duration=None):
        params = {"container": container} | ({"duration": duration} if duration is not None else {})
        return self.both("presentation.cancelInteractiveDismiss", params,
                         lambda: self.m.cancel_interactive_dismiss(container, duration))

    def advance(self, ms):
        return self.both("clock.advance", {"ms": ms}, lambda: self.m.advance(ms))

    def tabs(self, n: int, selected: int = 0, hidden: bool = False) -> tuple[str, list[str]]:
        """A tab bar of `n` new containers; its events are compared."""
        children = [self.container() for _ in range(n)]
        reply = self.p.conn.call("tabs.create", {"width": W, "height": H, "containers": children,
                                                 "selected": selected, "hidden": hidden})
        tid = reply["result"]["tabs"]
        expected = self.m.tabs_create(tid, W, H, children, selected, hidden)
        got = self.host_events()
        self.all_events += got
        assert [str(e) for e in got] == [str(e) for e in expected]
        return tid, children

    def select(self, tid, index):
        return self.both("tabs.select", {"tabs": tid, "index": index}, lambda: self.m.tabs_select(tid, index))

    def set_tabs(self, tid, containers, selected=None):
        params = {"tabs": tid, "containers": containers} | ({"selected": selected} if selected is not None else {})
        return self.both("tabs.setContainers", params, lambda: self.m.tabs_set_containers(tid, containers, selected))

    def resize(self, window, width, height, method="stack.resize"):
        key = "tabs" if method == "tabs.resize" else "stack"
        return self.both(method, {key: window, "width": width, "height": height},
                         lambda: self.m.resize(window, width, height))
