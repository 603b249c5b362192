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
    await page.waitForFunction(() => window.__referee && window.__referee.ready, null, { timeout: 30000 });
  } catch (error) {
    // What the page shows says more than a timeout.
    const text = await page.locator("body").innerText().catch(() => "");
    throw new Error(`${error.message}\n${page.url()}\n${text.slice(0, 1500)}`);
  }
}

/** Creates a game from the home page: seat 0 is "me", the others bots (or `roles`). */
export async function createFromHome(page, gameType, { players, roles, options = {}, botDelay = 0 } = {}) {
  await page.goto(`${BASE}/?botDelay=${botDelay}#/`);
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
  for (const [seat, role] of Object.entries(roles ?? {})) {
    await form.locator(`select[name="seat-${seat}"]`).selectOption(role);
  }
  await form.locator('button[type="submit"]').click();
  await page.waitForURL(/#\/(play|seat|watch)\//, { timeout: 30000 });
  await ready(page);
  const [, , gameId, token] = new URL(page.url()).hash.split("/");
  return { gameId, token };
}

/** Plays the page's seat to the end: clicks a choice (or presses its number key) whenever
 * the referee offers some; returns the number of choices made. */
export async function playToEnd(page, { keyboardEvery = 3, limit = 2000 } = {}) {
  let made = 0;
  for (;;) {
    const state = await page.waitForFunction(
      () => {
        if (document.title.includes("game over") || document.querySelector("table.results")) return "over";
        const buttons = [...document.querySelectorAll("button.choice")].filter((b) => !b.disabled);
        return buttons.length ? "choose" : false;
      },
      null,
      { timeout: 60000, polling: 50 },
    );
    if ((await state.jsonValue()) === "over") return made;
    const choices = page.locator("button.choice:enabled");
    const count = await choices.count();
    if (!count) continue;
    const pick = Math.floor(Math.random() * count);
    const version = await page.locator(".table").getAttribute("data-version");
    if (made % keyboardEvery === 0 && pick < 9) await page.keyboard.press(String(pick + 1));
    else await choices.nth(pick).click();
    made++;
    if (made > limit) throw new Error("the game did not end");
    // Wait for the table to move on (our command was applied) before looking again.
    await page.waitForFunction(
      (v) => {
        const t = document.querySelector(".table");
        return !t || t.getAttribute("data-version") !== v || document.querySelector(".alert:not(:empty)");
      },
      version,
      { timeout: 60000, polling: 50 },
    );
  }
}

/** Sequence numbers in the page's log, in order. */
export async function logSequences(page) {
  return page.locator("ol.log li").evaluateAll((items) => items.map((li) => Number(li.dataset.seq)));
}
