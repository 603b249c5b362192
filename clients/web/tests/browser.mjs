// Shared by the browser tests: Debian's Chromium driven by playwright-core, against a real
// referee whose HTTP port is REFEREE_URL (tests/web/test_browser.py starts it).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const BASE = process.env.REFEREE_URL ?? "http://127.0.0.1:8080";
export const SHOTS = process.env.SCREENSHOT_DIR ?? "test-results/screens";
mkdirSync(SHOTS, { recursive: true });

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    ],
  });
}

export async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Waits until the page has drawn its table (or the home page) after a navigation. */
export async function ready(page) {
  try {
    // Ready for the location it is at: a link just followed has not begun its page yet.
    await page.waitForFunction(() => window.__referee?.ready && window.__referee.route === location.hash, null, { timeout: 30000 });
  } catch (error) {
    // What the page shows says more than a timeout.
    const text = await page.locator("body").innerText().catch(() => "");
    throw new Error(`${error.message}\n${page.url()}\n${text.slice(0, 1500)}`);
  }
}

/** Creates a game from the home page: seat 0 is "me", the others bots (or `roles`). */
export async function createFromHome(page, gameType, { players, roles, options = {}, botDelay = 0, base = BASE } = {}) {
  await page.goto(`${base}/?botDelay=${botDelay}#/`);
  await ready(page);
  const section = page.locator(`#type-${gameType}`);
  await section.locator("summary", { hasText: "New game" }).click();
  const form = section.locator("form.new-game");
  if (players !== undefined) {
    await form.locator('input[name="players"]').fill(String(players));
    await form.locator('input[name="players"]').dispatchEvent("change");
  }
  for (const [name, value] of Object.entries(options)) {
    const field = form.locator(`[name="${name}"]`);
    if ((await field.evaluate((el) => el.tagName)) === "SELECT") await field.selectOption(value);
    else await field.fill(value);
  }
  // Seats not given a role are bots in this tab (the form offers the server's bots first).
  const seats = await form.locator('select[name^="seat-"]').count();
  for (let seat = 1; seat < seats; seat++) {
    await form.locator(`select[name="seat-${seat}"]`).selectOption(roles?.[seat] ?? "bot");
  }
  if (roles?.[0]) await form.locator('select[name="seat-0"]').selectOption(roles[0]);
  await form.locator('button[type="submit"]').click();
  await page.waitForURL(/#\/(play|seat|watch)\//, { timeout: 30000 });
  await ready(page);
  const [, , gameId, token] = new URL(page.url()).hash.split("/");
  return { gameId, token };
}

/** Plays the page's seat to the end: makes a choice on the drawn table (playChoice), or every
 * `keyboardEvery`-th one by pressing its number key (1-9), whenever the referee offers some;
 * returns the number of choices made. */
export async function playToEnd(page, { keyboardEvery = 3, limit = 2000 } = {}) {
  return playOnTable(page, { limit, keyboardEvery, check: false });
}

/** Sequence numbers in the page's log, in order. */
export async function logSequences(page) {
  return page.locator("ol.log li").evaluateAll((items) => items.map((li) => Number(li.dataset.seq)));
}

/** The messages of a Connect response body: a unary JSON body, or a stream's envelopes
 * (5-byte header, then a JSON message; the end-of-stream envelope included). */
export function bodyMessages(body) {
  const text = body.toString();
  if (text.startsWith("{")) return [JSON.parse(text)];
  const messages = [];
  for (let at = 0; at + 5 <= body.length; ) {
    const size = body.readUInt32BE(at + 1);
    if (at + 5 + size > body.length) break; // a stream still open: its last message is on its way
    messages.push(JSON.parse(body.subarray(at + 5, at + 5 + size).toString()));
    at += 5 + size;
  }
  return messages;
}

/** Every string a response body carries, decoded: a search of these finds text the server
 * may have sent escaped (\uXXXX) in the raw bytes. */
export function bodyStrings(body) {
  const strings = [];
  const walk = (value) => {
    if (typeof value === "string") strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  bodyMessages(body).forEach(walk);
  return strings;
}

/** Signs a fresh browser context in by name (Register: the test server has open
 * registration); returns the context, its page and the page errors seen. */
export async function signedIn(browser, name, { base = BASE, init } = {}) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${base}/#/`);
  await ready(page);
  await page.locator("#player-name").fill(name);
  await page.locator("button.register").click();
  await page.locator(`.sign-in[data-player="${name}"]`).waitFor();
  await ready(page);
  return { context, page, errors };
}

/** What ListGameTypes says (game types with score_meaning, house bots), from the server. */
export async function listGameTypes(base = BASE) {
  const response = await fetch(`${base}/referee.v1.RefereeService/ListGameTypes`, {
    method: "POST", headers: { "content-type": "application/json" }, body: "{}",
  });
  if (response.status !== 200) throw new Error(`ListGameTypes: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The end banner's parts, after a game: headline, the rule id, each seat's result line. */
export async function endBanner(page) {
  const banner = page.locator(".end-banner");
  await banner.waitFor({ timeout: 60000 });
  return {
    banner,
    headline: await banner.locator("h2").innerText(),
    rule: await banner.locator(".end-rule").getAttribute("data-rule-id"),
    results: await banner.locator(".end-results li").allInnerTexts(),
    scoreHeading: await page.locator("table.results th.score-heading").innerText(),
  };
}

/** A headline of the viewer's own outcome, then the server's reason: "You won: …". */
export const OUTCOME = /^(You won|You tied for first|You came \d+(st|nd|rd|th)): \S/;

/** Whether a box (a DOMRect's fields) and the viewport share some area. */
function intersects(box, width, height) {
  return box.width > 0 && box.height > 0 && box.x < width && box.x + box.width > 0 && box.y < height && box.y + box.height > 0;
}

/** What a player sees at a decision, checked: the drawn table, the deciding seat's clock and
 * every enabled control (a card or a place to pick, a button beside the table) intersect the
 * viewport, and the page does not scroll sideways. */
export async function onScreen(page, { clock = true } = {}) {
  const seen = await page.evaluate(() => {
    const rect = (el) => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height, what: el.getAttribute("data-target") ?? el.getAttribute("data-hand-index") ?? el.textContent.slice(0, 40) };
    };
    const felt = document.querySelector(".felt");
    const clocks = [...document.querySelectorAll(".felt .seat-box.deciding [data-clock-seat]")].map(rect);
    const controls = [...document.querySelectorAll(".felt .pickable, .act-controls button:enabled")].map(rect);
    return {
      width: window.innerWidth, height: window.innerHeight, scrollWidth: document.documentElement.scrollWidth,
      felt: felt ? rect(felt) : null, clocks, controls,
    };
  });
  const { width, height } = seen;
  if (!seen.felt || !intersects(seen.felt, width, height)) throw new Error(`the table is off screen: ${JSON.stringify(seen.felt)}`);
  if (clock && !seen.clocks.some((c) => intersects(c, width, height))) throw new Error(`no deciding seat's clock on screen: ${JSON.stringify(seen.clocks)}`);
  if (!seen.controls.length) {
    const bar = await page.locator(".actions").innerHTML();
    const choices = await page.evaluate(() => JSON.stringify(window.__referee.choices));
    throw new Error(`no enabled control at a decision: ${bar}\n${choices}`);
  }
  const off = seen.controls.filter((c) => !intersects(c, width, height));
  if (off.length) throw new Error(`controls off screen (${width}x${height}): ${JSON.stringify(off)}`);
  if (seen.scrollWidth > width) throw new Error(`the page scrolls sideways: ${seen.scrollWidth} > ${width}`);
  return seen;
}

/** The table's version now (a command applied changes it). */
async function tableVersion(page) {
  return page.locator(".table").getAttribute("data-version");
}

/** Makes one choice the way a player does on the drawn table: its cards in the hand, then
 * each thing it aims at (on the table, or its button beside the table when the table draws no
 * such thing), then its confirm when one is needed. Never the list of choices. */
export async function playChoice(page, choice) {
  const version = await tableVersion(page);
  const sent = () => page.evaluate(() => window.__referee.sent);
  const before = await sent();
  const steps = [
    ...choice.hand.map((i) => page.locator(`.felt [data-felt-hand] [data-hand-index="${i}"]`).first()),
    ...choice.targets.map((key) => page.locator(`.felt [data-target="${key}"], .act-controls [data-target="${key}"]`).first()),
  ];
  for (const step of steps) {
    if ((await sent()) !== before) break;
    // Near a corner: a seat's box holds cards, and its name is where a player points.
    await step.click({ position: { x: 6, y: 6 } });
  }
  if ((await sent()) === before) await page.locator(`.act-controls button[data-index="${choice.index}"]`).click();
  await movedOn(page, version);
  const alert = await page.locator(".alert").innerText();
  if (alert) throw new Error(`refused: ${alert} (${choice.label})`);
}

/** Makes a choice by its number key (the list of choices stays folded: keys 1-9 work). */
export async function pressKey(page, index) {
  const version = await tableVersion(page);
  await page.keyboard.press(String(index + 1));
  await movedOn(page, version);
}

/** Waits until the table moved on from `version` (a command applied) or a refusal shows. */
async function movedOn(page, version) {
  await page.waitForFunction(
    (v) => {
      const t = document.querySelector(".table");
      return !t || t.getAttribute("data-version") !== v || document.querySelector(".alert:not(:empty)");
    },
    version,
    { timeout: 60000, polling: 50 },
  );
}

/** Plays the page's seat to the end on the drawn table only (playChoice), checking at every
 * decision that the table, the deciding seat's clock and the controls are on screen
 * (onScreen). `pick` chooses among the choices (random by default); `onDecision(page, n)`
 * runs before each. Returns the number of choices made. */
export async function playOnTable(page, { limit = 3000, clock = true, check = true, keyboardEvery = 0, pick, onDecision } = {}) {
  let made = 0;
  for (;;) {
    const state = await page.waitForFunction(
      () => {
        if (document.title.includes("game over") || document.querySelector("table.results")) return "over";
        const r = window.__referee;
        return r && r.choices && r.choices.length ? "choose" : false;
      },
      null,
      { timeout: 90000, polling: 50 },
    );
    if ((await state.jsonValue()) === "over") return made;
    const choices = await page.evaluate(() => window.__referee.choices);
    if (!choices.length) continue;
    if (check) await onScreen(page, { clock });
    if (onDecision) await onDecision(page, made);
    const choice = pick ? pick(choices) : choices[Math.floor(Math.random() * choices.length)];
    if (keyboardEvery && made % keyboardEvery === 0 && choice.index < 9) await pressKey(page, choice.index);
    else await playChoice(page, choice);
    made++;
    if (made > limit) throw new Error("the game did not end");
  }
}
