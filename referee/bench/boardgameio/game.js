// A climbing game of Vampire Queen's shape, written for boardgame.io: the peer of P14.
//
// Our own small game, not a port of the referee's rules: 110 cards (8 of each value 1-13,
// 4 queens, the hunters 15 and 20), 13 cards a hand, tricks of one lap where each play must
// beat the last with as many cards, queens as wildcards (alone they are worth 14), hunter
// tricks where everyone else must give one card and the highest takes them all, 5 rounds,
// penalty points for the cards left in hand. Hands are hidden: each seat's view
// (playerView) holds its own hand, the others' hand sizes and who holds each hunter.
// The moves run on the server only (`client: false`): they read the other hands.

const { INVALID_MOVE } = require('boardgame.io/core');

const QUEEN = 14;
const HUNTERS = [15, 20];
const ROUNDS = 5;

function isHunter(card) {
  return card === 15 || card === 20;
}

function handSize(players) {
  return Math.min(13, Math.floor(108 / players));
}

function numberCards() {
  const cards = [];
  for (let value = 1; value <= 13; value += 1) {
    for (let copy = 0; copy < 8; copy += 1) cards.push(value);
  }
  for (let copy = 0; copy < 4; copy += 1) cards.push(QUEEN);
  return cards;
}

// Deal a round: the hunters stay where they are, everything else is shuffled and dealt.
function deal(G, random) {
  const players = G.order.length;
  const deck = random.Shuffle(numberCards());
  const size = handSize(players);
  for (const id of G.order) {
    const kept = G.hands[id].filter(isHunter);
    G.hands[id] = kept.concat(deck.splice(0, size));
  }
  G.undealt = deck;
  G.played = [];
  G.trick = null;
  G.barred = {};
  const leader = G.order.findIndex((id) => G.hands[id].includes(20));
  G.leader = leader;
  G.turn = leader;
}

// The value of a set of cards, or null when they are not one: every non-queen card of one
// value (queens take it), or queens alone (14).
function setValue(cards) {
  if (cards.length === 0 || cards.some(isHunter)) return null;
  const numbers = cards.filter((card) => card !== QUEEN);
  if (numbers.length === 0) return QUEEN;
  return numbers.every((card) => card === numbers[0]) ? numbers[0] : null;
}

