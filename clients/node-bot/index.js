#!/usr/bin/env node
// A sample referee.v1 bot in Node.js: plays one seat of any game with a random legal command.
//
//   node index.js --server 127.0.0.1:50051 --game-id GAME_ID --token TOKEN [--seed S]
//
// Everything comes from the repository's .proto files (loaded at start-up by
// @grpc/proto-loader: no generated or hand-written message definitions), and the bot never
// needs a game's rules: every view lists the seat's legal commands, and the bot sends one of
// them back unchanged. So it plays Vampire Queen, Sleeping Queens and every other game.
//
// The protocol (docs/clients.md): open StreamGame for the seat; decide only on a settled view
// (a message without an event, or the last event of a batch: sequence == batch_end_sequence)
// whose pending_seats contain our seat; submit with a fresh command_id and expected_version =
// the view's version (ABORTED / FAILED_PRECONDITION: someone moved first, wait for the next
// view); on UNAVAILABLE / RESOURCE_EXHAUSTED, or a stream that ends before the game is over,
// reopen it with after_sequence = the last sequence received (no gap, no duplicate).
// On game over it prints one JSON line ({game_id, seat, score, rank, commands}) and exits 0.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOS = process.env.REFEREE_PROTOS || path.resolve(__dirname, '..', '..', 'protos');
const RETRY = new Set([grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED]);
const STALE = new Set([grpc.status.ABORTED, grpc.status.FAILED_PRECONDITION]);

function parseArgs(argv) {
  const args = { server: '127.0.0.1:50051', gameId: '', token: '', seed: '' };
  const names = { '--server': 'server', '--game-id': 'gameId', '--token': 'token', '--seed': 'seed' };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const key = names[flag];
    if (!key) throw new Error(`unknown argument ${argv[i]}`);
    args[key] = inline !== undefined ? inline : argv[(i += 1)];
    if (args[key] === undefined) throw new Error(`${flag} needs a value`);
  }
  if (!args.gameId || !args.token) throw new Error('--game-id and --token are required');
  return args;
}

// A small seeded generator (mulberry32 over a string hash), so that a seeded bot is
// reproducible; without a seed, Math.random.
function makeRandom(seed) {
  if (!seed) return Math.random;
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i += 1) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function loadService() {
  const definition = protoLoader.loadSync('referee/v1/referee.proto', {
    includeDirs: [PROTOS],
    keepCase: true, // field names as in the .proto (game_id, legal_commands, ...)
    longs: String, // uint64 sequence numbers and versions as decimal strings
    enums: String,
    defaults: true,
    arrays: true,
    oneofs: true, // which field of a oneof is set: message.game === 'vampire_queen'
  });
  return grpc.loadPackageDefinition(definition).referee.v1.RefereeService;
}

// The policy: any legal command, uniformly. A smarter bot looks at view[view.game] (the
// game's own view, e.g. view.vampire_queen.hand) and at each command's fields.
function choose(view, random) {
  const legal = view.legal_commands;
  return legal[Math.floor(random() * legal.length)];
}

function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`referee-node-bot: ${error.message}\n`);
    process.exit(2);
  }
  const random = makeRandom(args.seed);
  const Service = loadService();
  const client = new Service(args.server, grpc.credentials.createInsecure());

  let lastSequence = '0'; // where to resume
  let newest = -1n; // highest view version seen (replayed views after a resume are stale)
  let acted = -1n; // version of the view we last acted on
  let seat = null;
  let commands = 0;
  let failures = 0;
  let call = null;
  let finished = false;

  function finish(view, code) {
    if (finished) return;
    finished = true;
    if (call) call.cancel();
    if (view) {
      const result = view.results.find((r) => r.seat === seat);
      const line = {
        game_id: args.gameId,
        seat,
        score: result ? result.score : null,
        rank: result ? result.rank : null,
        commands,
      };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    }
    client.close();
    process.exitCode = code;
  }

  function submit(view, command, commandId, attempt) {
    const request = {
      game_id: args.gameId,
      seat_token: args.token,
      command_id: commandId,
      expected_version: view.version,
      command,
    };
    client.SubmitCommand(request, { deadline: Date.now() + 30000 }, (error) => {
      if (!error) {
        commands += 1;
        return;
      }
      if (STALE.has(error.code) || finished) return; // the stream brings the newer view
      if (RETRY.has(error.code) && attempt < 10) {
        // Same command id: never applied twice.
        setTimeout(() => submit(view, command, commandId, attempt + 1), 50 * 2 ** attempt);
        return;
      }
      process.stderr.write(`referee-node-bot: SubmitCommand: ${error.code} ${error.details}\n`);
      finish(null, 1);
    });
  }

  function onMessage(message) {
    failures = 0;
    // A batched stream (batched: true below): each message is one whole batch of events
    // with the view after it, so every view is settled.
    const { events, view } = message;
    const event = events && events.length ? events[events.length - 1] : null;
    if (event) {
      if (BigInt(event.sequence) <= BigInt(lastSequence)) return;
      lastSequence = event.sequence;
    }
    if (view.seat !== undefined && view.seat !== null) seat = view.seat;
    const version = BigInt(view.version);
    if (version < newest) return;
    newest = version;
    if (view.game_over) {
      finish(view, 0);
      return;
    }
    const settled = !event || BigInt(event.sequence) >= BigInt(event.batch_end_sequence);
    if (!settled || seat === null || !view.pending_seats.includes(seat)) return;
    if (view.legal_commands.length === 0 || version <= acted) return;
    acted = version;
    submit(view, choose(view, random), crypto.randomUUID(), 0);
  }

  function open() {
    if (finished) return;
    call = client.StreamGame({
      game_id: args.gameId,
      seat_token: args.token,
      after_sequence: lastSequence,
      batched: true,
    });
    let done = false;
    const reopen = (why) => {
      if (done || finished) return;
      done = true;
      failures += 1;
      if (failures > 30) {
        process.stderr.write(`referee-node-bot: giving up: ${why}\n`);
        finish(null, 1);
        return;
      }
      setTimeout(open, Math.min(2000, 50 * 2 ** Math.min(failures, 6)));
    };
    call.on('data', onMessage);
    call.on('error', (error) => {
      if (finished) return;
      if (!RETRY.has(error.code)) {
        process.stderr.write(`referee-node-bot: StreamGame: ${error.code} ${error.details}\n`);
        done = true;
        finish(null, 1);
        return;
      }
      reopen(error.details);
    });
    call.on('end', () => reopen('stream ended before the game was over'));
  }

  open();
}

main();
