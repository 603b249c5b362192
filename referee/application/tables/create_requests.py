"""CreateGame with a request id: a retry returns the same game, on any replica.

The first creation writes, in its own transaction, a ``create_request`` document keyed by the
request id's hash, naming the game, the request's fingerprint and a random key; its secrets
are derived from the request id and that key
(:class:`~referee.application.tables.seats.GameSecrets`), so the store keeps no token and the
request id alone does not give them. A retry (the same id: the client lost the answer) finds
the document and is answered with the same game and the same tokens, recomputed; two
replicas racing with the same id write the document once (a
:class:`~referee.store.RevisionConflict` for the loser, which then answers as a retry). The
same id with another request is refused, as a command id reused for another command is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from referee.application.tables import creation, errors
from referee.application.tables.access import Principal, hash_token
from referee.application.tables.repository import Repository
from referee.application.tables.seats import CREATE_REQUEST, GameSecrets
from referee.application.tables.values import Created
from referee.store import RevisionConflict
from referee.stored import encode_deal

#: A retry with the request id is answered with the game's tokens: it needs as much entropy
#: as they have.
MIN_REQUEST_ID, MAX_REQUEST_ID = 22, 200


def fingerprint(setup: creation.Setup, creator: Principal | None) -> str:
    """What a request asks for, as a digest: a retry must ask for the same."""
    asked: dict[str, Any] = {
        "game_type": setup.game_type,
        "players": setup.players,
        "options": dict(sorted((setup.options or {}).items())),
        "seed": hashlib.sha256(setup.seed.encode()).hexdigest(),
        "deal": hashlib.sha256(encode_deal(setup.deal)).hexdigest(),
        "settings": setup.settings.to_json() if setup.settings is not None else None,
        "creator": creator.player.name if creator is not None else "",
    }
    return hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()


def check_request_id(request_id: str) -> None:
    if not MIN_REQUEST_ID <= len(request_id) <= MAX_REQUEST_ID or len(set(request_id)) < 8:
        raise errors.bad_request(
            "request_id",
            f"{MIN_REQUEST_ID} to {MAX_REQUEST_ID} characters, at least 8 different: a fresh "
            "random id (a UUID), as secret as the tokens it stands for",
        )


async def create_once(
    repository: Repository,
    request_id: str,
    setup: creation.Setup,
    creator: Principal | None,
    lookup: creation.PlayerLookup | None,
) -> Created:
    """:func:`creation.create`, once per ``request_id`` (see the module's docstring)."""
    check_request_id(request_id)
    minted = GameSecrets.for_request(request_id, fingerprint(setup, creator))
    key = hash_token(request_id)
    store = repository.store
    found = await repository.call(store.read_document, CREATE_REQUEST, key)
    if found is None:
        try:
            return await creation.create(repository, setup, creator, lookup, minted=minted)
        except RevisionConflict:  # the same request, created meanwhile (here or elsewhere)
            found = await repository.call(store.read_document, CREATE_REQUEST, key)
            if found is None:
                raise
    return await _again(repository, minted, found.body)


async def _again(repository: Repository, minted: GameSecrets, body: Mapping[str, Any]) -> Created:
    """The answer of the creation a request id made: the game now, its secrets again."""
    if body["asked"] != minted.asked:
        raise errors.bad_request("request_id", "already used for another CreateGame request")
    minted = GameSecrets(minted.request_id, minted.asked, str(body["key"]))
    live = await repository.get(str(body["game_id"]))
    modes = [live.settings.plan(seat).mode for seat in range(live.record.players)]
    tokens, codes, organiser = minted.handed_out(live.game_id, modes, ())
    return Created(live.summary(), tokens, organiser, tuple(codes.items()))


__all__ = ["check_request_id", "create_once", "fingerprint"]