function holds(hand, cards) {
  const left = hand.slice();
  for (const card of cards) {
    const at = left.indexOf(card);
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

function removeFrom(hand, cards) {
  for (const card of cards) hand.splice(hand.indexOf(card), 1);
}

function counts(hand) {
  const found = {};
  for (const card of hand) found[card] = (found[card] || 0) + 1;
  return found;
}

// Every legal move of the seat to move, from what its view shows: [name, ...args] each.
function legalMoves(view) {
  const hand = view.hand;
  const have = counts(hand);
  const queens = have[QUEEN] || 0;
  const trick = view.trick;
  const moves = [];
  if (trick !== null && trick.hunter) {
    for (const card of Object.keys(have).map(Number)) {
      if (!isHunter(card)) moves.push(['play', [card]]);
    }
    return moves;
  }
  const size = trick === null ? null : trick.count;
  const above = trick === null ? 0 : trick.value;
  for (let value = above + 1; value <= 13; value += 1) {
    const numbers = have[value] || 0;
    for (let taken = 1; taken <= numbers; taken += 1) {
      for (let wild = 0; wild <= queens; wild += 1) {
        if (size !== null && taken + wild !== size) continue;
        moves.push(['play', Array(taken).fill(value).concat(Array(wild).fill(QUEEN))]);
      }
    }
  }
  for (let wild = 1; wild <= queens; wild += 1) {
    if (above < QUEEN && (size === null || wild === size)) {
      moves.push(['play', Array(wild).fill(QUEEN)]);
    }
  }
  if (trick === null) {
    const barred = view.barred[view.seat];
    for (const hunter of HUNTERS) {
      if (have[hunter] && hunter !== barred) moves.push(['play', [hunter]]);
    }
    if (moves.length === 0) {
      for (const hunter of HUNTERS) if (have[hunter]) moves.push(['play', [hunter]]);
    }
  } else {
    moves.push(['pass']);
  }
  return moves;
}

function onlyHunters(hand) {
  return hand.every(isHunter);
}

// The next seat to act in the trick, or null when every other seat has had its turn; in a
// hunter trick a seat holding only hunters is skipped.
function nextInTrick(G, from) {
  const players = G.order.length;
  for (let step = 1; step < players; step += 1) {
    const at = (from + step) % players;
    if (at === G.trick.leader) return null;
    if (!G.trick.hunter || !onlyHunters(G.hands[G.order[at]])) return at;
  }
  return null;
}

function score(hand) {
  return hand.reduce((total, card) => total + card, 0);
}

function endTrick(G, random) {
  const trick = G.trick;
  let leader = trick.best;
  if (trick.hunter) {
    const given = trick.given;
    let best = null;
    for (const [at, card] of given) {
      const worth = card === QUEEN ? 1 : card;
      if (best === null || worth > best[1]) best = [at, worth];
    }
    leader = best === null ? trick.leader : best[0];
    const taker = G.order[leader];
    G.hands[taker].push(trick.card, ...given.map(([, card]) => card));
    G.barred = { [taker]: trick.card };
  }
  G.trick = null;
  G.leader = leader;
  G.turn = leader;
  if (G.order.some((id) => G.hands[id].length === 0)) {
    for (const id of G.order) G.scores[id] += score(G.hands[id]);
    G.round += 1;
    if (G.round <= G.rounds) deal(G, random);
  }
}

function advance(G, random) {
  const next = nextInTrick(G, G.turn);
  if (next === null) endTrick(G, random);
  else G.turn = next;
}

function play({ G, playerID, random }, cards) {
  const hand = G.hands[playerID];
  if (!Array.isArray(cards) || !holds(hand, cards)) return INVALID_MOVE;
  const trick = G.trick;
  const at = G.turn;
  if (trick === null) {
    if (cards.length === 1 && isHunter(cards[0])) {
      const barred = G.barred[playerID];
      if (cards[0] === barred && !onlyHunters(hand.filter((card) => card !== barred))) {
        return INVALID_MOVE;
      }
      G.trick = { leader: at, hunter: true, card: cards[0], given: [], best: at };
    } else {
      const value = setValue(cards);
      if (value === null) return INVALID_MOVE;
      G.trick = { leader: at, hunter: false, count: cards.length, value, best: at };
      G.played.push(...cards);
    }
    delete G.barred[playerID];
    removeFrom(hand, cards);
  } else if (trick.hunter) {
    if (cards.length !== 1 || isHunter(cards[0])) return INVALID_MOVE;
    trick.given.push([at, cards[0]]);
    removeFrom(hand, cards);
  } else {
    const value = setValue(cards);
    if (value === null || cards.length !== trick.count || value <= trick.value) {
      return INVALID_MOVE;
    }
    trick.value = value;
    trick.best = at;
    G.played.push(...cards);
    removeFrom(hand, cards);
  }
  advance(G, random);
  return undefined;
}

function pass({ G, random }) {
  if (G.trick === null || G.trick.hunter) return INVALID_MOVE;
  advance(G, random);
  return undefined;
}

const VampireQueenLike = {
  name: 'vampire-queen-like',
  minPlayers: 3,
  maxPlayers: 8,

  setup: ({ ctx, random }) => {
    const order = ctx.playOrder.slice();
    const G = {
      order,
      hands: Object.fromEntries(order.map((id) => [id, []])),
      undealt: [],
      played: [],
      trick: null,
      barred: {},
      leader: 0,
      turn: 0,
      round: 1,
      rounds: ROUNDS,
      scores: Object.fromEntries(order.map((id) => [id, 0])),
    };
    const first = random.Die(order.length) - 1;
    G.hands[order[first]].push(15);
    G.hands[order[(first + 1) % order.length]].push(20);
    deal(G, random);
    return G;
  },

  // The seat's view: its own hand; of the others only how many cards they hold and who
  // holds each hunter; never the undealt cards.
  playerView: ({ G, playerID }) => {
    const hunters = {};
    const handSizes = {};
    for (const id of G.order) {
      handSizes[id] = G.hands[id].length;
      for (const card of G.hands[id]) if (isHunter(card)) hunters[card] = id;
    }
    return {
      order: G.order,
      seat: playerID,
      hand: playerID != null && G.hands[playerID] ? G.hands[playerID] : [],
      handSizes,
      hunters,
      played: G.played,
      trick: G.trick,
      barred: G.barred,
      leader: G.leader,
      turn: G.turn,
      round: G.round,
      rounds: G.rounds,
      scores: G.scores,
    };
  },

  turn: {
    minMoves: 1,
    maxMoves: 1,
    order: {
      first: ({ G }) => G.turn,
      next: ({ G }) => G.turn,
    },
  },

  moves: {
    play: { move: play, client: false },
    pass: { move: pass, client: false },
  },

  endIf: ({ G }) => (G.round > G.rounds ? { scores: G.scores } : undefined),
};

module.exports = { VampireQueenLike, legalMoves };
