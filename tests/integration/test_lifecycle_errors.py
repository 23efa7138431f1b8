"""Bad input to the container, stack and pool methods: every bad param is an error whose data names the
field, and the connection keeps working; another connection's objects are unknown (-32002).

How the expected sequences are worked out, and the tags the tests compare: lifecyclemodel.py.
"""

from __future__ import annotations

from lifecyclemodel import session


BAD = [
    ("stack.create", {"width": -1, "height": 667}, -32602, "width"),
    ("stack.create", {"width": 375, "height": 0}, -32602, "height"),
    ("stack.create", {"width": 200000, "height": 667}, -32602, "width"),
    ("stack.create", {"width": "wide", "height": 667}, -32602, "width"),
    ("stack.create", {"width": 375}, -32602, "height"),
    ("stack.create", {"width": 375, "height": 667, "hidden": "no"}, -32602, "hidden"),
    ("stack.resize", {"stack": "$S", "width": -5, "height": 10}, -32602, "width"),
    ("stack.setHidden", {"stack": "$S"}, -32602, "hidden"),
    ("stack.setHidden", {"stack": "$S", "hidden": 0}, -32602, "hidden"),
    ("stack.push", {"stack": "$S"}, -32602, "container"),
    ("stack.push", {"stack": "$S", "container": "$C", "animated": "yes"}, -32602, "animated"),
    ("stack.push", {"stack": "s-999", "container": "$C"}, -32002, "stack"),
    ("stack.info", {"stack": "$S", "verbose": True}, -32602, "verbose"),
    ("stack.info", ["$S", 1], -32602, "params[1]"),
    ("classes.define", {"name": "X1", "hooks": {"viewDidExplode": {}}}, -32602, "hooks.viewDidExplode"),
    ("classes.define", {"name": "X2", "hooks": {"viewDidLoad": {"costMs": -1}}}, -32602, "hooks.viewDidLoad.costMs"),
    ("classes.define", {"name": "X3", "hooks": {"viewDidLoad": {"costMs": "slow"}}}, -32602, "hooks.viewDidLoad.costMs"),
    ("classes.define", {"name": "X4", "hooks": {"viewDidLoad": 5}}, -32602, "hooks.viewDidLoad"),
    ("classes.define", {"name": "X5", "hooks": [1]}, -32602, "hooks"),
    ("classes.define", {"name": "X6", "hooks": {"viewDidLoad": {"fail": "yes"}}}, -32602, "hooks.viewDidLoad.fail"),
    ("classes.define", {"name": "X7", "hooks": {"viewDidLoad": {"sleepMs": 1}}}, -32602, "hooks.viewDidLoad.sleepMs"),
    ("classes.define", {"name": "X8", "memoryBytes": -1}, -32602, "memoryBytes"),
    ("classes.define", {"name": "X9", "memoryBytes": 1.5}, -32602, "memoryBytes"),
    ("classes.define", {"name": ""}, -32602, "name"),
    ("classes.define", {"name": 5}, -32602, "name"),
    ("classes.define", {}, -32602, "name"),
    ("showRendered", {"class": "Nope"}, -32001, "class"),
    ("showRendered", {"class": 5}, -32602, "class"),
    ("showRendered", {"class": "Web", "stack": 5}, -32602, "stack"),
    ("showRendered", {"class": "Web", "animated": 1}, -32602, "animated"),
    ("showRendered", {"class": "Web", "stack": "s-999"}, -32002, "stack"),
    ("container.create", {"class": "Nope"}, -32001, "class"),
    ("container.create", {}, -32602, "class"),
    ("container.info", {"container": "c-999"}, -32002, "container"),
    ("container.info", {"container": 7}, -32602, "container"),
    ("container.configure", {"container": "$C"}, -32602, "data"),
    ("pool.configure", {"class": "Nope"}, -32001, "class"),
    ("pool.configure", {"class": "Web", "depth": -1}, -32602, "depth"),
    ("pool.configure", {"class": "Web", "depth": 100001}, -32602, "depth"),
    ("pool.configure", {"class": "Web", "depth": "3"}, -32602, "depth"),
    ("pool.configure", {"class": "Web", "policy": "always"}, -32602, "policy"),
    ("pool.configure", {"class": "Web", "width": 10}, -32602, "height"),
    ("pool.configure", {"class": "Web", "width": -10, "height": 10}, -32602, "width"),
    ("pool.warm", {"class": "Nope"}, -32001, "class"),
    ("pool.warm", {"class": "Web", "count": 1.5}, -32602, "count"),
    ("pool.status", {"class": "Nope"}, -32001, "class"),
    ("pool.status", {"class": 7}, -32602, "class"),
    ("pool.purge", {"class": "Nope"}, -32001, "class"),
]


KINDS = {-32602: "invalidParams", -32001: "unknownClass", -32002: "unknownObject"}


def test_bad_params_name_the_field_and_the_connection_keeps_working(vhost):
    s = session(vhost)
    s("classes.define", {"name": "Web"})
    stack = s("stack.create", {"width": 375, "height": 667})["stack"]
    c = s("container.create", {"class": "Web"})["container"]
    s("stack.push", {"stack": stack, "container": c})
    before = s("stack.info", {"stack": stack})

    def fill(v):
        if v == "$S":
            return stack
        if v == "$C":
            return c
        if isinstance(v, dict):
            return {k: fill(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fill(x) for x in v]
        return v

    wrong = []
    for method, params, code, path in BAD:
        reply = s.conn.call(method, fill(params))
        err = reply.get("error")
        if not err or err["code"] != code or err["data"].get("kind") != KINDS[code] or err["data"].get("path") != path:
            wrong.append(f"{method} {params}: expected {code} at {path}, got {reply}")
        s.conn.ping()
    assert not wrong, "\n".join(wrong)
    assert s("stack.info", {"stack": stack}) == before
    rejected = {"X1", "X2", "X3", "X4", "X5", "X6", "X7", "X8", "X9", ""}
    assert not rejected & {cl["name"] for cl in s("classes.list")["classes"]}, "a rejected define registered a class"
    s.assert_balanced()


def test_objects_of_another_connection_are_unknown(vhost):
    a, b = session(vhost), session(vhost)
    stack = a("stack.create", {"width": 375, "height": 667})["stack"]
    c = a("container.create", {"class": "Container"})["container"]
    err = b.error("container.release", {"container": c})
    assert err["code"] == -32002 and err["data"]["path"] == "container" and err["data"]["id"] == c, err
    err = b.error("stack.push", {"stack": stack, "container": c})
    assert err["code"] == -32002 and err["data"]["path"] == "stack", err
    assert a("container.info", {"container": c})["state"] == "fresh"
