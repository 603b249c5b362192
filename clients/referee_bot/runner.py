"""Playing one seat over gRPC: the event stream with resumption, and the bot loop.

Only the public API (``referee.v1``) is used, no rule code: a bot draws its decisions from the
view the server sends and picks one of the legal commands it lists.

* :class:`GameStream` iterates ``StreamGame`` for a seat or a spectator, one message per event
  or, ``batched``, one per batch of events (a command's). Whenever the stream
  ends before the game is over for any reason but the server refusing the request itself
  (:data:`STREAM_REFUSED`: a wrong token, an unknown game), it reconnects with backoff and
  ``after_sequence`` = the last sequence received, so no event is lost or seen twice: a server
  shutting down (``UNAVAILABLE``), a slow reader cut off (``RESOURCE_EXHAUSTED``), a replica
  killed behind a proxy (``INTERNAL`` "Received RST_STREAM"), a clean early end.
* :func:`submit` sends a command and, while its outcome is unknown (:data:`OUTCOME_UNKNOWN`:
  the call failed in transport or timed out), retries it with the same command id, which the
  referee applies at most once.
* :func:`play_seat` plays one seat with a strategy until the game is over.
* :func:`describe_rpc_error` turns a gRPC error into one line (code, message, rule id).
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc
from referee_bot.strategies import Strategy, effective_name, make_strategy

#: Stream ends that are the server's answer to the request itself: resuming would get the same.
#: Any other end (transport errors included) is resumed from the last sequence received, which
#: is always safe.
STREAM_REFUSED = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.ALREADY_EXISTS,
    }
)
#: Command errors after which nobody knows whether the referee applied the command (the call
#: broke in transport, timed out, or the server was going away), or it asked to come back
#: later: retried with the same command id, so it is applied at most once.
OUTCOME_UNKNOWN = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
#: Backoff between retries: the first wait, the longest.
BACKOFF_SECONDS = (0.05, 2.0)


def backoff(attempt: int, first: float = BACKOFF_SECONDS[0]) -> float:
    """Seconds to wait before retry ``attempt`` (0, 1, ...): doubling from ``first`` up to
    :data:`BACKOFF_SECONDS`'s longest, with jitter (so clients cut off together do not come
    back together).

    >>> 0.05 <= backoff(0) <= 0.1, 1.0 <= backoff(10) <= 2.0
    (True, True)
    """
    ceiling = min(BACKOFF_SECONDS[1], first * 2 ** min(attempt, 16))
    return ceiling * (0.5 + random.random() / 2) if attempt > 0 else first * (1 + random.random())


class BotError(RuntimeError):
    """A seat could not go on playing (an unexpected error from the server)."""


def retry_delay(error: grpc.RpcError) -> float | None:
    """The seconds the server asks to wait before calling again (``google.rpc.RetryInfo``,
    sent with a limit of calls a minute), or None when it sent none."""
    if not isinstance(error, grpc.Call):
        return None
    try:
        from google.rpc import error_details_pb2
        from grpc_status import rpc_status

        status = rpc_status.from_call(error)
    except Exception:  # details are optional; a bad trailer means no hint
        return None
    for detail in status.details if status is not None else ():
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(retry):
            return float(retry.retry_delay.ToNanoseconds()) / 1e9
    return None


def describe_rpc_error(error: grpc.RpcError) -> str:
    """``CODE: message`` plus the rule id / field / precondition from the ``google.rpc``
    details when the server sent them."""
    code = error.code()
    text = f"{code.name if code else 'UNKNOWN'}: {error.details() or ''}".rstrip(": ")
    extra: list[str] = []
    if isinstance(error, grpc.Call):
        try:
            from google.rpc import error_details_pb2
            from grpc_status import rpc_status

            status = rpc_status.from_call(error)
        except Exception:  # details are optional; a bad trailer must not hide the error
            status = None
        if status is not None:
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                bad = error_details_pb2.BadRequest()
                pre = error_details_pb2.PreconditionFailure()
                if detail.Unpack(info):
                    if "rule_id" in info.metadata:
                        extra.append(f"rule {info.metadata['rule_id']}")
                    elif info.reason:
                        extra.append(info.reason)
                elif detail.Unpack(bad):
                    extra.extend(f"field {v.field}" for v in bad.field_violations)
                elif detail.Unpack(pre):
                    extra.extend(f"{v.type} {v.subject}".strip() for v in pre.violations)
    return f"{text} [{'; '.join(extra)}]" if extra else text


class GameStream:
    """Iterates one viewer's ``StreamGame`` responses across reconnections.

    Events arrive in sequence order exactly once (anything at or below the last sequence
    received is dropped). The iteration ends when the server ends a stream after a game-over
    view, or after the first game-over view when ``stop_at_game_over`` is set.

    Plain (the default), each message carries one ``event`` with the view right after it.
    ``batched`` asks for ``StreamGameRequest.batched``: each message after the first carries
    a whole batch in ``events`` and the view once, after it (every view settled), so a seat's
    stream sends one message per command instead of one per event.
    """

    def __init__(
        self,
        stub: referee_pb2_grpc.RefereeServiceStub,
        game_id: str,
        *,
        token: str = "",
        spectator: bool = False,
        after_sequence: int = 0,
        stop_at_game_over: bool = False,
        max_retries: int = 30,
        backoff: float = 0.05,
        batched: bool = False,
    ) -> None:
        self.stub = stub
        self.game_id = game_id
        self.token = token
        self.spectator = spectator
        self.batched = batched
        self.last_sequence = after_sequence
        self.stop_at_game_over = stop_at_game_over
        self.max_retries = max_retries
        self.backoff = backoff
        self.reconnects = 0
        self._call: grpc.CallIterator[referee_pb2.StreamGameResponse] | None = None
        self._cancelled = threading.Event()
        self._lock = threading.Lock()

    def cancel(self) -> None:
        """Stop the iteration (from any thread)."""
        self._cancelled.set()
        with self._lock:
            if self._call is not None:
                self._call.cancel()

    def _open(self) -> grpc.CallIterator[referee_pb2.StreamGameResponse]:
        request = referee_pb2.StreamGameRequest(
            game_id=self.game_id,
            seat_token=self.token,
            spectator=self.spectator,
            after_sequence=self.last_sequence,
            batched=self.batched,
        )
        with self._lock:
            self._call = self.stub.StreamGame(request)
            if self._cancelled.is_set():
                self._call.cancel()
            return self._call

    def __iter__(self) -> Iterator[referee_pb2.StreamGameResponse]:
        failures = 0
        while not self._cancelled.is_set():
            over = False
            try:
                for message in self._open():
                    if message.HasField("heartbeat"):
                        continue  # an idle stream's sign of life: nothing to act on
                    sequence = last_sequence(message)
                    if sequence:
                        if sequence <= self.last_sequence:
                            continue
                        self.last_sequence = sequence
                        failures = 0  # progress
                    over = message.view.game_over
                    yield message
                    if over and self.stop_at_game_over:
                        self.cancel()
                        return
                if over:
                    return  # the server ended the stream after the game's final event
                error_text = "stream ended before the game was over"
            except grpc.RpcError as error:
                if self._cancelled.is_set():
                    return
                if error.code() in STREAM_REFUSED:
                    raise BotError(
                        f"stream of game {self.game_id}: {describe_rpc_error(error)}"
                    ) from None
                error_text = describe_rpc_error(error)  # a transport end: resume
            failures += 1
            if failures > self.max_retries:
                raise BotError(f"stream of game {self.game_id}: giving up: {error_text}")
            self.reconnects += 1
            self._cancelled.wait(backoff(failures - 1, self.backoff))


def last_sequence(message: referee_pb2.StreamGameResponse) -> int:
    """The sequence of the last event ``message`` carries (its ``event``, or the last of a
    batched message's ``events``); 0 when it carries none (the current view).

    >>> last_sequence(referee_pb2.StreamGameResponse(events=[referee_pb2.Event(sequence=7)]))
    7
    """
    if message.HasField("event"):
        return int(message.event.sequence)
    return int(message.events[-1].sequence) if message.events else 0


def settled(message: referee_pb2.StreamGameResponse) -> bool:
    """True when ``message`` ends a batch of events (or carries no ``event``: the current
    view, or a batched message, whose view always follows a whole batch).

    On a plain stream the events one command appends arrive one by one, each with the view
    after it; only the view after the last of them (``event.sequence ==
    event.batch_end_sequence``) is worth a decision: the earlier ones show passing states. A
    server that does not fill ``batch_end_sequence`` (0) makes every view settled.
    """
    if not message.HasField("event"):
        return True
    return message.event.sequence >= message.event.batch_end_sequence


@dataclass
class SeatOutcome:
    """How a seat's play went."""

    seat: int | None
    #: Commands the server accepted from this seat.
    commands: int
    #: Commands refused with ABORTED or FAILED_PRECONDITION (someone moved first).
    conflicts: int
    #: The last view received (the final one when the game is over).
    final_view: referee_pb2.View | None
    reconnects: int


def submit(
    stub: referee_pb2_grpc.RefereeServiceStub,
    game_id: str,
    token: str,
    command: referee_pb2.Command,
    *,
    expected_version: int | None = None,
    retries: int = 12,
    first_backoff: float = BACKOFF_SECONDS[0],
) -> referee_pb2.SubmitCommandResponse:
    """SubmitCommand with a fresh command id, retried with the same id (so at most once
    applied) while its outcome is unknown (:data:`OUTCOME_UNKNOWN`). Other errors are raised."""
    request = referee_pb2.SubmitCommandRequest(
        game_id=game_id, seat_token=token, command_id=str(uuid.uuid4()), command=command
    )
    if expected_version is not None:
        request.expected_version = expected_version
    return send_command(stub, request, retries=retries, first_backoff=first_backoff)


def send_command(
    stub: referee_pb2_grpc.RefereeServiceStub,
    request: referee_pb2.SubmitCommandRequest,
    *,
    retries: int = 12,
    first_backoff: float = BACKOFF_SECONDS[0],
    timeout: float = 30.0,
) -> referee_pb2.SubmitCommandResponse:
    """Send ``request`` (its command id chosen by the caller), again and again with the same
    id while the outcome is unknown; the referee applies it at most once and answers a retry
    of an applied command with its first outcome (``duplicate``)."""
    for attempt in range(retries + 1):
        try:
            response: referee_pb2.SubmitCommandResponse = stub.SubmitCommand(
                request, timeout=timeout
            )
            return response
        except grpc.RpcError as error:
            if error.code() not in OUTCOME_UNKNOWN or attempt == retries:
                raise
            time.sleep(backoff(attempt, first_backoff))
    raise AssertionError("unreachable")


def play_seat(
    stub: referee_pb2_grpc.RefereeServiceStub,
    game_id: str,
    token: str,
    strategy: Strategy,
    rng: random.Random,
    *,
    stream: GameStream | None = None,
    on_message: Callable[[referee_pb2.StreamGameResponse], None] | None = None,
    batched: bool = True,
) -> SeatOutcome:
    """Play one seat until the game is over: whenever the newest settled view asks this seat
    to decide, send the strategy's choice with ``expected_version`` = that view's version.
    A version conflict just means waiting for the next view.

    The seat's stream is batched (a message per batch of events, see :class:`GameStream`),
    and ``on_message`` gets its messages; ``batched=False`` for one message per event, each
    with the view after it. A ``stream`` given is used as it is."""
    stream = stream or GameStream(
        stub, game_id, token=token, stop_at_game_over=True, batched=batched
    )
    outcome = SeatOutcome(seat=None, commands=0, conflicts=0, final_view=None, reconnects=0)
    newest = -1  # highest view version seen: replayed views after a reconnect are stale
    acted = -1  # version of the view we last acted on
    for message in stream:
        if on_message is not None:
            on_message(message)
        view = message.view
        outcome.final_view = view
        if view.HasField("seat"):
            outcome.seat = view.seat
        if view.version < newest:
            continue
        newest = view.version
        if view.game_over:
            stream.cancel()
            break
        if (
            outcome.seat is None
            or not settled(message)
            or outcome.seat not in view.pending_seats
            or not view.legal_commands
            or view.version <= acted
        ):
            continue
        acted = view.version
        command = strategy.choose(view, rng)
        try:
            submit(stub, game_id, token, command, expected_version=view.version)
            outcome.commands += 1
        except grpc.RpcError as error:
            if error.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                outcome.conflicts += 1  # someone moved first: the stream brings the news
                continue
            stream.cancel()
            raise BotError(
                f"game {game_id} seat {outcome.seat}: {describe_rpc_error(error)}"
            ) from None
    outcome.reconnects = stream.reconnects
    return outcome


class SeatBot:
    """One seat played by a strategy in a background thread (for the CLI and selfplay)."""

    def __init__(
        self,
        stub: referee_pb2_grpc.RefereeServiceStub,
        game_id: str,
        token: str,
        strategy: Strategy,
        rng: random.Random,
        *,
        batched: bool = True,
    ) -> None:
        self.stream = GameStream(
            stub, game_id, token=token, stop_at_game_over=True, batched=batched
        )
        self.outcome: SeatOutcome | None = None
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.outcome = play_seat(stub, game_id, token, strategy, rng, stream=self.stream)
            except BaseException as error:  # reported by join()
                self.error = error

        self.thread = threading.Thread(target=run, name=f"bot-{game_id}", daemon=True)

    def start(self) -> SeatBot:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stream.cancel()

    def join(self, timeout: float | None = None) -> SeatOutcome:
        """Wait for the game's end; raises what the bot raised, or TimeoutError."""
        self.thread.join(timeout)
        if self.thread.is_alive():
            self.stop()
            raise TimeoutError(f"bot of game {self.stream.game_id} did not finish in time")
        if self.error is not None:
            raise self.error
        assert self.outcome is not None
        return self.outcome


def parse_options(items: list[str] | None) -> dict[str, str]:
    """``["rounds=1", "hunter_tie=last"]`` -> ``{"rounds": "1", "hunter_tie": "last"}``.

    >>> parse_options(["rounds=1"])
    {'rounds': '1'}
    """
    options: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"option {item!r} is not of the form name=value")
        options[name.strip()] = value.strip()
    return options


