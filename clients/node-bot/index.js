#!/usr/bin/env node
// A sample referee.v1 bot in Node.js, on the TypeScript SDK (clients/ts-sdk): plays its seats
// of any game with a random legal command.
//
//   node index.js --server 127.0.0.1:50051 --game-id GAME_ID --token TOKEN [--seed S]
//       one seat handed out by token (the tournament runner starts bots so)
//   REFEREE_CREDENTIAL=acct-... node index.js --server ADDR [--games N]
//       [--accept-challenges] [--claim-reserved] [--challenge NAME | --pair]
//       [--game TYPE --players N --rated]
//       as a player: every seat the account holds (claimed, from an accepted challenge or a
//       pairing), on one stream; optionally challenge a player, accept challenges, claim the
//       seats reserved for it, or ask to be paired first. Exits after N games (default 1)
//       have ended for it (0: never).
//
// The SDK's PlayerLoop does the protocol (docs/clients.md section 14): it follows the player
// stream, resumes every game exactly where it was after a drop, and retries a command with
// its id while its outcome is unknown. The bot never needs a game's rules: every view lists
// the seat's legal commands, and it sends one back unchanged. For each game that ends it
// prints one JSON line ({game_id, seat, score, rank, commands}).
import { PlayerLoop, asPlayer, createRefereeClient } from "@game-referee/sdk";
import { nodeTransport } from "@game-referee/sdk/node";

function parseArgs(argv) {
  const args = {
    server: "127.0.0.1:50051", gameId: "", token: "", seed: "", games: "1", challenge: "",
    credential: process.env.REFEREE_CREDENTIAL || "", game: "vampire-queen", players: "0",
    pair: false, acceptChallenges: false, claimReserved: false, rated: false,
  };
  const names = {
    "--server": "server", "--game-id": "gameId", "--token": "token", "--seed": "seed",
    "--credential": "credential", "--games": "games", "--challenge": "challenge",
    "--game": "game", "--players": "players",
  };
  const flags = {
    "--pair": "pair", "--accept-challenges": "acceptChallenges",
    "--claim-reserved": "claimReserved", "--rated": "rated",
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
    throw new Error("--game-id and --token are required (or a player credential: REFEREE_CREDENTIAL)");
  }
  if (Boolean(args.gameId) !== Boolean(args.token)) throw new Error("--game-id and --token go together");
  return args;
}

// A small seeded generator (mulberry32 over a string hash): a seeded bot is reproducible.
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

async function main(args) {
  const random = makeRandom(args.seed);
  const client = createRefereeClient(nodeTransport(`http://${args.server}`, "grpc"));
  const me = args.credential ? (await client.whoAmI({}, asPlayer(args.credential))).player.name : "";
  const seats = [];
  if (args.token) {
    const { view } = await client.getView({ gameId: args.gameId, seatToken: args.token });
    seats.push({ gameId: args.gameId, seat: view.seat, seatToken: args.token });
  }
  const answered = new Set();
  const report = (error) => process.stderr.write(`referee-node-bot: ${error.rawMessage ?? error.message}\n`);
  const loop = new PlayerLoop({
    client,
    credential: args.credential,
    seats,
    games: Number(args.games),
    // The policy: any legal command, uniformly. A smarter bot reads seat.view (the game's own
    // view in seat.view.game) and each choice's label and command.
    decide: (seat) => {
      const choices = seat.choices();
      return choices[Math.floor(random() * choices.length)].command;
    },
    onGameOver: (seat) => {
      const result = seat.view.results.find((r) => r.seat === seat.seat);
      const line = { game_id: seat.gameId, seat: seat.seat, score: result?.score ?? null, rank: result?.rank ?? null, commands: seat.commands };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    },
    onRefusal: (seat, refusal) => report(new Error(`command refused: ${refusal.codeName} ${refusal.reason} ${refusal.message}`)),
    onMessage: (message) => {
      const { case: kind, value } = message.kind;
      if (kind === "challenge" && args.acceptChallenges && value.state === 1 /* OPEN */) {
        if (value.challenger === me || answered.has(value.challengeId)) return;
        if (value.challenged && value.challenged !== me) return;
        answered.add(value.challengeId);
        client.answerChallenge({ challengeId: value.challengeId, accept: true }, asPlayer(args.credential)).catch(report);
      } else if (kind === "reserved" && args.claimReserved) {
        client.claimSeat({ gameId: value.gameId, seat: value.seat }, asPlayer(args.credential)).catch(report);
      }
    },
  });
  const running = loop.run();
  const terms = { gameType: args.game, players: Number(args.players), rated: args.rated };
  if (args.game === "vampire-queen") terms.options = { rounds: "1" };
  if (args.challenge) await client.createChallenge({ challenged: args.challenge, terms }, asPlayer(args.credential));
  if (args.pair) await client.requestPairing({ terms }, asPlayer(args.credential));
  await running;
}

let args;
try {
  args = parseArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`referee-node-bot: ${error.message}\n`);
  process.exit(2);
}
main(args).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`referee-node-bot: ${error.rawMessage ?? error.message}\n`);
    process.exit(1);
  },
);
