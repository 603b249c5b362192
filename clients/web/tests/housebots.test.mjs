// The server's own bots (`referee serve --house-bots`; tests/web/test_browser.py runs
// REFEREE_HOUSE_BOTS): the page learns them from ListGameTypes (house_bots) and offers seats
// for them by strength, a "Fill with bots" button on a waiting table its browser organised,
// their names to challenge, and says when pairing is joined by one. A game against them goes
// on with the page closed (the bots are in the server, not the tab): reopened, it resumes and
// plays to the end. A server without them offers none and says so.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OUTCOME, SHOTS, endBanner, launch, listGameTypes, playToEnd, ready, shot, signedIn } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

/** The levels the server was started with, weakest first ("easy:2,normal:2" -> easy, normal). */
const LEVELS = (process.env.REFEREE_HOUSE_BOTS ?? "easy:2,normal:2").split(",").map((entry) => entry.split(":")[0]);

async function newGameForm(page, gameType, players) {
  const section = page.locator(`#type-${gameType}`);
  await section.locator("summary", { hasText: "New game" }).click();
  const form = section.locator("form.new-game");
  await form.locator('input[name="players"]').fill(String(players));
  await form.locator('input[name="players"]').dispatchEvent("change");
  return form;
}

test("a game against the server's bots, picked by strength, finishes after the page is closed and reopened", async () => {
  const { houseBots } = await listGameTypes();
  assert.deepEqual([...new Set(houseBots.map((b) => b.level))], LEVELS, "the test server runs its house bots");
  const stamp = Date.now().toString(36);
  const { context, page: home, errors } = await signedIn(browser, `solo-${stamp}`);
  const form = await newGameForm(home, "sleeping-queens", 4);
  // One account holds one seat: more seats of a strength than its accounts are refused in
  // words before anything is sent.
  const easy = houseBots.filter((b) => b.level === LEVELS[0]).length;
  for (const seat of [1, 2, 3]) await form.locator(`select[name="seat-${seat}"]`).selectOption("server-bot");
  for (const seat of [1, 2, 3]) await form.locator(`select[name="level-${seat}"]`).selectOption(LEVELS[0]);
  await form.locator('button[type="submit"]').click();
  await form.locator("p[role=status]", { hasText: `This server runs ${easy} ${LEVELS[0]} bots` }).waitFor();
  await form.locator('input[name="players"]').fill("3");
  await form.locator('input[name="players"]').dispatchEvent("change");
  // A server-bot seat asks for a strength, from what the server runs (with its words).
  await form.locator('select[name="seat-1"]').selectOption("server-bot");
  const levels = form.locator('select[name="level-1"]');
  assert.deepEqual(await levels.locator("option").evaluateAll((o) => o.map((x) => x.value)), LEVELS);
  const described = houseBots.find((b) => b.level === LEVELS[0]).description;
  assert.match(await levels.locator("option").first().innerText(), new RegExp(described));
  await levels.selectOption(LEVELS[0]);
  await form.locator('select[name="seat-2"]').selectOption("server-bot");
  await form.locator('select[name="level-2"]').selectOption(LEVELS[LEVELS.length - 1]);
  await form.screenshot({ path: `${SHOTS}/new-game-house-bots.png` });
  await form.locator('button[type="submit"]').click();
  await home.waitForURL(/#\/seat\//, { timeout: 30000 });
  await ready(home);
  const url = home.url();
  // The bots claimed their reserved seats (the game started): each seat names its account.
  const first = houseBots.find((b) => b.level === LEVELS[0]).player;
  const last = houseBots.find((b) => b.level === LEVELS[LEVELS.length - 1]).player;
  for (const name of [first, last]) await home.locator(".felt .seat-player", { hasText: name }).first().waitFor({ timeout: 30000 });
  await playToEnd(home, { limit: 3 }).catch(() => {}); // a few moves, then leave
  await home.close();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await ready(page);
  await playToEnd(page);
  const { headline, rule, results } = await endBanner(page);
  assert.match(headline, OUTCOME);
  assert.match(rule, /^SQ-\d+$/);
  assert.equal(results.length, 3);
  for (const name of [first, last, `solo-${stamp}`]) assert.ok(results.some((line) => line.includes(name)), `${name}: ${results.join(" | ")}`);
  await shot(page, "house-bots-game-end");
  await page.locator(".end-banner").screenshot({ path: `${SHOTS}/sleeping-queens-house-bots-end-banner.png` });
  assert.deepEqual(errors, []);
  await context.close();
});

test("the organiser fills a waiting table with server bots", async () => {
  const stamp = Date.now().toString(36);
  const { houseBots } = await listGameTypes();
  const { context, page, errors } = await signedIn(browser, `host-${stamp}`);
  const form = await newGameForm(page, "mau-mau-vampires", 4);
  await form.locator('[name="hands"]').fill("1");
  await form.locator('select[name="seat-1"]').selectOption("open");
  await form.locator('select[name="seat-2"]').selectOption("invite");
  await form.locator('select[name="seat-3"]').selectOption("open");
  await form.locator('button[type="submit"]').click();
  await page.waitForURL(/#\/seat\//, { timeout: 30000 });
  await ready(page);
  await page.locator(".actions h2", { hasText: "Waiting for" }).waitFor();
  const fill = page.locator("button.fill-bots");
  await fill.waitFor();
  // Three empty seats, two accounts of a strength: refused (NOT_ENOUGH_HOUSE_BOTS), nothing
  // claimed, said on the page.
  await page.locator("select.fill-level").selectOption(LEVELS[0]);
  await fill.click();
  await page.locator(".alert", { hasText: "Not filled: " }).waitFor();
  assert.match(await page.locator(".alert").innerText(), /NOT_ENOUGH_HOUSE_BOTS|house bot/i);
  assert.equal(await page.locator(".felt .seat-player", { hasText: "house-" }).count(), 0);
  // Any strength: the accounts in the order the server lists them.
  await page.locator("select.fill-level").selectOption("");
  await shot(page, "fill-with-bots");
  await fill.click();
  for (const { player } of houseBots.slice(0, 3)) await page.locator(".felt .seat-player", { hasText: player }).first().waitFor({ timeout: 30000 });
  assert.equal(await page.locator("button.fill-bots").count(), 0, "the Fill button outlived the start");
  await playToEnd(page);
  const { headline, rule, results } = await endBanner(page);
  assert.match(headline, OUTCOME);
  assert.match(rule, /^MM-\d+$/);
  assert.equal(results.length, 4);
  await page.locator(".end-banner").screenshot({ path: `${SHOTS}/mau-mau-vampires-filled-end-banner.png` });
  assert.deepEqual(errors, []);
  await context.close();
});

test("a server bot accepts a challenge with a clock; pairing with a clock is joined by one", async () => {
  const stamp = Date.now().toString(36);
  const { context, page, errors } = await signedIn(browser, `clock-${stamp}`);
  const { houseBots } = await listGameTypes();
  // The challenge form offers the bots' names, and carries the clock.
  const offered = await page.locator("#challenge-bots option").evaluateAll((o) => o.map((x) => x.value));
  assert.deepEqual(offered, houseBots.map((b) => b.player));
  await page.locator("#challenge-whom").fill(houseBots[0].player);
  await page.locator("#challenge-type").selectOption("dracula-vs-van-helsing");
  await page.locator("#challenge-seats").fill("2");
  const challenge = page.locator(".challenge-form");
  await challenge.locator('[name="decision_s"]').fill("30");
  await challenge.locator('[name="bank_s"]').fill("75");
  await challenge.locator('[name="forfeit_after"]').fill("2");
  await challenge.locator("button[type=submit]").click();
  await page.waitForURL(/#\/seat\//, { timeout: 30000 });
  await ready(page);
  await page.locator(".felt .seat-player", { hasText: houseBots[0].player }).first().waitFor();
  // The game runs the challenge's clock: every seat shows its 75 s bank.
  await page.waitForFunction(() => [...document.querySelectorAll("[data-clock-seat]")].some((c) => /bank 75 s/.test(c.textContent)));
  const settings = await clockOf(page);
  assert.deepEqual(settings, { decisionMs: 30000, bankMs: 75000, forfeitAfterTimeouts: 2 });
  await shot(page, "challenge-house-bot-clock");

  // Pairing: nobody else asks, so a house bot joins after the server's wait.
  await page.goto(page.url().replace(/#.*$/, "#/"));
  await ready(page);
  const pairing = page.locator(".pairing-form");
  assert.match(await pairing.locator(".pairing-bots").innerText(), /server's bots .* join the request/);
  await page.locator("#pairing-type").selectOption("dracula-vs-van-helsing");
  await page.locator("#pairing-seats").fill("2");
  await pairing.locator('[name="decision_s"]').fill("40");
  await pairing.locator('[name="bank_s"]').fill("90");
  await pairing.locator("button[type=submit]").click();
  await page.waitForURL(/#\/seat\//, { timeout: 60000 });
  await ready(page);
  await page.waitForFunction(() => [...document.querySelectorAll("[data-clock-seat]")].some((c) => /bank 90 s/.test(c.textContent)));
  assert.deepEqual(await clockOf(page), { decisionMs: 40000, bankMs: 90000 });
  const names = houseBots.map((b) => b.player);
  const opponent = await page.locator(".felt .seat-player").allInnerTexts();
  assert.ok(opponent.some((text) => names.some((n) => text.startsWith(n))), opponent.join(" | "));
  assert.deepEqual(errors, []);
  await context.close();
});

test("a server without house bots offers none, and says so", async () => {
  const stamp = Date.now().toString(36);
  // The real server's answer, with its house bots taken out: what a server started without
  // --house-bots says (the test server runs them for the tests above).
  const { context, page, errors } = await signedIn(browser, `nobots-${stamp}`);
  await page.route("**/referee.v1.RefereeService/ListGameTypes", async (route) => {
    const response = await route.fetch();
    const json = await response.json();
    delete json.houseBots;
    await route.fulfill({ response, json });
  });
  await page.reload();
  await ready(page);
  const form = await newGameForm(page, "vampire-queen", 3);
  const roles = await form.locator('select[name="seat-1"] option').evaluateAll((o) => o.map((x) => x.value));
  assert.ok(!roles.includes("server-bot"), roles.join(", "));
  assert.ok(roles.includes("open") && roles.includes("bot"));
  assert.match(await form.locator(".no-house-bots").innerText(), /runs no bots of its own/);
  assert.match(await page.locator(".pairing-bots").innerText(), /no bots of its own: pairing waits for people/);
  assert.equal(await page.locator("#challenge-bots option").count(), 0);
  await form.locator('select[name="seat-1"]').selectOption("open");
  await form.locator('button[type="submit"]').click();
  await page.waitForURL(/#\/seat\//, { timeout: 30000 });
  await ready(page);
  await page.locator(".actions h2", { hasText: "Waiting for" }).waitFor();
  await page.locator("button.abort").waitFor();
  assert.equal(await page.locator("button.fill-bots").count(), 0, "a Fill button without house bots");
  await shot(page, "no-house-bots-table");
  assert.deepEqual(errors, []);
  await context.close();
});

/** The clock of the page's game, as the server keeps it (GetGame over HTTP). */
async function clockOf(page) {
  const gameId = new URL(page.url()).hash.split("/")[2];
  const base = new URL(page.url()).origin;
  const response = await fetch(`${base}/referee.v1.RefereeService/GetGame`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ gameId }),
  });
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.game.clock;
}
