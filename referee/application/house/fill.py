"""The organiser starts a waiting game by filling its empty seats with house bots (RPC
``FillWithBots``): a table that waits for players need not wait for people.

Every seat the game still waits for, open or reserved, goes to a house bot account not yet
at the table: a seat reserved for a house bot to that bot, the others to the free accounts
in the order ``ListGameTypes`` lists them (of ``level`` only, when one is named). The last
claim deals, as any claim that fills the table does, and the bots then play their seats.

Everything is checked before the first claim, so a refusal changes nothing: the organiser
token (``TOKEN_MISSING``/``TOKEN_INVALID``), a game that has started or is over
(FAILED_PRECONDITION ``GAME_STARTED``, ``GAME_OVER``), a server with no house bots
(``NO_HOUSE_BOTS``) and fewer free accounts than empty seats (``NOT_ENOUGH_HOUSE_BOTS``,
with ``empty_seats`` and ``house_bots`` in the metadata). The claims themselves are one store
transaction each (the seating's), so a person who takes a seat between two of them wins it
and the fill stops with that claim's ``SEAT_TAKEN``; the seats filled so far stay filled,
and calling again fills the rest. A house bot claiming its reserved seat as the fill comes is
no such race: the fill reads the game under :meth:`HouseBots.deciding`, after that claim.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from referee.application.house.bots import HouseBot, HouseBots
from referee.application.players.accounts import Player
from referee.application.tables import access, errors
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.live import LiveGame
from referee.application.tables.values import Summary

log = structlog.get_logger("referee")


def _refused(reason: str, message: str, game_id: str, **more: str) -> RefereeError:
    error = RefereeError(Kind.NOT_NOW, message, reason, metadata={"game_id": game_id, **more})
    error.precondition = ("GAME_STATE", f"game/{game_id}", message)
    return error


async def fill_with_bots(
    house: HouseBots, game_id: str, organiser_token: str, level: str = ""
) -> Summary:
    """Fill the empty seats of ``game_id`` with house bots, which starts it; the organiser's
    summary after the last claim (see the module's docstring for the refusals)."""
    live = await house.repository.get_current(game_id)
    access.check_organiser(live, organiser_token)
    # The house bots' one owner of their seats in this game: a bot claiming its reserved seat
    # finishes first, and is then read as seated (its seat not chosen again: ALREADY_SEATED).
    async with house.deciding(game_id):
        return await _fill(house, game_id, level)


async def _fill(house: HouseBots, game_id: str, level: str) -> Summary:
    live = await house.repository.get_current(game_id)
    _check_fillable(live, house.bots, level)
    chosen = _choose(live, house.bots, level)
    for seat in sorted(chosen):
        try:
            await house.seating.fill_seat(game_id, seat, Player(chosen[seat], "bot"))
        except RefereeError as error:
            # Another replica's bot may have claimed its reserved seat meanwhile: filled.
            now = (await house.repository.get_current(game_id)).table.status.claims
            taken = error.reason in ("SEAT_TAKEN", "ALREADY_SEATED")
            claim = now.get(seat)
            if not taken or claim is None or claim.player != chosen[seat]:
                raise
    log.info("game_filled_with_house_bots", game_id=game_id, seats=sorted(chosen))
    return (await house.repository.get_current(game_id)).summary(organiser=True)


def _check_fillable(live: LiveGame, bots: Sequence[HouseBot], level: str) -> None:
    """The game waits for players, and the server runs house bots (of ``level``, if named)."""
    game_id, table = live.game_id, live.table
    if table.over:
        raise _refused("GAME_OVER", "the game is over", game_id)
    if table.started:
        raise _refused("GAME_STARTED", "the game has started: every seat is held", game_id)
    if not bots:
        raise _refused("NO_HOUSE_BOTS", "this server runs no house bots (--house-bots)", game_id)
    if level and level not in {b.level for b in bots}:
        raise errors.bad_request("level", f"one of {', '.join(sorted({b.level for b in bots}))}")


def _choose(live: LiveGame, bots: Sequence[HouseBot], level: str) -> dict[int, str]:
    """Which house bot account takes each seat the game waits for (``NOT_ENOUGH_HOUSE_BOTS``
    when too few are free): a seat reserved for a house bot goes to that bot (it would claim
    it itself), the others to the free accounts in order."""
    settings, claims = live.settings, live.table.status.claims
    seated = {claim.player for claim in claims.values()}
    empty = [s for s in range(live.record.players) if s not in claims and settings.plan(s).waits]
    names = {b.player for b in bots}
    chosen: dict[int, str] = {}
    for seat in empty:
        plan = settings.plan(seat)
        if plan.mode == "reserved" and plan.player in names and plan.player not in seated:
            chosen[seat] = plan.player
    free = [
        b.player
        for b in bots
        if b.player not in seated
        and b.player not in chosen.values()
        and (not level or b.level == level)
        # An account a seat is reserved for waits for that seat, not another.
        and not any(settings.plan(s).player == b.player for s in empty)
    ]
    rest = [seat for seat in empty if seat not in chosen]
    if len(free) < len(rest):
        raise _refused(
            "NOT_ENOUGH_HOUSE_BOTS",
            f"{len(rest)} empty seats but {len(free)} house bot accounts free for them "
            "(more per level: --house-bots LEVEL:COUNT)",
            live.game_id,
            empty_seats=str(len(rest)),
            house_bots=str(len(free)),
        )
    chosen.update(zip(rest, free, strict=False))
    return chosen


__all__ = ["fill_with_bots"]