def default_players(stub: referee_pb2_grpc.RefereeServiceStub, game_type: str) -> int:
    """4 seats, or the nearest number the game allows (2 for a duel), from ListGameTypes."""
    types = stub.ListGameTypes(referee_pb2.ListGameTypesRequest(), timeout=30).game_types
    known = next((t for t in types if t.game_type == game_type), None)
    if known is None:
        return 4  # CreateGame will say what is wrong with the game type
    return int(max(known.min_players, min(4, known.max_players)))


def selfplay_game(
    stub: referee_pb2_grpc.RefereeServiceStub,
    game_type: str,
    players: int,
    strategies: list[str],
    *,
    options: dict[str, str] | None = None,
    seed: str | None = None,
    timeout: float = 600.0,
) -> dict[str, object]:
    """Create one game and play every seat with a bot (one thread and one stream per seat).

    ``strategies`` names each seat's strategy. With a ``seed`` the deal and every bot's choices
    are reproducible. Returns the report printed by ``referee-bot selfplay``.
    """
    created = stub.CreateGame(
        referee_pb2.CreateGameRequest(
            game_type=game_type,
            players=players,
            options=options or {},
            seed=seed or "",
            # A seed given here is for reproducing a game: the deal is public, not secret.
            public_reproducible_seed=bool(seed),
        ),
        timeout=30,
    )
    game_id = created.game_id
    bots = [
        SeatBot(
            stub,
            game_id,
            seat.token,
            make_strategy(strategies[seat.seat], game_type),
            random.Random(f"{seed}:{seat.seat}") if seed is not None else random.Random(),
        ).start()
        for seat in created.seats
    ]
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and any(b.thread.is_alive() for b in bots):
            if any(b.error is not None for b in bots):
                break  # one seat failed: stop the others rather than wait for a stuck game
            time.sleep(0.02)
        failed = [b.error for b in bots if b.error is not None]
        if failed:
            raise failed[0]
        commands = sum(bot.join(max(0.0, deadline - time.monotonic())).commands for bot in bots)
    finally:
        for bot in bots:
            bot.stop()
    game = stub.GetGame(referee_pb2.GetGameRequest(game_id=game_id), timeout=30).game
    if not game.game_over:
        raise BotError(f"game {game_id}: every bot stopped but the game is not over")
    by_seat = {r.seat: r for r in game.results}
    return {
        "game_id": game_id,
        "game": game_type,
        "seed": seed,
        "seats": [
            {
                "seat": seat,
                "score": by_seat[seat].score,
                "rank": by_seat[seat].rank,
                "strategy": effective_name(strategies[seat], game_type),
            }
            for seat in sorted(by_seat)
        ],
        "commands": commands,
    }
