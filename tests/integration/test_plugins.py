"""The example plugins through the real binary: `serve --plugin`, their classes over the socket, a failing
hook that fails only its container, and every start-up error a bad plugin gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: The example plugins are built next to the binary: GREENROOM_BIN's directory (a build with its own
#: --scratch-path), else the repo's .build/debug.
LIBS = Path(os.environ["GREENROOM_BIN"]).resolve().parent if os.environ.get("GREENROOM_BIN") else \
    REPO / ".build" / "debug"


def lib(name: str) -> str:
    path = LIBS / f"lib{name}.so"
    assert path.is_file(), f"{path} is missing: build with `swift build --build-tests`"
    return str(path)


@pytest.fixture
def plugin_host(start_host):
    return start_host("--clock", "virtual", "--plugin", lib("ArticlePlugin"), "--plugin", lib("CounterPlugin"))


def test_plugin_classes_are_listed_with_their_plugin(plugin_host):
    c = plugin_host.connect()
    classes = {k["name"]: k for k in c.result("classes.list")["classes"]}
    assert classes["Article"]["plugin"] == "article" and classes["Article"]["scripted"] is False
    assert classes["Counter"]["plugin"] == "counter"
    plugins = {p["name"]: p for p in c.result("host.info")["plugins"]}
    assert plugins["article"]["classes"] == ["Article"]
    assert plugins["counter"]["path"].endswith("libCounterPlugin.so")


def test_article_renders_business_data_after_display(plugin_host):
    c = plugin_host.connect()
    stack = c.result("stack.create", {"width": 375, "height": 667})["stack"]
    shown = c.result("showRendered", {"class": "Article", "stack": stack,
                                      "data": {"title": "Green <room>", "body": "text", "items": [{"name": "a"}]}})
    out = shown["output"]
    assert out["title"] == "Green <room>"
    assert out["bytes"] > 100
    info = c.result("container.info", {"container": shown["container"]})
    assert info["viewLoaded"] is True and info["appearance"] == "appeared"
    assert info["memoryBytes"] > 0


def test_a_failing_plugin_hook_fails_only_its_container(plugin_host):
    c = plugin_host.connect()
    c.result("events.subscribe", {"topics": ["lifecycle"]})
    good = c.result("container.create", {"class": "Counter"})["container"]
    bad = c.result("container.create", {"class": "Article"})["container"]
    reply = c.call("container.configure", {"container": bad, "data": {"fail": True}})
    err = reply["error"]
    assert err["code"] == -32004, err
    assert err["data"]["kind"] == "pluginFailed"
    assert err["data"]["container"] == bad and err["data"]["hook"] == "configure"
    # A person can read it: the plugin's own "Article.configure failed on purpose: ..." is not repeated
    # after a second "Article.configure failed: ".
    assert err["message"].count("Article.configure failed") == 1, err["message"]
    assert "on purpose" in err["message"] and bad in err["message"], err["message"]
    assert c.call("container.info", {"container": bad})["error"]["code"] == -32002
    out = c.result("container.configure", {"container": good, "data": {}})["output"]
    assert out["calls"] >= 2
    assert c.result("host.stats")["unbalancedTransitions"] == 0


@pytest.mark.parametrize("name, needle", [
    ("BadABIPlugin", "ABI version mismatch"),
    ("NoEntryPlugin", "greenroom_plugin_init"),
])
def test_bad_plugins_are_clear_start_up_errors(start_host, name, needle):
    err = start_host.fail("--plugin", lib(name))
    assert err.returncode == 2, err
    assert needle in err.stderr, err.stderr


def test_missing_plugin_file_is_a_clear_start_up_error(start_host, tmp_short):
    err = start_host.fail("--plugin", f"{tmp_short}/nope.so")
    assert err.returncode == 2
    assert "nope.so" in err.stderr


def test_the_same_plugin_twice_is_a_duplicate_class_error(start_host):
    err = start_host.fail("--plugin", lib("CounterPlugin"), "--plugin", lib("CounterPlugin"))
    assert err.returncode == 2
    assert "Counter" in err.stderr
