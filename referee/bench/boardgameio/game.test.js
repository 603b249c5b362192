// The peer game of P14 (node --test): every move its seats' views offer is accepted, the
// games end after their rounds, and a view shows only its own seat's hand.

const assert = require('node:assert');
const test = require('node:test');
const { Client } = require('boardgame.io/client');
const { VampireQueenLike, legalMoves } = require('./game');

function generator(seed) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function playOut(seed) {
  const random = generator(seed);
  const client = Client({ game: { ...VampireQueenLike, seed: `s${seed}` }, numPlayers: 4 });
  let moves = 0;
  for (;;) {
    const { ctx } = client.getState();
    if (ctx.gameover !== undefined) return { client, moves, ctx };
    client.updatePlayerID(ctx.currentPlayer);
    const state = client.getState();
    const offered = legalMoves(state.G);
    assert.ok(offered.length > 0, `seat ${ctx.currentPlayer} has a move`);
    const [name, ...args] = offered[Math.floor(random() * offered.length)];
    client.moves[name](...args);
    assert.strictEqual(client.getState()._stateID, state._stateID + 1, `${name} accepted`);
    moves += 1;
  }
}

test('random play: every offered move is accepted and the game ends after 5 rounds', () => {
  for (let seed = 1; seed <= 5; seed += 1) {
    const { client, moves, ctx } = playOut(seed);
    assert.ok(moves > 50);
    client.updatePlayerID('0');
    assert.strictEqual(client.getState().G.round, 6);
    assert.deepStrictEqual(Object.keys(ctx.gameover.scores).sort(), ['0', '1', '2', '3']);
  }
});

test('a view holds its own hand, the others only as counts, never the undealt cards', () => {
  const client = Client({ game: VampireQueenLike, numPlayers: 4, playerID: '2' });
  const view = client.getState().G;
  assert.strictEqual(view.seat, '2');
  assert.strictEqual(view.hands, undefined);
  assert.strictEqual(view.undealt, undefined);
  assert.strictEqual(view.hand.length, view.handSizes['2']);
  assert.deepStrictEqual(Object.keys(view.handSizes).sort(), ['0', '1', '2', '3']);
  assert.strictEqual(JSON.stringify(view).includes('undealt'), false);
});

test('a move the rules refuse leaves the state as it was', () => {
  const client = Client({ game: VampireQueenLike, numPlayers: 4 });
  const { ctx, _stateID } = client.getState();
  client.updatePlayerID(ctx.currentPlayer);
  client.moves.pass(); // the leader must lead
  client.moves.play([1, 2]); // not a set
  assert.strictEqual(client.getState()._stateID, _stateID);
});
