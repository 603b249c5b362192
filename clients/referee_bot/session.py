"""The bot SDK's player-stream mode: one program, every seat it holds, one stream.

Where :func:`referee_bot.sdk.play` plays one seat with one StreamGame and unary commands,
:class:`PlayerStream` is a player program as docs/clients.md ("One stream per player")
describes it: one ``PlayerSession`` carries every seat the player holds (claimed, given by an
accepted challenge or a pairing, or named by token), the player's challenges and pairing
tickets, and the program's commands, each answered on the stream by its command id::

    from referee_bot.session import PlayerStream

    stream = PlayerStream(stub, credential=TOKEN, bot_for=lambda game, seat: FirstLegal())
    results = stream.run(games=1)          # until one game has ended for this program

It does for every seat what :func:`~referee_bot.sdk.play` does for one: the bot is asked once
per view version in which its seat is pending; a stale command (ABORTED, FAILED_PRECONDITION)
waits for the next view; an illegal one (INVALID_ARGUMENT) is counted and the first legal
command of that view played instead. When the stream breaks (a restart, a replica gone) it
reconnects with backoff, resumes every game after the last sequence it received (no event
lost or seen twice, and no grant or opening view again: ``GameResume.only_new``) and sends
again, with the same ids, the commands whose outcome it had not heard (the referee answers a
retry with the first outcome).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.runner import BotError, backoff, describe_rpc_error
from referee_bot.sdk import STALE, Bot, PlayResult

log = logging.getLogger("referee_bot.session")

#: Stream errors after which the program does not reconnect: the request itself is refused.
REFUSED = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)

#: Makes the bot for a seat: ``bot_for(game_summary, seat)``.
BotFactory = Callable[[referee_pb2.GameSummary, int], Bot]


@dataclass
class _Seat:
    game_id: str
    seat: int
    token: str
    bot: Bot | None = None
    result: PlayResult = field(default_factory=lambda: PlayResult(game_id=""))
    #: The last sequence received (where a reconnect resumes).
    after: int = 0
    acted: int = -1
    over: bool = False


@dataclass
class _Sent:
    command: referee_pb2.SessionCommand
    view: referee_pb2.View
    fallback: bool = False


class PlayerStream:
    """One player program's stream (see the module's docstring).

    ``credential``: the player's API or platform token (empty: seats by token only);
    ``seats``: ``(game_id, seat, token)`` of seats to follow by their token;
    ``on_message``: called with every PlayerMessage (challenges, pairings, ...), from the
    thread that runs :meth:`run`."""

    def __init__(
        self,
        stub: referee_pb2_grpc.RefereeServiceStub,
        bot_for: BotFactory,
        *,
        credential: str = "",
        seats: Iterable[tuple[str, int, str]] = (),
        on_message: Callable[[referee_pb2.PlayerMessage], None] | None = None,
        accept_challenges: bool = False,
        retries: int = 12,
    ) -> None:
        self.stub = stub
        self.bot_for = bot_for
        self.credential = credential
        self.on_message = on_message
        self.accept_challenges = accept_challenges
        self.retries = retries
        self.seats: dict[tuple[str, int], _Seat] = {(g, s): _Seat(g, s, t) for g, s, t in seats}
        self.reconnects = 0
        self._in_flight: dict[str, _Sent] = {}
        self._requests: queue.Queue[referee_pb2.PlayerSessionRequest | None] = queue.Queue()
        self._call: Any = None
        self._stopped = threading.Event()
        self._answered: set[str] = set()
        self._name: str | None = None

    @property
    def metadata(self) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.credential}")] if self.credential else []

    # --- running ----------------------------------------------------------------------

    def run(self, games: int | None = None, timeout: float | None = None) -> list[PlayResult]:
        """Play until ``games`` games have ended for this program (``None``: until
        :meth:`stop`); returns each seat's result."""
        deadline = None if timeout is None else time.monotonic() + timeout
        attempt = 0
        while not self._stopped.is_set():
            try:
                for message in self._open():
                    attempt = 0
                    self._handle(message)
                    if games is not None and sum(s.over for s in self.seats.values()) >= games:
                        self.stop()
                        break
                    if deadline is not None and time.monotonic() > deadline:
                        raise TimeoutError("the games did not end in time")
                else:
                    if self._stopped.is_set():
                        break
            except grpc.RpcError as error:
                if self._stopped.is_set():
                    break
                if error.code() in REFUSED or attempt >= self.retries:
                    raise BotError(f"player stream: {describe_rpc_error(error)}") from None
                log.info("player stream broke (%s); reconnecting", describe_rpc_error(error))
                time.sleep(backoff(attempt))
                attempt += 1
                self.reconnects += 1
        return [seat.result for seat in self.seats.values()]

    def stop(self) -> None:
        """End :meth:`run` (from any thread)."""
        self._stopped.set()
        self._requests.put(None)
        if self._call is not None:
            self._call.cancel()

    def follow(self, game_id: str, seat: int, token: str) -> None:
        """Follow one more seat by its token (from any thread)."""
        self.seats.setdefault((game_id, seat), _Seat(game_id, seat, token))
        self._send(resume=referee_pb2.GameResume(game_id=game_id, seat=seat, seat_token=token))

    # --- inside -----------------------------------------------------------------------

    def _open(self) -> Iterator[referee_pb2.PlayerMessage]:
        self._requests = queue.Queue()
        for seat in self.seats.values():
            if not seat.over:
                resume = referee_pb2.GameResume(
                    game_id=seat.game_id, seat=seat.seat, after_sequence=seat.after
                )
                resume.seat_token = seat.token
                # A seat this program has (its grant and a view): only what is new comes.
                resume.only_new = seat.after > 0 and seat.bot is not None
                self._requests.put(referee_pb2.PlayerSessionRequest(resume=resume))
        for sent in self._in_flight.values():  # outcome not heard: the same id again
            self._requests.put(referee_pb2.PlayerSessionRequest(command=sent.command))
        requests = self._requests
        self._call = self.stub.PlayerSession(iter(requests.get, None), metadata=self.metadata)
        for response in self._call:
            yield from response.messages  # each response: every message ready at once

    def _send(self, **kind: Any) -> None:
        self._requests.put(referee_pb2.PlayerSessionRequest(**kind))

    def _handle(self, message: referee_pb2.PlayerMessage) -> None:
        if self.on_message is not None:
            self.on_message(message)
        kind = message.WhichOneof("kind")
        if kind == "seat":
            granted = message.seat
            key = (granted.game_id, granted.seat)
            seat = self.seats.setdefault(key, _Seat(*key, granted.seat_token))
            if seat.bot is None:
                seat.bot = self.bot_for(granted.game, granted.seat)
                seat.result = PlayResult(game_id=granted.game_id, seat=granted.seat)
        elif kind == "update":
            self._update(message.update)
        elif kind == "outcome":
            self._outcome(message.outcome)
        elif kind == "challenge" and self.accept_challenges:
            self._maybe_accept(message.challenge)

    def _update(self, update: referee_pb2.GameUpdate) -> None:
        seat = self.seats.get((update.game_id, update.seat))
        if seat is None or seat.bot is None:
            return
        if update.events:
            seat.after = update.events[-1].sequence
        view = update.view
        seat.result.final_view = view
        if view.game_over:
            seat.over = True
            return
        if (
            update.seat not in view.pending_seats
            or not view.legal_commands
            or view.version <= seat.acted
        ):
            return
        seat.acted = view.version
        started = time.perf_counter()
        command = seat.bot.choose(view)
        elapsed = (time.perf_counter() - started) * 1000
        seat.result.decision_ms.append(elapsed)
        self._command(update, view, command, elapsed)

    def _command(
        self,
        update: referee_pb2.GameUpdate,
        view: referee_pb2.View,
        command: referee_pb2.Command,
        elapsed: float,
        fallback: bool = False,
    ) -> None:
        sent = referee_pb2.SessionCommand(
            game_id=update.game_id,
            seat=update.seat,
            command_id=str(uuid.uuid4()),
            expected_version=view.version,
            command=command,
            client_decision_ms=max(0, round(elapsed)),
        )
        self._in_flight[sent.command_id] = _Sent(sent, view, fallback)
        self._send(command=sent)

    def _outcome(self, outcome: referee_pb2.CommandOutcome) -> None:
        sent = self._in_flight.pop(outcome.command_id, None)
        seat = self.seats.get((outcome.game_id, outcome.seat))
        if sent is None or seat is None:
            return
        if not outcome.HasField("refusal"):
            seat.result.commands += 1
            return
        code = _code(outcome.refusal.code)
        if code in STALE:
            seat.result.conflicts += 1  # someone moved first: the stream brings the news
            return
        if code == grpc.StatusCode.INVALID_ARGUMENT and not sent.fallback:
            seat.result.illegal += 1
            log.warning(
                "game %s seat %s: illegal command (%s); playing the first legal command",
                outcome.game_id,
                outcome.seat,
                outcome.refusal.message,
            )
            update = referee_pb2.GameUpdate(game_id=outcome.game_id, seat=outcome.seat)
            self._command(update, sent.view, sent.view.legal_commands[0], 0.0, fallback=True)
            return
        raise BotError(
            f"game {outcome.game_id} seat {outcome.seat}: {code.name}: {outcome.refusal.message}"
        )

    def _maybe_accept(self, challenge: referee_pb2.Challenge) -> None:
        if challenge.state != referee_pb2.CHALLENGE_STATE_OPEN:
            return
        if challenge.challenge_id in self._answered:
            return
        if self._name is None:
            self._name = self.stub.WhoAmI(
                referee_pb2.WhoAmIRequest(), metadata=self.metadata, timeout=30
            ).player.name
        if challenge.challenger == self._name:
            return
        self._answered.add(challenge.challenge_id)
        try:
            self.stub.AnswerChallenge(
                referee_pb2.AnswerChallengeRequest(
                    challenge_id=challenge.challenge_id, accept=True
                ),
                metadata=self.metadata,
                timeout=30,
            )
        except grpc.RpcError as error:  # taken by someone else, withdrawn, expired
            log.info("challenge %s: %s", challenge.challenge_id, describe_rpc_error(error))


def _code(number: int) -> grpc.StatusCode:
    for code in grpc.StatusCode:
        if code.value[0] == number:
            return code
    return grpc.StatusCode.UNKNOWN


__all__ = ["REFUSED", "BotFactory", "PlayerStream"]
