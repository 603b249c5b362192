// Players meet through the lobby: two browser contexts that share no storage sign in by
// name, one opens a table, the other takes its seat from the lobby (or by a join link that
// carries a claim code), and both play to the end. The host's page never receives the
// friend's seat token or hand: checked on the DOM and on every byte its fetches received.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE, launch, playToEnd, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** Everything the page's fetches received, bodies of streams included (a tee of each). */
function recordResponses() {
  window.__bodies = [];
  const original = window.fetch;
  window.fetch = async (...args) => {
    const response = await original(...args);
    const copy = response.clone();
    void (async () => {
      const reader = copy.body?.getReader();
      if (!reader) return;
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true }));
        if (done) return;
        window.__bodies.push(decoder.decode(value, { stream: true }));
      }
    })();
    return response;
  };
}

async function person(name) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  await context.addInitScript(recordResponses);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${BASE}/#/`);
  await ready(page);
  await page.locator("#player-name").fill(name);
  await page.locator("button.register").click();
  await page.locator(`.sign-in[data-player="${name}"]`).waitFor();
  await ready(page);
  return { context, page, errors };
}

/** The new-game form of `gameType` with the given seat roles (seat 0 is "me"). */
async function createGame(page, gameType, players, roles, options = {}) {
  const section = page.locator(`#type-${gameType}`);
  await section.locator("summary", { hasText: "New game" }).click();
  const form = section.locator("form.new-game");
  await form.locator('input[name="players"]').fill(String(players));
  await form.locator('input[name="players"]').dispatchEvent("change");
  for (const [name, value] of Object.entries(options)) await form.locator(`[name="${name}"]`).fill(value);
  for (const [seat, role] of Object.entries(roles)) {
    await form.locator(`select[name="seat-${seat}"]`).selectOption(typeof role === "string" ? role : role[0]);
    if (typeof role !== "string") await form.locator(`input[name="name-${seat}"]`).fill(role[1]);
  }
  await form.locator('button[type="submit"]').click();
  await page.waitForURL(/#\/seat\//, { timeout: 30000 });
  await ready(page);
  return new URL(page.url()).hash.split("/")[2];
}

async function heldToken(page, gameId) {
  return page.evaluate((id) => {
    const game = JSON.parse(localStorage.getItem(`referee:game:${id}`));
    return Object.values(game.tokens);
  }, gameId);
}

/** The host holds no token of the friend's seat, and never received it or the friend's hand
 * lines (`handLines`: as the friend saw them at the start, before any card was public). */
async function assertNoLeak(host, friend, gameId, handLines = null) {
  const friendTokens = await heldToken(friend, gameId);
  assert.ok(friendTokens.length === 1, "the friend holds one seat");
  const hostTokens = await heldToken(host, gameId);
  for (const t of friendTokens) assert.ok(!hostTokens.includes(t), "the host's storage has the friend's token");
  const bodies = (await host.evaluate(() => window.__bodies.join(""))) + (await host.content());
  for (const t of friendTokens) assert.ok(!bodies.includes(t), "the host received the friend's seat token");
  // The friend's hand, in the game's own words (view_lines), never reached the host.
  if (!handLines) {
    const friendLines = await friend.locator("[data-view-lines] li").allTextContents();
    handLines = friendLines.filter((line) => /^your hand: |\(seat 1\): /i.test(line));
    assert.ok(handLines.length, `the friend's view names its hand: ${friendLines.join(" | ")}`);
  }
  for (const line of handLines) assert.ok(!bodies.includes(line), `the host received the friend's hand: ${line}`);
  // Nor does the host's page show it.
  const hostText = await host.locator("body").innerText();
  for (const line of handLines) assert.ok(!hostText.includes(line), `the host's page shows the friend's hand: ${line}`);
  return handLines;
}

test("two players meet through the lobby and play to the end", async () => {
  const stamp = Date.now().toString(36);
  const alice = await person(`alice-${stamp}`);
  const bob = await person(`bob-${stamp}`);
  const gameId = await createGame(alice.page, "dracula-vs-van-helsing", 2, { 1: "open" },
    { decision_s: "60", bank_s: "120", forfeit_after: "3" });
  await alice.page.locator(".actions h2", { hasText: "Waiting for seat 1" }).waitFor();
  // Bob's lobby lists Alice's table, live; he takes the seat.
  const table = bob.page.locator(`.lobby-tables li[data-game="${gameId}"]`);
  await table.waitFor({ timeout: 30000 });
  assert.match(await table.innerText(), new RegExp(`alice-${stamp}`));
  await shot(bob.page, "lobby");
  await table.locator("button.take-seat").click();
  await bob.page.waitForURL(new RegExp(`#/seat/${gameId}/1`));
  await ready(bob.page);
  // Names instead of seat numbers, and a running clock.
  await alice.page.locator(".seats-table", { hasText: `bob-${stamp}` }).waitFor();
  await alice.page.locator("[data-clock-seat]").first().waitFor();
  await bob.page.locator("[data-view-lines] li").first().waitFor();
  const bobsHand = await assertNoLeak(alice.page, bob.page, gameId);
  await Promise.all([playToEnd(alice.page), playToEnd(bob.page)]);
  for (const p of [alice.page, bob.page]) {
    const banner = p.locator(".end-banner");
    await banner.waitFor();
    assert.match(await banner.innerText(), /You won|wins|tied|came/);
  }
  await shot(alice.page, "lobby-game-end-banner");
  await assertNoLeak(alice.page, bob.page, gameId, bobsHand);
  // Rematch with the same settings: a new table with an open seat again.
  await alice.page.locator("button.rematch").click();
  await alice.page.waitForURL((url) => url.hash.startsWith("#/seat/") && !url.hash.includes(gameId));
  assert.deepEqual([...alice.errors, ...bob.errors], []);
  await alice.context.close();
  await bob.context.close();
});

test("a join link carries a claim code: the guest's browser gets the seat, the host never its token", async () => {
  const stamp = Date.now().toString(36);
  const host = await person(`host-${stamp}`);
  const gameId = await createGame(host.page, "mau-mau-vampires", 2, { 1: "invite" }, { hands: "1" });
  const href = await host.page.locator("a.join-link").first().getAttribute("href");
  assert.match(href, new RegExp(`#/join/${gameId}/1/`));
  const context = await browser.newContext();
  const guest = await context.newPage();
  await guest.goto(href);
  await ready(guest);
  await guest.locator("button.claim").click();
  await guest.waitForURL(new RegExp(`#/seat/${gameId}/1`));
  await ready(guest);
  await guest.locator("[data-view-lines] li").first().waitFor();
  await host.page.locator(".seats-table tr[data-seat='0']").waitFor();
  await assertNoLeak(host.page, guest, gameId);
  // The same link a second time is refused: a claim code is single-use.
  const other = await (await browser.newContext()).newPage();
  await other.goto(href);
  await ready(other);
  await other.locator("button.claim").click();
  await other.locator("p[role=status]", { hasText: "Could not take the seat" }).waitFor();
  // The host resigns: the game goes on by the rules' forfeit, to its end.
  await host.page.locator("button.resign").click();
  await host.page.locator("button.resign").click();
  await playToEnd(guest);
  await guest.locator(".end-banner").waitFor();
  await shot(guest, "join-link-end-banner");
  await host.context.close();
  await context.close();
  await other.context().close();
});
