"""The PostgreSQL event store: the shared contract, plus what only a shared store has.

Runs against a real PostgreSQL (tests/store/pg.py: a database of its own, dropped at the end;
skipped without a server unless REFEREE_REQUIRE_POSTGRES is set, as in CI).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from referee.store import (
    DuplicateCommand,
    EventStore,
    GameNotFound,
    RevisionConflict,
    SeatTaken,
    VersionConflict,
    open_store,
)
from tests.store.claims_documents import Heard, claim, put
from tests.store.pg import postgres_url, temporary_database
from tests.store.test_event_store import EventStoreContract, outcome, record

#: How long a test waits for a notification from another store before giving up (a hang
#: guard, not a speed check: delivery takes milliseconds).
WAIT = 20.0


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    with temporary_database() as url:
        yield url


def _store(url: str, **options: object) -> EventStore:
    from referee.store.postgres import PostgresEventStore

    return PostgresEventStore(url, **options)  # type: ignore[arg-type]


def _run_together(target: Callable[..., None], calls: Sequence[tuple[object, ...]]) -> None:
    """Run ``target(*args)`` for each ``args`` in its own thread; wait for all of them."""
    threads = [threading.Thread(target=target, args=args) for args in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
        assert not thread.is_alive()


def _empty(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("TRUNCATE seat_claims, documents, seat_stats, commands, events, games")


class TestPostgresEventStore(EventStoreContract):
    """The contract every backend passes, on one database emptied before each test."""

    @pytest.fixture(autouse=True)
    def _database(self, database: str) -> None:
        self.url = database
        _store(database, listen=False).close()  # migrated before the first truncate
        _empty(database)

    def make_store(self, tmp_path: Path) -> EventStore:
        return _store(self.url)


# -- what only a shared store has ------------------------------------------------------------


@pytest.fixture
def url(database: str) -> str:
    _store(database, listen=False).close()
    _empty(database)
    return database


@pytest.fixture
def pair(url: str) -> Iterator[tuple[EventStore, EventStore]]:
    """Two store instances on one database: two replicas' stores."""
    first, second = _store(url), _store(url)
    yield first, second
    first.close()
    second.close()


def test_two_writers_at_one_version_exactly_one_wins(
    pair: tuple[EventStore, EventStore],
) -> None:
    """Both stores append at the same version, released together, 40 times: each version has
    exactly one winner and the loser's VersionConflict names the winner's version."""
    first, second = pair
    first.create_game(record(), [])
    rounds = 40
    barrier = threading.Barrier(2)
    results: dict[str, list[object]] = {"a": [], "b": []}

    def writer(name: str, store: EventStore) -> None:
        for version in range(rounds):
            barrier.wait()
            try:
                results[name].append(
                    store.append(
                        "g1",
                        version,
                        [name.encode()],
                        outcome(f"{name}{version}", version + 1, version + 1),
                    )
                )
            except VersionConflict as conflict:
                results[name].append(conflict)
            barrier.wait()  # both have finished this version before the next one

    _run_together(writer, [("a", first), ("b", second)])
    for version in range(rounds):
        a, b = results["a"][version], results["b"][version]
        wins = [r for r in (a, b) if isinstance(r, int)]
        losses = [r for r in (a, b) if isinstance(r, VersionConflict)]
        assert wins == [version + 1] and len(losses) == 1, (version, a, b)
        assert (losses[0].expected, losses[0].actual) == (version, version + 1)
    events = second.read("g1")
    assert [e.sequence for e in events] == list(range(1, rounds + 1))
    for event in events:  # the winner's command was recorded, the loser's not
        name = event.payload.decode()
        other = "b" if name == "a" else "a"
        assert first.find_command("g1", f"{name}{event.sequence - 1}") is not None
        assert first.find_command("g1", f"{other}{event.sequence - 1}") is None


def test_command_ids_are_idempotent_across_stores(pair: tuple[EventStore, EventStore]) -> None:
    first, second = pair
    first.create_game(record(), [b"e1"])
    recorded = outcome("c1", 2, 2)
    first.append("g1", 1, [b"e2"], recorded)
    for expected in (1, 2):  # a stale retry and a current one: both refused as duplicates
        with pytest.raises(DuplicateCommand) as caught:
            second.append("g1", expected, [b"again"], outcome("c1", expected + 1, expected + 1))
        assert caught.value.outcome == recorded
    assert second.version("g1") == 2


