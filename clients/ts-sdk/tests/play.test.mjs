// The SDK plays a whole game against a real referee, over Connect (HTTP/2 on the HTTP port)
// and over gRPC: one player loop follows the signed-in player's seat and two seats by token
// on one stream, while its stream is cut twice and the server is killed and started again
// twice mid-game. Every seat sees every event exactly once, and the game ends.
import assert from "node:assert/strict";
import { test } from "node:test";
import { PlayerLoop, SeatMode, asPlayer, createRefereeClient, register, signIn } from "../dist/index.js";
import { nodeTransport } from "../dist/node.js";
import { Referee } from "./referee.mjs";

for (const wire of ["connect", "grpc"]) {
  test(`a full game over ${wire}, through two stream cuts and two server restarts`, { timeout: 240_000 }, async () => {
    const referee = await new Referee(["--open-registration"]).start();
    try {
      const url = wire === "grpc" ? referee.grpcUrl : referee.httpUrl;
      const client = createRefereeClient(nodeTransport(url, wire));
      const { credential: token } = await register(client, `sdk-${wire}`);
      assert.equal((await signIn(client, token)).player.name, `sdk-${wire}`);
      const created = await client.createGame(
        {
          gameType: "vampire-queen",
          players: 3,
          options: { rounds: "1" },
          seatRequests: [{ mode: SeatMode.CREATOR }, {}, {}],
        },
        asPlayer(token),
      );
      const tokens = new Map(created.seats.map((s) => [s.seat, s.token]));
      // Every event as the stream delivered it (before the loop's own bookkeeping), by seat;
      // and the updates that carried no event (a game's opening view).
      const delivered = new Map([0, 1, 2].map((seat) => [seat, []]));
      const openings = new Map([0, 1, 2].map((seat) => [seat, 0]));
      const disruptions = [];
      let restarting = Promise.resolve();
      const loop = new PlayerLoop({
        client,
        credential: token,
        seats: [1, 2].map((seat) => ({ gameId: created.gameId, seat, seatToken: tokens.get(seat) })),
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
          }
        },
        onRefusal: (seat, refusal) => assert.fail(`refused: ${refusal.reason} ${refusal.message}`),
        games: 3,
        backoffMs: { first: 50, most: 500 },
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
