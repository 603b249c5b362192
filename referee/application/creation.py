"""New games: the setup checked, the seed drawn or checked, tokens issued, the opening stored.

:func:`create` builds the table (the engine refuses a setup it cannot play, naming the field
and, where a rule decides, the rule), stores the game with its opening batch (the seed's
commitments) and keeps it live.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from typing import Any

import structlog

from referee.application import errors, seeds
from referee.application.access import hash_token
from referee.application.clocks import GameSettings
from referee.application.live import LiveGame
from referee.application.repository import MAX_ID_LENGTH, Repository
from referee.application.values import Created
from referee.engine.game import FixedDeal, SetupRefused
from referee.engine.registry import get_game
from referee.engine.table import Table, make_config
from referee.store import GameRecord
from referee.stored import encode_deal

log = structlog.get_logger("referee")


async def create(
    repository: Repository,
    game_type: str,
    players: int,
    options: Mapping[str, str] | None,
    seed: str,
    deal: FixedDeal | None,
    settings: GameSettings | None,
) -> Created:
    """See :meth:`referee.application.referee.Referee.create`."""
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
    try:
        config = make_config(game, players, dict(options or {}), checked_seed, deal)
        table: Table[Any] = Table(game, config, settings.table())
        opening = table.opening()
    except SetupRefused as error:
        refused = errors.bad_request(error.field, str(error))
        if error.rule_id:  # named as a command's rejection names its rule
            refused.reason = "RULE_VIOLATION"
            refused.metadata["rule_id"] = error.rule_id
        raise refused from None
    except ValueError as error:
        raise errors.bad_request(_setup_field(str(error)), str(error)) from None
    # A prefix keeps tokens from starting with "-" (command lines would take it for a flag).
    tokens = tuple(f"seat-{secrets.token_urlsafe(24)}" for _ in range(config.players))
    organiser = f"org-{secrets.token_urlsafe(24)}"
    game_id = secrets.token_hex(8)
    record = GameRecord(
        game_id=game_id,
        game_type=config.game_type,
        players=config.players,
        options=dict(config.options),
        seed=config.seed,
        deal=encode_deal(deal),
        seat_token_hashes=tuple(hash_token(t) for t in tokens),
        created_at=time.time(),
        settings={**settings.to_json(), seeds.SALT_KEY: config.salt.hex()},
        organiser_token_hash=hash_token(organiser),
    )
    live = LiveGame(game_id, record, table, settings=settings)
    await repository.unit(repository.store_new(live, opening))
    log.info(
        "game_created",
        game_id=game_id,
        game_type=record.game_type,
        players=record.players,
        options=dict(record.options),
        settings=settings.to_json(),  # not record.settings: it holds the secret salt
    )
    return Created(live.summary(), tokens, organiser)


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