def test_same_command_at_two_stores_at_once_is_applied_once(
    pair: tuple[EventStore, EventStore],
) -> None:
    """A client retrying on another replica while the first attempt is still in flight."""
    first, second = pair
    first.create_game(record(), [])
    rounds = 30
    barrier = threading.Barrier(2)
    answers: dict[int, list[str]] = {n: [] for n in range(rounds)}

    def writer(store: EventStore) -> None:
        for n in range(rounds):
            barrier.wait()
            try:
                store.append("g1", n, [b"x"], outcome(f"c{n}", n + 1, n + 1))
                answers[n].append("applied")
            except DuplicateCommand as duplicate:
                assert duplicate.outcome.first_sequence == n + 1
                answers[n].append("duplicate")
            barrier.wait()

    _run_together(writer, [(first,), (second,)])
    for n in range(rounds):
        assert sorted(answers[n]) == ["applied", "duplicate"], (n, answers[n])
    assert first.version("g1") == rounds


def test_other_stores_commits_reach_every_listener(url: str) -> None:
    """LISTEN/NOTIFY: a commit through one store is heard by the others' listeners (from
    their notification threads), and by its own store once (in the committing thread)."""
    stores = [_store(url) for _ in range(3)]
    try:
        heard: list[list[tuple[str, int]]] = [[] for _ in stores]
        arrived = [threading.Event() for _ in stores]

        def listener(index: int) -> object:
            def hear(game_id: str, version: int) -> None:
                heard[index].append((game_id, version))
                if version == 3:
                    arrived[index].set()

            return hear

        for index, store in enumerate(stores):
            store.add_listener(listener(index))  # type: ignore[arg-type]
            assert store.listening.wait(WAIT)  # type: ignore[attr-defined]
        stores[0].create_game(record(), [b"e1"])
        stores[1].append("g1", 1, [b"e2", b"e3"])
        for event in arrived:
            assert event.wait(WAIT)
        for index in range(3):
            # Each commit once per store, never twice (own commits are not heard back).
            assert sorted(heard[index]) == [("g1", 1), ("g1", 3)], index
    finally:
        for store in stores:
            store.close()


def test_listener_recovers_a_lost_connection(url: str) -> None:
    """When the listening connection is killed, the store reconnects and announces every
    unfinished game, so a commit made while it was away is not missed."""
    import psycopg

    watcher, writer = _store(url), _store(url, listen=False)
    try:
        latest: dict[str, int] = {}
        caught_up = threading.Event()

        def hear(game_id: str, version: int) -> None:
            latest[game_id] = max(latest.get(game_id, 0), version)
            if latest.get("g1") == 2:
                caught_up.set()

        watcher.add_listener(hear)
        assert watcher.listening.wait(WAIT)  # type: ignore[attr-defined]
        writer.create_game(record(), [b"e1"])
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND query LIKE 'LISTEN%%'"
            )
            writer.append("g1", 1, [b"e2"])  # possibly while nobody listens
        assert caught_up.wait(WAIT)
        assert watcher.version("g1") == 2
    finally:
        watcher.close()
        writer.close()


def test_other_stores_document_writes_reach_every_document_listener(url: str) -> None:
    """The documents' channel: a write through one store is heard by the other stores'
    document listeners (in their notification threads), and by its own once, in the
    writing thread; a claim's documents and its game are heard too."""
    stores = [_store(url) for _ in range(3)]
    try:
        heard = [Heard() for _ in stores]
        for store, listener in zip(stores, heard, strict=True):
            store.add_document_listener(listener)
            assert store.listening.wait(WAIT)  # type: ignore[attr-defined]
        stores[0].write_documents([put("challenge", "c 1/x", {"state": "OPEN"})])
        stores[1].write_documents([put("challenge", "c 1/x", None, 1)])
        for listener in heard:  # both writes, each heard in its own time (notifications lag)
            assert listener.wait_for(("challenge", "c 1/x", 0))
            assert listener.wait_for(("challenge", "c 1/x", 1))
        for index, listener in enumerate(heard):
            assert sorted(listener.heard) == [("challenge", "c 1/x", 0), ("challenge", "c 1/x", 1)]
            writer_of = {1: 0, 0: 1}  # revision -> the store that wrote it
            for (_, _, revision), thread in zip(listener.heard, listener.threads, strict=True):
                own = writer_of[revision] == index  # in the writing thread, else the notifier's
                assert (thread == threading.get_ident()) == own, (index, revision)
        games: list[tuple[str, int]] = []
        arrived = threading.Event()

        def hear(game_id: str, version: int) -> None:
            games.append((game_id, version))
            arrived.set()

        stores[2].add_listener(hear)
        stores[0].create_game(record(), [b"e1"])
        assert arrived.wait(WAIT)
        arrived.clear()
        stores[1].claim_seat("g1", 1, [], claim(1), [put("holding", "ann/g1/1", {"seat": 1})])
        assert heard[2].wait_for(("holding", "ann/g1/1", 1))
        assert arrived.wait(WAIT)  # the claim is announced even without an event
        assert games == [("g1", 1), ("g1", 1)]
        assert stores[2].seat_claims("g1") == {1: claim(1)}
    finally:
        for store in stores:
            store.close()


