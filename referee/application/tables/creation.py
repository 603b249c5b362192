"""New games: the setup checked, the seed drawn or checked, tokens issued, the opening stored.

:func:`create` builds the table (the engine refuses a setup it cannot play, naming the field
and, where a rule decides, the rule), stores the game with its opening batch (the seed's
commitments) and keeps it live.

Seats (``GameSettings.seats``): a token seat's token goes to the creator (today's flow, and
a game of token seats only has exactly the log of before); a ``creator`` seat's too, claimed
in the signed-in creator's name in the opening batch; an ``open`` seat gets a single-use
claim code (only its hash is stored) and a ``reserved`` one waits for its named player (its
``reservation`` document, written with the game, is what that player's stream announces),
unless the caller claims it for that player at creation (``seated``: the lobby's players, who
met already). A game with seats still waiting opens without its deal
(:mod:`referee.application.players.seating` deals with the claim that fills it).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import structlog

from referee.application.tables import errors, seeds
from referee.application.tables.access import Principal, check_scope, hash_token
from referee.application.tables.clocks import GameSettings
from referee.application.tables.errors import Kind, RefereeError
from referee.application.tables.live import LiveGame
from referee.application.tables.repository import MAX_ID_LENGTH, Repository
from referee.application.tables.seats import (
    ANNOUNCED,
    CLAIM_CODES,
    LOBBY,
    holding_write,
    lobby_body,
    new_claim_code,
    new_seat_token,
    reservation_write,
)
from referee.application.tables.values import Created
from referee.engine.game import FixedDeal, SetupRefused
from referee.engine.registry import get_game
from referee.engine.table import Table, make_config
from referee.engine.table_events import PlayerKind, SeatClaimed
from referee.store import DocumentWrite, GameRecord, SeatClaim
from referee.stored import encode_deal

#: Looks a player up by name (``Players.get``: NOT_FOUND ``PLAYER_UNKNOWN`` if none).
PlayerLookup = Callable[[str], Awaitable[Any]]

log = structlog.get_logger("referee")


async def create(
    repository: Repository,
    game_type: str,
    players: int,
    options: Mapping[str, str] | None,
    seed: str,
    deal: FixedDeal | None,
    settings: GameSettings | None,
    creator: Principal | None = None,
    lookup: PlayerLookup | None = None,
    writes_for: Callable[[str], Sequence[DocumentWrite]] | None = None,
    announce: bool = True,
    seated: Mapping[int, str] | None = None,
) -> Created:
    """See :meth:`referee.application.referee.Referee.create`.

    ``writes_for(game_id)``: the caller's own documents, written in the creation's
    transaction (the lobby marks a challenge accepted, or pairing tickets paired, with the new
    game's id): a :class:`~referee.store.RevisionConflict` refuses the game, nothing stored.
    ``announce``: write the reserved seats' ``reservation`` documents (False for the lobby's
    games, whose reserved seats are ``seated``).
    ``seated``: reserved seats claimed for their named players in the creation's transaction,
    ``{seat: the player's kind}`` (the lobby's games): the game never exists with those seats
    unheld, so a player told of it (its challenge accepted or ticket paired, written in the
    same transaction) finds its seat at once, on any replica. Each such seat's token is in
    :attr:`Created.seat_tokens` (its hash in the claim, not the record)."""
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
    if settings is None:
        settings = GameSettings(card_commitments=True)
    try:
        checked_seed = seeds.check_seed(seed, public=settings.public_seed)
        if deal is not None:
            seeds.check_deal_size(deal)
        settings.check()
    except ValueError as error:
        field_name, _, description = str(error).partition(": ")
        raise errors.bad_request(field_name, description) from None
    plans = settings.seats
    if plans and len(plans) != players:
        raise errors.bad_request("seat_requests", f"one per seat ({players}), or none")
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
    name = creator.player.name if creator is not None else ""
    kind = creator.player.kind if creator is not None else ""
    seated = dict(seated or {})
    for seat in seated:
        if not (0 <= seat < len(plans) and plans[seat].mode == "reserved"):
            raise ValueError(f"seat {seat} is not reserved: only a reserved seat is seated")
    # Who holds each seat taken in the opening: the creator's, and the reserved ones seated.
    holders = {
        seat: (plan.player, seated[seat]) if seat in seated else (name, kind)
        for seat, plan in enumerate(plans)
        if plan.mode == "creator" or seat in seated
    }
    # Dealt in the opening unless a seat still waits for its claim; until then a game that
    # keeps its players from each other names nobody.
    waiting = [s for s, plan in enumerate(plans) if plan.waits and s not in seated]
    hidden = settings.hides_reservations and bool(waiting)
    claimed = [
        SeatClaimed(seat, who, PlayerKind.named(what), hidden)
        for seat, (who, what) in holders.items()
    ]
    try:
        config = make_config(game, players, dict(options or {}), checked_seed, deal)
        table: Table[Any] = Table(game, config, settings.table())
        opening = table.opening(start=not waiting, claims=claimed)
    except SetupRefused as error:
        refused = errors.bad_request(error.field, str(error))
        if error.rule_id:  # named as a command's rejection names its rule
            refused.reason = "RULE_VIOLATION"
            refused.metadata["rule_id"] = error.rule_id
        raise refused from None
    except ValueError as error:
        raise errors.bad_request(_setup_field(str(error)), str(error)) from None
    tokens = tuple(
        ""
        if settings.plan(seat).mode in ("open", "reserved") and seat not in seated
        else new_seat_token()
        for seat in range(config.players)
    )
    codes = {seat: new_claim_code() for seat, p in enumerate(plans) if p.mode == "open"}
    stored_settings: dict[str, Any] = {**settings.to_json(), seeds.SALT_KEY: config.salt.hex()}
    if codes:
        stored_settings[CLAIM_CODES] = {str(s): hash_token(c) for s, c in codes.items()}
    announced = announce and any(
        plan.mode == "reserved" and seat not in seated for seat, plan in enumerate(plans)
    )
    if announced:
        stored_settings[ANNOUNCED] = True
    organiser = f"org-{secrets.token_urlsafe(24)}"
    game_id = secrets.token_hex(8)
    record = GameRecord(
        game_id=game_id,
        game_type=config.game_type,
        players=config.players,
        # The config's own dict (normalised, a new one): neither the record nor the config
        # changes its options, and a live game then holds one dict of them, not two.
        options=config.options if isinstance(config.options, dict) else dict(config.options),
        seed=config.seed,
        deal=encode_deal(deal),
        # A seated reserved seat's token is known by its claim (as a claim's after creation).
        seat_token_hashes=tuple(
            hash_token(t) if t and s not in seated else "" for s, t in enumerate(tokens)
        ),
        created_at=time.time(),
        settings=stored_settings,
        organiser_token_hash=hash_token(organiser),
    )
    live = LiveGame(game_id, record, table, settings=settings)
    documents: list[DocumentWrite] = []
    claims: list[SeatClaim] = []
    for seat, (who, what) in holders.items():
        token_hash = hash_token(tokens[seat])
        claims.append(SeatClaim(seat, who, what, token_hash, record.created_at))
        documents.append(holding_write(who, game_id, seat, record.game_type))
    if announced:
        documents.extend(
            reservation_write(plan.player, game_id, seat, record.game_type)
            for seat, plan in enumerate(plans)
            if plan.mode == "reserved" and seat not in seated
        )
    if settings.listed and waiting:
        open_seats = [seat for seat, plan in enumerate(plans) if plan.mode == "open"]
        body = lobby_body(live, open_seats)
        documents.append(DocumentWrite(LOBBY, game_id, body, 0, record.created_at))
    if writes_for is not None:
        documents.extend(writes_for(game_id))
    live.claims = {claim.seat: claim for claim in claims}
    await repository.unit(repository.store_new(live, opening, documents, claims))
    log.info(
        "game_created",
        game_id=game_id,
        game_type=record.game_type,
        players=record.players,
        options=dict(record.options),
        settings=settings.to_json(),  # not record.settings: it holds the secret salt
    )
    return Created(live.summary(), tokens, organiser, tuple(codes.items()))


def _setup_field(message: str) -> str:
    lowered = message.lower()
    if "option" in lowered:
        return "options"
    if "player" in lowered:
        return "players"
    if "deck" in lowered or "pick" in lowered:
        return "deal"
    return "game_type"


__all__ = ["create"]
