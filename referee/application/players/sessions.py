"""One stream per player: every seat it holds, its lobby news and its commands, in one stream.

A :class:`Session` is what one connected player program sees (PlayerSession, WatchPlayer):

- for every seat it follows, a **batched stream of that seat's game**, the fan-out's own
  (:meth:`FanOut.follow`), so redaction, batching, resumption and the backlog bound are
  exactly StreamGame's; each begins with a :class:`Granted` naming the seat. The seats are
  the ones the player holds (its ``holding`` documents, then each new one as it is written:
  a claim, an accepted challenge, a pairing) and any seat the client names with its token in
  a :class:`Resume` (today's flow: a program handed seat tokens, as the tournament runner
  hands them, multiplexes them on one stream with no account);
- the player's **lobby inbox** (challenges, pairing tickets): the lobby room is above this
  one, so the session asks it through the port :class:`Inboxes`, which the facade fills with
  the lobby;
- the seats **reserved for the player** and not claimed yet (:class:`Reserved`: its
  ``reservation`` documents, those of unfinished games when the session opens, then each new
  one as it is written), so a program claims a seat a tournament runner or any creator
  reserved for it at once rather than looking for it;
- the **outcome of each command** sent on the stream, correlated by its command id: a
  refusal is the :class:`RefereeError` the unary call would raise, so each adapter sends the
  same code, reason and metadata the unary call's status carries.

Every source is a task that puts into one bounded queue the transport drains. A source that
cannot put waits: its game stream falls behind in the game's log (which costs no memory)
and ends by the backlog bound as a StreamGame would, so a slow reader holds at most
:data:`QUEUE` messages. Resume is exact per (game, seat): each seat's stream starts after the
sequence the client names. Commands run concurrently (a program plays many games at once),
so outcomes may come in any order.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from referee.application.players import seat_documents
from referee.application.players.credentials import Credentials
from referee.application.players.presence import Presence
from referee.application.players.seat_documents import Reserved
from referee.application.tables import access, errors
from referee.application.tables.access import Principal
from referee.application.tables.commands import Commands
from referee.application.tables.errors import RefereeError
from referee.application.tables.fanout import StreamEnded
from referee.application.tables.repository import Repository
from referee.application.tables.seats import HOLDING, RESERVATION
from referee.application.tables.streams import Streams
from referee.application.tables.values import Submitted, Summary, Update, Watcher

log = structlog.get_logger("referee")

#: Messages a session holds for its reader at most (then its sources wait).
QUEUE = 256
#: Commands of one session being decided at once, at most.
IN_FLIGHT = 256


# --- what a session says ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameMessage:
    """One batch of a followed seat's game (``PlayerMessage.update``)."""

    game_id: str
    seat: int
    update: Update
    caught_up: bool


@dataclass(frozen=True, slots=True)
class Granted:
    """A seat the session now follows; its game's messages come next (``PlayerMessage.seat``).
    ``token`` only when the client named it (never a token the referee keeps a hash of)."""

    game_id: str
    seat: int
    summary: Summary
    token: str = ""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of a command sent on the stream: ``submitted``, or the ``refusal`` the
    unary call would have answered with (nothing changed)."""

    command_id: str
    game_id: str
    seat: int
    submitted: Submitted | None = None
    refusal: RefereeError | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """A change in the player's lobby inbox: the lobby room's challenge or pairing ticket
    (this room does not know their types: the lobby's is above it)."""

    item: object


SessionMessage = GameMessage | Granted | Outcome | Notice | Reserved


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a seat's stream starts: after ``after`` (0: from the game's first event).
    ``seat_token``: follow this seat by its token, not as a seat the player holds.
    ``only_new``: send only the batches after ``after``, not the seat's :class:`Granted` nor
    its opening view (a reconnecting client has both): a game with nothing new sends
    nothing."""

    game_id: str
    seat: int
    after: int = 0
    seat_token: str = ""
    only_new: bool = False


@dataclass(frozen=True, slots=True)
class SessionCommand:
    """A command for a followed seat; ``expected_version`` and ``client_decision_ms`` as
    :meth:`Commands.submit`'s."""

    game_id: str
    seat: int
    command_id: str
    command: Any
    expected_version: int | None = None
    client_decision_ms: int = 0


