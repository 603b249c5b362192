// Players meet through the lobby: two browser contexts that share no storage sign in by
// name, one opens a table, the other takes its seat from the lobby (or by a join link that
// carries a claim code), and both play to the end. The host's page never receives the
// friend's seat token or hand: checked on the DOM and on every byte its fetches received.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OUTCOME, SHOTS, bodyMessages, bodyStrings, endBanner, launch, playToEnd, ready, shot, signedIn } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** Everything the page's fetches received, as bytes per response, streams included (a tee
 * of each body, so a stream still open counts with what it has sent so far). */
function recordResponses() {
  window.__bodies = [];
  const original = window.fetch;
  window.fetch = async (...args) => {
    const response = await original(...args);
    const chunks = [];
    window.__bodies.push(chunks);
    const copy = response.clone();
    void (async () => {
      const reader = copy.body?.getReader();
      if (!reader) return;
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true }));
        if (done) return;
        chunks.push(value);
      }
    })();
    return response;
  };
}

/** The bytes of every response the page's fetches received so far (the tee above). */
async function teed(page) {
  const encoded = await page.evaluate(() => window.__bodies.map((chunks) => {
    let binary = "";
    for (const chunk of chunks) for (let i = 0; i < chunk.length; i += 8192) binary += String.fromCharCode(...chunk.subarray(i, i + 8192));
    return btoa(binary);
  }));
  return encoded.map((b64) => Buffer.from(b64, "base64"));
}

async function person(name) {
  const who = await signedIn(browser, name, { init: recordResponses });
  // Playwright's own record of the responses (the finished ones have a body to read), beside
  // the page's tee: two independent witnesses of what reached the host.
  who.responses = [];
  who.page.on("response", (response) => {
    if (response.url().includes("/referee.v1.RefereeService/")) who.responses.push(response.body().catch(() => null));
  });
  return who;
}

/** Every body the host received: the tee's bytes and Playwright's finished responses. */
async function receivedBodies(who) {
  const settled = await Promise.all(who.responses.map((p) => Promise.race([p, sleep(200).then(() => null)])));
  return [...(await teed(who.page)), ...settled.filter(Boolean)];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** The host holds no token of the friend's seat, and never received it, a view of the
 * friend's seat, or the friend's hand lines (`handLines`: as the friend saw them at the start,
 * before any card was public): checked on the host's storage, its DOM, and every response
 * body its page received, raw and decoded (JSON strings may arrive escaped). */
async function assertNoLeak(host, friend, gameId, handLines = null) {
  const friendTokens = await heldToken(friend.page, gameId);
  assert.ok(friendTokens.length === 1, "the friend holds one seat");
  const friendSeat = Number(Object.keys(await friend.page.evaluate((id) => JSON.parse(localStorage.getItem(`referee:game:${id}`)).tokens, gameId))[0]);
  const hostTokens = await heldToken(host.page, gameId);
  for (const t of friendTokens) assert.ok(!hostTokens.includes(t), "the host's storage has the friend's token");
  const storage = await host.page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  for (const t of friendTokens) assert.ok(!storage.includes(t), "the host's storage holds the friend's seat token");
  const bodies = await receivedBodies(host);
  assert.ok(bodies.length >= 3, `the host's page received ${bodies.length} bodies`);
  const raw = bodies.map((b) => b.toString("latin1")).join("\n") + (await host.page.content());
  const decoded = bodies.flatMap((b) => bodyStrings(b)).join("\n");
  assert.ok(decoded.includes(gameId), "the decoded bodies are the game's (the check can see what it looks for)");
  for (const t of friendTokens) {
    assert.ok(!raw.includes(t) && !decoded.includes(t), "the host received the friend's seat token");
  }
  // No view of the friend's seat: every view the host got (wherever in a message: a
  // stream's, a command's answer, the player stream's game updates) is its own seat's or a
  // spectator's. A View is the object with a game id, a version and a seat.
  let views = 0;
  const walk = (value) => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== "object") return;
    if (value.gameId === gameId && "version" in value && "seat" in value) {
      views++;
      assert.notEqual(value.seat, friendSeat, "the host received a view of the friend's seat");
    }
    Object.values(value).forEach(walk);
  };
  bodies.forEach((body) => bodyMessages(body).forEach(walk));
  assert.ok(views > 0, "the host received views of its own seat");
  // The friend's hand, in the game's own words (view_lines), never reached the host.
  if (!handLines) {
    // The page names players where the server writes "seat N": the server's own words are
    // the lines with the friend's name put back.
    const friendName = (await friend.page.locator(".felt .seat-box.mine .seat-player").innerText()).replace(/ \(you\)$/, "");
    const friendLines = await friend.page.locator("[data-view-lines] li").allTextContents();
    const shown = friendLines.filter((line) => line.startsWith("your hand: ") || line.includes(`(${friendName}): `));
    handLines = [...shown, ...shown.map((line) => line.replaceAll(friendName, `seat ${friendSeat}`))];
    assert.ok(shown.length, `the friend's view names its hand: ${friendLines.join(" | ")}`);
  }
  for (const line of handLines) assert.ok(!decoded.includes(line) && !raw.includes(line), `the host received the friend's hand: ${line}`);
  // Nor does the host's page show it.
  const hostText = await host.page.locator("body").innerText();
  for (const line of handLines) assert.ok(!hostText.includes(line), `the host's page shows the friend's hand: ${line}`);
  return handLines;
}

