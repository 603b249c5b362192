"""The config file: what it accepts, and an error naming the key for what it does not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee_tournament.config import ConfigError, Limits, load, parse


def bots(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "strategy": "random"} for n in names]


def base(**extra: Any) -> dict[str, Any]:
    return {"game": "vampire-queen", "players": 3, "bots": bots("a", "b", "c"), **extra}


def test_shorthand_and_defaults() -> None:
    config = parse(base(options={"rounds": 1, "hunter_tie": "last"}))
    assert config.format == "duplicate" and config.no_show == "loss"
    assert config.replays == 1 and config.limits == Limits()
    [entry] = config.games
    assert (entry.game, entry.players, entry.deals) == ("vampire-queen", 3, 1)
    assert entry.options == {"rounds": "1", "hunter_tie": "last"}  # values as strings
    assert config.bot_names == ["a", "b", "c"]
    assert config.secret_seed and len(config.seed) == 32  # no seed: a secret random one
    assert parse(base()).seed != config.seed


def test_games_list_deals_and_limits() -> None:
    config = parse(
        {
            "name": "two",
            "seed": 7,
            "deals": 3,
            "games": [
                {"game": "vampire-queen", "players": 3, "options": {"rounds": 1}},
                {"game": "sleeping-queens", "players": 2, "deals": 1},
            ],
            "bots": bots("a", "b", "c"),
            "limits": {"move_timeout": 2, "game_timeout": 60.5},
            "no_show": "void",
            "replays": 2,
            "clock": {"decision_ms": 500, "bank_ms": 2000},
        }
    )
    assert config.name == "two" and config.seed == "7" and not config.secret_seed
    assert [(g.game, g.deals) for g in config.games] == [
        ("vampire-queen", 3),
        ("sleeping-queens", 1),
    ]
    assert config.limits.move_timeout == 2.0 and config.limits.game_timeout == 60.5
    assert config.no_show == "void" and config.replays == 2
    assert config.clock == {"decision_ms": 500, "bank_ms": 2000}


def test_swiss_rounds_default_to_log2_of_the_bots() -> None:
    config = parse({**base(format="swiss"), "bots": bots(*"abcde")})
    assert config.rounds == 3
    assert parse({**base(format="swiss", rounds=5), "bots": bots(*"abcde")}).rounds == 5


def test_bot_commands_and_the_default_command() -> None:
    config = parse(
        {
            **base(),
            "bots": [
                {"name": "s", "strategy": "heuristic"},
                {"name": "x", "command": "node bot.js --token={token} --seat {seat}"},
                {"name": "y", "command": ["python3", "b.py", "{server}"], "env": {"K": 1}},
            ],
        },
        source=Path("/somewhere/t.yaml"),
    )
    assert config.bot("x").argv() == ("node", "bot.js", "--token={token}", "--seat", "{seat}")
    assert config.bot("y").env == {"K": "1"}
    assert config.bot("y").cwd == Path("/somewhere").resolve()
    default = config.bot("s").argv()
    # --token=VALUE: a token may start with "-"
    assert default[:3] == ("{python}", "-m", "referee_bot")
    assert "--token={token}" in default and "--strategy=heuristic" in default


def test_load_reads_yaml_and_json(tmp_path: Path) -> None:
    yaml_file = tmp_path / "t.yaml"
    yaml_file.write_text(
        "game: vampire-queen\nplayers: 3\nbots:\n"
        + "".join(f"  - {{name: {n}, strategy: random}}\n" for n in "abc")
    )
    assert load(yaml_file).name == "t"
    json_file = tmp_path / "j.json"
    json_file.write_text(json.dumps(base(name="from-json")))
    assert load(json_file).name == "from-json"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"format": "knockout"}, "format: one of duplicate, round-robin, swiss"),
        ({"deals": 0}, "deals: an integer >= 1"),
        ({"players": 4}, "4 seats but only 3 bots"),
        ({"rounds": 2}, "rounds: only for format swiss"),
        ({"bots": bots("a")}, "bots: a list of at least two bots"),
        ({"bots": bots("a", "a", "b")}, "bots[1].name: 'a' is used twice"),
        (
            {"bots": [*bots("a", "b"), {"name": "c"}]},
            "bots[2]: needs a command, a strategy or an account",
        ),
        ({"bots": [*bots("a", "b"), {"name": "c", "strategy": "genius"}]}, "unknown strategy"),
        (
            {"bots": [*bots("a", "b"), {"name": "c", "command": "x --t {tokn}"}]},
            "bots[2].command: unknown placeholder {tokn}",
        ),
        ({"bots": [*bots("a", "b"), {"name": "c", "command": "x {"}]}, "bots[2].command"),
        ({"bots": [*bots("a", "b"), {"name": "c", "command": ""}]}, "bots[2].command: empty"),
        ({"bots": [*bots("a", "b"), {"name": "c", "smell": 1}]}, "bots[2].smell: unknown key"),
        ({"limits": {"move_timeout": 0}}, "limits.move_timeout: a positive number"),
        ({"limits": {"nap": 1}}, "limits.nap: unknown"),
        ({"on_failure": "fallback"}, "on_failure: no longer a setting: a faulty bot's seat"),
        ({"fallback": "random"}, "fallback: no longer a setting"),
        ({"no_show": "forgive"}, "no_show: one of loss, void"),
        ({"replays": -1}, "replays: an integer >= 0"),
        ({"clock": {"decision_ms": -1}}, "clock.decision_ms: an integer >= 0"),
        ({"options": ["rounds=1"]}, "options: a mapping"),
        ({"seed": True}, "seed: a string or an integer"),
        ({"server": ""}, "server: host:port"),
    ],
)
def test_errors_name_the_key(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=None) as raised:
        parse(base(**change))
    assert message in str(raised.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "must be a mapping"),
        ({"bots": bots("a", "b")}, "game: missing"),
        ({"game": "x", "bots": bots("a", "b")}, "players: missing"),
        ({"games": [], "bots": bots("a", "b")}, "games: a non-empty list"),
        (
            {"games": [{"game": "x", "players": 2}], "game": "y", "bots": bots("a", "b")},
            "either games",
        ),
        ({"games": [{"game": "x", "players": 2, "size": 1}], "bots": bots("a", "b")}, "games[0]"),
    ],
)
def test_structure_errors(data: Any, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse(data)
    assert message in str(raised.value)


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="No such file"):
        load(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML/JSON"):
        load(bad)
