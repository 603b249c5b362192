#!/usr/bin/env node
// A sample referee.v1 bot in Node.js: plays its seats of any game with a random legal
// command, every seat on one player stream (PlayerSession).
//
//   node index.js --server 127.0.0.1:50051 --game-id GAME_ID --token TOKEN [--seed S]
//       one seat handed out by token (the tournament runner starts bots so)
//   REFEREE_CREDENTIAL=acct-... node index.js --server ADDR [--games N]
//       [--accept-challenges] [--claim-reserved] [--challenge NAME | --pair]
//       [--game TYPE --players N --rated]
//       as a player: every seat the account holds (claimed, from an accepted challenge or a
//       pairing), on one stream; optionally challenge a player, accept challenges, or ask
//       to be paired first. Exits after N games (default 1) have ended for it.
//
// Everything comes from the repository's .proto files (loaded at start-up by
// @grpc/proto-loader: no generated or hand-written message definitions), and the bot never
// needs a game's rules: every view lists the seat's legal commands, and the bot sends one of
// them back unchanged. So it plays Vampire Queen, Sleeping Queens and every other game.
//
// The protocol (docs/clients.md, "One stream per player"): open PlayerSession (the
// credential as `authorization: Bearer` metadata; a seat given by token is named in a
// GameResume with its seat_token); each seat's updates are whole batches with the view after
// them, so every view is settled; decide when our seat is pending, once per view version;
// send the command on the stream with a fresh command_id and expected_version = the view's
// version; its outcome comes back on the stream with that id (a refusal carries the code the
// unary call would have: ABORTED / FAILED_PRECONDITION means someone moved first, wait for
// the next view). When the stream breaks, reopen it and resume every game after the last
// sequence received (no gap, no duplicate), sending again the commands not yet answered.
// For each game that ends it prints one JSON line ({game_id, seat, score, rank, commands}).
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOS = process.env.REFEREE_PROTOS || path.resolve(__dirname, '..', '..', 'protos');
const RETRY = new Set([grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED, grpc.status.INTERNAL]);
const STALE = new Set([grpc.status.ABORTED, grpc.status.FAILED_PRECONDITION]);

function parseArgs(argv) {
  const args = {
    server: '127.0.0.1:50051',
    gameId: '',
    token: '',
    seed: '',
    credential: process.env.REFEREE_CREDENTIAL || '',
    games: '1',
    challenge: '',
    pair: false,
    acceptChallenges: false,
    claimReserved: false,
    game: 'vampire-queen',
    players: '0',
    rated: false,
  };
  const names = {
    '--server': 'server',
    '--game-id': 'gameId',
    '--token': 'token',
    '--seed': 'seed',
    '--credential': 'credential',
    '--games': 'games',
    '--challenge': 'challenge',
    '--game': 'game',
    '--players': 'players',
  };
  const flags = {
    '--pair': 'pair',
    '--accept-challenges': 'acceptChallenges',
    '--claim-reserved': 'claimReserved',
    '--rated': 'rated',
  };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flags[flag]) {
      args[flags[flag]] = true;
      continue;
    }
    const key = names[flag];
    if (!key) throw new Error(`unknown argument ${argv[i]}`);
    args[key] = inline !== undefined ? inline : argv[(i += 1)];
    if (args[key] === undefined) throw new Error(`${flag} needs a value`);
  }
  if (!args.credential && (!args.gameId || !args.token)) {
    throw new Error('--game-id and --token are required (or a player credential: REFEREE_CREDENTIAL)');
  }
  if (Boolean(args.gameId) !== Boolean(args.token)) throw new Error('--game-id and --token go together');
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
    oneofs: true, // which field of a oneof is set: message.kind === 'update'
  });
  return grpc.loadPackageDefinition(definition).referee.v1.RefereeService;
}

// The policy: any legal command, uniformly. A smarter bot looks at view[view.game] (the
// game's own view, e.g. view.vampire_queen.hand) and at each command's fields.
function choose(view, random) {
  const legal = view.legal_commands;
  return legal[Math.floor(random() * legal.length)];
}

