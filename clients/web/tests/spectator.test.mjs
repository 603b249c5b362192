// A spectator's page never shows a hidden card: not in the page, not in what it downloads.
// Bots play every seat (in the creator's page); a second browser context only watches.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE, createFromHome, launch, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** Connect streaming body (JSON): 5-byte envelope headers, then each message. */
function envelopes(body) {
  const messages = [];
  for (let at = 0; at + 5 <= body.length; ) {
    const flags = body[at];
    const size = body.readUInt32BE(at + 1);
    const data = body.subarray(at + 5, at + 5 + size).toString();
    at += 5 + size;
    if (!(flags & 2)) messages.push(JSON.parse(data));
  }
  return messages;
}

test("a spectator sees no hidden card, in the DOM or on the network", async () => {
  const creator = await browser.newPage();
  const { gameId } = await createFromHome(creator, "vampire-queen", {
    players: 3, options: { rounds: "1" }, roles: { 0: "bot", 1: "bot", 2: "bot" },
  });
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const watcher = await context.newPage();
  const bodies = [];
  watcher.on("response", (response) => {
    if (response.url().includes("/referee.v1.RefereeService/")) bodies.push(response.body().catch(() => Buffer.alloc(0)));
  });
  await watcher.goto(`${BASE}/#/watch/${gameId}`);
  await ready(watcher);
  await watcher.locator("table.results").waitFor({ timeout: 120000 });
  await shot(watcher, "spectator-end");
  // What the spectator downloaded: views without a hand, deals without cards.
  const payloads = (await Promise.all(bodies)).filter((b) => b.length);
  assert.ok(payloads.length >= 2);
  let views = 0;
  for (const body of payloads) {
    const text = body.toString();
    const messages = text.startsWith("{") ? [JSON.parse(text)] : envelopes(body);
    for (const message of messages) {
      const view = message.view;
      if (view?.vampireQueen) {
        views++;
        assert.equal(view.seat, undefined);
        assert.deepEqual(view.vampireQueen.hand ?? [], [], "a spectator's view holds a hand");
        assert.deepEqual(view.legalCommands ?? [], []);
      }
      const dealt = message.event?.vampireQueen?.handDealt;
      if (dealt) assert.deepEqual(dealt.cards ?? [], [], "a spectator received dealt cards");
    }
  }
  assert.ok(views > 0);
  // Nothing of the hands in the page: no hand area, and none of the deal lines a seat sees.
  assert.equal(await watcher.locator("[data-hand]").count(), 0);
  // The full log, with the organiser token the creating browser keeps.
  const organiserToken = await creator.evaluate((id) => JSON.parse(localStorage.getItem(`referee:game:${id}`)).organiser, gameId);
  const exported = await (await fetch(`${BASE}/referee.v1.RefereeService/ExportGame`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ gameId, organiserToken }),
  })).json();
  assert.ok(exported.events, JSON.stringify(exported));
  const page = await watcher.locator("main").innerText();
  const deals = exported.events.filter((e) => e.vampireQueen?.handDealt?.cards?.length);
  assert.ok(deals.length >= 3);
  for (const e of deals) {
    const cards = e.vampireQueen.handDealt.cards.map((v) => (v === 14 ? "Q" : v >= 15 ? `H${v}` : String(v)));
    assert.ok(!page.includes(`is dealt ${cards.join(" ")}`), "a dealt hand is on the spectator's page");
  }
  await context.close();
  await creator.close();
});
