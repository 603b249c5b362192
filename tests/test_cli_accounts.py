"""``referee account create|list`` and the players' ``serve`` flags: an
operator makes accounts straight on the store (the token printed once, alone on stdout), and
the flags reach the server: open registration, the platform's key, the calls per minute."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from referee import cli
from referee.application import Referee
from referee.application.players.accounts import PlayerSettings
from referee.store import open_store
from tests.application.players_support import Platform, jwks


def _account(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["account", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_create_prints_the_token_once_and_the_store_keeps_its_hash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = f"sqlite:{tmp_path / 'referee.sqlite3'}"
    code, out, err = _account(capsys, "create", "ada", "--bot", "--store", store)
    assert code == 0
    token = out.strip()
    assert token.startswith("acct-") and "\n" not in token
    assert "ada" in err and token not in err
    data = (tmp_path / "referee.sqlite3").read_bytes()
    assert token.encode() not in data
    assert hashlib.sha256(token.encode()).hexdigest().encode() in data

    async def signs_in() -> str:
        referee = Referee(open_store(store))
        try:
            return (await referee.players.authenticate(token)).player.kind
        finally:
            referee.close()

    assert asyncio.run(signs_in()) == "bot"

    assert _account(capsys, "create", "bea", "--store", store)[0] == 0
    code, out, _ = _account(capsys, "list", "--store", store)
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert [(name, kind, source) for name, kind, _, source in rows] == [
        ("ada", "bot", "account"),
        ("bea", "person", "account"),
    ]
    assert all(created.endswith("+00:00") for _, _, created, _ in rows)
    assert token not in out


def test_create_refuses_a_taken_or_bad_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = f"sqlite:{tmp_path / 'referee.sqlite3'}"
    assert _account(capsys, "create", "ada", "--store", store)[0] == 0
    code, out, err = _account(capsys, "create", "ada", "--bot", "--store", store)
    assert (code, out) == (1, "")
    assert "taken" in err
    code, out, err = _account(capsys, "create", "ada lovelace", "--store", store)
    assert (code, out) == (1, "")
    assert "name" in err
    code, out, err = _account(capsys, "create", "platform:ada", "--store", store)
    assert (code, out) == (1, "")
    assert "platform's players" in err


def test_the_store_flag_comes_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_STORE", f"sqlite:{tmp_path / 'env.sqlite3'}")
    assert _account(capsys, "create", "cy")[0] == 0
    assert (tmp_path / "env.sqlite3").exists()


def _settings(*argv: str) -> PlayerSettings | None:
    args = cli.build_parser().parse_args(["serve", *argv])
    return cli._player_settings(args)


def test_serve_flags_make_the_players_settings(tmp_path: Path) -> None:
    assert _settings() == PlayerSettings()
    assert PlayerSettings().open_registration is False
    platform = Platform.new("RS256", kid="k1")
    pem = tmp_path / "platform.pem"
    pem.write_bytes(platform.public_pem)
    settings = _settings(
        "--open-registration",
        "--platform-key",
        str(pem),
        "--platform-issuer",
        "https://play.example",
        "--platform-audience",
        "referee",
        "--player-calls-per-minute",
        "60",
        "--platform-namespace",
        "play",
    )
    assert settings is not None and settings.platform is not None
    assert settings.open_registration and settings.calls_per_minute == 60
    assert settings.platform_namespace == "play"
    assert (settings.platform.issuer, settings.platform.audience) == (
        "https://play.example",
        "referee",
    )
    key_set = tmp_path / "jwks.json"
    key_set.write_text(jwks(platform))
    from_jwks = _settings("--platform-jwks", str(key_set))
    assert from_jwks is not None and from_jwks.platform is not None
    assert list(from_jwks.platform.keys) == ["k1"]


def test_serve_flags_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_OPEN_REGISTRATION", "true")
    monkeypatch.setenv("REFEREE_PLAYER_CALLS_PER_MINUTE", "5")
    settings = _settings()
    assert settings is not None and settings.open_registration and settings.calls_per_minute == 5
    monkeypatch.setenv("REFEREE_OPEN_REGISTRATION", "0")
    monkeypatch.setenv("REFEREE_PLATFORM_NAMESPACE", "")
    settings = _settings()
    assert settings is not None and not settings.open_registration
    assert settings.platform_namespace == ""


def test_a_platform_namespace_that_is_not_a_name_stops_the_server_from_starting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _settings("--platform-namespace", "a:b") is None
    assert "--platform-namespace" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["--platform-key", "/nonexistent/platform.pem"],
        ["--platform-key", "KEYFILE", "--platform-jwks", "KEYFILE"],
        ["--platform-issuer", "https://play.example"],
        ["--platform-key", "NOTAKEY"],
        ["--platform-jwks", "NOTAKEY"],
    ],
)
def test_a_platform_key_that_cannot_serve_stops_the_server_from_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    key = tmp_path / "platform.pem"
    key.write_bytes(Platform.new().public_pem)
    junk = tmp_path / "junk"
    junk.write_text("not a key")
    argv = [a.replace("KEYFILE", str(key)).replace("NOTAKEY", str(junk)) for a in argv]
    assert _settings(*argv) is None
    assert "platform key" in capsys.readouterr().err
    assert cli.main(["serve", "--metrics", "", *argv]) == 2
