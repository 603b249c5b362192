"""``referee-cli`` as a signed-in player: the lobby, join links, challenges, pairing, resign.

    export REFEREE_CREDENTIAL=acct-...            # or --credential-file FILE; never echoed
    referee-cli whoami
    referee-cli lobby [--game GAME]
    referee-cli join 'GAME_ID#CLAIM_CODE'         # a join link's code (no account needed)
    referee-cli join --game-id ID                 # a seat reserved for you, an open seat, or yours
    referee-cli challenge NAME --game GAME        # a person or a bot account, by name
    referee-cli challenges
    referee-cli accept [CHALLENGE_ID] [--wait]
    referee-cli pair --game GAME [--players N]
    referee-cli resign --game-id ID

Every way to a seat ends with its seat token in this process only (the claim's answer, the
challenge's answer, or the player stream's ``SeatGranted``), and the game is then played as
``join --token`` plays it (:func:`referee_cli.app.follow_game`). A seat held by the account is
found again from the player stream, so the way back into a game is ``join --game-id ID``:
nothing secret is ever printed. Server bots are player accounts too: a challenge to a bot's
name is how a person plays one (the account accepts it as any player does).
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.runner import parse_options

#: Where the account token is looked for first.
CREDENTIAL_ENV = "REFEREE_CREDENTIAL"
#: A challenge made from the terminal waits this long for a person to answer (the server's
#: default, 60 s, is made for bots).
CHALLENGE_SECONDS = 300

Stub = referee_pb2_grpc.RefereeServiceStub
T = TypeVar("T")


class SignInError(ValueError):
    """No credential, or one the server refuses (the message never quotes it)."""


def credential(args: argparse.Namespace, term: Any) -> str:
    """The account token: ``--credential-file``, else ``$REFEREE_CREDENTIAL``, else asked
    for without echo when stdin is a terminal. Never printed, never on a command line (where
    ``ps`` would show it)."""
    path = getattr(args, "credential_file", None)
    if path:
        return Path(path).read_text(encoding="utf-8").strip()
    token = os.environ.get(CREDENTIAL_ENV, "").strip()
    if token:
        return token
    if getattr(term.stdin, "isatty", lambda: False)():
        token = getpass.getpass("Account token (not shown): ").strip()
        if token:
            return token
    raise SignInError(
        f"sign in first: set {CREDENTIAL_ENV} to your account token, or pass "
        "--credential-file FILE (an operator makes accounts: referee account create NAME)"
    )


def metadata(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def who(stub: Stub, token: str) -> str:
    """The player's name (WhoAmI): also checks the credential before anything else."""
    answer = stub.WhoAmI(referee_pb2.WhoAmIRequest(), metadata=metadata(token), timeout=30)
    return str(answer.player.name)


def parse_join(text: str) -> tuple[str, str]:
    """(game id, claim code) of a join link or ``GAME_ID#CODE``; the web client's links carry
    them as ``...?game=ID#claim=CODE`` or ``#game=ID&code=CODE``.

    >>> parse_join("abc123#k-9")
    ('abc123', 'k-9')
    >>> parse_join("http://127.0.0.1:8080/?game=abc123#claim=k-9")
    ('abc123', 'k-9')
    >>> parse_join("http://h/#game=abc123&code=k-9")
    ('abc123', 'k-9')
    """
    from urllib.parse import parse_qs, urlsplit

    if "://" not in text and "=" not in text:
        game_id, _, code = text.partition("#")
        return game_id.strip(), code.strip()
    parts = urlsplit(text)
    fields: dict[str, list[str]] = {}
    for piece in (parts.query, parts.fragment):
        for key, values in parse_qs(piece).items():
            fields.setdefault(key, []).extend(values)
    game_id = next(iter(fields.get("game", fields.get("game_id", []))), "")
    code = next(iter(fields.get("claim", fields.get("code", fields.get("claim_code", [])))), "")
    if not game_id or not code:
        raise ValueError("a join link names a game and a claim code (GAME_ID#CODE)")
    return game_id, code


class SeatStub:
    """The stub, bound to a seat the player holds: ``GetView``, ``StreamGame``,
    ``SubmitCommand`` and ``Resign`` requests made with no seat token go with the player's
    credential and the ``seat`` field. The referee keeps only a hash of a claimed seat's
    token (the player stream does not send it), so this is how the CLI plays a seat it came
    to by a challenge or a pairing; the rest of the CLI plays it as a seat by token."""

    SEAT_CALLS = frozenset({"GetView", "StreamGame", "SubmitCommand", "Resign"})

    def __init__(self, stub: Stub, token: str, seat: int | None = None) -> None:
        self._stub = stub
        self._metadata = metadata(token)
        self.seat = seat

    def __getattr__(self, name: str) -> Any:
        call = getattr(self._stub, name)
        if name not in self.SEAT_CALLS:
            return call

        def bound(request: Any, **options: Any) -> Any:
            if not request.seat_token:
                if self.seat is not None:
                    request.seat = self.seat
                options["metadata"] = self._metadata
            return call(request, **options)

        return bound


