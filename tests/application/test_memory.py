"""Memory at the application layer: idle games leave memory and load again unchanged, a
watched game stays, an abandoned game is aborted with a public reason.

The same as tests/server/test_memory.py, without the transport: these drive
:class:`~referee.application.Referee` directly on a memory store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.application import Clock, GameSettings, Limits, Referee
from referee.games.vampire_queen.model import Pass
from tests.application.support import play_to_end, refused, run, until

GAME = "vampire-queen"


async def looks(referee: Referee, game_id: str, tokens: tuple[str, ...]) -> tuple[Any, ...]:
    """What anyone can ask of a game: its summary and every viewer's view."""
    views = [await referee.view(game_id, seat_token=token) for token in tokens]
    return (await referee.summary(game_id), await referee.view(game_id, spectator=True), views)


def test_idle_games_leave_memory_and_come_back_unchanged() -> None:
    async def scenario(referee: Referee) -> None:
        created = [await referee.create(GAME, 3, {"rounds": "1"}) for _ in range(8)]
        for number, game in enumerate(created[:4]):
            await play_to_end(referee, game, number)
        before = {g.game_id: await looks(referee, g.game_id, g.seat_tokens) for g in created}
        await until(lambda: not referee.games)
        for game in created:  # loaded again from the store, replayed
            assert await looks(referee, game.game_id, game.seat_tokens) == before[game.game_id]
        assert len(referee.games) <= 4
        page = await referee.list_games()
        assert {s.game_id for s in page.games} == {g.game_id for g in created}
        for number, game in enumerate(created[4:]):  # a dropped running game plays on
            await play_to_end(referee, game, 10 + number)
            final = await referee.summary(game.game_id)
            stream = referee.stream(game.game_id, seat_token=game.seat_tokens[1])
            sequences = [e.sequence async for update in stream for e in update.events]
            assert sequences == list(range(1, final.version + 1))

    run(scenario, Limits(max_live_games=4, evict_idle_seconds=0.2))


def test_a_watched_game_stays_in_memory() -> None:
    async def scenario(referee: Referee) -> None:
        watched = await referee.create(GAME, 3, {"rounds": "1"})
        others = [await referee.create(GAME, 3) for _ in range(3)]
        stream = referee.stream(watched.game_id, seat_token=watched.seat_tokens[0])
        await anext(stream)
        await until(lambda: all(g.game_id not in referee.games for g in others))
        assert watched.game_id in referee.games
        await play_to_end(referee, watched, 5)
        sequences = [e.sequence async for update in stream for e in update.events]
        version = (await referee.summary(watched.game_id)).version
        assert sequences == list(range(1, version + 1))

    run(scenario, Limits(max_live_games=4, evict_idle_seconds=0.2))


def test_an_abandoned_game_is_aborted_with_a_public_reason() -> None:
    async def scenario(referee: Referee) -> None:
        left = await referee.create(GAME, 3)
        watched = await referee.create(GAME, 3)
        clock = GameSettings(clock=Clock(decision_ms=600_000), card_commitments=True)
        clocked = await referee.create(GAME, 3, settings=clock)
        stream = referee.stream(watched.game_id, seat_token=watched.seat_tokens[1])
        await anext(stream)  # seat 1 is connected
        await until(lambda: referee.games[left.game_id].over)
        summary = await referee.summary(left.game_id)
        assert summary.aborted and summary.game_over
        assert summary.abort_reason.startswith("abandoned"), summary.abort_reason
        assert not (await referee.summary(watched.game_id)).aborted  # a seat is still there
        assert not (await referee.summary(clocked.game_id)).aborted  # its clock moves it on
        await stream.aclose()  # the last seat leaves: now it is abandoned too
        await until(lambda: referee.games[watched.game_id].over)
        assert (await referee.summary(watched.game_id)).abort_reason.startswith("abandoned")

    run(scenario, Limits(idle_expiry_seconds=0.5))


def test_a_finished_game_leaves_only_its_summary() -> None:
    """A finished game nobody uses leaves memory within FINISHED_IDLE_SECONDS,
    long before the idle limit of running games; its summary stays for ListGames, and it
    loads again unchanged when asked for more."""
    from referee.application.tables.repository import FINISHED_IDLE_SECONDS

    async def scenario(referee: Referee) -> None:
        finished = await referee.create(GAME, 3, {"rounds": "1"})
        running = await referee.create(GAME, 3, {"rounds": "1"})
        await play_to_end(referee, finished, 3)
        before = await looks(referee, finished.game_id, finished.seat_tokens)
        repository = referee.repository
        for live in repository.games.values():  # both unused for longer than that
            live.touched -= FINISHED_IDLE_SECONDS + 1
        repository.evict()
        assert finished.game_id not in referee.games
        assert running.game_id in referee.games  # idle for less than evict_idle_seconds
        assert repository.summaries[finished.game_id] == before[0]
        assert await looks(referee, finished.game_id, finished.seat_tokens) == before

    run(scenario, Limits(evict_idle_seconds=3600))


