"""What the protocol's tests share: two players, and a ready server fed one line."""

from firmware_host.protocol import ServerConnection

__all__ = ["PLAYERS", "server_items"]

PLAYERS = {"a": "Ann", "b": "Bob"}


def server_items(line: bytes, **kwargs):
    """The items a ready server gets from one line."""
    server = ServerConnection(**kwargs)
    server.receive_data(b'{"id": 0, "cmd": "hello", "version": 1}\n')
    return server.receive_data(line)
