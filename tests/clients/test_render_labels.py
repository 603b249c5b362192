"""referee-cli falls back on the server's display text for a game it has no text of its own
for (a newer server): menu labels and event lines, instead of raw protobuf text."""

from __future__ import annotations

import pytest

from referee import codec
from referee.engine.table import Table
from referee_cli import render


def test_menu_and_events_use_the_servers_words_for_an_unknown_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = Table.create("vampire-queen", players=3, seed=b"cli-labels", options={"rounds": "1"})
    seat = table.pending()[0]
    view = codec.view_to_proto("g", 3, table.view(seat))
    event = codec.event_to_proto(
        "vampire-queen", table.redact(table.log[-1], seat), 1, describe=True
    )
    known_menu = render.render_menu(view)
    monkeypatch.delitem(render.GAMES, "vampire-queen")
    menu = render.render_menu(view).splitlines()
    assert menu == [f"{i}) {label}" for i, label in enumerate(view.legal_command_labels, 1)]
    assert render.describe_event(event, view, seat) == event.description != ""
    assert known_menu.count("\n") == len(menu) - 1
