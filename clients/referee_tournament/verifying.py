"""After the last game: the deferred seeds revealed, then every game checked as ``referee
verify --server`` checks it (docs/fairness.md). The organiser tokens these need are also
kept in the tournament's output (``organiser-tokens.json``, readable by its owner only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc

from referee.v1 import referee_pb2
from referee_tournament.processes import Features
from referee_tournament.records import GameRecord
from referee_tournament.seats import Method


def verify(stub: Any, tokens: Mapping[str, str], records: list[GameRecord]) -> None:
    """Check every game as ``referee verify --server`` does (ExportGame with the organiser
    token): ``record.verified``, and the problem in ``record.detail``."""
    if (
        "ExportGame"
        not in referee_pb2.DESCRIPTOR.services_by_name["RefereeService"].methods_by_name
    ):
        return
    from referee.fairness import verify_export

    for record in records:
        if not record.game_id or record.status in ("failed", "void"):
            continue
        request = referee_pb2.ExportGameRequest(game_id=record.game_id)
        token = tokens.get(record.game_id)
        if token and "organiser_token" in request.DESCRIPTOR.fields_by_name:
            # The full log shows every hand: the referee gives it to the organiser only.
            request.organiser_token = token
        try:
            export = stub.ExportGame(request, timeout=60)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.PERMISSION_DENIED and record.remote:
                # A claimed seat's cards are its player's: the referee exports a game with
                # one only if it was created with organiser_audit (the runner sets it for
                # the games it reserves seats in; docs/clients.md, section 15).
                record.detail = (record.detail + "; verify: claimed seats").lstrip("; ")
                continue
            record.verified = False
            record.detail = (record.detail + f"; verify: {error.code().name}").lstrip("; ")
            continue
        report = verify_export(export)
        record.verified = report.ok
        if not report.ok:
            problem = "; ".join(report.problems) or "unverifiable"
            record.detail = (record.detail + f"; verify: {problem}").lstrip("; ")


def reveal(
    channel: grpc.Channel,
    features: Features,
    tokens: Mapping[str, str],
    records: list[GameRecord],
) -> None:
    """Release every deferred seed (RevealSeed with each game's organiser token)."""
    if not (features.defer_seed_reveal and features.reveal_seed):
        return
    service = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
    call = Method(channel, service.methods_by_name["RevealSeed"])
    for record in records:
        token = tokens.get(record.game_id)
        if not token:
            continue
        request = call.request_class(game_id=record.game_id, organiser_token=token)
        try:
            response = call(request, timeout=10)
            record.seed_revealed = bool(response.game.revealed_seed)
        except grpc.RpcError:
            record.seed_revealed = False