test("two players meet through the lobby and play to the end", async () => {
  const stamp = Date.now().toString(36);
  const alice = await person(`alice-${stamp}`);
  const bob = await person(`bob-${stamp}`);
  const gameId = await createGame(alice.page, "dracula-vs-van-helsing", 2, { 1: "open" },
    { decision_s: "60", bank_s: "120", forfeit_after: "3" });
  await alice.page.locator(".actions h2", { hasText: "Waiting for seat 1" }).waitFor().catch(async (error) => {
    throw new Error(`${error.message}\n${(await alice.page.locator("body").innerText()).slice(0, 2000)}`);
  });
  // Bob's lobby lists Alice's table, live; he takes the seat.
  const table = bob.page.locator(`.lobby-tables li[data-game="${gameId}"]`);
  await table.waitFor({ timeout: 30000 });
  assert.match(await table.innerText(), new RegExp(`alice-${stamp}`));
  await shot(bob.page, "lobby");
  await table.locator("button.take-seat").click();
  await bob.page.waitForURL(new RegExp(`#/seat/${gameId}/1`));
  await ready(bob.page);
  // Names instead of seat numbers, and a running clock.
  await alice.page.locator(".felt .seat-player", { hasText: `bob-${stamp}` }).first().waitFor();
  await alice.page.locator("[data-clock-seat]").first().waitFor();
  await bob.page.locator("[data-view-lines] li").first().waitFor({ state: "attached" });
  const bobsHand = await assertNoLeak(alice, bob, gameId);
  await Promise.all([playToEnd(alice.page), playToEnd(bob.page)]);
  for (const p of [alice.page, bob.page]) {
    const { headline, rule, results } = await endBanner(p);
    assert.match(headline, OUTCOME);
    assert.match(rule, /^DV-\d+$/);
    // Each seat's result names its player: the lobby's seats are held by name.
    assert.ok(results.some((line) => line.includes(`alice-${stamp}`)) && results.some((line) => line.includes(`bob-${stamp}`)), results.join(" | "));
  }
  await shot(alice.page, "lobby-game-end-banner");
  await alice.page.locator(".end-banner").screenshot({ path: `${SHOTS}/lobby-end-banner.png` });
  await assertNoLeak(alice, bob, gameId, bobsHand);
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
  await guest.locator("[data-view-lines] li").first().waitFor({ state: "attached" });
  await host.page.locator(".felt .seat-box[data-seat='0']").waitFor();
  await assertNoLeak(host, { page: guest }, gameId);
  // The same link a second time is refused, and says so before anything is pressed: a claim
  // code is single-use (and this table is full: its game has started).
  const other = await (await browser.newContext()).newPage();
  await other.goto(href);
  await ready(other);
  assert.equal(await other.locator(".bad-link").getAttribute("data-reason"), "GAME_STARTED");
  assert.equal(await other.locator("button.claim").count(), 0);
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
