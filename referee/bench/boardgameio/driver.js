// The client side of P14's boardgame.io peer, written as a user of boardgame.io writes a bot:
// the lobby's LobbyClient creates a match and joins its seats, and each seat is a
// boardgame.io Client over socket.io (`SocketIO` from boardgame.io/multiplayer, a connection
// of its own) that answers its turns with a random legal move of what its view shows.
//
//   node driver.js '{"mode": "load", "server": "http://127.0.0.1:PORT", ...}'
//
// It speaks to `referee bench` in JSON lines on stdout and waits for a line on stdin between
// the stages it reports, so that the bench can sample the server's /proc between them.
//
// load:   {"games": 32, "players": 4, "warmup": 1.5, "seconds": 6, "seed": 1}
//         prints {"event": "measuring"} when the warm-up ends (it starts once every game's
//         seats are connected), then after the window
//         {"event": "done", "moves": N, "latencies_ms": [...], "games": G, "errors": E}.
// memory: {"players": 4, "warm_games": 20, "games": 1000, "client_games": 500}
//         prints {"event": "warm"}, {"event": "games"} (every match created and its seats
//         joined), {"event": "clients", "clients": N} (each seat of the first client_games
//         matches connected and holding its first state), waiting for a stdin line after each.

const readline = require('readline');
const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { VampireQueenLike, legalMoves } = require('./game');

const settings = JSON.parse(process.argv[2]);
const NAME = VampireQueenLike.name;
const lobby = new LobbyClient({ server: settings.server });
// Each seat is its own user: a connection of its own, as in a browser.
const socketOpts = { forceNew: true };

const lines = readline.createInterface({ input: process.stdin });
const waiting = [];
lines.on('line', () => {
  const next = waiting.shift();
  if (next) next();
});

function say(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function told() {
  return new Promise((resolve) => waiting.push(resolve));
}

function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A lobby request whose connection failed (a loaded machine: fetch gives up) is sent again,
// as a user's script would; `retries` counts them.
let retries = 0;
async function again(request) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof TypeError) || attempt === 5) throw error;
      retries += 1;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

async function newMatch(players) {
  const { matchID } = await again(() => lobby.createMatch(NAME, { numPlayers: players }));
  const credentials = [];
  for (let seat = 0; seat < players; seat += 1) {
    const joined = await again(() =>
      lobby.joinMatch(NAME, matchID, { playerID: String(seat), playerName: `bot ${seat}` })
    );
    credentials.push(joined.playerCredentials);
  }
  return { matchID, credentials };
}

function seatClient(matchID, seat, credentials, players) {
  return Client({
    game: VampireQueenLike,
    numPlayers: players,
    matchID,
    playerID: String(seat),
    credentials,
    multiplayer: SocketIO({ server: settings.server, socketOpts }),
    debug: false,
  });
}

// --- load -------------------------------------------------------------------------------

const load = {
  phase: 'warmup',
  windowStart: 0,
  moves: 0,
  latencies: [],
  games: 0,
  errors: 0,
};

// One match from creation to its end (or to the end of the window), a client per seat;
// `started` is called once every seat holds its first state.
async function playMatch(players, random, started) {
  const { matchID, credentials } = await newMatch(players);
  const sentAt = new Map();
  const arrivals = new Map();
  let ended = 0;
  let seated = 0;
  return new Promise((resolve) => {
    const clients = [];
    const finish = () => {
      for (const client of clients) client.stop();
      resolve();
    };
    for (let seat = 0; seat < players; seat += 1) {
      const client = seatClient(matchID, seat, credentials[seat], players);
      const playerID = String(seat);
      let seen = -1;
      let over = false;
      client.subscribe((state) => {
        if (state === null || state._stateID <= seen || over) return;
        if (seen === -1) {
          seated += 1;
          if (seated === players) started();
        }
        seen = state._stateID;
        const now = performance.now();
        const count = (arrivals.get(seen) || 0) + 1;
        if (count < players) {
          arrivals.set(seen, count);
        } else {
          arrivals.delete(seen);
          const sent = sentAt.get(seen - 1);
          sentAt.delete(seen - 1);
          if (sent !== undefined && load.phase === 'measure' && sent >= load.windowStart) {
            load.moves += 1;
            load.latencies.push(now - sent);
          }
        }
        if (state.ctx.gameover !== undefined || load.phase === 'stopping') {
          over = true;
          ended += 1;
          if (ended === players) finish();
          return;
        }
        if (state.ctx.currentPlayer !== playerID) return;
        const moves = legalMoves(state.G);
        if (moves.length === 0) {
          load.errors += 1;
          return;
        }
        const [name, ...args] = moves[Math.floor(random() * moves.length)];
        sentAt.set(seen, performance.now());
        queueMicrotask(() => client.moves[name](...args));
      });
      clients.push(client);
    }
    for (const client of clients) client.start();
  });
}

