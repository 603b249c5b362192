"""Nothing secret in the server's log or metrics at any level.

``referee serve --log-level debug`` (every line it can write) referees games played to the end,
one with a secret seed and one with a fixed deal; then the test takes every secret the game
had from the organiser's full export (the seed, the commitment salt, each card's salt, the
fixed deal) plus the seat and organiser tokens and every hand a seat held, and searches the
whole log and the metrics for each, in the forms a log line could carry them (text, hex,
base64, JSON lists). A ``game_created`` line used to carry the commitment salt, with which a
log reader rebuilt every hand of a guessable seed.
"""

from __future__ import annotations

import base64
import contextlib
import json
import random
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from google.protobuf.message import Message

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc as pb_grpc
from tests.replicas.cluster import Replica
from tests.server.conftest import (
    CARD,
    DECK,
    RPC_TIMEOUT,
    Game,
    create_game,
    fails,
    fixed_deal,
    play_random,
    submit_request,
    vq_command,
)
from tests.server.test_ops import Served, _keys, log_records
from tests.store.pg import postgres_url, temporary_database

SEED = "log-leak-seed-5e0b7d21c9a4"
#: Keys no log record may have: each names a secret (or a hidden card).
SECRET_KEYS = {
    "salt",
    "commitment_salt",
    "seed",
    "deal",
    "hand",
    "hands",
    "cards",
    "deck",
    "token",
    "seat_token",
    "organiser_token",
}


@dataclass
class Secrets:
    """Everything secret one game had, as byte strings."""

    values: dict[str, bytes] = field(default_factory=dict)
    hands: list[list[int]] = field(default_factory=list)

    def add(self, name: str, value: bytes) -> None:
        if value:
            self.values[name] = value


def _bytes_fields(message: Message, wanted: set[str]) -> Iterator[tuple[str, bytes]]:
    """Every non-empty bytes field named in ``wanted``, anywhere inside ``message``."""
    for descriptor, value in message.ListFields():
        if descriptor.message_type is not None:
            inner = value if descriptor.is_repeated else [value]
            for item in inner:
                if isinstance(item, Message):  # not a map's keys
                    yield from _bytes_fields(item, wanted)
        elif descriptor.name in wanted and isinstance(value, bytes):
            yield descriptor.name, value


def _forms(value: bytes) -> set[str]:
    """How a log line could carry ``value``: as text, hex or base64."""
    forms = {
        value.hex(),
        base64.b64encode(value).decode(),
        base64.urlsafe_b64encode(value).decode(),
    }
    with contextlib.suppress(UnicodeDecodeError):
        forms.add(value.decode())
    return {form.rstrip("=") for form in forms if len(form) >= 8}


def _play(stub: pb_grpc.RefereeServiceStub, game: Game, secrets: Secrets) -> None:
    for index, token in enumerate(game.tokens):
        secrets.add(f"seat token {index} of game {game.game_id}", token.encode())
    secrets.add(f"organiser token of game {game.game_id}", game.created.organiser_token.encode())
    # Refused commands too (they are logged, with their rule): VQ-6, then not this seat's turn.
    leader = game.created.game.pending_seats[0]
    for seat in (leader, (leader + 1) % game.players):
        fails(stub.SubmitCommand, submit_request(game, seat, vq_command(pass_=True)))

    def seen(_seat: int, view: pb.View) -> None:
        hand = [int(card) for card in view.vampire_queen.hand]
        if len(hand) >= 3:
            secrets.hands.append(hand)

    play_random(stub, game, random.Random(5), on_view=seen)
    exported = stub.ExportGame(
        pb.ExportGameRequest(game_id=game.game_id, organiser_token=game.created.organiser_token),
        timeout=RPC_TIMEOUT,
    )
    for index, (name, value) in enumerate(_bytes_fields(exported, {"seed", "salt", "deal"})):
        secrets.add(f"{name} #{index} of game {game.game_id}", value)


@pytest.fixture(scope="module")
def served_games() -> Iterator[tuple[list[str], str, Secrets]]:
    secrets = Secrets()
    process = Served("--log-level", "debug")
    try:
        with grpc.insecure_channel(process.address) as channel:
            stub = pb_grpc.RefereeServiceStub(channel)
            _play(stub, create_game(stub, players=3, rounds=1, seed=SEED), secrets)
            deck = list(DECK)
            random.Random(11).shuffle(deck)
            dealt = create_game(stub, players=3, rounds=1, deal=fixed_deal(deck, 0))
            _play(stub, dealt, secrets)
            secrets.add("fixed deck", ",".join(str(CARD[c]) for c in deck).encode())
            url = f"http://127.0.0.1:{process.metrics_port}/metrics"
            with urllib.request.urlopen(url, timeout=10) as response:
                metrics = response.read().decode()
    finally:
        process.stop()
    yield process.lines, metrics, secrets


def test_the_debug_log_and_the_metrics_hold_no_secret(
    served_games: tuple[list[str], str, Secrets],
) -> None:
    lines, metrics, secrets = served_games
    records, other = log_records(lines)
    assert not other, "non-JSON lines:\n" + "\n".join(other[:5])
    events = {str(r.get("event")) for r in records}
    assert {"game_created", "command"} <= events, "not a debug-level log of played games"
    assert any(name.startswith("salt") for name in secrets.values), "no salt exported"
    text = "".join(lines)
    found = []
    for name, value in secrets.values.items():
        for form in _forms(value):
            for where, haystack in (("log", text), ("metrics", metrics)):
                if form in haystack:
                    found.append(f"{name} ({form[:12]}...) in the {where}")
    for hand in secrets.hands:
        for form in (json.dumps(hand), ",".join(map(str, hand)), json.dumps(sorted(hand))):
            if form in text or form in metrics:
                found.append(f"a hand {form} in the log or metrics")
    assert not found, "\n".join(sorted(set(found)))


def test_no_log_record_has_a_key_that_names_a_secret(
    served_games: tuple[list[str], str, Secrets],
) -> None:
    records, _ = log_records(served_games[0])
    named = {key for record in records for key in _keys(record)} & SECRET_KEYS
    assert not named, named


def test_the_database_password_is_in_no_log_line_nor_the_banner(tmp_path: Path) -> None:
    """``--store`` holds the database's password (docs/operations.md): the ``serving`` line
    and the banner name the store without it. (The test server trusts local connections, so
    any password works.)"""
    password = "pw-4b1d9e7c2a"
    with temporary_database() as url:
        user_host, database = postgres_url(url).split("://", 1)[1].split("/", 1)
        user, host = user_host.split("@", 1)
        store = f"postgresql://{user}:{password}@{host}/{database}"
        replica = Replica(store, tmp_path, "served")
        try:
            replica.start()
        finally:
            replica.stop()
        logged = replica.log_path.read_text()
    assert "serving" in logged and "***" in logged
    assert password not in logged, "the database password was logged"
    assert password not in replica.banner and "***" in replica.banner, replica.banner