# --- the player stream: seats and news ------------------------------------------------------


@dataclass
class Seat:
    game_id: str
    seat: int
    token: str
    game: referee_pb2.GameSummary


class PlayerWatch:
    """The player's ``WatchPlayer`` stream, read in a background thread: the seats it holds
    (``SeatGranted``, kept by game id) and its challenges and pairing tickets, as they change.
    Views are not kept here: the game is then followed with its own ``StreamGame``."""

    def __init__(self, stub: Stub, token: str) -> None:
        self.seats: dict[str, Seat] = {}
        self.challenges: dict[str, referee_pb2.Challenge] = {}
        self.tickets: dict[str, referee_pb2.PairingTicket] = {}
        self.error: grpc.RpcError | None = None
        self.changed = threading.Condition()
        self._call = stub.WatchPlayer(referee_pb2.WatchPlayerRequest(), metadata=metadata(token))
        self._thread = threading.Thread(target=self._run, name="player-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for message in (m for response in self._call for m in response.messages):
                kind = message.WhichOneof("kind")
                with self.changed:
                    if kind == "seat":
                        granted = message.seat
                        self.seats[granted.game_id] = Seat(
                            granted.game_id, granted.seat, granted.seat_token, granted.game
                        )
                    elif kind == "challenge":
                        self.challenges[message.challenge.challenge_id] = message.challenge
                    elif kind == "pairing":
                        self.tickets[message.pairing.ticket_id] = message.pairing
                    else:
                        continue
                    self.changed.notify_all()
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                with self.changed:
                    self.error = error
                    self.changed.notify_all()

    def wait_for(self, found: Callable[[], T | None], timeout: float | None = None) -> T | None:
        """The first non-None ``found()`` as the stream brings news (None after ``timeout``)."""
        with self.changed:
            self.changed.wait_for(lambda: found() is not None or self.error is not None, timeout)
            result = found()
            if result is None and self.error is not None:
                raise self.error
            return result

    def close(self) -> None:
        self._call.cancel()


# --- words ------------------------------------------------------------------------------------


def holders_text(game: referee_pb2.GameSummary) -> str:
    """``alice (online), (open), bob (bot)``: who holds each seat (never a token), whether
    the player is online (in the lobby's tables), and a seat a rated game keeps hidden
    until it starts as ``(hidden)``."""
    parts = []
    by_seat = {holder.seat: holder for holder in game.seat_holders}
    for seat in range(game.players):
        holder = by_seat.get(seat)
        if holder is None or holder.state == referee_pb2.SEAT_STATE_OPEN:
            parts.append("(open)")
        elif holder.hidden:
            parts.append("(hidden)")
        elif holder.state == referee_pb2.SEAT_STATE_RESERVED:
            parts.append(f"({holder.player}?)")
        else:
            name = holder.player or "(anonymous)"
            if holder.kind == referee_pb2.PLAYER_KIND_BOT:
                name += " (bot)"
            if holder.online:
                name += " (online)"
            parts.append(name + (" (resigned)" if holder.resigned else ""))
    return ", ".join(parts)


def terms_text(terms: referee_pb2.GameTerms) -> str:
    parts = [terms.game_type, f"{terms.players or 'fewest'} players"]
    parts += [f"{key}={value}" for key, value in sorted(terms.options.items())]
    if terms.HasField("clock") and terms.clock.decision_ms:
        parts.append(f"{terms.clock.decision_ms / 1000:g}s a move")
    if terms.rated:
        parts.append("rated")
    return ", ".join(parts)


def rating_text(rating: referee_pb2.Rating) -> str:
    """One rating as ``referee-cli ratings`` shows it: the ordinal leaderboards sort by, then
    how many rated games, and how many of them the player left early or never came to.

    >>> rating = referee_pb2.Rating(player="ann", game_type="sleeping-queens", mu=25.0,
    ...     sigma=8.0, ordinal=1.0, games=5, left_early=2, absences=1)
    >>> rating_text(rating)
    'ann  sleeping-queens  1.00 (mu 25.0, sigma 8.0)  5 games: 2 left early, 1 absent'
    """
    left = f"{rating.left_early} left early, {rating.absences} absent"
    return (
        f"{rating.player}  {rating.game_type}  {rating.ordinal:.2f} "
        f"(mu {rating.mu:.1f}, sigma {rating.sigma:.1f})  {rating.games} games: {left}"
    )


def _until(unix_ms: int) -> str:
    return datetime.datetime.fromtimestamp(unix_ms / 1000).strftime("%H:%M:%S")


def terms_of(args: argparse.Namespace) -> referee_pb2.GameTerms:
    terms = referee_pb2.GameTerms(
        game_type=args.game,
        players=args.players or 0,
        options=parse_options(args.options),
        rated=args.rated,
    )
    if args.decision_ms:
        terms.clock.CopyFrom(
            referee_pb2.ClockSettings(
                decision_ms=args.decision_ms, bank_ms=args.bank_ms or 0, forfeit_after_timeouts=0
            )
        )
    return terms
