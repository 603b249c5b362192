// What a client of the HTTP port meets without the SDK's help: a fetch-only client reads a
// refusal's reason and rule id from Connect JSON (each detail's `debug` form), and a Connect
// client set to HTTP/2 (connect-node, h2c: HTTP/2 without TLS) is served like HTTP/1.1.
import assert from "node:assert/strict";
import { connect } from "node:http2";
import { after, before, test } from "node:test";
import { createRefereeClient, refusalOf } from "../dist/index.js";
import { nodeTransport } from "../dist/node.js";
import { Referee } from "./referee.mjs";

let referee;
before(async () => (referee = await new Referee().start()));
after(async () => referee.kill());

async function call(method, body) {
  const response = await fetch(`${referee.httpUrl}/referee.v1.RefereeService/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

test("a fetch-only client reads reason and rule_id from a refusal", async () => {
  const created = await call("CreateGame", { gameType: "vampire-queen", players: 3 });
  assert.equal(created.status, 200);
  const game = created.json;
  const view = (await call("GetView", { gameId: game.gameId, seatToken: game.seats[0].token })).json.view;
  const waiting = [0, 1, 2].find((seat) => !(view.pendingSeats ?? []).includes(seat));
  const token = game.seats.find((s) => (s.seat ?? 0) === waiting).token;
  const refused = await call("SubmitCommand", {
    gameId: game.gameId,
    seatToken: token,
    commandId: "fetch-1",
    command: { vampireQueen: { pass: {} } },
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.code, "failed_precondition");
  const info = refused.json.details.find((d) => d.type === "google.rpc.ErrorInfo").debug;
  assert.equal(info.reason, "NOT_YOUR_TURN");
  assert.match(info.metadata.rule_id, /^VQ-\d+$/);
  const precondition = refused.json.details.find((d) => d.type === "google.rpc.PreconditionFailure").debug;
  assert.equal(precondition.violations[0].type, "TURN");
  // Setup errors: BAD_REQUEST, with the rule that refuses the settings.
  const tooMany = await call("CreateGame", { gameType: "vampire-queen", players: 13 });
  const setup = tooMany.json.details.find((d) => d.type === "google.rpc.ErrorInfo").debug;
  assert.deepEqual([tooMany.json.code, setup.reason, setup.metadata.rule_id], ["invalid_argument", "BAD_REQUEST", "VQ-2"]);
});

test("connect-node over HTTP/2 (h2c) calls and streams", async () => {
  // The port answers HTTP/2 with prior knowledge (what connect-node's httpVersion "2" sends).
  const session = connect(referee.httpUrl);
  const status = await new Promise((done, fail) => {
    const request = session.request({ ":path": "/healthz" });
    request.on("response", (headers) => done(headers[":status"]));
    request.on("error", fail);
    request.end();
  });
  session.close();
  assert.equal(status, 200);
  const client = createRefereeClient(nodeTransport(referee.httpUrl, "connect", "2"));
  const types = await client.listGameTypes({});
  assert.ok(types.gameTypes.some((t) => t.gameType === "vampire-queen"));
  const game = await client.createGame({ gameType: "vampire-queen", players: 3 });
  const stream = client.streamGame({ gameId: game.gameId, spectator: true, batched: true });
  for await (const message of stream) {
    assert.ok(message.view, "the current view first");
    break;
  }
  // A refusal over HTTP/2 reads as over HTTP/1.1: the code by name, reason and rule id.
  try {
    await client.createGame({ gameType: "vampire-queen", players: 13 });
    assert.fail("refused");
  } catch (error) {
    const refusal = refusalOf(error);
    assert.deepEqual([refusal.codeName, refusal.reason, refusal.ruleId], ["INVALID_ARGUMENT", "BAD_REQUEST", "VQ-2"]);
    assert.deepEqual(refusal.fieldViolations.map((v) => v.field), ["players"]);
  }
});