def test_claims_of_one_seat_through_two_stores_one_wins(
    pair: tuple[EventStore, EventStore],
) -> None:
    first, second = pair
    first.create_game(record(), [b"e1"])
    results: list[str] = []
    barrier = threading.Barrier(8)

    def claimant(store: EventStore, player: str) -> None:
        barrier.wait()
        try:
            store.claim_seat("g1", 1, [player.encode()], claim(1, player))
            results.append(player)
        except (SeatTaken, VersionConflict):
            pass

    _run_together(claimant, [(pair[n % 2], f"p{n}") for n in range(8)])
    assert len(results) == 1
    assert first.seat_claims("g1") == second.seat_claims("g1") == {1: claim(1, results[0])}
    assert [e.payload for e in second.read("g1")] == [b"e1", results[0].encode()]


def test_crossed_writes_through_two_stores_do_not_deadlock(
    pair: tuple[EventStore, EventStore],
) -> None:
    """Each store writes the same documents listed in opposite orders, and claims seats of
    the same games, many times at once: the row locks are taken in one order (games, then
    documents by kind and key), so every call ends, with a conflict or a write."""
    first, second = pair
    for n in range(4):
        first.create_game(record(f"g{n}"), [])
    keys = [f"k{n}" for n in range(6)]
    first.write_documents([put("lobby", key, {"n": 0}) for key in keys])

    def writer(store: EventStore, reverse: bool) -> None:
        for round_ in range(30):
            order = list(reversed(keys)) if reverse else keys
            current = {d.key: d.revision for d in store.documents("lobby")}
            with contextlib.suppress(RevisionConflict):
                store.write_documents([put("lobby", k, {"n": round_}, current[k]) for k in order])
            game = f"g{round_ % 4}"
            with contextlib.suppress(RevisionConflict, SeatTaken, VersionConflict):
                store.claim_seat(
                    game, store.version(game), [b"x"], claim(round_ % 3, f"p{round_}"),
                    [put("lobby", k, {"claimed": round_}, current[k]) for k in order],
                )  # fmt: skip

    _run_together(writer, [(first, False), (second, True), (first, True), (second, False)])
    revisions = [d.revision for d in second.documents("lobby")]
    assert len(set(revisions)) == 1  # every write wrote all six together


def test_document_listener_catches_up_after_a_lost_connection(url: str) -> None:
    """A document written while the listening connection was away is announced after it
    reconnects."""
    import psycopg

    watcher, writer = _store(url), _store(url, listen=False)
    try:
        heard = Heard()
        watcher.add_document_listener(heard)
        assert watcher.listening.wait(WAIT)  # type: ignore[attr-defined]
        writer.write_documents([put("account", "ann", {"kind": "person"})])
        assert heard.wait_for(("account", "ann", 1))
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND query LIKE 'LISTEN%%'"
            )
            writer.write_documents([put("account", "ann", {"kind": "bot"}, 1)])
        assert heard.wait_for(("account", "ann", 2))
    finally:
        watcher.close()
        writer.close()


# -- migrations --------------------------------------------------------------------------------


def test_fresh_database_gets_the_current_schema() -> None:
    import psycopg

    from referee.store.postgres import SCHEMA_VERSION

    with temporary_database() as fresh:
        _store(fresh, listen=False).close()
        with psycopg.connect(fresh) as conn:
            assert conn.execute("SELECT version FROM referee_schema").fetchall() == [
                (SCHEMA_VERSION,)
            ]


