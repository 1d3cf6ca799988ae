"""Every way a link to the unit fails to open names its cause and the next
step; only a unit that may be off (refused, timed out) is told to be switched
on. Against a scripted unit (tests/fake_unit.py), on virtual time."""

import pytest

from engine.units.ports import ShowdownRequest
from engine.units.remote import RemoteUnit, UnitProblem, UnitUnreachable, UnitVersionError
from engine.units.unit_link import check_unit_url, connect_failure
from tests.fake_unit import FakeUnit

SWITCHED_ON = "Check that the unit is switched on and its daemon is running (showdown-unit run)"
URL_FORMS = (
    "Give the unit as socket://HOST:PORT (a unit on the network, e.g. "
    "socket://127.0.0.1:7700) or as a serial device path (e.g. /dev/ttyUSB0)."
)


def failing_open(message):
    """An open_port that fails as pyserial does, and counts its calls."""
    calls = []

    def open_port(url, **settings):
        calls.append(url)
        raise OSError(message.format(url=url))

    return open_port, calls


def problem(url, **options) -> UnitProblem:
    with pytest.raises(UnitProblem) as caught:
        RemoteUnit(url, **options).open()
    return caught.value


@pytest.mark.parametrize(
    "url, message",
    [
        ("tcp://10.0.0.5:7700", '"tcp://" is not a way to reach a unit'),
        ("http://unit.local:7700", '"http://" is not a way to reach a unit'),
        (
            "socket://unit.local",
            '"socket://unit.local" has no port: a unit on the network is socket://HOST:PORT',
        ),
        (
            "socket://unit.local:77000",
            '"socket://unit.local:77000": the port must be a number from 1 to 65535, not "77000"',
        ),
        (
            "socket://:7700",
            '"socket://:7700" has no port: a unit on the network is socket://HOST:PORT',
        ),
    ],
)
def test_a_bad_url_says_which_forms_work_and_is_never_retried(url, message):
    open_port, calls = failing_open("never called")
    sleeps = []
    found = problem(url, open_port=open_port, sleep=sleeps.append)
    assert isinstance(found, UnitUnreachable)
    assert str(found) == f"cannot reach the unit at {url}: {message}"
    assert found.what_to_do == URL_FORMS
    assert calls == [] and sleeps == []
    with pytest.raises(UnitUnreachable):  # a showdown gives up at once too: no backoff
        RemoteUnit(url, open_port=open_port, sleep=sleeps.append).run_showdown(
            ShowdownRequest("m1:r1:s1", 0, 1, "Ann", "Bob", 1)
        )
    assert sleeps == []


def test_a_url_pyserial_cannot_read_is_a_bad_url():
    def open_port(url, **settings):
        raise ValueError("invalid URL, protocol 'spy' not known")

    found = problem("spy://x", open_port=open_port)
    assert str(found) == (
        'cannot reach the unit at spy://x: "spy://x" is not a unit\'s address '
        "(invalid URL, protocol 'spy' not known)"
    )
    assert found.what_to_do == URL_FORMS


@pytest.mark.parametrize("url", ["socket://127.0.0.1:7700", "/dev/ttyUSB0", "rfc2217://pi:2217"])
def test_good_urls_pass_the_check(url):
    assert check_unit_url(url) is None


@pytest.mark.parametrize(
    "error, cause, message, what_to_do",
    [
        (
            "Could not open port {url}: [Errno 111] Connection refused",
            "refused",
            "connection refused: nothing listens at unit.local:7700",
            f"{SWITCHED_ON}, and that it listens on that address and port (server.listen in "
            "its config), then retry.",
        ),
        (
            "Could not open port {url}: timed out",
            "timeout",
            "no answer from unit.local:7700 (timed out)",
            f"{SWITCHED_ON}, and the network between here and the unit, then retry.",
        ),
        (
            "Could not open port {url}: [Errno -2] Name or service not known",
            "unknown_host",
            "unknown host 'unit.local': no address found for it",
            "Check the host name in the URL (or give the unit's IP address) and this machine's "
            "network, then retry.",
        ),
        (
            "Could not open port {url}: [Errno -3] Temporary failure in name resolution",
            "unknown_host",
            "unknown host 'unit.local': no address found for it",
            "Check the host name in the URL (or give the unit's IP address) and this machine's "
            "network, then retry.",
        ),
    ],
)
def test_a_network_unit_that_cannot_be_reached_says_why(error, cause, message, what_to_do):
    url = "socket://unit.local:7700"
    open_port, _ = failing_open(error)
    found = problem(url, open_port=open_port)
    assert str(found) == f"cannot reach the unit at {url}: {message}"
    assert found.what_to_do == what_to_do
    assert ("switched on" in found.what_to_do) == (cause in ("refused", "timeout"))


