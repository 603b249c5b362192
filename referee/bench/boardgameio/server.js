// The boardgame.io server of P14: the game of game.js, boardgame.io's own defaults (its
// in-memory store, socket.io), listening on 127.0.0.1 only. Prints
// "boardgame.io listening on 127.0.0.1:PORT" once it accepts connections.
//
//   NODE_ENV=production node server.js [PORT]

const { Server, Origins } = require('boardgame.io/server');
const { VampireQueenLike } = require('./game');

const server = Server({ games: [VampireQueenLike], origins: [Origins.LOCALHOST] });

// `run` listens on every interface; the bench's traffic stays on the loopback.
const listen = server.app.listen;
server.app.listen = (port, callback) => listen.call(server.app, port, '127.0.0.1', callback);

server.run(Number(process.argv[2] || 0)).then(({ appServer }) => {
  console.log(`boardgame.io listening on 127.0.0.1:${appServer.address().port}`);
});

process.on('SIGTERM', () => process.exit(0));
