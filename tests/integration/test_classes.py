"""Classes (rpc-schema/openrpc.json): classes.list with the built-ins (plugin null), classes.define (the
definition returned and listed last, positional params, a taken name -32003 keeping the first, bad params -32602
with data.path defining nothing, the 128-byte name limit, inclusive cost bounds), a scripted hook's output
returned and `fail` reported as pluginFailed. (classes.undefine is in test_host_reset.py.)

How the expectations are worked out and the hosts started: grhost.py.
"""

from __future__ import annotations

import pytest
from grhost import assert_error


def test_classes_list_has_the_builtins_with_plugin_null(host):
    classes = host.connect().result("classes.list")["classes"]
    assert classes[0] == {"name": "Container", "plugin": None, "scripted": False}, classes
    for cl in classes:
        assert set(cl) == {"name", "plugin", "scripted"}, cl


def test_classes_define_returns_the_definition_and_lists_it_last(host):
    c = host.connect()
    before = c.result("classes.list")["classes"]
    d = c.result("classes.define", {"name": "Card", "hooks": {"deinit": {}, "viewDidLoad": {"costMs": 0},
                                                              "init": {"output": [1]}}, "memoryBytes": 1024})
    assert d == {"name": "Card", "plugin": None, "scripted": True, "hooks": ["init", "viewDidLoad", "deinit"],
                 "memoryBytes": 1024}, d
    assert c.result("classes.define", {"name": "Plain"}) == {"name": "Plain", "plugin": None, "scripted": True,
                                                              "hooks": [], "memoryBytes": 0}
    after = c.result("classes.list")["classes"]
    assert after == before + [{"name": "Card", "plugin": None, "scripted": True},
                              {"name": "Plain", "plugin": None, "scripted": True}], after


def test_classes_define_accepts_positional_params(host):
    c = host.connect()
    d = c.result("classes.define", ["Pos", {"init": {}}, 8])
    assert d["name"] == "Pos" and d["hooks"] == ["init"] and d["memoryBytes"] == 8, d


def test_classes_define_of_a_taken_name_is_32003_and_keeps_the_first(host):
    c = host.connect()
    c.result("classes.define", {"name": "Card", "memoryBytes": 1})
    for name in ("Card", "Container"):
        assert_error(c.call("classes.define", {"name": name, "memoryBytes": 2}), -32003, kind="invalidState")
    names = [x["name"] for x in c.result("classes.list")["classes"]]
    assert names.count("Card") == 1 and names.count("Container") == 1
    # Another connection sees the same class (names are global to the host).
    other = host.connect()
    assert_error(other.call("classes.define", {"name": "Card"}), -32003)
    k = other.result("container.create", {"class": "Card"})["container"]
    assert other.result("container.info", {"container": k})["memoryBytes"] == 1


@pytest.mark.parametrize("params,path", [
    ({"name": "A", "hooks": {"viewDidExplode": {}}}, "hooks.viewDidExplode"),
    ({"name": "A", "hooks": {"unbalancedAppearanceTransition": {}}}, "hooks.unbalancedAppearanceTransition"),
    ({"name": "A", "hooks": {"viewdidload": {}}}, "hooks.viewdidload"),
    ({"name": "A", "hooks": {"viewDidLoad": {"costMs": -1}}}, "hooks.viewDidLoad.costMs"),
    ({"name": "A", "hooks": {"viewDidLoad": {"costMs": 10001}}}, "hooks.viewDidLoad.costMs"),
    ({"name": "A", "hooks": {"init": []}}, "hooks.init"),
    ({"name": "A", "memoryBytes": (1 << 30) + 1}, "memoryBytes"),
    ({"name": "A", "memoryBytes": "1"}, "memoryBytes"),
    ({"name": "x" * 129}, "name"),
    ({"name": "é" * 65}, "name"),
    ({"name": None}, "name"),
    ({"name": ["A"]}, "name"),
])
def test_classes_define_bad_params_are_32602_with_path_and_define_nothing(host, params, path):
    c = host.connect()
    before = c.result("classes.list")
    assert_error(c.call("classes.define", params), -32602, kind="invalidParams", path=path)
    assert c.result("classes.list") == before


def test_classes_define_name_limit_is_128_bytes_of_utf8(host):
    c = host.connect()
    assert c.result("classes.define", {"name": "x" * 128})["name"] == "x" * 128
    assert c.result("classes.define", {"name": "é" * 64})["name"] == "é" * 64


def test_classes_define_cost_bounds_are_inclusive(host):
    c = host.connect()
    c.result("classes.define", {"name": "Zero", "hooks": {"init": {"costMs": 0}}})
    c.result("classes.define", {"name": "Max", "hooks": {"init": {"costMs": 10000}}, "memoryBytes": 1 << 30})


def test_scripted_hook_output_is_returned_and_fail_is_plugin_failed(vhost):
    c = vhost.connect()
    out = {"x": [1, "a", None, {"y": 2.5}]}
    c.result("classes.define", {"name": "Out", "hooks": {"configure": {"output": out}}})
    k = c.result("container.create", {"class": "Out"})["container"]
    assert c.result("container.configure", {"container": k, "data": {"u": 1}}) == {"container": k, "output": out}
    c.result("classes.define", {"name": "Boom", "hooks": {"configure": {"fail": True}}})
    k = c.result("container.create", {"class": "Boom"})["container"]
    err = assert_error(c.call("container.configure", {"container": k, "data": {}}), -32004, kind="pluginFailed")
    assert err["data"].get("hook") == "configure" and err["data"].get("class") == "Boom", err
    assert_error(c.call("container.info", {"container": k}), -32002)