def test_migrates_a_version_1_database() -> None:
    """A database left at schema 1 keeps its data and gains what schema 2 adds."""
    import psycopg

    from referee.store.postgres import SCHEMA_VERSION, migrate

    assert SCHEMA_VERSION == 3
    with temporary_database() as old:
        with psycopg.connect(old) as conn:
            assert migrate(conn, target=1) == 0
        with _store(old, listen=False) as store:
            store.create_game(record(), [b"e1"])
        with psycopg.connect(old, autocommit=True) as conn:  # back to how schema 1 looked
            conn.execute("DROP INDEX commands_in_log_order")
            conn.execute("DROP INDEX games_unfinished")
            conn.execute("DROP TABLE seat_claims, documents")  # and what schema 3 adds
            conn.execute("DROP SEQUENCE document_changes")
            conn.execute("UPDATE referee_schema SET version = 1")
        with _store(old, listen=False) as store:
            assert store.read("g1")[0].payload == b"e1"
            store.append("g1", 1, [b"e2"], outcome("c1", 2, 2))
            assert store.commands("g1") == [outcome("c1", 2, 2)]
        with psycopg.connect(old) as conn:
            indexes = {
                row[0] for row in conn.execute("SELECT indexname FROM pg_indexes").fetchall()
            }
            assert {"commands_in_log_order", "games_unfinished"} <= indexes
            assert conn.execute("SELECT version FROM referee_schema").fetchone() == (3,)


def test_migrates_a_version_2_database() -> None:
    """A database left at schema 2 (before claims and documents) keeps its games and gains
    the two tables; its games take claims, and documents are written, afterwards."""
    import psycopg

    from referee.store.postgres import migrate

    with temporary_database() as old:
        with psycopg.connect(old) as conn:
            assert migrate(conn, target=2) == 0
        with psycopg.connect(old) as conn:
            tables = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            assert "documents" not in {row[0] for row in tables.fetchall()}
            # A game as a schema-2 referee wrote it.
            conn.execute(
                "INSERT INTO games (game_id, game_type, players, options, seed, deal,"
                " token_hashes, created_at, version) VALUES ('g1', 'vampire_queen', 2,"
                " '{}', '', '', '[]', 1000.0, 1)"
            )
            conn.execute("INSERT INTO events VALUES ('g1', 1, 'e1')")
            conn.commit()
        with _store(old, listen=False) as store:
            assert store.version("g1") == 1
            assert store.seat_claims("g1") == {}
            assert store.claim_seat("g1", 1, [b"e2"], claim(1), [put("holding", "ann/g1/1", {})])
            assert store.write_documents([put("account", "ann", {"kind": "person"})]) == [1]
        with _store(old, listen=False) as store:
            assert store.seat_claims("g1") == {1: claim(1)}
            assert [d.key for d in store.documents("holding", "ann/")] == ["ann/g1/1"]
        with psycopg.connect(old) as conn:
            assert conn.execute("SELECT version FROM referee_schema").fetchone() == (3,)


def test_refuses_a_newer_schema(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE referee_schema SET version = 99")
    try:
        with pytest.raises(RuntimeError, match="schema version 99 is newer"):
            _store(url)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE referee_schema SET version = 3")


def test_replicas_starting_together_migrate_once() -> None:
    with temporary_database() as fresh:
        errors: list[BaseException] = []
        barrier = threading.Barrier(4)

        def start() -> None:
            barrier.wait()
            try:
                _store(fresh, listen=False).close()
            except BaseException as error:
                errors.append(error)

        _run_together(start, [()] * 4)
        assert errors == []


def test_unreachable_database_fails_clearly() -> None:
    with pytest.raises(RuntimeError, match="cannot open the PostgreSQL event store"):
        _store("postgresql://nobody@127.0.0.1:1/none", connect_timeout=1)


def test_open_store_takes_postgresql_urls(url: str) -> None:
    from referee.store.postgres import PostgresEventStore

    for scheme in ("postgresql", "postgres"):
        with open_store(postgres_url(url).replace("postgresql", scheme, 1)) as store:
            assert isinstance(store, PostgresEventStore)
            assert store.shared
            with pytest.raises(GameNotFound):
                store.version("nope")
