"""`referee serve` configured by environment variables alone (containers, Kubernetes), and
`referee health` (the container health check) against a real server."""

from __future__ import annotations

import pytest

from referee.cli import build_parser, main
from referee.server.app import running_server


def test_every_serve_flag_has_an_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    values = {
        "REFEREE_LISTEN": "0.0.0.0:7000",
        "REFEREE_STORE": "postgresql://referee@db/referee",
        "REFEREE_METRICS": "",
        "REFEREE_MAX_GAMES": "12",
        "REFEREE_MAX_STREAMS": "34",
        "REFEREE_STREAM_BUFFER": "56",
        "REFEREE_MAX_MESSAGE_BYTES": "78",
        "REFEREE_GRACE_SECONDS": "1.5",
        "REFEREE_HTTP": "0.0.0.0:8080",
        "REFEREE_HTTP_CORS_ORIGIN": "http://a.example, http://b.example",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    args = build_parser().parse_args(["serve"])
    assert (args.listen, args.store, args.metrics) == (
        "0.0.0.0:7000",
        "postgresql://referee@db/referee",
        "",
    )
    assert (args.max_games, args.max_streams, args.stream_buffer) == (12, 34, 56)
    assert (args.max_message_bytes, args.grace_seconds) == (78, 1.5)
    assert args.http == "0.0.0.0:8080"
    assert args.http_cors_origin == ["http://a.example", "http://b.example"]
    # The flag wins over the environment.
    assert build_parser().parse_args(["serve", "--max-games", "3"]).max_games == 3
    # Each variable is named in --help, and none is left without one.
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    flags = [a for a in serve._actions if a.option_strings and a.dest not in ("help", "version")]
    assert set(values) <= {f"REFEREE_{a.dest.upper()}" for a in flags}
    assert all(f"REFEREE_{a.dest.upper()}" in (a.help or "") for a in flags)


def test_bad_environment_value_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_MAX_GAMES", "many")
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(["serve"])
    assert caught.value.code == 2


def test_health_command() -> None:
    # No capsys here: the server's logger would keep writing to its stream after the test.
    with running_server() as server:
        assert main(["health", "--address", server.address]) == 0
        assert main(["health", "--address", server.address, "--service", "nope"]) == 1
    assert main(["health", "--address", server.address, "--timeout", "0.5"]) == 1
