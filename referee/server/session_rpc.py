"""The RPCs of one stream per player: PlayerSession (bidirectional), WatchPlayer.

One of the parts :class:`~referee.server.service.RefereeCore` is assembled from, which finds
each RPC by its name.
Both run a :class:`~referee.application.players.sessions.Session` into the transport's ``write``;
PlayerSession also reads the client's resumes and commands from its request stream. A game's
message is put together from the bytes its view and events carry (as StreamGame's are), so a
batch the player's seats see alike is encoded once for every session.

Both are held to every stream's policy (:mod:`referee.application.tables.pacing`): a write
the client has not taken within the stall limit ends the stream with RESOURCE_EXHAUSTED (the
client resumes each game after the last sequence it has), an idle one sends heartbeats, and
each counts against the player's stream cap.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from google.protobuf.message import Message

from referee.application import RefereeError
from referee.application.lobby.challenges import Challenge
from referee.application.lobby.pairing import PairingTicket
from referee.application.players.accounts import Players
from referee.application.players.seat_documents import Reserved
from referee.application.players.sessions import (
    GameMessage,
    Granted,
    Notice,
    Outcome,
    Resume,
    Session,
    SessionCommand,
    SessionMessage,
    Sessions,
)
from referee.application.tables import errors as app_errors
from referee.application.tables.access import Principal
from referee.application.tables.pacing import Outlet, Pacing
from referee.metrics import SERVICE, Children, Metrics
from referee.protowire import delimited, tag, varint
from referee.server import convert, errors, lobby_rpc
from referee.server.calls import Caller, Refused
from referee.v1 import referee_pb2 as pb

_UPDATE = pb.GameUpdate.DESCRIPTOR.fields_by_name
_GAME_ID = tag(_UPDATE["game_id"].number, 2)
_SEAT = tag(_UPDATE["seat"].number, 0)
_EVENTS = tag(_UPDATE["events"].number, 2)
_VIEW = tag(_UPDATE["view"].number, 2)
_CAUGHT_UP = tag(_UPDATE["caught_up"].number, 0) + b"\x01"
_AS_UPDATE = tag(pb.PlayerMessage.DESCRIPTOR.fields_by_name["update"].number, 2)
#: ``messages`` is field 1 of both PlayerSessionResponse and WatchPlayerResponse; a repeated
#: field's serialization is its elements' one after the other, so a batch's response is the
#: concatenation of its messages' (each encoded once, whatever batch it goes in).
_MESSAGE = tag(pb.PlayerSessionResponse.DESCRIPTOR.fields_by_name["messages"].number, 2)
assert pb.WatchPlayerResponse.DESCRIPTOR.fields_by_name["messages"].number == 1
#: A response grows to about this many bytes at most before it is written (a catch-up of many
#: games stays under the clients' 4 MiB receive limit).
BATCH_BYTES = 1 << 20


def message_bytes(message: SessionMessage) -> bytes:
    """A session's message as a serialized PlayerSessionResponse of that one message (or
    WatchPlayerResponse: the same bytes); a batch's response is these, concatenated."""
    if isinstance(message, GameMessage):
        update = message.update
        parts = [_GAME_ID, varint(len(message.game_id)), message.game_id.encode()]
        if message.seat:
            parts += [_SEAT, varint(message.seat)]
        parts += [delimited(_EVENTS, event.data) for event in update.events]
        parts.append(delimited(_VIEW, update.view.data))
        if message.caught_up:
            parts.append(_CAUGHT_UP)
        return delimited(_MESSAGE, delimited(_AS_UPDATE, b"".join(parts)))
    return delimited(_MESSAGE, player_message(message).SerializeToString())


def player_message(message: SessionMessage) -> pb.PlayerMessage:
    """A session's message as a PlayerMessage."""
    if isinstance(message, GameMessage):
        return pb.PlayerMessage.FromString(
            pb.PlayerSessionResponse.FromString(message_bytes(message))
            .messages[0]
            .SerializeToString()
        )
    if isinstance(message, Granted):
        return pb.PlayerMessage(
            seat=pb.SeatGranted(
                game_id=message.game_id,
                seat=message.seat,
                seat_token=message.token,
                game=convert.summary_to_proto(message.summary),
            )
        )
    if isinstance(message, Outcome):
        return pb.PlayerMessage(outcome=outcome_to_proto(message))
    if isinstance(message, Reserved):
        return pb.PlayerMessage(
            reserved=pb.SeatReserved(
                game_id=message.game_id, seat=message.seat, game_type=message.game_type
            )
        )
    return notice_to_proto(message)


def outcome_to_proto(outcome: Outcome) -> pb.CommandOutcome:
    answer = pb.CommandOutcome(
        command_id=outcome.command_id, game_id=outcome.game_id, seat=max(outcome.seat, 0)
    )
    if outcome.refusal is not None:
        answer.refusal.CopyFrom(refusal_to_proto(outcome.refusal))
    elif outcome.submitted is not None:
        answer.first_sequence = outcome.submitted.first_sequence
        answer.last_sequence = outcome.submitted.last_sequence
        answer.duplicate = outcome.submitted.duplicate
    return answer