def test_an_idle_game_just_dealt_holds_little(tmp_path: Path) -> None:
    """What a refereed Vampire Queen game of 4 just created (dealt, nobody
    watching) adds to the process, under tracemalloc, through the referee on a SQLite store
    (whose rows are not Python objects): 9.8 KiB on main before 2026-12-04, 9.1 KiB with the
    table's forfeited and resigned seats one shared empty frozenset until a seat is added,
    the live game's lock, command memories and decision stamps and the clocks' presence made
    at their first use. The game still takes commands and refuses a bad one (the parts made
    later work)."""
    import gc
    import tracemalloc

    from referee.store import open_store

    count = 100

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4)  # imports, first-use tables: not counted
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.take_snapshot()
            for _ in range(count):  # what each answers (its tokens, summary) is not kept
                await referee.create(GAME, 4)
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        # Not the log records the test run keeps (pytest captures every "game_created").
        kept = [tracemalloc.Filter(False, f"*/{name}/*") for name in ("logging", "_pytest")]
        sizes = [
            sum(s.size for s in snapshot.filter_traces(kept).statistics("filename"))
            for snapshot in (before, after)
        ]
        each = (sizes[1] - sizes[0]) / count
        print(f"{each:.0f} bytes traced per idle game")
        assert each < 9.4 * 1024, f"{each / 1024:.2f} KiB per idle game"
        live = referee.games[created.game_id]
        assert live.made_lock is None and live.accepted is None and live.rejected is None
        assert not live.table.status.forfeited and not live.table.status.resigned
        game_id, tokens = created.game_id, created.seat_tokens
        seat = live.table.pending()[0]
        # The leader may not pass (VQ-6): a rule violation, remembered by its id.
        first = await refused(referee.submit(game_id, tokens[seat], "pass", Pass()))
        again = await refused(referee.submit(game_id, tokens[seat], "pass", Pass()))
        assert first.reason == again.reason == "RULE_VIOLATION" and live.rejected
        assert first.metadata["rule_id"] == again.metadata["rule_id"] == "VQ-6"
        command = live.table.view(seat).legal_commands[0]
        done = await referee.submit(game_id, tokens[seat], "c1", command)
        retry = await referee.submit(game_id, tokens[seat], "c1", command)
        assert retry.duplicate and not done.duplicate
        assert (retry.first_sequence, retry.last_sequence) == (
            done.first_sequence,
            done.last_sequence,
        )
        assert live.made_lock is not None and live.accepted

    run(
        scenario,
        Limits(max_live_games=count + 10, evict_idle_seconds=3600),
        open_store(f"sqlite:{tmp_path / 'referee.sqlite3'}"),
    )


def test_a_live_game_holds_of_its_record_only_what_it_reads() -> None:
    """Of its record's settings a live game holds only the claim codes' hashes and whether
    its reservations were announced (the rest it holds parsed, as its settings), and its
    token hashes as digests; the store keeps and gives back the whole record. A game
    without a clock holds no bank, nor any seat's command tally before the first command;
    the tokens, the organiser's and the summary's tallies work as before."""
    from referee.application.tables.access import hash_token
    from referee.application.tables.live import ANNOUNCED, CLAIM_CODES
    from tests.application.seating_support import account, seats

    async def scenario(referee: Referee) -> None:
        created = await referee.create(GAME, 4)
        live = referee.games[created.game_id]
        stored = referee.store.get_game(created.game_id)
        assert live.record.settings == {} and stored.settings["card_commitments"]
        assert stored.settings["commitment_salt"] == live.table.config.salt.hex()
        assert stored.seat_token_hashes == tuple(hash_token(t) for t in created.seat_tokens)
        assert stored.organiser_token_hash == hash_token(created.organiser_token)
        assert [live.seat_digest(seat) for seat in range(4)] == [
            bytes.fromhex(h) for h in stored.seat_token_hashes
        ]
        assert live.organiser_digest() == bytes.fromhex(stored.organiser_token_hash)
        clocks = live.seat_clocks
        assert clocks.bank is None and clocks.commands is None
        other = referee.games[(await referee.create(GAME, 4)).game_id]
        # No claims, no counters yet: one empty mapping for all, until a game's first.
        assert live.claims is other.claims and live.stats is other.stats and not live.stats
        stream = referee.stream(created.game_id, seat_token=created.seat_tokens[0])
        await anext(stream)
        assert live.stats[0]["stream_opens"] == 1 and not other.stats
        await stream.aclose()
        seat = live.table.pending()[0]
        command = live.table.view(seat).legal_commands[0]
        await referee.submit(created.game_id, created.seat_tokens[seat], "c1", command)
        stats = (await referee.summary(created.game_id)).seat_stats
        assert [s.commands for s in stats] == [int(s == seat) for s in range(4)]
        await referee.view(created.game_id, organiser_token=created.organiser_token, as_seat=seat)
        wrong = created.seat_tokens[seat]
        assert (await refused(referee.view(created.game_id, organiser_token=wrong))).reason == (
            "TOKEN_INVALID"
        )
        with_clock = await referee.create(GAME, 4, settings=seats(*["token"] * 4, clock=CLOCK))
        assert referee.games[with_clock.game_id].seat_clocks.bank == [CLOCK.bank_ms] * 4

        ann, _ = await account(referee, "ann", "person")
        await account(referee, "alice")
        reserved = await referee.create(
            "sleeping-queens", 3, settings=seats("creator", "reserved:alice", "open"), creator=ann
        )
        live = referee.games[reserved.game_id]
        whole = referee.store.get_game(reserved.game_id).settings
        assert live.record.settings == {key: whole[key] for key in (CLAIM_CODES, ANNOUNCED)}
        assert live.seat_digest(1) is None and live.seat_digest(2) is None

    run(scenario)


CLOCK = Clock(decision_ms=60_000, bank_ms=5_000)
