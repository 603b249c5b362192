"""The seats' claims and the documents: part of the one store contract.

:class:`ClaimsAndDocumentsContract` is mixed into
:class:`tests.store.test_event_store.EventStoreContract`, so every backend runs these too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from referee.store import (
    Document,
    DocumentWrite,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    RevisionConflict,
    SeatClaim,
    SeatTaken,
    VersionConflict,
)


def _record(game_id: str = "g1") -> GameRecord:
    return GameRecord(
        game_id=game_id,
        game_type="vampire_queen",
        players=3,
        options={},
        seed=b"\x00secret-seed\xff",
        deal=b"",
        seat_token_hashes=("a" * 64, "", ""),
        created_at=1000.0,
    )


def claim(seat: int, player: str = "ann", token_hash: str = "") -> SeatClaim:
    return SeatClaim(seat, player, "person", token_hash, 1234.5)


def put(kind: str, key: str, body: dict[str, Any] | None, expected: int = 0) -> DocumentWrite:
    return DocumentWrite(kind, key, body, expected, updated_at=77.0)


class Heard:
    """A document listener that records what it hears, and can wait for a revision."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, str, int]] = []
        self.threads: list[int] = []
        self._changed = threading.Condition()

    def __call__(self, kind: str, key: str, revision: int) -> None:
        with self._changed:
            self.heard.append((kind, key, revision))
            self.threads.append(threading.get_ident())
            self._changed.notify_all()

    def wait_for(self, change: tuple[str, str, int], timeout: float = 20.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: change in self.heard, timeout)


