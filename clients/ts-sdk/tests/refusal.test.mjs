// A decide() that returns a command the referee refuses as illegal (a bug in the bot) must
// not leave its seat waiting for ever: the view does not change after a refusal, so the loop
// plays the seat's first legal command instead, as referee_bot does (counted in
// seat.illegal, and onRefusal says why).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { PlayerLoop, SeatMode, asPlayer, createRefereeClient, register } from "../dist/index.js";
import { nodeTransport } from "../dist/node.js";
import { Referee } from "./referee.mjs";

let referee;
before(async () => (referee = await new Referee(["--open-registration"]).start()));
after(async () => referee.kill());

test("an illegal command from decide is followed by the first legal one", { timeout: 120_000 }, async () => {
  const client = createRefereeClient(nodeTransport(referee.httpUrl, "connect"));
  const { credential } = await register(client, "sdk-refused");
  const created = await client.createGame(
    { gameType: "vampire-queen", players: 3, options: { rounds: "1" }, seatRequests: [{ mode: SeatMode.CREATOR }, {}, {}] },
    asPlayer(credential),
  );
  const seats = created.seats
    .filter((s) => s.seat !== 0)
    .map((s) => ({ gameId: created.gameId, seat: s.seat, seatToken: s.token }));
  const refusals = [];
  let wrong = 1;
  const loop = new PlayerLoop({
    client,
    credential,
    seats,
    games: 3,
    decide: (seat) => {
      if (wrong > 0) {
        wrong -= 1;
        return { game: { case: "sleepingQueens", value: {} } }; // not this game's: refused
      }
      return seat.choices()[0].command;
    },
    onRefusal: (seat, refusal) => refusals.push([seat.seat, refusal.codeName, refusal.reason]),
  });
  const timer = setTimeout(() => loop.stop(), 100_000);
  await loop.run();
  clearTimeout(timer);
  assert.equal(loop.ended, 3, "every seat's game ended");
  assert.equal(refusals.length, 1);
  assert.equal(refusals[0][1], "INVALID_ARGUMENT");
  assert.equal([...loop.seats.values()].reduce((sum, seat) => sum + seat.illegal, 0), 1);
});