def refusal_to_proto(error: RefereeError) -> pb.Refusal:
    """What the unary call's ``google.rpc.Status`` would carry: code, message, ErrorInfo."""
    status = errors.to_status(error)
    return pb.Refusal(
        code=status.code,
        code_name=status.code,
        message=status.message,
        reason=error.reason,
        metadata=dict(error.metadata),
    )


def notice_to_proto(notice: Notice) -> pb.PlayerMessage:
    """A lobby inbox change: a challenge, or a pairing ticket."""
    item = notice.item
    if isinstance(item, Challenge):
        return pb.PlayerMessage(challenge=lobby_rpc.challenge_to_proto(item))
    if isinstance(item, PairingTicket):
        return pb.PlayerMessage(pairing=lobby_rpc.ticket_to_proto(item))
    raise TypeError(f"not a lobby inbox item: {type(item).__name__}")


def _resume(resume: pb.GameResume) -> Resume:
    return Resume(
        resume.game_id, resume.seat, resume.after_sequence, resume.seat_token, resume.only_new
    )


def _command(request: pb.SessionCommand) -> SessionCommand:
    return SessionCommand(
        request.game_id,
        request.seat,
        request.command_id,
        convert.command_from_request(request),
        expected_version=convert.expected_version_of(request),
        client_decision_ms=request.client_decision_ms,
    )


class SessionCalls:
    """The RPCs of one stream per player: ``sessions`` for the streams, ``players`` for the
    caller's credential, ``pacing`` for the player's stream cap, ``metrics`` for what is
    sent."""

    def __init__(
        self, players: Players, sessions: Sessions, pacing: Pacing, metrics: Metrics
    ) -> None:
        self.players = players
        self.sessions = sessions
        self.pacing = pacing
        self.metrics = metrics

    async def PlayerSession(
        self, requests: AsyncIterator[Message | Refused], out: Outlet, caller: Caller
    ) -> None:
        player = await self._session_player(caller)
        self._counted(player, out)
        session = self.sessions.open(player)
        reading = out.hold(asyncio.ensure_future(self._read_session(requests, session)))
        try:
            await self._serve_session(session, out, "PlayerSession")
        finally:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reading

    async def WatchPlayer(
        self, request: pb.WatchPlayerRequest, out: Outlet, caller: Caller
    ) -> None:
        player = await self._session_player(caller)
        resumes = [_resume(r) for r in request.resume]
        if player is None and not any(r.seat_token for r in resumes):
            raise app_errors.token_missing(
                "WatchPlayer needs the player's credential (authorization: Bearer), or seats "
                "named by token in resume"
            )
        self._counted(player, out)
        session = self.sessions.open(player, resumes)
        await self._serve_session(session, out, "WatchPlayer")

    def _counted(self, player: Principal | None, out: Outlet) -> None:
        """The stream against its player's cap (a session with no player has none), held by
        its outlet."""
        if player is not None:
            out.enter(self.pacing.admit_player(player.player.name))

    async def _session_player(self, caller: Caller) -> Principal | None:
        """Who the call's credential names (counted once against the player's calls per
        minute: the commands on the stream are not calls); ``None`` without one (a session
        that follows seats by token only)."""
        return await self.players.optional(caller.credential)

    async def _read_session(
        self, requests: AsyncIterator[Message | Refused], session: Session
    ) -> None:
        """The client's messages: resumes and commands (each command answered on the
        stream, a request that cannot be read too)."""
        async for request in requests:
            if isinstance(request, Refused):
                # Bytes that are not a request. The client is out of step with the protocol:
                # the stream ends INVALID_ARGUMENT, as every RPC answers such bytes.
                session.end(request.error)
                return
            assert isinstance(request, pb.PlayerSessionRequest)  # decoded as this method's
            kind = request.WhichOneof("kind")
            if kind == "command":
                await session.command(_command(request.command))
            elif kind == "resume":
                session.resume(_resume(request.resume))
            else:
                session.refuse(app_errors.bad_request("kind", "a command or a resume"))

    async def _serve_session(self, session: Session, out: Outlet, name: str) -> None:
        """Write the session's messages, every message ready at once in one response (one
        write for a command's outcome and the updates it caused)."""
        sent = self.metrics.msg_sent.labels("bidi_stream", SERVICE, name)
        commands = self.metrics.commands_of
        async with contextlib.aclosing(out.hold(session.batches())) as batches:
            async for batch in batches:
                parts: list[bytes] = []
                size = 0
                for message in batch:
                    if isinstance(message, Outcome):
                        _count(commands, message)
                    data = message_bytes(message)
                    if parts and size + len(data) > BATCH_BYTES:
                        await out.send(b"".join(parts))
                        sent.inc()
                        parts, size = [], 0
                    parts.append(data)
                    size += len(data)
                await out.send(b"".join(parts))
                sent.inc()


def _count(commands: Children, outcome: Outcome) -> None:
    """The command counter, as SubmitCommand keeps it."""
    if outcome.submitted is not None:
        label = "duplicate" if outcome.submitted.duplicate else "accepted"
        commands(outcome.submitted.game_type, label, "ok").inc()
    elif outcome.refusal is not None:
        rule = outcome.refusal.metadata.get("rule_id", outcome.refusal.reason)
        commands("unknown", "rejected", rule).inc()


__all__ = ["SessionCalls", "message_bytes", "player_message", "refusal_to_proto"]
