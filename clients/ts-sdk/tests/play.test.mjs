// The SDK plays a whole game against a real referee, over Connect (HTTP/2 on the HTTP port)
// and over gRPC: one player loop follows the signed-in player's seat and two seats by token
// on one stream, while its stream is cut twice and the server is killed and started again
// twice mid-game. Every seat sees every event exactly once, and the game ends.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PlayerLoop, SeatMode, asPlayer, createRefereeClient, register, signIn } from "../dist/index.js";
import { nodeTransport } from "../dist/node.js";
import { Referee } from "./referee.mjs";

/** A game whose seat 0 the player holds (a creator seat) and whose seats 1 and 2 the loop
 * follows by their tokens, on the same stream. */
async function newGame(client, token) {
  const created = await client.createGame(
    { gameType: "vampire-queen", players: 3, options: { rounds: "1" }, seatRequests: [{ mode: SeatMode.CREATOR }, {}, {}] },
    asPlayer(token),
  );
  const seats = created.seats
    .filter((s) => s.seat !== 0)
    .map((s) => ({ gameId: created.gameId, seat: s.seat, seatToken: s.token }));
  return { created, seats };
}

for (const wire of ["connect", "grpc"]) {
  test(`a full game over ${wire}, through two stream cuts and two server restarts`, { timeout: 240_000 }, async () => {
    const referee = await new Referee(["--open-registration"]).start();
    try {
      const url = wire === "grpc" ? referee.grpcUrl : referee.httpUrl;
      const client = createRefereeClient(nodeTransport(url, wire));
      const { credential: token } = await register(client, `sdk-${wire}`);
      assert.equal((await signIn(client, token)).player.name, `sdk-${wire}`);
      const { created, seats } = await newGame(client, token);
      // Every event as the stream delivered it (before the loop's own bookkeeping), by seat;
      // and the updates that carried no event (a game's opening view).
      const delivered = new Map([0, 1, 2].map((seat) => [seat, []]));
      const openings = new Map([0, 1, 2].map((seat) => [seat, 0]));
      const disruptions = [];
      let restarting = Promise.resolve();
      const loop = new PlayerLoop({
        client,
        credential: token,
        seats,
        decide: (seat) => {
          const choices = seat.choices();
          assert.ok(choices.every((c) => c.label), "every legal command has a label");
          return choices[Math.floor(Math.random() * choices.length)].command;
        },
        onMessage: (message) => {
          if (message.kind.case !== "update") return;
          const update = message.kind.value;
          if (update.events.length === 0) openings.set(update.seat, openings.get(update.seat) + 1);
          delivered.get(update.seat).push(...update.events.map((e) => Number(e.sequence)));
        },
        onEvent: (seat, event) => {
          if (seat.seat !== 0) return;
          const at = Number(event.sequence);
          if (at === 10 || at === 30) {
            disruptions.push(`cut at ${at}`);
            loop.cut();
          } else if (at === 20 || at === 40) {
            disruptions.push(`restart at ${at}`);
            restarting = referee.restart();
            restarting.catch(() => undefined); // seen by `await restarting` below
          }
        },
        onRefusal: (seat, refusal) => assert.fail(`refused: ${refusal.reason} ${refusal.message}`),
        games: 3,
        backoffMs: { first: 50, most: 500 },
        maxAttempts: 400, // a loaded machine restarts a server slowly
      });
      await loop.run();
      await restarting;
      assert.deepEqual(disruptions, ["cut at 10", "restart at 20", "cut at 30", "restart at 40"]);
      const summary = (await client.getGame({ gameId: created.gameId })).game;
      assert.ok(summary.gameOver, "the game ended");
      for (const [seat, sequences] of delivered) {
        const state = loop.seats.get(`${created.gameId}/${seat}`);
        assert.ok(state.over && state.view.gameOver, `seat ${seat} saw the end`);
        const last = sequences.at(-1);
        assert.ok(last >= Number(state.view.version), `seat ${seat} has every event of its final view`);
        assert.deepEqual(sequences, Array.from({ length: last }, (_, i) => i + 1), `seat ${seat}: every event once`);
        assert.equal(openings.get(seat), 1, `seat ${seat}: one opening view, none again on resume`);
      }
    } finally {
      await referee.kill();
    }
  });
}

// Two replicas on one PostgreSQL store (REFEREE_TEST_STORE, which the pytest wrapper makes):
// the loop's transport moves from one to the other as a load balancer would, while each is
// killed once. Every seat still sees every event once: the sequences are the game's, not a
// replica's.
const shared = process.env.REFEREE_TEST_STORE;
test("a full game across two replicas, each killed once mid-game", { skip: !shared && "no REFEREE_TEST_STORE (PostgreSQL)", timeout: 240_000 }, async () => {
  const replicas = [new Referee(["--open-registration"], shared), new Referee(["--open-registration"], shared)];
  await Promise.all(replicas.map((r) => r.start()));
  try {
    const transports = replicas.map((r) => nodeTransport(r.httpUrl, "connect"));
    let current = 0;
    // A transport that calls whichever replica is current (what a balancer in front does).
    const balanced = {
      unary: (...args) => transports[current].unary(...args),
      stream: (...args) => transports[current].stream(...args),
    };
    const client = createRefereeClient(balanced);
    const { credential: token } = await register(client, "sdk-replicas");
    const { seats } = await newGame(client, token);
    const delivered = new Map([0, 1, 2].map((seat) => [seat, []]));
    const steps = [];
    let pending = Promise.resolve();
    const loop = new PlayerLoop({
      client,
      credential: token,
      seats,
      decide: (seat) => seat.choices()[0].command,
      onMessage: (message) => {
        if (message.kind.case !== "update") return;
        const update = message.kind.value;
        delivered.get(update.seat).push(...update.events.map((e) => Number(e.sequence)));
      },
      onEvent: (seat, event) => {
        if (seat.seat !== 0) return;
        const at = Number(event.sequence);
        if (at === 10) {
          steps.push("to replica 1");
          current = 1;
          loop.cut();
        } else if (at === 20) {
          steps.push("replica 1 killed, to replica 0");
          current = 0;
          pending = replicas[1].kill();
        } else if (at === 30) {
          steps.push("replica 1 back, to it; replica 0 killed");
          pending = pending.then(async () => {
            await replicas[1].start();
            current = 1;
            await replicas[0].kill();
          });
        }
      },
      onRefusal: (seat, refusal) => assert.fail(`refused: ${refusal.reason} ${refusal.message}`),
      onReconnect: (error, attempt) => process.env.SDK_DEBUG && console.error("reconnect", attempt, current, String(error)),
      games: 3,
      backoffMs: { first: 50, most: 500 },
      maxAttempts: 400,
    });
    const alive = setInterval(() => undefined, 1000); // a hang fails by the timeout, visibly
    try {
      await loop.run();
    } finally {
      clearInterval(alive);
    }
    await pending;
    assert.equal(steps.length, 3, steps.join("; "));
    for (const [seat, sequences] of delivered) {
      const last = sequences.at(-1);
      assert.deepEqual(sequences, Array.from({ length: last }, (_, i) => i + 1), `seat ${seat}: every event once`);
    }
  } finally {
    await Promise.all(replicas.map((r) => r.kill()));
  }
});
