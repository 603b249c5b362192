"""A running game in memory: the library mode of the referee (no server, no I/O).

>>> from referee.engine.table import Table
>>> table = Table.create("vampire-queen", players=3, seed=b"doc")
>>> table.version > 0 and table.pending() == (table.view(None).pending[0],)
True
>>> seat = table.pending()[0]
>>> command = table.legal_commands(seat)[0]
>>> events = table.submit(seat, command)
>>> len(table.log) == table.version
True

A refereed table (``settings`` given, as the server makes them) opens with a commitment to its
seed and reveals the seed when the game ends (``docs/fairness.md``):

>>> table = Table.create("vampire-queen", players=3, seed=b"doc", settings=TableSettings())
>>> salt = table.config.salt
>>> type(table.log[0]).__name__, table.status.commitment == commitment(b"doc", salt)
('SeedCommitted', True)
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic

from referee.engine import endings
from referee.engine.endings import Ending
from referee.engine.game import (
    GAME_OVER,
    Command,
    Decision,
    Event,
    FixedDeal,
    Game,
    GameConfig,
    Rejection,
    Seat,
    SeatResult,
    SetupRefused,
    StateT,
    Viewer,
)
from referee.engine.leaving import LEFT_REASONS, SeatsLeaving
from referee.engine.openings import (
    CardOpening,
    DeckTracker,
    card_key,
    cards_opened,
    held_one_by_one,
)
from referee.engine.outcomes import Ranking, SeatLeft, SeatOutcome
from referee.engine.registry import get_game
from referee.engine.search_table import SearchTable, among
from referee.engine.table_events import (
    DefaultPlayed,
    EventLimitReached,
    GameAborted,
    SeatClaimed,
    SeatForfeited,
    SeedCommitted,
    SeedRevealed,
    TableEvent,
    TableSettings,
    TableStatus,
    TimedOut,
    commitment,
    deal_commitment,
)

#: Length of the referee's commitment salt (docs/fairness.md).
SALT_BYTES = 32


#: The rule id a command cites after the game ended at its event limit.
EVENT_LIMIT = endings.EVENT_LIMIT


@dataclass(frozen=True, slots=True)
class View:
    """Everything ``viewer`` may know now, plus its legal commands.

    ``version`` is the sequence number of the last event folded in (0 before any event).
    ``pending`` lists every seat whose decision the game waits for, never a seat that left
    (the referee plays for it: ``referee_to_move``). ``commitment`` is the seed commitment of
    a refereed table (``""`` otherwise); ``aborted`` is true once the organiser ended the
    game (it is then over, with no results). ``results`` are each seat's outcome by the
    ``ranking`` that applies (:mod:`referee.engine.outcomes`); ``left`` the seats that left
    before the end.
    """

    game_type: str
    viewer: Viewer
    version: int
    pending: tuple[Seat, ...]
    decisions: tuple[Decision, ...]
    legal_commands: tuple[Command, ...]
    game: Any
    results: tuple[SeatOutcome, ...] | None
    commitment: str = ""
    aborted: bool = False
    #: Why the game ended (the rule and the reason in words); ``None`` while playing.
    ending: Ending | None = None
    ranking: Ranking = Ranking.RULES
    left: tuple[SeatLeft, ...] = ()
    #: The game waits for the referee's default command for a seat that left.
    referee_to_move: bool = False

    @property
    def over(self) -> bool:
        return self.results is not None or self.aborted


class Table(SeatsLeaving, Generic[StateT]):
    """One game: its config, current state and full (unredacted) event log.

    ``settings`` makes a *refereed* table: its opening commits to the seed, the seed is
    revealed when the game is over, and timeouts may forfeit a seat. Without settings (the
    plain library mode) the log holds only the game's own events.
    """

    def __init__(
        self,
        game: Game[StateT, Any, Any],
        config: GameConfig,
        settings: TableSettings | None = None,
    ) -> None:
        self.game = game
        self.config = config
        self.settings = settings
        self.state: StateT = game.new_state(config)
        self.log: list[Event] = []
        self.status = TableStatus(config.players)
        #: The decks as of ``log[:_tracked]`` (per-card commitments), followed lazily.
        self._tracker: DeckTracker | None = None
        self._tracked = 0
        #: Whether the status ended the game without its rules (an abort, the event limit, a
        #: no-show): kept by :meth:`extend`, which alone folds the status (every step asks
        #: :attr:`_idle`, through ``pending``, ``legal_commands`` and ``decide``).
        self._halted = False
        #: The event limit (:attr:`max_events`), asked at every command.
        self._limit = self.max_events
        #: The legal commands :meth:`legal_commands` last gave: to which seat, in which state
        #: (the state object and the log's length: a caller may put another state in), and
        #: the commands. One passed back is decided without the checks their listing settled
        #: (:meth:`decide`); :meth:`extend` drops them.
        self._offered: tuple[Seat, StateT, int, tuple[Command, ...]] | None = None
        #: Whether :attr:`state` is also a search table's (:meth:`fork` lends it, uncopied):
        #: then :meth:`extend` copies it before changing it, once, and owns the copy.
        self._lent = False

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        game_type: str,
        players: int,
        options: Mapping[str, str] | None = None,
        seed: bytes | None = None,
        deal: FixedDeal | None = None,
        settings: TableSettings | None = None,
        salt: bytes | None = None,
    ) -> Table[Any]:
        """A new game with its opening events already applied. Raises ValueError on bad setup.

        A refereed table (``settings``) draws a fresh commitment salt unless ``salt`` is given;
        a plain one commits to nothing and needs none."""
        game = get_game(game_type)
        if salt is None and settings is None:
            salt = b""
        config = make_config(game, players, options or {}, seed, deal, salt)
        table: Table[Any] = Table(game, config, settings)
        table.extend(table.opening())
        return table

    @classmethod
    def replay(
        cls, config: GameConfig, events: Sequence[Event], settings: TableSettings | None = None
    ) -> Table[Any]:
        """Rebuild a game from its config and event log; needs no randomness."""
        table: Table[Any] = Table(get_game(config.game_type), config, settings)
        table.extend(events)
        return table

    def opening(self, start: bool = True, claims: Sequence[SeatClaimed] = ()) -> list[Event]:
        """The opening events of this (still empty) table: the seed commitment of a refereed
        table, the seats taken at creation (``claims``), then, with ``start``, the game's
        start (the deal). Not applied.

        A table that waits for players opens without ``start``: it is idle (nobody is asked
        anything, so no clock runs) until :meth:`start`'s events are appended, with the claim
        that fills it. A table whose seats all went out as tokens opens with neither claims
        nor a wait: exactly the log of the games from before seats could be claimed."""
        events: list[Event] = []
        if self.settings is not None:
            config = self.config
            events.append(
                SeedCommitted(
                    commitment(config.seed, config.salt),
                    deal_commitment(config.seed, config.deal, config.salt),
                )
            )
        events.extend(claims)
        if start:
            events.extend(self._deal())
        return events

    def start(self) -> list[Event]:
        """The game's start (the deal, with its card commitments) for a table that opened
        without it. Not applied. Raises Rejection once the game has started or ended."""
        if self.started:
            raise Rejection(
                "GAME_STARTED", "the game has started already", "precondition", "GAME_STARTED"
            )
        if self.over:
            raise Rejection("GAME_OVER", "the game is over", "precondition", GAME_OVER)
        return self._deal()

    def _deal(self) -> list[Event]:
        return self._committed(self.game.start(self.state))

    @property
    def started(self) -> bool:
        """True once the game's own first event (the deal) is in the log."""
        return len(self.log) > self.status.count

    # --- play -----------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return len(self.log)

    @property
    def max_events(self) -> int:
        """The event limit of this table (0: none): its settings', else the game's default."""
        chosen = self.settings.max_events if self.settings is not None else None
        return self.game.info.max_events if chosen is None else chosen

    @property
    def _idle(self) -> bool:
        """True before the game's first event, after an abort and at the event limit: nobody
        is asked anything."""
        return self._halted or len(self.log) == self.status.count

    def pending(self) -> tuple[Seat, ...]:
        """The seats whose decision the game waits for, except the seats that left (the
        referee decides for them: :attr:`referee_to_move`)."""
        if self._halted or len(self.log) == self.status.count:
            return ()
        pending = self.game.pending(self.state)
        left = self.status.left
        return tuple(seat for seat in pending if seat not in left) if left else pending

    def legal_commands(self, seat: Seat) -> list[Command]:
        """Every command ``seat`` may send now (``Game.legal_commands``). One of them passed
        back to :meth:`submit` or :meth:`decide` before the next event is not checked again
        (see :meth:`decide`)."""
        legal = self._legal(seat)
        self._offered = (seat, self.state, len(self.log), tuple(legal)) if legal else None
        return legal

    def _legal(self, seat: Seat) -> list[Command]:
        """``seat``'s legal commands, not offered (see :meth:`view`)."""
        status = self.status
        if self._halted or len(self.log) == status.count or seat in status.forfeited:
            return []
        return self.game.legal_commands(self.state, seat)

    def results(self) -> tuple[SeatResult, ...] | None:
        """The game's results by its rules, or those it had when it reached its event limit,
        or those of a no-show (:class:`SeatsAbsent`). What counts is :meth:`outcomes`."""
        status = self.status
        if status.limit_reached is not None:
            return status.limit_reached.results
        if status.absent is not None:
            return status.absent.results
        return self.game.results(self.state)

    def ending(self) -> Ending | None:
        """Why the game ended: an abort, the event limit, or the game's own end by its rules
        (``Game.ending``); ``None`` while it runs."""
        status = self.status
        if status.aborted is not None:
            return endings.aborted(status.aborted)
        if status.limit_reached is not None:
            return endings.limit_reached(status.limit_reached.limit)
        if status.absent is not None:
            return Ending(status.absent.end_rule_id, status.absent.end_reason)
        if self.game.results(self.state) is None:
            return None
        return self.game.ending(self.state)

    @property
    def over(self) -> bool:
        """True once the game has results (its own or at the event limit), or was aborted."""
        return self.status.aborted is not None or self.results() is not None

    def decisions(self) -> tuple[Decision, ...]:
        """Every decision the game waits for, the seats that left included (the referee's
        timekeeper plays theirs)."""
        return () if self._idle else self.game.decisions(self.state)

    def decide(self, seat: Seat, command: Command) -> list[Event]:
        """The events ``command`` would cause; raises Rejection. Changes nothing.

        The table refuses what no game decides (no such seat, an aborted or ended table, a
        forfeited seat); ``Game.decide`` then checks, once for every game, who may act (the
        pending decisions) and the command's shape (its field plan), and calls the game's
        handler for the phase and the command's type.

        A command that is one of the objects :meth:`legal_commands` gave ``seat`` since the
        last event (the object itself, not an equal one: only those were listed by the game)
        goes straight to the handler (``Game.decide_legal``): the listing settled every check
        before it, so it is not made twice. Any other command, a changed copy of a legal one
        included, is checked in full."""
        offered = self._offered
        if (
            offered is not None
            and offered[0] == seat
            and offered[1] is self.state
            and offered[2] == len(self.log)
            and among(command, offered[3])
        ):
            decided = self.game.decide_legal(self.state, seat, command)
            return self._limited(self._committed(decided))
        if not 0 <= seat < self.config.players:
            raise Rejection("SEAT", f"no seat {seat} at this table", "precondition", "NO_SUCH_SEAT")
        if self._halted or len(self.log) == self.status.count or self.status.left:
            self._refuse_seat(seat)
        return self._limited(self._committed(self.game.decide(self.state, seat, command)))

    def _refuse_seat(self, seat: Seat) -> None:
        """Raise the table's rejection of a command from ``seat``, if any (the game is not
        being played, or the seat left it)."""
        status = self.status
        if status.aborted is not None:
            raise Rejection("ABORTED", "the game was aborted", "precondition", GAME_OVER)
        if status.limit_reached is not None:
            raise Rejection(
                EVENT_LIMIT,
                f"the game ended at its event limit ({status.limit_reached.limit} events)",
                "precondition",
                GAME_OVER,
            )
        if status.absent is not None:
            raise Rejection(
                status.absent.end_rule_id, status.absent.end_reason, "precondition", GAME_OVER
            )
        if not self.started:
            raise Rejection(
                "GAME_NOT_STARTED",
                "the game has not started: it deals once every seat is held",
                "precondition",
                "GAME_NOT_STARTED",
            )
        if seat in status.resigned:
            raise Rejection(
                "RESIGNED",
                f"seat {seat} has resigned; the referee plays for it",
                "precondition",
                "SEAT_RESIGNED",
            )
        gone = status.left.get(seat)
        if gone is not None:  # forfeited on time, or abandoned (a seat that left never decides)
            raise Rejection(
                gone.rule_id,
                f"{gone.reason}; the referee plays for it",
                "precondition",
                LEFT_REASONS.get(gone.end, "SEAT_FORFEITED"),
            )

    # --- per-card commitments (docs/fairness.md section 6) --------------------------------

    def _committed(self, events: list[Event]) -> list[Event]:
        """A batch of the game's events with its card commitments around it: the roots of
        the shuffles it makes first, the openings of the cards it shows last."""
        settings = self.settings
        if settings is None or not settings.card_commitments:
            return events
        trial = self.deck_tracker().trial()
        steps, config = self.game.chance_steps, self.config
        roots: list[Event] = []
        openings: list[CardOpening] = []
        for event in events:
            for step in steps(config, event):
                committed, opened = trial.step(step)
                if committed is not None:
                    roots.append(committed)
                openings.extend(opened)
        if not roots and not openings:
            return events
        return [*roots, *events, *([cards_opened(openings)] if openings else [])]

    def deck_tracker(self) -> DeckTracker:
        """The shuffled decks as of the whole log (followed from the game's own events).
        The log's ``CardsOpened`` events hold the openings already: following it records only
        who saw which card, without making them again."""
        tracker = self._tracker
        if tracker is None:
            tracker = self._tracker = DeckTracker(card_key(self.config))
        steps, config = self.game.chance_steps, self.config
        for event in self.log[self._tracked :]:
            if not isinstance(event, TableEvent):
                for step in steps(config, event):
                    tracker.step(step, opening=False)
        self._tracked = len(self.log)
        return tracker

    def _limited(self, events: list[Event]) -> list[Event]:
        """``events`` of a command, followed by :class:`EventLimitReached` when they take the
        log to the event limit and the game has not ended by its rules."""
        limit = self._limit
        if not limit or len(self.log) + len(events) < limit:
            return events
        after = self.game.copy_state(self.state)
        for event in events:
            if not isinstance(event, TableEvent):
                after = self.game.apply(after, event)
        if self.game.results(after) is not None:
            return events
        return [
            *events,
            EventLimitReached(limit, self.game.limit_results(after, self.config.players)),
        ]

    # --- the referee's decisions (refereed tables) ----------------------------------------

    def decision_of(self, seat: Seat) -> Decision | None:
        """The decision ``seat`` is asked for now, if any."""
        return next((d for d in self.decisions() if d.seat == seat), None)

    def default_command(self, seat: Seat) -> Command | None:
        """The command a timeout plays for ``seat`` (``Game.default_command``)."""
        if self.decision_of(seat) is None:
            return None
        return self.game.default_command(self.state, seat)

    def time_out(self, seat: Seat) -> list[Event]:
        """The events of ``seat`` running out of time: :class:`TimedOut`, a
        :class:`SeatForfeited` when this timeout reaches the forfeit limit, then the events of
        the seat's default command. Raises Rejection when the seat has no decision to make."""
        decision, command = self._default(seat)
        timeouts = self.status.timeouts[seat] + 1
        events: list[Event] = [TimedOut(seat, decision.kind, decision.rule_id, command, timeouts)]
        limit = self.settings.forfeit_after_timeouts if self.settings is not None else 0
        if limit and timeouts >= limit and seat not in self.status.forfeited:
            events.append(SeatForfeited(seat, timeouts))
        events.extend(self._committed(self.game.decide(self.state, seat, command)))
        return self._limited(events)

    def forfeited_play(self) -> list[Event] | None:
        """The default play of the first forfeited seat the game waits for
        (:class:`DefaultPlayed` and the command's events), or None if there is none."""
        if not self.status.forfeited or self.over:
            return None
        for decision in self.decisions():
            if decision.seat in self.status.forfeited:
                _, command = self._default(decision.seat)
                played = DefaultPlayed(decision.seat, decision.kind, decision.rule_id, command)
                decided = self.game.decide(self.state, decision.seat, command)
                return self._limited([played, *self._committed(decided)])
        return None

    def _default(self, seat: Seat) -> tuple[Decision, Command]:
        decision = self.decision_of(seat)
        if decision is None:
            raise Rejection("CLOCK", f"seat {seat} has no decision to make", "precondition")
        command = self.game.default_command(self.state, seat)
        if command is None:
            raise Rejection("CLOCK", f"seat {seat} has no legal command", "precondition")
        return decision, command

    def reveal_due(self) -> bool:
        """True when a refereed game is over and its seed must be revealed now."""
        status = self.status
        return (
            status.refereed
            and status.revealed is None
            and not (self.settings is not None and self.settings.defer_reveal)
            and self.over
        )

    def reveal(self) -> list[Event]:
        """The :class:`SeedRevealed` event of a refereed game that is over (also when the
        reveal was deferred). Raises Rejection before the end or after the reveal."""
        status = self.status
        if not status.refereed:
            raise Rejection("REVEAL", "this table made no seed commitment", "precondition")
        if status.revealed is not None:
            raise Rejection("REVEAL", "the seed was revealed already", "precondition")
        if not self.over:
            raise Rejection(
                "REVEAL", "the seed is revealed only when the game is over", "precondition"
            )
        return [self._revealed()]

    def _revealed(self) -> SeedRevealed:
        config = self.config
        public = self.settings is not None and self.settings.public_reveal
        return SeedRevealed(config.seed, config.deal, config.salt, public)

    def abort(self, reason: str) -> list[Event]:
        """The events of an abort: :class:`GameAborted`, then the reveal (unless deferred).
        Raises Rejection when the game is over already."""
        if self.over:
            raise Rejection("ABORTED", "the game is over already", "precondition")
        events: list[Event] = [GameAborted(reason)]
        deferred = self.settings is not None and self.settings.defer_reveal
        if self.status.refereed and not deferred:
            events.append(self._revealed())
        return events

    def submit(self, seat: Seat, command: Command) -> list[Event]:
        """Decide and apply ``command``; returns the new events. Raises Rejection."""
        events = self.decide(seat, command)
        self.extend(events)
        return events

    def extend(self, events: Sequence[Event]) -> None:
        """Fold ``events`` in: table events into :attr:`status`, the game's into its state."""
        game = self.game
        apply = game.apply
        state = self.state
        folded = stored = False
        log = self.log
        start = len(log)
        index = start
        for event in events:
            index += 1
            if isinstance(event, TableEvent):
                self.status.fold(event, index)
                folded = True
                stored = stored or held_one_by_one(event)
            else:
                if self._lent:  # a fork holds this state: change a copy of it
                    state = game.copy_state(state)
                    self._lent = False
                state = apply(state, event)
        self.state = state
        log.extend(events)
        self._offered = None
        if folded:
            status = self.status
            self._halted = (
                status.aborted is not None
                or status.limit_reached is not None
                or status.absent is not None
            )
        if stored and self.settings is not None and self.settings.card_commitments:
            # Openings read from the store are held by their deck's tree, as the referee holds
            # its own, so a game loaded from the store costs no more memory than one played here.
            tracker, log = self.deck_tracker(), self.log
            for index in range(start, len(log)):
                event = log[index]
                if held_one_by_one(event):
                    log[index] = tracker.as_runs(event)

    def view(self, viewer: Viewer, like: View | None = None) -> View:
        """``viewer``'s view now. ``like``: another viewer's view of this table now (same
        version), whose fields that are the same for every viewer are taken from it rather than
        worked out again (the server builds every seat's view after every batch)."""
        status = self.status
        decisions = self.asked() if like is None else like.decisions
        pending = tuple([d.seat for d in decisions]) if like is None else like.pending
        # Not offered (legal_commands): the server makes every seat's view after every batch,
        # and a live game would hold its last view's commands until its next command. A seat
        # the game does not wait for has none (``Game.legal_commands``), so of a batch's views
        # only the deciding seats' ask the game (and, as before, a seat that left: the
        # decisions shown leave it out, the game may still wait for it).
        legal: tuple[Command, ...] = ()
        if viewer is not None and (viewer in pending or status.left):
            legal = tuple(self._legal(viewer))
        game_view = self.game.view(self.state, viewer)
        if like is not None:
            return View(
                like.game_type,
                viewer,
                like.version,
                pending,
                decisions,
                legal,
                game_view,
                like.results,
                like.commitment,
                like.aborted,
                like.ending,
                like.ranking,
                like.left,
                like.referee_to_move,
            )
        # Positional: the server builds every seat's view after every command.
        return View(
            self.game.info.type_id,
            viewer,
            len(self.log),
            pending,
            decisions,
            legal,
            game_view,
            self.outcomes(),
            status.commitment,
            status.aborted is not None,
            self.ending(),
            self.ranking,
            self.seats_left(),
            self.referee_to_move,
        )

    def redact(self, event: Event, viewer: Viewer) -> Event:
        """``event`` as ``viewer`` may see it (table events included)."""
        if isinstance(event, TableEvent):
            return event.redacted(viewer)
        return self.game.redact(event, viewer)

    def redacted_log(self, viewer: Viewer, start: int = 0) -> list[Event]:
        """Events from sequence number ``start + 1`` on, as ``viewer`` may see them."""
        redact = self.redact
        return [redact(event, viewer) for event in self.log[start:]]

    # --- copies for search (referee/engine/search_table.py) ----------------------------------

    def fork(self) -> SearchTable[StateT]:
        """A :class:`~referee.engine.search_table.SearchTable` in this position, for search,
        in O(1): it shares this table's state (copy on write: a search table never changes a
        state it did not make, and this table copies its state before its next event changes
        it, once however many forks share it), never the log; then step, undo and fork it in
        microseconds. Nothing it does changes this table, nor the other way round (but a
        caller's own change of :attr:`state` in place, outside :meth:`extend`, reaches forks
        made before it)."""
        status = self.status
        limit = status.limit_reached
        self._lent = True
        return SearchTable(
            self.game,
            self.config,
            self.state,
            idle=self._idle,
            aborted=status.aborted is not None,
            halted=limit.results if limit is not None else None,
        )

    def copy(self) -> Table[StateT]:
        """An independent table in the same position: its own state, status and log list (the
        events, config and settings are immutable and shared; the per-card commitments are
        followed again from the log when asked). ``copy.copy`` and ``copy.deepcopy`` of a
        table are this; for search, :meth:`fork` is a thousand times cheaper."""
        # Made by __init__, whose new state is then replaced: a compiled class has no instance
        # dict to copy, and its __new__ runs __init__.
        twin = Table(self.game, self.config, self.settings)
        twin.state = self.game.copy_state(self.state)
        twin.log = self.log.copy()
        twin.status = self.status.copy()
        twin._tracker = None
        twin._tracked = 0
        twin._halted = self._halted
        return twin

    def __copy__(self) -> Table[StateT]:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Table[StateT]:
        return self.copy()


def make_config(
    game: Game[Any, Any, Any],
    players: int,
    options: Mapping[str, str],
    seed: bytes | None,
    deal: FixedDeal | None,
    salt: bytes | None = None,
) -> GameConfig:
    """Check the setup parameters and build a config (a fresh secret seed and salt if none
    given; ``salt=b""`` for a game from before salts)."""
    info = game.info
    if not info.min_players <= players <= info.max_players:
        raise SetupRefused(
            "players",
            f"{info.type_id} is for {info.min_players} to {info.max_players} players, "
            f"got {players}",
            info.players_rule,
        )
    return GameConfig(
        game_type=info.type_id,
        players=players,
        options=info.normalise_options(options),
        seed=seed if seed is not None else secrets.token_bytes(32),
        deal=deal,
        salt=salt if salt is not None else secrets.token_bytes(SALT_BYTES),
    )