function unary(client, method, request, metadata) {
  return new Promise((resolve, reject) => {
    client[method](request, metadata, { deadline: Date.now() + 30000 }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
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
  const metadata = new grpc.Metadata();
  if (args.credential) metadata.set('authorization', `Bearer ${args.credential}`);
  const wanted = Number(args.games);

  const seats = new Map(); // "game_id/seat" -> { game_id, seat, token, after, acted, view, over }
  const inFlight = new Map(); // command_id -> { command, key, view, fallback }
  const answered = new Set(); // challenges answered
  let me = '';
  let ended = 0;
  let failures = 0;
  let call = null;
  let finished = false;
  let commands = 0;
  const tried = new Set(); // "game_id/seat" of reserved seats claimed (or refused for good)

  // --claim-reserved: the player stream announces each seat reserved for this player (e.g. by
  // referee-tournament), at once and, on connecting, those reserved before (a rated game's
  // summary does not name its players before it starts, so the stream is the one place to
  // learn of them). Claim each once; the stream then follows the claimed seat.
  async function claimReserved(reserved) {
    const key = `${reserved.game_id}/${reserved.seat}`;
    if (tried.has(key)) return;
    tried.add(key);
    try {
      await unary(client, 'ClaimSeat', { game_id: reserved.game_id, seat: reserved.seat }, metadata);
    } catch (error) {
      process.stderr.write(`referee-node-bot: claim ${key}: ${error.details || error.message}\n`);
    }
  }

  function fail(message) {
    process.stderr.write(`referee-node-bot: ${message}\n`);
    finish(1);
  }

  function finish(code) {
    if (finished) return;
    finished = true;
    if (call) call.cancel();
    client.close();
    process.exitCode = code;
  }

  function seatOf(gameId, seat, token) {
    const key = `${gameId}/${seat}`;
    if (!seats.has(key)) {
      seats.set(key, { game_id: gameId, seat, token: token || '', after: '0', acted: -1n, view: null, over: false, commands: 0 });
    }
    return seats.get(key);
  }

  function send(request) {
    if (call && !finished) call.write(request);
  }

  function command(held, view, chosen, fallback) {
    const sent = {
      game_id: held.game_id,
      seat: held.seat,
      command_id: crypto.randomUUID(),
      expected_version: view.version,
      command: chosen,
    };
    inFlight.set(sent.command_id, { command: sent, held, view, fallback });
    send({ command: sent });
  }

  function onUpdate(update) {
    const held = seats.get(`${update.game_id}/${update.seat}`);
    if (!held || held.over) return;
    const { events, view } = update;
    if (events.length) held.after = events[events.length - 1].sequence;
    held.view = view;
    if (view.game_over) {
      held.over = true;
      const result = view.results.find((r) => r.seat === held.seat);
      const line = {
        game_id: held.game_id,
        seat: held.seat,
        score: result ? result.score : null,
        rank: result ? result.rank : null,
        commands: held.commands,
      };
      process.stdout.write(`${JSON.stringify(line)}\n`);
      ended += 1;
      if (wanted > 0 && ended >= wanted) finish(0); // --games 0: never stop
      return;
    }
    const version = BigInt(view.version);
    if (!view.pending_seats.includes(held.seat) || view.legal_commands.length === 0) return;
    if (version <= held.acted) return;
    held.acted = version;
    command(held, view, choose(view, random), false);
  }

  function onOutcome(outcome) {
    const sent = inFlight.get(outcome.command_id);
    if (!sent) return;
    inFlight.delete(outcome.command_id);
    const refusal = outcome.refusal;
    if (!refusal) {
      sent.held.commands += 1;
      commands += 1;
      return;
    }
    if (STALE.has(refusal.code) || sent.held.over) return; // the stream brings the newer view
    if (refusal.code === grpc.status.INVALID_ARGUMENT && !sent.fallback) {
      command(sent.held, sent.view, sent.view.legal_commands[0], true); // the canonical default
      return;
    }
    fail(`command refused: ${refusal.code} ${refusal.reason} ${refusal.message}`);
  }

  function onChallenge(challenge) {
    if (!args.acceptChallenges || challenge.state !== 'CHALLENGE_STATE_OPEN') return;
    if (challenge.challenger === me || answered.has(challenge.challenge_id)) return;
    if (challenge.challenged && challenge.challenged !== me) return;
    answered.add(challenge.challenge_id);
    unary(client, 'AnswerChallenge', { challenge_id: challenge.challenge_id, accept: true }, metadata).catch(
      (error) => process.stderr.write(`referee-node-bot: AnswerChallenge: ${error.code} ${error.details}\n`),
    );
  }

  function onResponse(response) {
    // A response carries every message the referee had ready at once, in order.
    for (const message of response.messages) onMessage(message);
  }

  function onMessage(message) {
    failures = 0;
    if (message.kind === 'seat') {
      const granted = message.seat;
      seatOf(granted.game_id, granted.seat, granted.seat_token);
    } else if (message.kind === 'update') {
      onUpdate(message.update);
    } else if (message.kind === 'outcome') {
      onOutcome(message.outcome);
    } else if (message.kind === 'challenge') {
      onChallenge(message.challenge);
    } else if (message.kind === 'reserved' && args.claimReserved) {
      claimReserved(message.reserved);
    }
  }

  function open() {
    if (finished) return;
    call = client.PlayerSession(metadata);
    for (const held of seats.values()) {
      if (held.over) continue;
      send({ resume: { game_id: held.game_id, seat: held.seat, after_sequence: held.after, seat_token: held.token } });
    }
    for (const sent of inFlight.values()) send({ command: sent.command }); // same ids: applied once
    let done = false;
    const reopen = (why) => {
      if (done || finished) return;
      done = true;
      failures += 1;
      if (failures > 30) {
        fail(`giving up: ${why}`);
        return;
      }
      setTimeout(open, Math.min(2000, 50 * 2 ** Math.min(failures, 6)));
    };
    call.on('data', onResponse);
    call.on('error', (error) => {
      if (finished) return;
      if (!RETRY.has(error.code)) {
        done = true;
        fail(`PlayerSession: ${error.code} ${error.details}`);
        return;
      }
      reopen(error.details);
    });
    call.on('end', () => reopen('the stream ended'));
  }

  function terms() {
    const chosen = { game_type: args.game, players: Number(args.players), rated: args.rated };
    if (args.game === 'vampire-queen') chosen.options = { rounds: '1' };
    return chosen;
  }

  async function start() {
    if (args.credential) {
      me = (await unary(client, 'WhoAmI', {}, metadata)).player.name;
    }
    if (args.token) {
      // The seat a token holds: its view says.
      const { view } = await unary(client, 'GetView', { game_id: args.gameId, seat_token: args.token }, metadata);
      seatOf(args.gameId, view.seat, args.token);
    }
    open();
    if (args.challenge) {
      await unary(client, 'CreateChallenge', { challenged: args.challenge, terms: terms() }, metadata);
    }
    if (args.pair) await unary(client, 'RequestPairing', { terms: terms() }, metadata);

  }

  start().catch((error) => fail(`${error.code !== undefined ? error.code : ''} ${error.details || error.message}`));
}

main();