def test_a_serial_device_that_is_not_there_says_to_check_the_cable():
    found = problem("/dev/ttyNOPE0")  # pyserial's own error
    assert str(found) == "cannot reach the unit at /dev/ttyNOPE0: no serial device /dev/ttyNOPE0"
    assert found.what_to_do == (
        "Check that the cable is plugged in and the device path is right "
        "(ls /dev/ttyUSB* /dev/ttyACM* /dev/serial*), then retry."
    )


def test_a_serial_device_without_permission_says_which_group():
    open_port, _ = failing_open(
        "[Errno 13] could not open port {url}: [Errno 13] Permission denied: '{url}'"
    )
    found = problem("/dev/ttyUSB0", open_port=open_port)
    assert str(found) == "cannot reach the unit at /dev/ttyUSB0: no permission to open /dev/ttyUSB0"
    assert "dialout" in found.what_to_do and "switched on" not in found.what_to_do


def test_a_unit_that_asks_for_a_token_none_was_given_says_token_file():
    unit = FakeUnit(token="s3cret")
    found = problem(
        "socket://unit.local:7700", open_port=unit.open_port, clock=unit.clock, sleep=unit.sleep
    )
    assert str(found) == "the unit at socket://unit.local:7700 asks for a token and none was given"
    assert found.what_to_do == (
        "Give the engine the unit's token: --token-file FILE, where FILE holds the token of "
        "the unit's server.token_file (on a Pi, /etc/uno-showdown/token)."
    )
    assert not isinstance(found, UnitUnreachable)


def test_a_wrong_token_says_the_unit_refused_it():
    unit = FakeUnit(token="s3cret")
    found = problem(
        "socket://unit.local:7700",
        token="guess",
        open_port=unit.open_port,
        clock=unit.clock,
        sleep=unit.sleep,
    )
    assert str(found) == "the unit at socket://unit.local:7700 refused the token: wrong token"
    assert found.what_to_do == (
        "Check the token: the file given with --token-file must hold the same token as the "
        "unit's server.token_file (on a Pi, /etc/uno-showdown/token)."
    )


def test_the_right_token_opens_the_link():
    unit = FakeUnit(token="s3cret")
    port = RemoteUnit(
        "socket://unit.local:7700",
        token="s3cret",
        open_port=unit.open_port,
        clock=unit.clock,
        sleep=unit.sleep,
    )
    assert port.open() is port
    assert [cmd for cmd, _ in unit.log][:2] == ["auth", "hello"]


def test_a_version_mismatch_names_both_versions_and_what_to_update():
    unit = FakeUnit(version=2)
    found = problem(
        "socket://unit.local:7700", open_port=unit.open_port, clock=unit.clock, sleep=unit.sleep
    )
    assert isinstance(found, UnitVersionError)
    assert str(found).endswith("unit answered version 2; this client speaks versions 1 to 1")
    assert found.what_to_do == (
        "Use an engine and a unit that speak a common protocol version: update the older of "
        "the two."
    )
    assert "switched on" not in found.what_to_do


def test_a_bad_url_is_a_permanent_failure_the_others_are_not():
    failure = check_unit_url("tcp://x:1")
    assert failure is not None and failure.cause == "url" and failure.permanent
    refused = connect_failure("socket://h:1", OSError("[Errno 111] Connection refused"))
    assert refused.cause == "refused" and not refused.permanent
