"""A platform's signed tokens: a player this server has no account for,
named by a short-lived JWT the platform signed; expired, wrongly signed or wrongly scoped
tokens refused with their reason, and never quoted."""

from __future__ import annotations

import os
import time
from typing import Any

import jwt
import pytest

from referee.application import Kind, Player, Principal, Referee
from referee.application.players.accounts import ACCOUNT, PlayerSettings, check_scope
from referee.application.players.platform import PlatformKeys
from referee.store import MemoryEventStore
from tests.application.players_support import Platform, jwks
from tests.application.support import refused, run


def _signed_in(keys: PlatformKeys, token: str) -> Principal:
    found: list[Principal] = []

    async def scenario(referee: Referee) -> None:
        referee.players.configure(PlayerSettings(platform=keys))
        found.append(await referee.players.authenticate(token))

    run(scenario)
    return found[0]


def _refusal(keys: PlatformKeys | None, token: str) -> tuple[Kind, str, dict[str, str]]:
    found: list[tuple[Kind, str, dict[str, str]]] = []

    async def scenario(referee: Referee) -> None:
        referee.players.configure(PlayerSettings(platform=keys))
        error = await refused(referee.players.authenticate(token))
        assert token not in str(error) and token not in repr(error.metadata)
        for part in token.split("."):
            assert len(part) < 8 or part not in str(error), "no part of the token is quoted"
        found.append((error.kind, error.reason, error.metadata))

    run(scenario)
    return found[0]


@pytest.mark.parametrize("algorithm", ["RS256", "ES256", "EdDSA"])
def test_a_platform_token_names_a_player_with_no_account(algorithm: str) -> None:
    platform = Platform.new(algorithm)
    principal = _signed_in(platform.keys(), platform.token("ada", kind="bot"))
    assert principal == Principal(Player("platform:ada", "bot", platform=True))


def test_a_token_may_scope_a_game_a_seat_or_watching_only() -> None:
    platform = Platform.new()
    keys = platform.keys()
    token = platform.token("ada", game_id="g1", seat=2)
    assert _signed_in(keys, token) == Principal(
        Player("platform:ada", "", platform=True), scope_game="g1", scope_seat=2
    )
    watching = _signed_in(keys, platform.token("bea", role="spectator", kind="person"))
    assert watching == Principal(
        Player("platform:bea", "person", platform=True), spectator_only=True
    )


def test_a_key_set_picks_the_key_by_kid() -> None:
    first, second = Platform.new("RS256", kid="2026-a"), Platform.new("EdDSA", kid="2026-b")
    keys = PlatformKeys.from_jwks(jwks(first, second), issuer="https://play.example")
    for platform in (first, second):
        token = platform.token("ada", iss="https://play.example")
        assert _signed_in(keys, token).player.name == "platform:ada"
    stranger = Platform.new("EdDSA", kid="2026-c")
    assert _refusal(keys, stranger.token(iss="https://play.example"))[:2] == (
        Kind.UNAUTHENTICATED,
        "TOKEN_SIGNATURE",
    )
    impostor = Platform(second.algorithm, Platform.new("EdDSA").private, kid="2026-b")
    assert _refusal(keys, impostor.token(iss="https://play.example"))[1] == "TOKEN_SIGNATURE"


def test_an_expired_token_is_refused() -> None:
    platform = Platform.new()
    now = time.time()
    token = platform.token(iat=int(now - 600), exp=int(now - 60))
    assert _refusal(platform.keys(), token)[:2] == (Kind.UNAUTHENTICATED, "TOKEN_EXPIRED")


def test_a_token_signed_by_another_key_is_refused() -> None:
    ours, theirs = Platform.new("ES256"), Platform.new("ES256")
    assert _refusal(ours.keys(), theirs.token())[:2] == (Kind.UNAUTHENTICATED, "TOKEN_SIGNATURE")


def test_a_token_that_picks_another_algorithm_is_refused() -> None:
    """The key decides the algorithm: neither 'none' nor HMAC keyed with the public key."""
    platform = Platform.new("RS256")
    keys = platform.keys()
    claims: dict[str, Any] = {"sub": "ada", "exp": int(time.time()) + 60}
    unsigned = jwt.encode(claims, None, algorithm="none")
    assert _refusal(keys, unsigned)[:2] == (Kind.UNAUTHENTICATED, "TOKEN_SIGNATURE")
    forged = _hs256(claims, platform.public_pem)
    assert _refusal(keys, forged)[:2] == (Kind.UNAUTHENTICATED, "TOKEN_SIGNATURE")
    ps256 = jwt.encode(claims, platform.private, algorithm="PS256")
    assert _refusal(keys, ps256)[:2] == (Kind.UNAUTHENTICATED, "TOKEN_SIGNATURE")


