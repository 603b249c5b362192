"""The rules engine: the game interface, deterministic chance and the in-process table.

Nothing below ``referee.engine`` or ``referee.games`` imports gRPC, a database, a clock or
asyncio: commands in, events out.
"""

from referee.engine.game import (
    Decision,
    FixedDeal,
    Game,
    GameConfig,
    GameInfo,
    OptionSpec,
    Rejection,
    SeatResult,
    SetupRefused,
)
from referee.engine.registry import all_games, get_game, register
from referee.engine.search_table import SearchTable
from referee.engine.table import Table, View
from referee.engine.table_events import TableEvent, TableSettings

__all__ = [
    "Decision",
    "FixedDeal",
    "Game",
    "GameConfig",
    "GameInfo",
    "OptionSpec",
    "Rejection",
    "SearchTable",
    "SeatResult",
    "SetupRefused",
    "Table",
    "TableEvent",
    "TableSettings",
    "View",
    "all_games",
    "get_game",
    "register",
]