class ClaimsAndDocumentsContract:
    """Claims and documents, as every backend must keep them (``store`` is the contract's
    fixture: a new, empty store)."""

    #: False in a backend's test class while its claims and documents are still to come.
    has_documents = True

    @pytest.fixture(autouse=True)
    def _backend_has_documents(self, request: pytest.FixtureRequest) -> None:
        if not self.has_documents and request.function.__name__ in _OURS:
            pytest.skip("claims and documents are not in this backend yet")

    # -- seat claims -----------------------------------------------------------------------

    def test_a_claim_is_kept_with_its_events(self, store: EventStore) -> None:
        store.create_game(_record(), [b"opening"])
        assert store.seat_claims("g1") == {}
        assert store.claim_seat("g1", 1, [b"claimed", b"dealt"], claim(1, token_hash="c" * 64)) == 3
        assert store.seat_claims("g1") == {1: claim(1, token_hash="c" * 64)}
        assert [e.payload for e in store.read("g1")] == [b"opening", b"claimed", b"dealt"]
        assert store.claim_seat("g1", 3, [], claim(2, player="", token_hash="d" * 64)) == 3
        assert list(store.seat_claims("g1")) == [1, 2]

    def test_creator_claims_are_stored_with_the_game(self, store: EventStore) -> None:
        store.create_game(_record(), [b"opening"], claims=[claim(0), claim(2, "bo")])
        assert store.seat_claims("g1") == {0: claim(0), 2: claim(2, "bo")}
        with pytest.raises(SeatTaken):
            store.claim_seat("g1", 1, [b"x"], claim(0, "cy"))
        with pytest.raises(ValueError, match="two claims"):
            store.create_game(_record("g2"), [], claims=[claim(1), claim(1, "bo")])
        with pytest.raises(GameNotFound):
            store.version("g2")

    def test_a_new_game_is_heard_of_with_its_claims_held(self, store: EventStore) -> None:
        """The lobby's games: the players' claims, their holdings and the document
        naming the game (a challenge accepted) in one transaction, so a listener told of the
        document reads the claims; a creation refused by a document writes no claim."""
        store.write_documents([put("challenge", "ch1", {"state": "open"})])
        at_commit: list[dict[int, SeatClaim]] = []

        def listener(kind: str, key: str, revision: int) -> None:
            if kind == "challenge" and revision == 2:
                at_commit.append(store.seat_claims("g1"))

        store.add_document_listener(listener)
        seated = [claim(0, "ann", "c" * 64), claim(1, "bo", "d" * 64)]
        documents = [
            put("challenge", "ch1", {"state": "accepted", "game_id": "g1"}, 1),
            put("holding", "ann/g1/0", {"seat": 0}),
            put("holding", "bo/g1/1", {"seat": 1}),
        ]
        store.create_game(_record(), [b"opening", b"dealt"], documents, seated)
        assert at_commit == [{0: seated[0], 1: seated[1]}]
        assert [d.key for d in store.documents("holding")] == ["ann/g1/0", "bo/g1/1"]
        with pytest.raises(SeatTaken):
            store.claim_seat("g1", 2, [b"x"], claim(1, "cy"))
        with pytest.raises(RevisionConflict):  # the challenge was accepted already
            stale = [put("challenge", "ch1", {"game_id": "g2"}, 1), put("holding", "cy/g2/0", {})]
            store.create_game(_record("g2"), [b"opening"], stale, [claim(0, "cy")])
        with pytest.raises(GameNotFound):
            store.seat_claims("g2")
        assert store.read_document("holding", "cy/g2/0") is None
        assert len(at_commit) == 1

    def test_a_taken_seat_is_refused_before_the_version(self, store: EventStore) -> None:
        store.create_game(_record(), [])
        store.claim_seat("g1", 0, [b"e1"], claim(1))
        heard: list[tuple[str, int]] = []
        store.add_listener(lambda game_id, version: heard.append((game_id, version)))
        for expected in (0, 1):  # a stale version too: the seat is the answer that matters
            with pytest.raises(SeatTaken) as caught:
                store.claim_seat(
                    "g1", expected, [b"e2"], claim(1, "bo"), [put("holding", "bo", {})]
                )
            assert (caught.value.game_id, caught.value.seat) == ("g1", 1)
        assert store.seat_claims("g1") == {1: claim(1)}
        assert store.version("g1") == 1
        assert store.read_document("holding", "bo") is None
        assert heard == []

    def test_a_claim_at_a_stale_version_writes_nothing(self, store: EventStore) -> None:
        store.create_game(_record(), [b"e1"])
        with pytest.raises(VersionConflict) as caught:
            store.claim_seat("g1", 0, [b"e2"], claim(1), [put("holding", "ann/g1/1", {"s": 1})])
        assert (caught.value.expected, caught.value.actual) == (0, 1)
        assert store.seat_claims("g1") == {}
        assert store.version("g1") == 1
        assert store.read_document("holding", "ann/g1/1") is None

    def test_a_claim_whose_document_moved_on_writes_nothing(self, store: EventStore) -> None:
        store.create_game(_record(), [], [put("lobby", "g1", {"open_seats": [1, 2]})])
        with pytest.raises(RevisionConflict) as caught:
            store.claim_seat("g1", 0, [b"e1"], claim(1), [put("lobby", "g1", {"open": [2]}, 2)])
        assert (caught.value.kind, caught.value.key) == ("lobby", "g1")
        assert (caught.value.expected, caught.value.actual) == (2, 1)
        assert store.seat_claims("g1") == {}
        assert store.version("g1") == 0
        lobby = store.read_document("lobby", "g1")
        assert lobby is not None and lobby.body == {"open_seats": [1, 2]}

    def test_a_claim_writes_its_documents_and_tells_both_listeners(self, store: EventStore) -> None:
        store.create_game(_record(), [], [put("lobby", "g1", {"open_seats": [1, 2]})])
        games: list[tuple[str, int]] = []
        documents = Heard()
        store.add_listener(lambda game_id, version: games.append((game_id, version)))
        store.add_document_listener(documents)
        writes = [
            put("lobby", "g1", {"open_seats": [2]}, 1),
            put("holding", "ann/g1/1", {"game_id": "g1", "seat": 1}),
        ]
        assert store.claim_seat("g1", 0, [], claim(1), writes) == 0
        assert games == [("g1", 0)]  # no event, but the seat's holder changed
        assert sorted(documents.heard) == [("holding", "ann/g1/1", 1), ("lobby", "g1", 2)]
        assert documents.threads == [threading.get_ident()] * 2
        holding = store.read_document("holding", "ann/g1/1")
        assert holding == Document("holding", "ann/g1/1", 1, {"game_id": "g1", "seat": 1}, 77.0)
        store.claim_seat("g1", 0, [b"e1"], claim(2, "bo"), [put("lobby", "g1", None, 2)])
        assert store.read_document("lobby", "g1") is None
        assert documents.heard[-1] == ("lobby", "g1", 0)

    def test_claims_of_a_missing_game(self, store: EventStore) -> None:
        with pytest.raises(GameNotFound):
            store.claim_seat("nope", 0, [], claim(0))
        with pytest.raises(GameNotFound):
            store.seat_claims("nope")

    def test_two_claims_of_one_seat_one_wins(self, store: EventStore) -> None:
        store.create_game(_record(), [])
        players = [f"p{n}" for n in range(8)]
        start = threading.Barrier(len(players))
        won: list[str] = []
        lost: list[str] = []

        def claimant(player: str) -> None:
            start.wait()
            while True:
                version = store.version("g1")
                try:
                    store.claim_seat(
                        "g1", version, [player.encode()], claim(1, player),
                        [put("holding", f"{player}/g1/1", {"seat": 1})],
                    )  # fmt: skip
                    won.append(player)
                    return
                except SeatTaken:
                    lost.append(player)
                    return
                except VersionConflict:
                    continue  # someone else appended: decide again

        _together(claimant, players)
        assert len(won) == 1 and sorted(won + lost) == players
        assert store.seat_claims("g1") == {1: claim(1, won[0])}
        assert [e.payload for e in store.read("g1")] == [won[0].encode()]
        assert [d.key for d in store.documents("holding")] == [f"{won[0]}/g1/1"]

    # -- documents: compare-and-set --------------------------------------------------------

    def test_create_update_delete_recreate(self, store: EventStore) -> None:
        assert store.read_document("account", "ann") is None
        assert store.write_documents([put("account", "ann", {"kind": "person"})]) == [1]
        assert store.read_document("account", "ann") == Document(
            "account", "ann", 1, {"kind": "person"}, 77.0
        )
        assert store.write_documents([put("account", "ann", {"kind": "bot"}, 1)]) == [2]
        assert store.write_documents([put("account", "ann", None, 2)]) == [0]
        assert store.read_document("account", "ann") is None
        # Created anew, the count goes on: revision 1 or 2 read before the delete stays stale.
        for stale in (1, 2, 3):
            with pytest.raises(RevisionConflict) as caught:
                store.write_documents([put("account", "ann", {"kind": "bot"}, stale)])
            assert caught.value.actual == 0
        assert store.write_documents([put("account", "ann", None)]) == [0]  # no write: no revision
        assert store.write_documents([put("account", "ann", {"kind": "person"})]) == [4]
        found = store.read_document("account", "ann")
        assert found is not None and (found.revision, found.body) == (4, {"kind": "person"})

    def test_a_conflict_writes_nothing_of_the_batch(self, store: EventStore) -> None:
        store.write_documents([put("pairing", "t1", {"state": "WAITING"})])
        with pytest.raises(RevisionConflict) as caught:
            store.write_documents(
                [
                    put("pairing", "t0", {"state": "PAIRED"}),
                    put("pairing", "t1", {"state": "PAIRED"}, 0),  # exists: 0 is stale
                    put("pairing_player", "ann", None, 0),
                ]
            )
        assert (caught.value.kind, caught.value.key, caught.value.expected) == ("pairing", "t1", 0)
        assert caught.value.actual == 1
        assert "t1" not in str(caught.value)  # keys may be hashes: never in the message
        assert store.read_document("pairing", "t0") is None
        found = store.read_document("pairing", "t1")
        assert found is not None and found.body == {"state": "WAITING"}

    def test_a_batch_is_written_whole(self, store: EventStore) -> None:
        store.write_documents([put("pairing", "t1", {"state": "WAITING"})])
        assert store.write_documents(
            [
                put("pairing", "t1", {"state": "PAIRED", "game": "g9"}, 1),
                put("pairing", "t2", {"state": "PAIRED"}),
                put("pairing_player", "ann", None, 0),  # nothing there: checked, not written
            ]
        ) == [2, 1, 0]
        assert [(d.key, d.revision) for d in store.documents("pairing")] == [("t1", 2), ("t2", 1)]
        assert store.documents("pairing_player") == []

    def test_bodies_are_json_and_not_aliased(self, store: EventStore) -> None:
        body: dict[str, Any] = {"mu": 25.0, "list": [1, "two", None, True], "nested": {"a": {}}}
        store.write_documents([put("rating", "cards/ann", body)])
        body["mu"] = 0.0
        found = store.read_document("rating", "cards/ann")
        assert found is not None
        assert found.body == {"mu": 25.0, "list": [1, "two", None, True], "nested": {"a": {}}}
        found.body["mu"] = 1.0
        again = store.read_document("rating", "cards/ann")
        assert again is not None and again.body["mu"] == 25.0
        assert "25.0" not in repr(again)  # bodies stay out of logs and tracebacks

    @pytest.mark.parametrize(
        "write",
        [
            put("account", "ann", {"when": object()}),
            put("account", "ann", {"x": float("nan")}),
            put("", "ann", {}),
            put("account", "", {}),
            put("my kind", "ann", {}),
            put("account", "ann", {}, -1),
            put("account", "x" * 1025, {}),  # a PostgreSQL notification holds 8000 bytes
            put("k" * 65, "ann", {}),
            DocumentWrite("account", "ann", ["not", "a", "dict"], 0),  # type: ignore[arg-type]
        ],
    )
    def test_bad_writes_are_refused_before_anything(
        self, store: EventStore, write: DocumentWrite
    ) -> None:
        with pytest.raises(ValueError) as caught:
            store.write_documents([put("account", "bo", {"kind": "bot"}), write])
        assert "secret" not in str(caught.value)
        assert store.read_document("account", "bo") is None

    def test_two_writes_of_one_document_are_refused(self, store: EventStore) -> None:
        with pytest.raises(ValueError, match="two writes"):
            store.write_documents([put("account", "ann", {}), put("account", "ann", {}, 1)])
        assert store.read_document("account", "ann") is None

    def test_racing_writers_of_one_revision_one_wins(self, store: EventStore) -> None:
        store.write_documents([put("challenge", "c1", {"state": "OPEN"})])
        writers = [f"w{n}" for n in range(8)]
        start = threading.Barrier(len(writers))
        won: list[str] = []

        def accept(writer: str) -> None:
            start.wait()
            try:
                store.write_documents([put("challenge", "c1", {"accepted_by": writer}, 1)])
                won.append(writer)
            except RevisionConflict as conflict:
                assert conflict.actual == 2

        _together(accept, writers)
        assert len(won) == 1
        found = store.read_document("challenge", "c1")
        assert found is not None and found.body == {"accepted_by": won[0]}

    def test_racing_creators_of_one_key_one_wins(self, store: EventStore) -> None:
        tickets = [f"t{n}" for n in range(8)]
        start = threading.Barrier(len(tickets))
        won: list[str] = []

        def enqueue(ticket: str) -> None:
            start.wait()
            try:
                store.write_documents(
                    [
                        put("pairing", ticket, {}),
                        put("pairing_player", "ann", {"ticket_id": ticket}),
                    ]
                )
                won.append(ticket)
            except RevisionConflict as conflict:
                assert (conflict.key, conflict.actual) == ("ann", 1)

        _together(enqueue, tickets)
        assert len(won) == 1
        assert [d.key for d in store.documents("pairing")] == won

    def test_a_new_game_writes_its_documents_or_nothing(self, store: EventStore) -> None:
        store.write_documents([put("lobby", "g2", {"taken": True})])
        heard = Heard()
        store.add_document_listener(heard)
        store.create_game(_record(), [b"e1"], [put("lobby", "g1", {"open_seats": [1]})])
        assert heard.heard == [("lobby", "g1", 1)]
        with pytest.raises(RevisionConflict):
            store.create_game(_record("g2"), [b"e1"], [put("lobby", "g2", {"open_seats": [1]})])
        with pytest.raises(GameNotFound):
            store.version("g2")
        with pytest.raises(GameExists):  # the game is checked first
            store.create_game(_record(), [], [put("lobby", "g2", {}, 1)])
        found = store.read_document("lobby", "g2")
        assert found is not None and found.body == {"taken": True}
        assert heard.heard == [("lobby", "g1", 1)]

    # -- documents: listing ----------------------------------------------------------------

    def test_documents_by_kind_and_key_prefix(self, store: EventStore) -> None:
        keys = ["ann/g2/0", "ann/g1/1", "anna/g3/0", "bo/g1/0", "ann0", "Ann/g4/0", "ann/é/0"]
        store.write_documents([put("holding", key, {"key": key}) for key in keys])
        store.write_documents([put("lobby", "ann/g9/0", {})])
        store.write_documents([put("holding", "ann/gone/0", {}), put("holding", "ann", {})])
        store.write_documents([put("holding", "ann/gone/0", None, 1)])
        assert [d.key for d in store.documents("holding", "ann/")] == [
            "ann/g1/1",
            "ann/g2/0",
            "ann/é/0",
        ]
        assert [d.key for d in store.documents("holding", "ann")] == [
            "ann",
            "ann/g1/1",
            "ann/g2/0",
            "ann/é/0",
            "ann0",
            "anna/g3/0",
        ]
        everything = store.documents("holding")
        assert [d.key for d in everything] == sorted([*keys, "ann"])
        assert all(d.body == {"key": d.key} for d in everything if d.key != "ann")
        assert store.documents("holding", "%") == []
        assert store.documents("holding", "ann_g") == []
        assert store.documents("nothing") == []

    def test_a_prefix_is_not_a_pattern(self, store: EventStore) -> None:
        keys = ["a%b", "a_b", "axb", "a\\b", "a*b", "a[b"]
        store.write_documents([put("k", key, {}) for key in keys])
        for key in keys:
            assert [d.key for d in store.documents("k", key)] == [key], key
        assert [d.key for d in store.documents("k", "a")] == sorted(keys)

    # -- documents: listeners --------------------------------------------------------------

    def test_document_listeners_hear_commits_only(self, store: EventStore) -> None:
        heard = Heard()
        unsubscribe = store.add_document_listener(heard)
        store.write_documents([put("account", "ann", {}), put("account_token", "h", {"n": 1})])
        with pytest.raises(RevisionConflict):
            store.write_documents([put("account", "ann", {})])
        store.write_documents([put("account", "bo", None)])  # nothing to delete: no write
        store.write_documents([put("account", "ann", None, 1)])
        assert store.write_documents([put("account", "ann", None)]) == [0]  # deleted already
        assert sorted(heard.heard[:2]) == [("account", "ann", 1), ("account_token", "h", 1)]
        assert heard.heard[2:] == [("account", "ann", 0)]
        assert set(heard.threads) == {threading.get_ident()}
        unsubscribe()
        unsubscribe()
        store.write_documents([put("account", "ann", {})])
        assert len(heard.heard) == 3

    def test_a_document_listener_may_read_and_fail(
        self, store: EventStore, caplog: pytest.LogCaptureFixture
    ) -> None:
        seen: list[Document | None] = []

        def broken(kind: str, key: str, revision: int) -> None:
            raise RuntimeError("boom")

        store.add_document_listener(broken)
        store.add_document_listener(
            lambda kind, key, _: seen.append(store.read_document(kind, key))
        )
        assert store.write_documents([put("account_token", "f" * 64, {"name": "zed-quiet"})]) == [1]
        assert seen == [Document("account_token", "f" * 64, 1, {"name": "zed-quiet"}, 77.0)]
        assert "document listener" in caplog.text
        assert "f" * 64 not in caplog.text and "zed-quiet" not in caplog.text

    def test_documents_of_a_closed_store(self, store: EventStore) -> None:
        store.close()
        calls: list[Callable[[], object]] = [
            lambda: store.read_document("a", "b"),
            lambda: store.documents("a"),
            lambda: store.write_documents([put("a", "b", {})]),
        ]
        for call in calls:
            with pytest.raises(RuntimeError, match="closed"):
                call()


_OURS = {name for name in vars(ClaimsAndDocumentsContract) if name.startswith("test_")}


def _together(target: Callable[[str], None], names: list[str]) -> None:
    threads = [threading.Thread(target=target, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive()


__all__ = ["ClaimsAndDocumentsContract", "Heard", "claim", "put"]
