"""Typed errors: one class per code, unknown codes stay RPCError, str shows everything."""

from __future__ import annotations

import pytest

import greenroom
from greenroom import errors

CODES = {
    -32700: errors.ParseError,
    -32600: errors.InvalidRequest,
    -32601: errors.MethodNotFound,
    -32602: errors.InvalidParams,
    -32603: errors.InternalError,
    -32001: errors.UnknownClass,
    -32002: errors.UnknownObject,
    -32003: errors.InvalidState,
    -32004: errors.PluginFailed,
    -32005: errors.LimitExceeded,
    -32006: errors.Unauthorized,
    -32007: errors.VirtualClockOnly,
}


@pytest.mark.parametrize("code,cls", sorted(CODES.items()))
def test_each_code_maps_to_its_class(code, cls):
    error = errors.error_from_object({"code": code, "message": "boom", "data": {"kind": "k", "path": "a.b"}})
    assert type(error) is cls
    assert isinstance(error, errors.RPCError) and isinstance(error, greenroom.GreenroomError)
    assert (error.code, error.message, error.data) == (code, "boom", {"kind": "k", "path": "a.b"})
    assert error.kind == "k"
    assert getattr(greenroom, cls.__name__) is cls


def test_unknown_code_is_plain_rpc_error():
    error = errors.error_from_object({"code": -32099, "message": "new"})
    assert type(error) is errors.RPCError
    assert error.code == -32099 and error.data is None and error.kind is None


def test_str_shows_code_message_and_data():
    error = errors.error_from_object(
        {"code": -32601, "message": "method not found", "data": {"kind": "methodNotFound", "method": "x.y"}}
    )
    text = str(error)
    assert "method not found" in text and "-32601" in text and '"method":"x.y"' in text
    assert repr(error).startswith("MethodNotFound(-32601, 'method not found'")


def test_new_codes_can_be_registered_by_subclassing():
    class Teapot(errors.RPCError):
        code_value = -32418

    assert type(errors.error_from_object({"code": -32418, "message": "short and stout"})) is Teapot
    del errors._CLASSES_BY_CODE[-32418]


@pytest.mark.parametrize("bad", [None, "oops", {"message": "no code"}, {"code": "1", "message": "x"}, {"code": True}])
def test_malformed_error_objects_still_raise_something(bad):
    error = errors.error_from_object(bad)
    assert isinstance(error, errors.RPCError)


def test_errors_compare_by_value():
    a = errors.error_from_object({"code": -32602, "message": "m", "data": {"path": "x"}})
    b = errors.error_from_object({"code": -32602, "message": "m", "data": {"path": "x"}})
    assert a == b and a != errors.error_from_object({"code": -32602, "message": "m"})


def test_transport_errors_are_greenroom_errors():
    for cls in (errors.ConnectError, errors.ConnectionClosed):
        assert issubclass(cls, greenroom.GreenroomError) and issubclass(cls, ConnectionError)
    assert issubclass(errors.RequestTimeout, TimeoutError)
    assert issubclass(errors.ProtocolError, greenroom.GreenroomError)
