"""Finding 2 of #30 under `make run`: no token, password or link token in any line the embedded server writes.

The server is started by `make run` itself (its migration included), with LOG_ACCESS=1 so that every request's
and socket's access line is written too: the lines most likely to hold a URL's query string."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.live.embedded import LiveServer, embedded_server, make_run_command
from bench.live.processes import LINUX
from tests.server import log_secrets

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not LINUX, reason="the live-server helpers read /proc")]


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LOG_ACCESS", "1")
        with embedded_server(make_run_command, migrate=False) as live:
            yield live


def test_no_secret_a_session_hands_over_is_in_any_line_make_run_writes(server: LiveServer) -> None:
    """Finding 2 of #30: sockets opened with `?token=` and with the `token.` subprotocol, a login, a wrong
    password, an invitation link, an e-mail confirmation and an unsubscribe link; then every file the server
    wrote (its output, its var directory but the mails) holds none of their secrets."""
    base = f"http://127.0.0.1:{server.port}"
    secret_values = log_secrets.drive(base, server.var_dir, "logsecret")
    log_secrets.wait_for(log_secrets.REDACTED_SOCKET, [server.var_dir])
    assert log_secrets.leaks(log_secrets.written([server.var_dir]), secret_values) == []