def _hs256(claims: dict[str, Any], secret: bytes) -> str:
    """An HMAC token keyed with ``secret`` (made by hand: PyJWT refuses PEM keys as secrets)."""
    import base64
    import hashlib
    import hmac
    import json

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    head = part(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = part(json.dumps(claims).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{part(signature)}"


@pytest.mark.parametrize(
    ("claims", "claim"),
    [
        ({"iss": "https://elsewhere.example"}, "iss"),
        ({"iss": None}, "iss"),
        ({"aud": "another-service"}, "aud"),
        ({"aud": None}, "aud"),
        ({"exp": None}, "exp"),
        ({"sub": None}, "sub"),
        ({"sub": "not a name"}, "sub"),
        ({"sub": "x" * 33}, "sub"),
        ({"kind": "robot"}, "kind"),
        ({"seat": 1}, "seat"),  # a seat without its game
        ({"game_id": "g1", "seat": -1}, "seat"),
        ({"game_id": "g1", "seat": True}, "seat"),
        ({"game_id": 7}, "game_id"),
        ({"role": "organiser"}, "role"),
        ({"nbf": int(time.time()) + 3600}, "nbf"),
    ],
)
def test_a_token_for_someone_else_or_of_the_wrong_shape_is_invalid(
    claims: dict[str, Any], claim: str
) -> None:
    platform = Platform.new()
    keys = platform.keys(issuer="https://play.example", audience="referee")
    wanted = {"iss": "https://play.example", "aud": "referee", **claims}
    kind, reason, metadata = _refusal(keys, platform.token(**wanted))
    assert (kind, reason, metadata) == (
        Kind.UNAUTHENTICATED,
        "CREDENTIAL_INVALID",
        {"claim": claim},
    )


def test_an_audience_is_refused_when_none_is_configured() -> None:
    """A token meant for another service is not one for this server."""
    platform = Platform.new()
    kind, reason, metadata = _refusal(platform.keys(), platform.token(aud="mail"))
    assert (kind, reason, metadata) == (
        Kind.UNAUTHENTICATED,
        "CREDENTIAL_INVALID",
        {"claim": "aud"},
    )


def test_a_token_that_lives_longer_than_a_day_is_refused() -> None:
    platform = Platform.new()
    assert _refusal(platform.keys(), platform.token(lifetime=25 * 3600))[2] == {"claim": "exp"}
    no_iat = platform.token(iat=None, lifetime=25 * 3600)
    assert _refusal(platform.keys(), no_iat)[2] == {"claim": "exp"}
    assert (
        _signed_in(platform.keys(), platform.token(lifetime=23 * 3600)).player.name
        == "platform:ada"
    )


@pytest.mark.parametrize("token", ["a.b.c", "bm90IGpzb24.bm90IGpzb24.c2ln", "x" * 50])
def test_garbage_is_an_invalid_credential(token: str) -> None:
    platform = Platform.new()
    assert _refusal(platform.keys(), token)[:2] == (Kind.UNAUTHENTICATED, "CREDENTIAL_INVALID")


def test_a_server_without_a_platform_refuses_platform_tokens() -> None:
    platform = Platform.new()
    assert _refusal(None, platform.token())[:2] == (Kind.UNAUTHENTICATED, "CREDENTIAL_INVALID")


def test_account_tokens_still_work_on_a_server_with_a_platform() -> None:
    platform = Platform.new()

    async def scenario(referee: Referee) -> None:
        referee.players.configure(PlayerSettings(platform=platform.keys()))
        player, token = await referee.players.create_account("cy", "bot")
        assert (await referee.players.authenticate(token)).player == player

    run(scenario)


def test_a_scoped_token_is_refused_outside_its_game_and_seat() -> None:
    seat_scoped = Principal(Player("ada", "", platform=True), scope_game="g1", scope_seat=1)
    check_scope(seat_scoped, "g1", 1)
    check_scope(seat_scoped, "g1")  # a call about the game, no seat (e.g. its summary)
    for game_id, seat, play in [
        ("g2", 1, True),
        ("g1", 0, True),
        ("g2", None, False),
        ("", None, True),
    ]:
        with pytest.raises(Exception) as caught:
            check_scope(seat_scoped, game_id, seat, play)
        error: Any = caught.value
        assert (error.kind, error.reason) == (Kind.FORBIDDEN, "TOKEN_SCOPE")
    watcher = Principal(Player("bea", "", platform=True), spectator_only=True)
    check_scope(watcher, "g1", play=False)
    with pytest.raises(Exception) as caught:
        check_scope(watcher, "g1", 0)
    assert getattr(caught.value, "reason", None) == "TOKEN_SCOPE"
    account = Principal(Player("cy", "bot"))
    check_scope(account, "any", 3)


@pytest.mark.parametrize(
    "document",
    [
        '{"keys": []}',
        '{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}',
        "not json",
    ],
)
def test_a_key_set_with_no_usable_key_is_refused_at_start(document: str) -> None:
    with pytest.raises(ValueError):
        PlatformKeys.from_jwks(document)


def test_from_files_needs_one_key_file(tmp_path: Any) -> None:
    platform = Platform.new("ES256")
    pem = tmp_path / "platform.pem"
    pem.write_bytes(platform.public_pem)
    keys = PlatformKeys.from_files(pem=str(pem), issuer="i", audience="a")
    assert keys is not None and keys.issuer == "i" and keys.audience == "a"
    assert PlatformKeys.from_files() is None
    with pytest.raises(ValueError):
        PlatformKeys.from_files(pem=str(pem), jwks=str(pem))
    with pytest.raises(ValueError):
        PlatformKeys.from_files(issuer="i")
    with pytest.raises(OSError):
        PlatformKeys.from_files(pem=str(tmp_path / "missing.pem"))


def test_a_platform_player_becomes_known_by_name_once_seen() -> None:
    """Others can then reserve it a seat or challenge it; nobody can take its name; its
    document holds no token hash, so no account token signs in as it. An account of the
    subject's name stays the account's: the platform's player is another one."""
    platform = Platform.new()
    store = MemoryEventStore()

    async def scenario(referee: Referee) -> None:
        referee.players.configure(PlayerSettings(platform=platform.keys()))
        error = await refused(referee.players.get("platform:dee"))
        assert error.reason == "PLAYER_UNKNOWN"
        await referee.players.authenticate(platform.token("dee", kind="bot"))
        await referee.players.authenticate(platform.token("dee", kind="bot"))
        dee = Player("platform:dee", "bot", platform=True)
        assert await referee.players.get("platform:dee") == dee
        assert await referee.players.accounts() == [dee]
        (document,) = store.documents(ACCOUNT)
        assert document.revision == 1 and document.body["token_hash"] == ""
        error = await refused(referee.players.get("dee"))
        assert error.reason == "PLAYER_UNKNOWN"
        # An account that exists keeps its token and kind; the platform's "eve" is not it.
        player, token = await referee.players.create_account("eve", "person")
        who = await referee.players.authenticate(platform.token("eve", kind="bot"))
        assert who.player == Player("platform:eve", "bot", platform=True)
        assert await referee.players.get("eve") == player
        assert (await referee.players.authenticate(token)).player == player
        # A platform's "Eve" beside its "eve" plays, but is not made known by name.
        await referee.players.authenticate(platform.token("Eve"))
        error = await refused(referee.players.get("platform:Eve"))
        assert error.reason == "PLAYER_UNKNOWN"

    run(scenario, store=store)


def test_a_key_set_file_is_read_again_for_a_new_kid(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rotation without a restart: the platform adds its new key to the file, then signs
    with it; a file edited into something unreadable keeps the keys it had."""
    from referee.application.players import platform as platform_module

    monkeypatch.setattr(platform_module, "RELOAD_SECONDS", 0.0)
    old, new = Platform.new("EdDSA", kid="2026-01"), Platform.new("ES256", kid="2026-02")
    path = tmp_path / "keys.json"
    path.write_text(jwks(old))
    keys = PlatformKeys.from_files(jwks=str(path))
    assert keys is not None
    assert _refusal(keys, new.token())[1] == "TOKEN_SIGNATURE"

    def rewrite(text: str, step: int) -> None:
        path.write_text(text)
        stamp = path.stat().st_mtime_ns + step * 1_000_000_000
        os.utime(path, ns=(stamp, stamp))

    rewrite(jwks(old, new), 1)
    assert _signed_in(keys, new.token("ada")).player.name == "platform:ada"
    assert _signed_in(keys, old.token("bea")).player.name == "platform:bea"
    rewrite("{not json", 2)
    assert _refusal(keys, Platform.new(kid="2026-03").token())[1] == "TOKEN_SIGNATURE"
    assert _signed_in(keys, new.token("cy")).player.name == "platform:cy"
    rewrite(jwks(new), 3)  # the old key retired
    assert _refusal(keys, old.token())[1] == "TOKEN_SIGNATURE"
    assert _signed_in(keys, new.token("dee")).player.name == "platform:dee"
