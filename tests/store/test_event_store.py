"""One behaviour contract, run against every event-store backend.

:class:`EventStoreContract` holds the tests; each backend subclasses it and only says how to
make a store, so the backends cannot drift apart.
"""

from __future__ import annotations

import abc
import dataclasses
import hashlib
import sqlite3
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from referee.store import (
    CommandOutcome,
    DuplicateCommand,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    MemoryEventStore,
    RevisionConflict,
    SeatTaken,
    SqliteEventStore,
    StoredEvent,
    VersionConflict,
    open_store,
)
from tests.store.claims_documents import ClaimsAndDocumentsContract, claim, put


def record(game_id: str = "g1", created_at: float = 1000.0) -> GameRecord:
    return GameRecord(
        game_id=game_id,
        game_type="vampire_queen",
        players=2,
        options={"rounds": "5", "variant": "classic"},
        seed=b"\x00secret-seed\xff",
        deal=b"",
        seat_token_hashes=("a" * 64, "b" * 64),
        created_at=created_at,
    )


def outcome(command_id: str, first: int, last: int, seat: int = 0) -> CommandOutcome:
    return CommandOutcome(command_id, seat, f"fp-{command_id}", first, last)


class EventStoreContract(ClaimsAndDocumentsContract, abc.ABC):
    """Behaviour every :class:`EventStore` must have; subclasses provide :meth:`make_store`."""

    @abc.abstractmethod
    def make_store(self, tmp_path: Path) -> EventStore:
        """A new, empty store (files, if any, under ``tmp_path``)."""

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[EventStore]:
        store = self.make_store(tmp_path)
        yield store
        store.close()

    # -- create and read -------------------------------------------------------------------

    def test_create_then_read(self, store: EventStore) -> None:
        store.create_game(record(), [b"deal", b"", b"first turn"])
        assert store.version("g1") == 3
        assert store.get_game("g1") == record()
        assert store.read("g1") == [
            StoredEvent("g1", 1, b"deal"),
            StoredEvent("g1", 2, b""),
            StoredEvent("g1", 3, b"first turn"),
        ]

    def test_create_without_events_is_version_zero(self, store: EventStore) -> None:
        store.create_game(record(), [])
        assert store.version("g1") == 0
        assert store.read("g1") == []
        assert store.append("g1", 0, [b"e1"]) == 1

    def test_game_exists(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        with pytest.raises(GameExists) as caught:
            store.create_game(record(created_at=2000.0), [b"other", b"other"])
        assert caught.value.game_id == "g1"
        assert store.get_game("g1").created_at == 1000.0
        assert [e.payload for e in store.read("g1")] == [b"e1"]

    def test_seed_and_deal_stay_out_of_repr(self) -> None:
        assert "secret" not in repr(record())

    def test_stored_record_is_not_aliased(self, store: EventStore) -> None:
        original = record()
        store.create_game(original, [])
        original.options["rounds"] = "99"
        store.get_game("g1").options["rounds"] = "98"
        assert store.get_game("g1").options["rounds"] == "5"

    # -- append and versions ---------------------------------------------------------------

    def test_append_with_expected_version(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        assert store.append("g1", 1, [b"e2", b"e3"]) == 3
        assert store.append("g1", 3, [b"e4"]) == 4
        assert store.append("g1", 4, []) == 4
        assert [(e.sequence, e.payload) for e in store.read("g1")] == [
            (1, b"e1"),
            (2, b"e2"),
            (3, b"e3"),
            (4, b"e4"),
        ]

    @pytest.mark.parametrize("expected", [0, 1, 3, -1])
    def test_version_conflict_appends_nothing(self, store: EventStore, expected: int) -> None:
        store.create_game(record(), [b"e1", b"e2"])
        with pytest.raises(VersionConflict) as caught:
            store.append("g1", expected, [b"late"], outcome("c1", expected + 1, expected + 1))
        assert (caught.value.game_id, caught.value.expected, caught.value.actual) == (
            "g1",
            expected,
            2,
        )
        assert store.version("g1") == 2
        assert [e.payload for e in store.read("g1")] == [b"e1", b"e2"]
        assert store.find_command("g1", "c1") is None

    def test_games_have_separate_sequences(self, store: EventStore) -> None:
        store.create_game(record("g1"), [b"a1"])
        store.create_game(record("g2", created_at=1001.0), [])
        store.append("g2", 0, [b"b1"])
        assert store.read("g1") == [StoredEvent("g1", 1, b"a1")]
        assert store.read("g2") == [StoredEvent("g2", 1, b"b1")]

    def test_read_after_and_limit(self, store: EventStore) -> None:
        store.create_game(record(), [f"e{i}".encode() for i in range(1, 6)])
        assert [e.sequence for e in store.read("g1", after=2)] == [3, 4, 5]
        assert [e.sequence for e in store.read("g1", after=1, limit=2)] == [2, 3]
        assert [e.sequence for e in store.read("g1", limit=1)] == [1]
        assert store.read("g1", after=4, limit=10) == [StoredEvent("g1", 5, b"e5")]
        assert store.read("g1", after=5) == []
        assert store.read("g1", after=9) == []
        assert store.read("g1", limit=0) == []
        with pytest.raises(ValueError, match="limit"):
            store.read("g1", limit=-1)

    # -- missing games ---------------------------------------------------------------------

    def test_game_not_found_everywhere(self, store: EventStore) -> None:
        store.create_game(record("other"), [b"e1"])
        calls: list[Callable[[], object]] = [
            lambda: store.append("nope", 0, [b"e1"]),
            lambda: store.append("nope", 0, [b"e1"], outcome("c1", 1, 1)),
            lambda: store.read("nope"),
            lambda: store.version("nope"),
            lambda: store.get_game("nope"),
            lambda: store.find_command("nope", "c1"),
            lambda: store.set_finished("nope"),
        ]
        for call in calls:
            with pytest.raises(GameNotFound) as caught:
                call()
            assert caught.value.game_id == "nope"
        assert [r.game_id for r, _, _ in store.list_games()] == ["other"]

    # -- idempotent commands ---------------------------------------------------------------

    def test_command_outcome_is_recorded(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        first = outcome("c1", 2, 3, seat=1)
        store.append("g1", 1, [b"e2", b"e3"], first)
        assert store.find_command("g1", "c1") == first
        assert store.find_command("g1", "c2") is None

    def test_duplicate_command_returns_first_outcome(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        first = outcome("c1", 2, 2)
        store.append("g1", 1, [b"e2"], first)
        store.append("g1", 2, [b"e3"])
        # A retry carries the stale version: the duplicate wins over the conflict.
        for expected in (1, 3):
            with pytest.raises(DuplicateCommand) as caught:
                store.append("g1", expected, [b"again"], outcome("c1", expected + 1, expected + 1))
            assert caught.value.outcome == first
        assert store.version("g1") == 3
        assert [e.payload for e in store.read("g1")] == [b"e1", b"e2", b"e3"]

    def test_command_ids_are_per_game(self, store: EventStore) -> None:
        store.create_game(record("g1"), [])
        store.create_game(record("g2"), [])
        store.append("g1", 0, [b"a"], outcome("c1", 1, 1))
        store.append("g2", 0, [b"b"], outcome("c1", 1, 1, seat=1))
        assert store.find_command("g2", "c1") == outcome("c1", 1, 1, seat=1)

    def test_command_without_events_is_recorded(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        assert store.append("g1", 1, [], outcome("c1", 2, 1)) == 1
        with pytest.raises(DuplicateCommand):
            store.append("g1", 1, [], outcome("c1", 2, 1))

    def test_outcome_must_match_the_appended_events(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        with pytest.raises(ValueError, match="covers sequences"):
            store.append("g1", 1, [b"e2", b"e3"], outcome("c1", 2, 2))
        assert store.version("g1") == 1
        assert store.find_command("g1", "c1") is None

    def test_command_payload_and_decision_time_are_kept(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        first = CommandOutcome("c1", 1, "fp", 2, 2, payload=b"\x00cmd\xff", decision_ms=1234)
        store.append("g1", 1, [b"e2"], first)
        assert store.find_command("g1", "c1") == first
        with pytest.raises(DuplicateCommand) as caught:
            store.append("g1", 2, [b"e3"], CommandOutcome("c1", 1, "fp", 3, 3, payload=b"x"))
        assert caught.value.outcome == first

    def test_commands_in_log_order(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        assert store.commands("g1") == []
        store.append("g1", 1, [b"e2"], outcome("z-late-id", 2, 2))
        store.append("g1", 2, [b"e3"])  # a batch of the referee's own: no command
        store.append("g1", 3, [b"e4", b"e5"], outcome("a-early-id", 4, 5, seat=1))
        assert [(c.command_id, c.first_sequence) for c in store.commands("g1")] == [
            ("z-late-id", 2),
            ("a-early-id", 4),
        ]
        with pytest.raises(GameNotFound):
            store.commands("nope")

    def test_seat_stats_add_up(self, store: EventStore) -> None:
        store.create_game(record(), [b"e1"])
        store.create_game(record("g2", created_at=1001.0), [])
        assert store.stats("g1") == {}
        store.add_stats("g1", 1, {"rejected": 1})
        store.add_stats("g1", 1, {"rejected": 2, "disconnects": 1})
        store.add_stats("g1", 0, {"disconnects": 1})
        store.add_stats("g2", 1, {"rejected": 5})
        assert store.stats("g1") == {0: {"disconnects": 1}, 1: {"rejected": 3, "disconnects": 1}}
        assert store.stats("g2") == {1: {"rejected": 5}}
        with pytest.raises(GameNotFound):
            store.add_stats("nope", 0, {"rejected": 1})
        with pytest.raises(GameNotFound):
            store.stats("nope")

    def test_settings_and_organiser_hash_round_trip(self, store: EventStore) -> None:
        settings = {"clock": {"decision_ms": 200, "bank_ms": 0}, "defer_seed_reveal": True}
        stored = dataclasses.replace(record(), settings=settings, organiser_token_hash="c" * 64)
        store.create_game(stored, [])
        assert store.get_game("g1") == stored
        store.get_game("g1").settings["clock"] = {}
        assert store.get_game("g1").settings == settings
        assert store.list_games()[0][0] == stored

    # -- listeners -------------------------------------------------------------------------

    def test_listeners_hear_commits_only(self, store: EventStore) -> None:
        heard: list[tuple[str, int]] = []
        store.add_listener(lambda game_id, version: heard.append((game_id, version)))
        store.create_game(record(), [b"e1"])
        store.append("g1", 1, [b"e2", b"e3"], outcome("c1", 2, 3))
        with pytest.raises(VersionConflict):
            store.append("g1", 1, [b"late"])
        with pytest.raises(DuplicateCommand):
            store.append("g1", 3, [b"again"], outcome("c1", 4, 4))
        with pytest.raises(GameExists):
            store.create_game(record(), [])
        with pytest.raises(GameNotFound):
            store.append("nope", 0, [b"x"])
        store.set_finished("g1")
        assert heard == [("g1", 1), ("g1", 3)]

    def test_listener_runs_in_committing_thread_without_lock(self, store: EventStore) -> None:
        seen: list[tuple[int, int]] = []

        def listener(game_id: str, version: int) -> None:
            # Reading the store here would deadlock if a store lock were still held.
            seen.append((threading.get_ident(), store.version(game_id)))

        store.add_listener(listener)
        store.create_game(record(), [b"e1"])
        assert seen == [(threading.get_ident(), 1)]

    def test_unsubscribe(self, store: EventStore) -> None:
        kept: list[int] = []
        dropped: list[int] = []
        store.add_listener(lambda _game, version: kept.append(version))
        unsubscribe = store.add_listener(lambda _game, version: dropped.append(version))
        store.create_game(record(), [b"e1"])
        unsubscribe()
        unsubscribe()  # idempotent
        store.append("g1", 1, [b"e2"])
        assert (kept, dropped) == ([1, 2], [1])

    def test_failing_listener_does_not_fail_the_commit(
        self, store: EventStore, caplog: pytest.LogCaptureFixture
    ) -> None:
        heard: list[int] = []

        def broken(game_id: str, version: int) -> None:
            raise RuntimeError("boom")

        store.add_listener(broken)
        store.add_listener(lambda _game, version: heard.append(version))
        store.create_game(record(), [b"e1"])
        assert store.append("g1", 1, [b"e2"]) == 2
        assert heard == [1, 2]
        assert "listener" in caplog.text

    # -- listing and finishing -------------------------------------------------------------

    def test_list_games_oldest_first_with_finished_flag(self, store: EventStore) -> None:
        store.create_game(record("late", created_at=3000.0), [b"e1"])
        store.create_game(record("early", created_at=1000.0), [])
        store.create_game(record("tie-a", created_at=2000.0), [b"e1", b"e2"])
        store.create_game(record("tie-b", created_at=2000.0), [])
        store.set_finished("tie-a")
        store.set_finished("late")
        store.set_finished("late", False)
        listed = [(r.game_id, version, finished) for r, version, finished in store.list_games()]
        assert listed == [
            ("early", 0, False),
            ("tie-a", 2, True),
            ("tie-b", 0, False),
            ("late", 1, False),
        ]
        assert store.list_games()[0][0] == record("early", created_at=1000.0)

    def test_list_games_empty(self, store: EventStore) -> None:
        assert store.list_games() == []

    # -- concurrency -----------------------------------------------------------------------

    def test_concurrent_appends_leave_no_gaps_or_duplicates(self, store: EventStore) -> None:
        threads, per_thread = 6, 25
        store.create_game(record(), [])
        start = threading.Barrier(threads)

        def worker(index: int) -> None:
            start.wait()
            for n in range(per_thread):
                command_id = f"t{index}-{n}"
                while True:
                    version = store.version("g1")
                    time.sleep(0)  # let another thread in between the read and the append
                    try:
                        store.append(
                            "g1",
                            version,
                            [command_id.encode()],
                            outcome(command_id, version + 1, version + 1, seat=index),
                        )
                        break
                    except VersionConflict as conflict:
                        assert conflict.actual > version  # someone else got in: retry

        pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join(timeout=60)
            assert not thread.is_alive()

        total = threads * per_thread
        events = store.read("g1")
        assert store.version("g1") == total
        assert [e.sequence for e in events] == list(range(1, total + 1))
        payloads = sorted(e.payload.decode() for e in events)
        assert payloads == sorted(f"t{i}-{n}" for i in range(threads) for n in range(per_thread))
        for event in events:
            found = store.find_command("g1", event.payload.decode())
            assert found is not None
            assert found.first_sequence == found.last_sequence == event.sequence

    # -- lifecycle -------------------------------------------------------------------------

    def test_close_is_idempotent_and_final(self, tmp_path: Path) -> None:
        with self.make_store(tmp_path) as store:
            store.create_game(record(), [])
        store.close()
        with pytest.raises(RuntimeError, match="closed"):
            store.version("g1")
        with pytest.raises(RuntimeError, match="closed"):
            store.list_games()


class TestMemoryEventStore(EventStoreContract):
    def make_store(self, tmp_path: Path) -> EventStore:
        return MemoryEventStore()

    def test_a_long_event_is_held_compressed_and_read_back_as_written(self) -> None:
        """A deal's openings repeat their Merkle tree's upper nodes: the store holds a long
        event in fewer bytes than it has, and gives back the bytes written."""
        store = MemoryEventStore()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            long = bytes(range(32)) * 640  # 20 KB of one 32-byte node again and again
            store.create_game(record(), [long, b"short"])
            del long
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert held < 10_000
        assert [event.payload for event in store.read("g1")] == [bytes(range(32)) * 640, b"short"]

    def test_a_creations_events_are_held_together_and_read_back_as_written(self) -> None:
        """The events a game is created with are held as one compressed object (short ones
        too: a bytes object each took 33 bytes besides its own), and read back one by one,
        with the events appended after them, from anywhere."""
        store = MemoryEventStore()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            # Made while traced: what the store keeps of them is counted.
            store.create_game(record(), [b"event %d of the opening" % i for i in range(50)])
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert held < 1_000  # 50 bytes objects of 60 bytes: 3,000 and more
        store.append("g1", 50, [b"after 1", b"after 2"])
        opening = [b"event %d of the opening" % i for i in range(50)]
        written = [*opening, b"after 1", b"after 2"]
        assert store.version("g1") == 52
        assert [e.payload for e in store.read("g1")] == written
        for after, limit in ((0, 1), (49, 2), (50, None), (48, 10), (52, 3), (10, 0)):
            events = store.read("g1", after, limit)
            stop = None if limit is None else after + limit
            assert [e.payload for e in events] == written[after:stop]
            assert [e.sequence for e in events] == list(range(after + 1, after + 1 + len(events)))

    def test_a_records_token_hashes_are_held_compressed(self) -> None:
        """A record's token hashes (hex: 113 bytes each as strings) are held with its
        settings, compressed; the record read back is the one written."""
        store = MemoryEventStore()
        written = dataclasses.replace(
            record(),
            players=12,
            seat_token_hashes=tuple(hashlib.sha256(bytes([s])).hexdigest() for s in range(12)),
            organiser_token_hash=hashlib.sha256(b"organiser").hexdigest(),
            settings={"clock": {"decision_ms": 0}, "commitment_salt": "ab" * 32},
        )
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            copy = dataclasses.replace(  # strings of its own, made while traced
                written,
                seat_token_hashes=tuple(h[:32] + h[32:] for h in written.seat_token_hashes),
                organiser_token_hash=written.organiser_token_hash[:32]
                + written.organiser_token_hash[32:],
            )
            store.create_game(copy, [])
            del copy
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert held < 1_500  # 2,100 with the hashes as 13 strings (1,469 bytes)
        assert store.get_game("g1") == written
        assert store.list_games() == [(written, 0, False)]


class TestSqliteEventStore(EventStoreContract):
    def make_store(self, tmp_path: Path) -> EventStore:
        return SqliteEventStore(tmp_path / "referee.db")

    def test_data_survives_reopen(self, tmp_path: Path) -> None:
        path = tmp_path / "nested" / "folders" / "referee.db"
        with SqliteEventStore(path) as store:
            store.create_game(record("g1"), [b"e1"])
            store.create_game(record("g2", created_at=500.0), [])
            store.append("g1", 1, [b"e2", b""], outcome("c1", 2, 3, seat=1))
            store.set_finished("g2")
        with SqliteEventStore(path, synchronous="FULL") as store:
            assert store.read("g1") == [
                StoredEvent("g1", 1, b"e1"),
                StoredEvent("g1", 2, b"e2"),
                StoredEvent("g1", 3, b""),
            ]
            assert store.find_command("g1", "c1") == outcome("c1", 2, 3, seat=1)
            assert [(r, v, f) for r, v, f in store.list_games()] == [
                (record("g2", created_at=500.0), 0, True),
                (record("g1"), 3, False),
            ]
            assert store.append("g1", 3, [b"e4"]) == 4

    def test_wal_mode_and_schema_version(self, tmp_path: Path) -> None:
        path = tmp_path / "referee.db"
        with SqliteEventStore(path):
            probe = sqlite3.connect(path)
            try:
                assert probe.execute("PRAGMA journal_mode").fetchone() == ("wal",)
                assert probe.execute("PRAGMA user_version").fetchone() == (3,)
            finally:
                probe.close()

    def test_migrates_a_version_2_database(self, tmp_path: Path) -> None:
        """A file written by the schema-2 referee (before claims and documents) opens, keeps
        its games and gains the two tables, once."""
        path = tmp_path / "referee.db"
        with SqliteEventStore(path) as store:
            store.create_game(record(), [b"e1"])
            store.append("g1", 1, [b"e2"], outcome("c1", 2, 2))
        old = sqlite3.connect(path)  # back to how schema 2 looked: the same, less two tables
        old.executescript("DROP TABLE seat_claims; DROP TABLE documents; PRAGMA user_version = 2;")
        old.close()
        with SqliteEventStore(path) as store:
            assert store.list_games() == [(record(), 2, False)]
            assert store.seat_claims("g1") == {}
            assert store.claim_seat("g1", 2, [b"e3"], claim(1), [put("holding", "ann/g1/1", {})])
            assert store.write_documents([put("account", "ann", {"kind": "person"})]) == [1]
        with SqliteEventStore(path) as store:  # migrated once; opens as version 3
            assert store.seat_claims("g1") == {1: claim(1)}
            assert [d.key for d in store.documents("holding")] == ["ann/g1/1"]
            assert store.find_command("g1", "c1") == outcome("c1", 2, 2)
        probe = sqlite3.connect(path)
        try:
            assert probe.execute("PRAGMA user_version").fetchone() == (3,)
        finally:
            probe.close()

    def test_migrates_a_version_1_database(self, tmp_path: Path) -> None:
        """A file written by the schema-1 referee opens, keeps its data and gains the new
        columns (with neutral values) and the seat counters."""
        path = tmp_path / "referee.db"
        old = sqlite3.connect(path)
        old.executescript(
            """
            CREATE TABLE games (
                game_id TEXT PRIMARY KEY, game_type TEXT NOT NULL, players INTEGER NOT NULL,
                options TEXT NOT NULL, seed BLOB NOT NULL, deal BLOB NOT NULL,
                token_hashes TEXT NOT NULL, created_at REAL NOT NULL,
                finished INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL);
            CREATE INDEX games_by_creation ON games (created_at);
            CREATE TABLE events (game_id TEXT NOT NULL REFERENCES games (game_id),
                sequence INTEGER NOT NULL, payload BLOB NOT NULL,
                PRIMARY KEY (game_id, sequence)) WITHOUT ROWID;
            CREATE TABLE commands (game_id TEXT NOT NULL REFERENCES games (game_id),
                command_id TEXT NOT NULL, seat INTEGER NOT NULL, fingerprint TEXT NOT NULL,
                first_sequence INTEGER NOT NULL, last_sequence INTEGER NOT NULL,
                PRIMARY KEY (game_id, command_id)) WITHOUT ROWID;
            PRAGMA user_version = 1;
            """
        )
        old.execute(
            "INSERT INTO games VALUES ('g1', 'vampire_queen', 2, ?, ?, x'', ?, 1000.0, 1, 2)",
            (
                '{"rounds": "5", "variant": "classic"}',
                b"\x00secret-seed\xff",
                '["' + "a" * 64 + '", "' + "b" * 64 + '"]',
            ),
        )
        old.executemany("INSERT INTO events VALUES ('g1', ?, ?)", [(1, b"e1"), (2, b"e2")])
        old.execute("INSERT INTO commands VALUES ('g1', 'c1', 0, 'fp-c1', 2, 2)")
        old.commit()
        old.close()

        with SqliteEventStore(path) as store:
            assert store.list_games() == [(record(), 2, True)]
            assert store.get_game("g1").settings == {}
            assert store.get_game("g1").organiser_token_hash == ""
            assert store.find_command("g1", "c1") == outcome("c1", 2, 2)
            assert store.commands("g1")[0].payload == b""
            assert [e.payload for e in store.read("g1")] == [b"e1", b"e2"]
            store.add_stats("g1", 0, {"rejected": 1})
            store.append("g1", 2, [b"e3"], CommandOutcome("c2", 1, "fp", 3, 3, b"p", 7))
        with SqliteEventStore(path) as store:  # migrated once; opens as version 3
            assert store.stats("g1") == {0: {"rejected": 1}}
            assert store.find_command("g1", "c2") == CommandOutcome("c2", 1, "fp", 3, 3, b"p", 7)
            assert store.seat_claims("g1") == {}
            assert store.documents("lobby") == []
        probe = sqlite3.connect(path)
        try:
            assert probe.execute("PRAGMA user_version").fetchone() == (3,)
        finally:
            probe.close()

    def test_refuses_newer_schema(self, tmp_path: Path) -> None:
        path = tmp_path / "referee.db"
        SqliteEventStore(path).close()
        probe = sqlite3.connect(path)
        probe.execute("PRAGMA user_version = 99")
        probe.close()
        with pytest.raises(RuntimeError, match="schema version 99"):
            SqliteEventStore(path)

    def test_two_stores_on_one_file_see_each_other(self, tmp_path: Path) -> None:
        path = tmp_path / "referee.db"
        with SqliteEventStore(path) as first, SqliteEventStore(path) as second:
            first.create_game(record(), [b"e1"])
            assert second.append("g1", 1, [b"e2"]) == 2
            with pytest.raises(VersionConflict) as caught:
                first.append("g1", 1, [b"stale"])
            assert caught.value.actual == 2

    def test_claims_and_documents_through_two_stores_on_one_file(self, tmp_path: Path) -> None:
        """Two processes on one file (two stores here): the file's write lock serialises
        their claims and compare-and-sets, so of two claimants of a seat one wins."""
        path = tmp_path / "referee.db"
        with SqliteEventStore(path) as first, SqliteEventStore(path) as second:
            first.create_game(record(), [b"e1"])
            second.claim_seat("g1", 1, [b"e2"], claim(1), [put("holding", "ann/g1/1", {})])
            with pytest.raises(SeatTaken):
                first.claim_seat("g1", 2, [b"e3"], claim(1, "bo"))
            assert first.seat_claims("g1") == {1: claim(1)}
            with pytest.raises(RevisionConflict):
                first.write_documents([put("holding", "ann/g1/1", {"late": True})])
            assert first.write_documents([put("holding", "ann/g1/1", {"seat": 1}, 1)]) == [2]
            found = second.read_document("holding", "ann/g1/1")
            assert found is not None and found.body == {"seat": 1}

    def test_in_memory_database(self) -> None:
        with SqliteEventStore(":memory:") as store:
            store.create_game(record(), [b"e1"])
            assert store.version("g1") == 1

    def test_rejects_bad_synchronous(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="synchronous"):
            SqliteEventStore(tmp_path / "x.db", synchronous="SOMETIMES")  # type: ignore[arg-type]


class TestOpenStore:
    def test_memory(self) -> None:
        with open_store("memory:") as store:
            assert isinstance(store, MemoryEventStore)

    def test_sqlite(self, tmp_path: Path) -> None:
        path = tmp_path / "sub" / "referee.db"
        with open_store(f"sqlite:{path}") as store:
            assert isinstance(store, SqliteEventStore)
            store.create_game(record(), [])
        assert path.exists()

    def test_sqlite_memory(self) -> None:
        with open_store("sqlite::memory:") as store:
            assert isinstance(store, SqliteEventStore)

    @pytest.mark.parametrize("url", ["", "sqlite:", "memory", "mysql://db", "mem:", "postgresql"])
    def test_rejects_unknown_urls(self, url: str) -> None:
        with pytest.raises(ValueError, match="unsupported event store URL"):
            open_store(url)
