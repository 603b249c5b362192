// While the server does not answer, the page says so and every button is off; when it
// answers again, they come back and the game goes on. The page is served through a small
// proxy in this test (the real referee behind it): "the server stops answering" is the proxy
// dropping every connection and refusing new ones, as a stopped server does; then it listens
// on the same port again.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, test } from "node:test";
import { BASE, createFromHome, launch, playToEnd, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** A pass-through HTTP proxy to `target` that can go away and come back on its port. */
function proxy(target) {
  const sockets = new Set();
  let server = null;
  let port = 0;
  const handle = (req, res) => {
    const upstream = http.request(new URL(req.url, target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy()); // a dropped client ends its upstream stream too
    req.pipe(upstream);
  };
  return {
    get base() {
      return `http://127.0.0.1:${port}`;
    },
    start() {
      server = http.createServer(handle);
      server.on("connection", (socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve((port = server.address().port))));
    },
    stop() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      return closed;
    },
  };
}

/** How many of the page's buttons the notice turns off are usable now. */
function enabledButtons(page) {
  return page.locator("main button:not(.always)").evaluateAll((buttons) => buttons.filter((b) => !b.disabled).length);
}

test("an unreachable server: a notice and no usable button, until it answers again", async () => {
  const away = proxy(BASE);
  await away.start();
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await createFromHome(page, "vampire-queen", { players: 3, options: { rounds: "1" }, botDelay: 200, base: away.base });
  const notice = page.locator("p.offline");
  assert.equal(await notice.isVisible(), false);
  // Resign and abort at least (the choices too when it is this seat's turn).
  await page.locator("button.resign").waitFor();
  assert.ok((await enabledButtons(page)) >= 2);

  await away.stop();
  await notice.waitFor({ state: "visible", timeout: 30000 });
  assert.match(await notice.innerText(), /unreachable/);
  assert.equal(await notice.getAttribute("role"), "alert");
  assert.ok(await page.evaluate(() => document.body.classList.contains("is-offline")));
  assert.ok((await page.locator("main button:not(.always)").count()) >= 2);
  assert.equal(await enabledButtons(page), 0, "a button is usable while the server is away");
  await shot(page, "server-unreachable");

  await away.start(); // the same port: the page's own origin
  await notice.waitFor({ state: "hidden", timeout: 30000 });
  await page.waitForFunction(() => !document.body.classList.contains("is-offline"));
  assert.ok((await enabledButtons(page)) >= 2, "the buttons did not come back");
  // And the game goes on to its end.
  await playToEnd(page);
  await page.locator(".end-banner").waitFor();
  assert.deepEqual(errors, []);
  await page.close();
  await away.stop();
});