async function slot(index, started) {
  const random = generator(settings.seed * 7919 + index);
  while (load.phase !== 'stopping') {
    await playMatch(settings.players, random, started);
    if (load.phase !== 'stopping') load.games += 1;
  }
}

// The warm-up starts once every slot's first match is under way (every seat connected).
async function runLoad() {
  const slots = [];
  const starts = [];
  for (let index = 0; index < settings.games; index += 1) {
    let started;
    starts.push(new Promise((resolve) => (started = resolve)));
    slots.push(slot(index, started));
  }
  await Promise.all(starts);
  await new Promise((resolve) => setTimeout(resolve, settings.warmup * 1000));
  load.phase = 'measure';
  load.windowStart = performance.now();
  say({ event: 'measuring' });
  await new Promise((resolve) => setTimeout(resolve, settings.seconds * 1000));
  const seconds = (performance.now() - load.windowStart) / 1000;
  const moves = load.moves;
  const latencies = load.latencies.slice();
  load.phase = 'stopping';
  say({
    event: 'done',
    moves,
    seconds,
    latencies_ms: latencies,
    games: load.games,
    errors: load.errors,
    retries,
  });
  await Promise.race([Promise.all(slots), new Promise((r) => setTimeout(r, 5000))]);
}

// --- memory -----------------------------------------------------------------------------

async function inBatches(count, width, make) {
  const made = [];
  for (let start = 0; start < count; start += width) {
    const batch = [];
    for (let index = start; index < Math.min(count, start + width); index += 1) {
      batch.push(make(index));
    }
    made.push(...(await Promise.all(batch)));
  }
  return made;
}

function connected(client) {
  return new Promise((resolve) => {
    const stop = client.subscribe((state) => {
      if (state !== null && state.G !== undefined && state.G.hand !== undefined) {
        queueMicrotask(() => stop());
        resolve();
      }
    });
    client.start();
  });
}

async function connectAll(matches, players) {
  const clients = [];
  await inBatches(matches.length * players, 32, async (index) => {
    const match = matches[Math.floor(index / players)];
    const seat = index % players;
    const client = seatClient(match.matchID, seat, match.credentials[seat], players);
    clients.push(client);
    await connected(client);
  });
  return clients;
}

async function runMemory() {
  const players = settings.players;
  const warm = await inBatches(settings.warm_games, 16, () => newMatch(players));
  const warmClients = await connectAll(warm, players);
  say({ event: 'warm' });
  await told();
  const matches = await inBatches(settings.games, 16, () => newMatch(players));
  say({ event: 'games', games: matches.length, retries });
  await told();
  const clients = await connectAll(matches.slice(0, settings.client_games), players);
  say({ event: 'clients', clients: clients.length });
  await told();
  for (const client of clients.concat(warmClients)) client.stop();
}

const modes = { load: runLoad, memory: runMemory };
// Exit once stdout has taken everything: a pipe's writes are asynchronous, and exiting at
// once cut the long `done` line (its round trips) at a multiple of 64 KiB.
modes[settings.mode]()
  .then(() => process.stdout.write('', () => process.exit(0)))
  .catch((error) => {
    process.stderr.write(`${error.stack || error}\n`);
    process.exit(1);
  });
