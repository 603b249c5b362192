"""New games: the setup checked, the seed drawn or checked, tokens issued, the opening stored.

:func:`create` builds the table (the engine refuses a setup it cannot play, naming the field
and, where a rule decides, the rule), stores the game with its opening batch (the seed's
commitments) and keeps it live.

Seats (``GameSettings.seats``): a token seat's token goes to the creator (today's flow, and
a game of token seats only has exactly the log of before); a ``creator`` seat's too, claimed
in the signed-in creator's name in the opening batch; an ``open`` seat gets a single-use
claim code (only its hash is stored) and a ``reserved`` one waits for its named player (its
``reservation`` document, written with the game, is what that player's stream announces),
unless the caller claims it for that player at creation (a :class:`Meeting`: the lobby's
players, who met already). A game with seats still waiting opens without its deal
(:mod:`referee.application.players.seating` deals with the claim that fills it).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from referee.application.tables import errors, seeds
from referee.application.tables.access import Player, Principal, check_scope, hash_token
from referee.application.tables.clocks import GameSettings, SeatPlan
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.live import ANNOUNCED, CLAIM_CODES, LiveGame
from referee.application.tables.repository import MAX_ID_LENGTH, Repository
from referee.application.tables.seats import (
    LOBBY,
    GameSecrets,
    holding_write,
    lobby_body,
    reservation_write,
)
from referee.application.tables.values import Created
from referee.engine.game import FixedDeal, Game, SetupRefused
from referee.engine.registry import get_game
from referee.engine.table import Table, make_config
from referee.engine.table_events import PlayerKind, SeatClaimed
from referee.store import DocumentWrite, GameRecord, SeatClaim
from referee.stored import encode_deal

#: Looks a player up by name (``Players.get``: NOT_FOUND ``PLAYER_UNKNOWN`` if none).
PlayerLookup = Callable[[str], Awaitable[Player]]
#: The documents a caller writes in a new game's creation transaction, given the game's id.
WritesFor = Callable[[str], Sequence[DocumentWrite]]

log = structlog.get_logger("referee")

#: A game's secrets drawn at random (a CreateGame without a request id).
RANDOM = GameSecrets()


@dataclass(frozen=True, slots=True)
class Setup:
    """The game asked for (see :meth:`referee.application.referee.Referee.create`): its type,
    seats, options, seed (empty: drawn), fixed deal and table settings (``None``: the
    defaults, per-card commitments on)."""

    game_type: str
    players: int
    options: Mapping[str, str] | None = None
    seed: str = ""
    deal: FixedDeal | None = None
    settings: GameSettings | None = None


@dataclass(frozen=True, slots=True)
class Meeting:
    """A game made for players who met in the lobby (an accepted challenge, a pairing).

    ``seated``: reserved seats claimed for their named players in the creation's
    transaction, ``{seat: the player's kind}``: the game never exists with those seats
    unheld, so a player told of it (its challenge accepted or ticket paired, written in the
    same transaction) finds its seat at once, on any replica. Each such seat's token is in
    :attr:`Created.seat_tokens` (its hash in the claim, not the record), and a seated seat
    is not announced (no ``reservation`` document).
    ``writes_for(game_id)``: the lobby's own documents, written in the creation's
    transaction (the challenge marked accepted, or the tickets paired, with the new game's
    id): a :class:`~referee.store.RevisionConflict` refuses the game, nothing stored."""

    seated: Mapping[int, str]
    writes_for: WritesFor


async def create(
    repository: Repository,
    setup: Setup,
    creator: Principal | None = None,
    lookup: PlayerLookup | None = None,
    meeting: Meeting | None = None,
    minted: GameSecrets = RANDOM,
) -> Created:
    """See :meth:`referee.application.referee.Referee.create`: ``creator`` the signed-in
    creator (``creator`` seats), ``lookup`` checks that each reserved seat's player exists,
    ``meeting`` the lobby's players (see :class:`Meeting`), ``minted`` how the game's
    secrets are made (random; derived from a request id, with its document)."""
    game = _game(repository, setup.game_type)
    settings, seed = _checked(setup)
    plans = settings.seats
    if plans and len(plans) != setup.players:
        raise errors.bad_request("seat_requests", f"one per seat ({setup.players}), or none")
    await _check_players(plans, creator, lookup)
    seated = dict(meeting.seated) if meeting is not None else {}
    holders = _holders(plans, creator, seated)
    # Dealt in the opening unless a seat still waits for its claim.
    waiting = [s for s, plan in enumerate(plans) if plan.waits and s not in seated]
    table, opening = _opened(game, setup, settings, seed, waiting, holders)
    game_id = secrets.token_hex(8)
    modes = [settings.plan(seat).mode for seat in range(table.config.players)]
    tokens, codes, organiser = minted.handed_out(game_id, modes, seated)
    announced = [
        seat for seat, plan in enumerate(plans) if plan.mode == "reserved" and seat not in seated
    ]
    secrets_of = (tokens, codes, organiser)
    record = _record(game_id, table, setup, settings, secrets_of, seated, bool(announced))
    live = LiveGame(record.game_id, record, table, settings=settings)
    claims = [
        SeatClaim(seat, who, what, hash_token(tokens[seat]), record.created_at)
        for seat, (who, what) in holders.items()
    ]
    documents = _documents(live, claims, announced, waiting)
    if meeting is not None:
        documents.extend(meeting.writes_for(record.game_id))
    documents.extend(minted.documents(record.game_id, record.created_at))
    if claims:
        live.claims = {claim.seat: claim for claim in claims}
    await repository.unit(repository.store_new(live, record, opening, documents, claims))
    log.info(
        "game_created",
        game_id=record.game_id,
        game_type=record.game_type,
        players=record.players,
        options=dict(record.options),
        settings=settings.to_json(),  # not record.settings: it holds the secret salt
    )
    return Created(live.summary(), tokens, organiser, tuple(codes.items()))


def _game(repository: Repository, game_type: str) -> Game[Any, Any, Any]:
    """The game of ``game_type``, if this server runs it and has room for one more."""
    if not game_type:
        raise errors.bad_request("game_type", "required (see ListGameTypes)")
    if len(game_type) > MAX_ID_LENGTH:
        raise errors.bad_request("game_type", "unknown game type (see ListGameTypes)")
    try:
        game = get_game(game_type)
    except KeyError as error:
        raise errors.bad_request("game_type", str(error.args[0])) from None
    if repository.active >= repository.limits.max_games:
        raise errors.exhausted("games", repository.limits.max_games)
    return game


def _checked(setup: Setup) -> tuple[GameSettings, bytes | None]:
    """The settings (the defaults when none) and the seed, checked."""
    settings = setup.settings
    if settings is None:
        settings = GameSettings(card_commitments=True)
    try:
        seed = seeds.check_seed(setup.seed, public=settings.public_seed)
        if setup.deal is not None:
            seeds.check_deal_size(setup.deal)
        settings.check()
    except ValueError as error:
        field_name, _, description = str(error).partition(": ")
        raise errors.bad_request(field_name, description) from None
    return settings, seed


async def _check_players(
    plans: Sequence[SeatPlan], creator: Principal | None, lookup: PlayerLookup | None
) -> None:
    """A ``creator`` seat needs the creator signed in (with a credential that may play); a
    reserved seat's player must exist (when ``lookup`` is given)."""
    if any(plan.mode == "creator" for plan in plans):
        if creator is None:
            raise RefereeError(
                Kind.UNAUTHENTICATED,
                "a creator seat needs the creator signed in (authorization: Bearer ...)",
                "CREDENTIAL_MISSING",
            )
        check_scope(creator, "", None, play=True)
    if lookup is not None:
        for plan in plans:
            if plan.mode == "reserved":
                await lookup(plan.player)  # NOT_FOUND PLAYER_UNKNOWN for a name nobody has


def _holders(
    plans: Sequence[SeatPlan], creator: Principal | None, seated: Mapping[int, str]
) -> dict[int, tuple[str, str]]:
    """Who holds each seat taken in the opening, ``{seat: (player, kind)}``: the creator's
    seats, and the reserved ones seated."""
    for seat in seated:
        if not (0 <= seat < len(plans) and plans[seat].mode == "reserved"):
            raise ValueError(f"seat {seat} is not reserved: only a reserved seat is seated")
    name = creator.player.name if creator is not None else ""
    kind = creator.player.kind if creator is not None else ""
    return {
        seat: (plan.player, seated[seat]) if seat in seated else (name, kind)
        for seat, plan in enumerate(plans)
        if plan.mode == "creator" or seat in seated
    }


def _opened(
    game: Game[Any, Any, Any],
    setup: Setup,
    settings: GameSettings,
    seed: bytes | None,
    waiting: Sequence[int],
    holders: Mapping[int, tuple[str, str]],
) -> tuple[Table[Any], list[Any]]:
    """The new table and its opening batch: the seats' claims, and the deal unless a seat
    still waits. The engine's refusal of the setup is INVALID_ARGUMENT on the field it names
    (with the rule, where one decides). Until a waiting game starts, one that keeps its
    players from each other names nobody in its claims."""
    hidden = settings.hides_reservations and bool(waiting)
    claimed = [
        SeatClaimed(seat, who, PlayerKind.named(what), hidden)
        for seat, (who, what) in holders.items()
    ]
    try:
        config = make_config(game, setup.players, dict(setup.options or {}), seed, setup.deal)
        table: Table[Any] = Table(game, config, settings.table())
        opening = table.opening(start=not waiting, claims=claimed)
    except SetupRefused as error:
        raise errors.setup_refused(error.field, str(error), error.rule_id) from None
    except ValueError as error:
        raise errors.bad_request(_setup_field(str(error)), str(error)) from None
    return table, opening


def _record(
    game_id: str,
    table: Table[Any],
    setup: Setup,
    settings: GameSettings,
    handed_out: tuple[Sequence[str], Mapping[int, str], str],
    seated: Mapping[int, str],
    announced: bool,
) -> GameRecord:
    """The stored record of the new game: only hashes of its tokens, claim codes and
    organiser token (``handed_out``)."""
    tokens, codes, organiser = handed_out
    config = table.config
    stored_settings: dict[str, Any] = {**settings.to_json(), seeds.SALT_KEY: config.salt.hex()}
    if codes:
        stored_settings[CLAIM_CODES] = {str(s): hash_token(c) for s, c in codes.items()}
    if announced:
        stored_settings[ANNOUNCED] = True
    return GameRecord(
        game_id=game_id,
        game_type=config.game_type,
        players=config.players,
        # The config's own dict (normalised, a new one): neither the record nor the config
        # changes its options, and a live game then holds one dict of them, not two.
        options=config.options if isinstance(config.options, dict) else dict(config.options),
        seed=config.seed,
        deal=encode_deal(setup.deal),
        # A seated reserved seat's token is known by its claim (as a claim's after creation).
        seat_token_hashes=tuple(
            hash_token(t) if t and s not in seated else "" for s, t in enumerate(tokens)
        ),
        created_at=time.time(),
        settings=stored_settings,
        organiser_token_hash=hash_token(organiser),
    )


def _documents(
    live: LiveGame, claims: Sequence[SeatClaim], announced: Sequence[int], waiting: Sequence[int]
) -> list[DocumentWrite]:
    """The documents written with the game: each seat holder's ``holding``, the announced
    reserved seats' ``reservation``, and the lobby entry of a listed game that waits."""
    record, plans = live.record, live.settings.seats
    game_id, game_type = record.game_id, record.game_type
    documents = [holding_write(c.player, game_id, c.seat, game_type) for c in claims]
    documents.extend(
        reservation_write(plans[seat].player, game_id, seat, game_type) for seat in announced
    )
    if live.settings.listed and waiting:
        open_seats = [seat for seat, plan in enumerate(plans) if plan.mode == "open"]
        body = lobby_body(live, open_seats)
        documents.append(DocumentWrite(LOBBY, game_id, body, 0, record.created_at))
    return documents


def _setup_field(message: str) -> str:
    lowered = message.lower()
    if "option" in lowered:
        return "options"
    if "player" in lowered:
        return "players"
    if "deck" in lowered or "pick" in lowered:
        return "deal"
    return "game_type"


__all__ = ["Meeting", "PlayerLookup", "Setup", "WritesFor", "create"]
