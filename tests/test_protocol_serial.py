"""The protocol's framing through a real pyserial port (``loop://``): what the
engine's remote unit and the daemon's serial transport do, minus the thread."""

import serial

from firmware_host.protocol import ClientConnection, Event, EventSequencer, Reply, ServerConnection


def pump(port, end, read_size):
    """Read everything waiting on the port in small reads and feed it to ``end``."""
    items = []
    while chunk := port.read(read_size):
        items += end.receive_data(chunk)
    return items


def test_requests_replies_and_events_through_a_loop_port():
    port = serial.serial_for_url("loop://", timeout=0)
    server, client, events = ServerConnection(), ClientConnection(), EventSequencer()
    try:
        _, hello = client.send_request("hello")
        _, status = client.send_request("status")
        port.write(hello[:10])
        port.write(hello[10:] + status)  # two messages, split anyhow
        requests = pump(port, server, read_size=7)
        assert [(r.id, r.cmd) for r in requests] == [(1, "hello"), (2, "status")]

        port.write(
            server.send(
                server.hello_reply(
                    requests[0], unit={"name": "loop"}, capabilities=[], seq=events.last
                )
            )
        )
        port.write(server.send(events.event("state", state="idle")))
        port.write(server.send(requests[1].reply(state="idle")).replace(b"\n", b"\r\n"))
        assert pump(port, client, read_size=5) == [
            Reply(
                1, {"version": 1, "unit": {"name": "loop"}, "capabilities": [], "seq": 0}, "hello"
            ),
            Event("state", 1, {"state": "idle"}),
            Reply(2, {"state": "idle"}, "status"),
        ]
        assert client.pending == {}
    finally:
        port.close()