class Inboxes(Protocol):
    """What a session needs of the lobby room (above this one, so named here as a port the
    facade fills with the lobby): a player's inbox as an async iterator of changes."""

    def inbox(self, player: str) -> AsyncGenerator[object, None]: ...


#: Submits a command for a seat a named player holds (the seats room's path, no token).
SubmitHeld = Callable[[str, SessionCommand], Awaitable[Submitted]]


# --- the room --------------------------------------------------------------------------------


class Sessions:
    """The open player sessions of one referee (``Referee.sessions``): ``commands`` takes a
    command for a seat followed by its token, ``submit_held`` one for a seat the player
    holds (:meth:`Seating.submit_held`), ``inboxes`` has each player's lobby inbox.

    One document listener serves every session: a ``holding`` written for a player reaches
    that player's sessions, on the event loop."""

    def __init__(
        self,
        repository: Repository,
        commands: Commands,
        streams: Streams,
        submit_held: SubmitHeld,
        inboxes: Inboxes,
        credentials: Credentials | None = None,
        presence: Presence | None = None,
    ) -> None:
        self.repository = repository
        #: Who is online: told of each player's first session here and its last one's end.
        self.presence = presence
        self.commands = commands
        self.streams = streams
        self.submit_held = submit_held
        self.inboxes = inboxes
        #: The account tokens' watch: a session opened with one ends when it is revoked.
        self.credentials = credentials
        self._by_player: dict[str, set[Session]] = {}
        self._listening: Callable[[], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def open(self, principal: Principal | None, resumes: Iterable[Resume] = ()) -> Session:
        """A session of the player ``principal`` names (``None``: a client that follows only
        seats it names by token). Read :meth:`Session.messages`; close it with
        :meth:`Session.close`. A platform token scoped to a game or seat follows only that
        one; a spectator's may not play."""
        player = principal.player.name if principal is not None else None
        session = Session(self, player, resumes, principal)
        if player is not None:
            self._listen()
            self._by_player.setdefault(player, set()).add(session)
            if self.presence is not None:
                self.presence.arrived(player)
        return session

    def _forget(self, session: Session) -> None:
        if session.player is not None:
            peers = self._by_player.get(session.player)
            if peers is not None and session in peers:
                peers.discard(session)
                if not peers:
                    del self._by_player[session.player]
                if self.presence is not None:
                    self.presence.left(session.player)

    def _listen(self) -> None:
        if self._listening is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._listening = self.repository.store.add_document_listener(self._document_written)

    def _document_written(self, kind: str, key: str, revision: int) -> None:
        """The store's listener: from a store thread (or the committing one)."""
        if kind not in (HOLDING, RESERVATION) or revision == 0 or self._loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody is listening
            self._loop.call_soon_threadsafe(self._tell, kind, key)

    def _tell(self, kind: str, key: str) -> None:
        """A ``holding`` or ``reservation`` document was written: to its player's sessions."""
        parsed = parse_holding(key)
        if parsed is None:
            return
        player, game_id, seat = parsed
        for session in tuple(self._by_player.get(player, ())):
            if kind == HOLDING:
                session.hold(game_id, seat)
            else:
                session.reserved(game_id, seat)

    def close(self) -> None:
        if self._listening is not None:
            self._listening()
            self._listening = None


#: ``player/game_id/seat`` as its parts.
parse_holding = seat_documents.parse_key


# --- one session -----------------------------------------------------------------------------


@dataclass(eq=False)
class _Followed:
    """One seat the session follows: its stream's task (replaced when the client resumes
    it elsewhere: messages of a replaced one are dropped)."""

    game_id: str
    seat: int
    token: str
    task: asyncio.Future[None] | None = None
    #: The client resumed the seat elsewhere: what this one queued is not sent.
    replaced: bool = False
    #: Send no grant and no opening view (:attr:`Resume.only_new`).
    only_new: bool = False


@dataclass(frozen=True, slots=True)
class _End:
    error: RefereeError | None


_Item = tuple[_Followed | None, SessionMessage] | _End


@dataclass(eq=False)
class Session:
    """One player program's stream (see the module's docstring)."""

    sessions: Sessions
    player: str | None
    resumes: Iterable[Resume] = ()
    principal: Principal | None = None
    _queue: asyncio.Queue[_Item] = field(default_factory=lambda: asyncio.Queue(QUEUE))
    _seats: dict[tuple[str, int], _Followed] = field(default_factory=dict)
    #: Seats whose game is over and fully sent: a late ``holding`` notice does not restart.
    _done: set[tuple[str, int]] = field(default_factory=set)
    #: Where a seat not followed yet starts (resumes that came before its holding), and
    #: whether only what is new is sent.
    _after: dict[tuple[str, int], tuple[int, bool]] = field(default_factory=dict)
    _tasks: set[asyncio.Future[Any]] = field(default_factory=set)
    #: Reservations announced already (the listing at the start and a write may both tell).
    _announced: set[tuple[str, int]] = field(default_factory=set)
    _started: bool = False
    _closed: bool = False
    #: Ends the hold on the account token the session was opened with (if any).
    _release: Callable[[], None] | None = None
    _in_flight: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(IN_FLIGHT))

    # --- the client's side --------------------------------------------------------------

    async def messages(self) -> AsyncGenerator[SessionMessage, None]:
        """Every message of the session, until the client leaves (close the generator) or
        the referee ends it (raises the :class:`RefereeError`: a seat's stream ended by the
        backlog bound or a shutdown; the client resumes each game after what it has)."""
        async with contextlib.aclosing(self.batches()) as batches:
            async for batch in batches:
                for message in batch:
                    yield message

    async def batches(self) -> AsyncGenerator[list[SessionMessage], None]:
        """:meth:`messages`, each time as every message ready at once (in order): a
        transport writes each batch as one stream message, so a command's outcome and the
        updates it caused, queued while the last write was under way, cost one write."""
        self._start()
        try:
            queue = self._queue
            while True:
                item = queue.get_nowait() if queue.qsize() else await queue.get()
                batch: list[SessionMessage] = []
                while not isinstance(item, _End):
                    followed, message = item
                    if followed is None or not followed.replaced:  # else resumed elsewhere
                        batch.append(message)
                    if not queue.qsize():
                        break
                    item = queue.get_nowait()
                if batch:
                    yield batch
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
        finally:
            tasks = self.close()
            # Wait for the sources to end, so every seat's stream is freed when this returns.
            await asyncio.gather(*tasks, return_exceptions=True)

    def resume(self, resume: Resume) -> None:
        """Follow a seat from ``resume.after`` (PlayerSession's ``resume``, WatchPlayer's
        request): a seat followed already is restarted there; with a token, the token's
        seat, whether or not the player holds it."""
        key = (resume.game_id, resume.seat)
        self._done.discard(key)
        current = self._seats.get(key)
        if resume.seat_token or current is not None:
            token = resume.seat_token or (current.token if current is not None else "")
            self._follow(resume.game_id, resume.seat, resume.after, token, resume.only_new)
        else:
            self._after[key] = (resume.after, resume.only_new)
            if self._started and self.player is not None:
                # Not held (yet): checked against the player's holdings in the task.
                self._spawn(self._resume_held(resume.game_id, resume.seat))

    def hold(self, game_id: str, seat: int) -> None:
        """The player now holds this seat (a ``holding`` document): follow it."""
        key = (game_id, seat)
        if key in self._seats or key in self._done or self._closed:
            return
        if not self._covers(game_id, seat):
            return  # a platform token scoped elsewhere: not this session's seat
        after, only_new = self._after.pop(key, (0, False))
        self._follow(game_id, seat, after, "", only_new)

    def reserved(self, game_id: str, seat: int) -> None:
        """A seat is reserved for the player now (a ``reservation`` document): announce it,
        once, if it is still there when read (not claimed meanwhile)."""
        if (game_id, seat) in self._announced or self._closed:
            return
        principal = self.principal
        if not self._covers(game_id, seat) or (principal is not None and principal.spectator_only):
            return  # a credential that may not claim this seat: nothing to announce
        self._spawn(self._announce(game_id, seat))

    def _covers(self, game_id: str, seat: int) -> bool:
        """False for a seat a platform token scoped elsewhere does not cover."""
        principal = self.principal
        return principal is None or not (
            (principal.scope_game and principal.scope_game != game_id)
            or (principal.scope_seat is not None and principal.scope_seat != seat)
        )

    async def command(self, command: SessionCommand) -> None:
        """Submit ``command`` (in a task of its own); its :class:`Outcome` follows on the
        stream. Waits while :data:`IN_FLIGHT` commands of the session are undecided (the
        transport then reads no more of the client's messages: backpressure, not a queue)."""
        await self._in_flight.acquire()
        self._spawn(self._command(command))

    def refuse(self, error: RefereeError, command_id: str = "", game_id: str = "") -> None:
        """Answer a request that asks for nothing known on the stream (it goes on)."""
        self._spawn(self._put(None, Outcome(command_id, game_id, -1, refusal=error)))

    def end(self, error: RefereeError) -> None:
        """End the session with ``error`` (bytes that are not a request: as every RPC answers
        them, with the call's status)."""
        self._spawn(self._end(error))

    def close(self) -> list[asyncio.Future[Any]]:
        """Stop every source (the client left, or the session ended); the tasks stopped."""
        if self._closed:
            return []
        self._closed = True
        self.sessions._forget(self)
        if self._release is not None:
            self._release()
        tasks = [f.task for f in self._seats.values() if f.task is not None]
        tasks += self._tasks
        for task in tasks:
            task.cancel()
        return tasks

    # --- inside ---------------------------------------------------------------------------

    def _start(self) -> None:
        if self._started:
            return
        self._started = True
        credentials, principal = self.sessions.credentials, self.principal
        if credentials is not None and principal is not None and principal.credential:
            # Revoked while open: the session ends UNAUTHENTICATED (the client signs in again).
            self._release = credentials.hold(principal.credential, self.end)
        for resume in self.resumes:
            self.resume(resume)
        if self.player is not None:
            self._spawn(self._follow_holdings(self.player))
            self._spawn(self._follow_reservations(self.player))
            self._spawn(self._follow_inbox(self.sessions.inboxes.inbox(self.player)))

    def _spawn(self, coroutine: Awaitable[Any]) -> None:
        if self._closed:
            if asyncio.iscoroutine(coroutine):
                coroutine.close()
            return
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _follow_holdings(self, player: str) -> None:
        repository = self.sessions.repository
        try:
            held = await seat_documents.held(repository, player)
            # A game over before this session is not replayed unless the client asks.
            over = set()
            if any(key not in self._after for key in held):
                over = await seat_documents.finished(repository)
        except RefereeError as error:
            await self._end(error)
            return
        for game_id, seat in held:
            key = (game_id, seat)
            if key in self._after or game_id not in over:
                self.hold(game_id, seat)

    async def _follow_reservations(self, player: str) -> None:
        """The seats reserved for the player before the session opened (unfinished games)."""
        try:
            for game_id, seat in await seat_documents.waiting(self.sessions.repository, player):
                self.reserved(game_id, seat)
        except RefereeError as error:
            await self._end(error)

    async def _announce(self, game_id: str, seat: int) -> None:
        repository = self.sessions.repository
        try:
            found = await seat_documents.read(repository, self.player or "", game_id, seat)
        except RefereeError as error:
            await self._end(error)
            return
        if found is not None and (game_id, seat) not in self._announced:  # else claimed
            self._announced.add((game_id, seat))
            await self._put(None, found)

    async def _resume_held(self, game_id: str, seat: int) -> None:
        if (game_id, seat) in await seat_documents.held(
            self.sessions.repository, self.player or ""
        ):
            self.hold(game_id, seat)

    def _follow(
        self, game_id: str, seat: int, after: int, token: str, only_new: bool = False
    ) -> None:
        key = (game_id, seat)
        old = self._seats.get(key)
        if old is not None:
            old.replaced = True
            if old.task is not None:
                old.task.cancel()
        followed = _Followed(game_id, seat, token, only_new=only_new and after > 0)
        self._seats[key] = followed
        if not self._closed:
            followed.task = asyncio.ensure_future(self._stream(followed, after))

    async def _stream(self, followed: _Followed, after: int) -> None:
        """One seat's batched stream into the queue; the session ends with its error."""
        sessions = self.sessions
        repository = sessions.repository
        try:
            live = await repository.get(followed.game_id)
            if followed.token:
                await access.read_claims_for(repository, live, followed.token)
                seat = access.seat_of(live, followed.token, spectator=False)
                if seat != followed.seat:
                    raise errors.forbidden(
                        "this token is not the token of that seat", "TOKEN_INVALID", live.game_id
                    )
            if after > live.table.version and repository.store.shared:
                await repository.catch_up(live)  # resuming here after another replica
            quiet = followed.only_new
            if not quiet:
                await self._put(
                    followed, Granted(live.game_id, followed.seat, live.summary(), followed.token)
                )
            # A credential that may only watch sees its player's seats as a spectator does.
            watching = (
                not followed.token and self.principal is not None and self.principal.spectator_only
            )
            viewer = None if watching else followed.seat
            updates = sessions.streams.follow_seat(live, Watcher(viewer), after)
            queue = self._queue
            async with contextlib.aclosing(updates):
                async for update, caught_up in updates:
                    if quiet and not update.events:
                        continue  # the opening view: the client has it
                    item = (followed, GameMessage(live.game_id, followed.seat, update, caught_up))
                    if queue.full():  # the reader is behind: wait (the game's log keeps it)
                        await queue.put(item)
                    else:
                        queue.put_nowait(item)  # the common case: no coroutine per message
        except StreamEnded as ended:
            await self._end(ended.error, followed)
            return
        except RefereeError as error:
            await self._end(error, followed)
            return
        except Exception:
            # A fault of ours: end the session (the client resumes) rather than leave it
            # silent.
            log.exception("session_stream_failed", game_id=followed.game_id, seat=followed.seat)
            await self._end(
                RefereeError(
                    errors.Kind.UNAVAILABLE,
                    "a game's stream failed here: resume the session",
                    "SESSION_FAILED",
                ),
                followed,
            )
            return
        key = _key(followed)
        if self._seats.get(key) is followed:
            del self._seats[key]
            self._done.add(key)

    async def _follow_inbox(self, inbox: AsyncGenerator[object, None]) -> None:
        try:
            async with contextlib.aclosing(inbox):
                async for item in inbox:
                    await self._put(None, Notice(item))
        except RefereeError as error:
            await self._end(error)

    async def _command(self, command: SessionCommand) -> None:
        key = (command.game_id, command.seat)
        followed = self._seats.get(key)
        try:
            if followed is not None and followed.token:
                submitted = await self.sessions.commands.submit(
                    command.game_id,
                    followed.token,
                    command.command_id,
                    command.command,
                    expected_version=command.expected_version,
                    client_decision_ms=command.client_decision_ms,
                )
            elif self.player is not None:
                # A held seat (followed or not: the seats room checks that the player holds
                # it, so a command may race its seat's grant).
                if self.principal is not None:  # a platform token's scope, as unary calls
                    access.check_scope(self.principal, command.game_id, command.seat, play=True)
                submitted = await self.sessions.submit_held(self.player, command)
            else:
                raise errors.forbidden(
                    "this session does not hold that seat: claim it, or resume it with its "
                    "seat token",
                    "SEAT_NOT_HELD",
                    command.game_id,
                )
            outcome = Outcome(command.command_id, command.game_id, command.seat, submitted)
        except RefereeError as error:
            outcome = Outcome(command.command_id, command.game_id, command.seat, refusal=error)
        except Exception:
            log.exception("session_command_failed", game_id=command.game_id, seat=command.seat)
            failed = RefereeError(
                errors.Kind.UNAVAILABLE, "the command failed here: retry it", "SESSION_FAILED"
            )
            outcome = Outcome(command.command_id, command.game_id, command.seat, refusal=failed)
        finally:
            self._in_flight.release()
        await self._put(None, outcome)

    async def _put(self, followed: _Followed | None, message: SessionMessage) -> None:
        await self._queue.put((followed, message))

    async def _end(self, error: RefereeError | None, followed: _Followed | None = None) -> None:
        if followed is not None and followed.replaced:
            return  # a replaced stream's end is nobody's
        if error is not None and followed is not None and "game_id" not in error.metadata:
            # Which game's stream ended the session (a copy: a shutdown's error is shared).
            metadata = {**error.metadata, "game_id": followed.game_id, "seat": str(followed.seat)}
            error = dataclasses.replace(error, metadata=metadata)
        await self._queue.put(_End(error))


def _key(followed: _Followed) -> tuple[str, int]:
    return followed.game_id, followed.seat


__all__ = [
    "HOLDING",
    "IN_FLIGHT",
    "QUEUE",
    "GameMessage",
    "Granted",
    "Inboxes",
    "Notice",
    "Outcome",
    "Reserved",
    "Resume",
    "Session",
    "SessionCommand",
    "SessionMessage",
    "Sessions",
    "SubmitHeld",
    "parse_holding",
]
