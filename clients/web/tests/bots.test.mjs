// A person plays a bot account alone: the page challenges the bot by name from the lobby,
// the bot (`referee-bot player --accept-challenges`, the Python SDK on its player stream;
// the server's own bots take reserved seats the same way once `referee serve --house-bots`
// runs them) accepts, and the game goes on while the person's page is closed: reopened, it
// resumes and plays to the end.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { BASE, launch, playToEnd, ready, shot } from "./browser.mjs";

let browser;
let bot;
before(async () => (browser = await launch()));
after(async () => {
  bot?.kill();
  await browser?.close();
});

async function register(name, kind) {
  const response = await fetch(`${BASE}/referee.v1.RefereeService/Register`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, kind }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()).token;
}

test("a game against a bot account finishes after the page is closed and reopened", async () => {
  const stamp = Date.now().toString(36);
  const botName = `sdk-bot-${stamp}`;
  const token = await register(botName, "PLAYER_KIND_BOT");
  const python = process.env.REFEREE_PYTHON ?? "python3";
  bot = spawn(python, ["-m", "referee_bot", "player", "--server", process.env.REFEREE_GRPC,
    "--accept-challenges", "--games", "1", "--strategy", "heuristic"], {
    env: { ...process.env, REFEREE_CREDENTIAL: token }, stdio: ["ignore", "inherit", "inherit"],
  });
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  let page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${BASE}/#/`);
  await ready(page);
  await page.locator("#player-name").fill(`solo-${stamp}`);
  await page.locator("button.register").click();
  await page.locator(".challenge-form").waitFor();
  await page.locator("#challenge-whom").fill(botName);
  await page.locator("#challenge-type").selectOption("sleeping-queens");
  await page.locator("#challenge-seats").fill("2");
  await page.locator(".challenge-form button[type=submit]").click();
  // The bot accepts; the player stream brings the seat, and the page goes to its table.
  await page.waitForURL(/#\/seat\//, { timeout: 60000 });
  await ready(page);
  const url = page.url();
  await page.locator(".felt .seat-player", { hasText: botName }).first().waitFor();
  await playToEnd(page, { limit: 3 }).catch(() => {}); // a few moves, then leave
  await page.close();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  page = await context.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await ready(page);
  await playToEnd(page);
  const banner = page.locator(".end-banner");
  await banner.waitFor();
  assert.match(await banner.innerText(), /You won|wins|tied|came/);
  await shot(page, "bot-game-end-banner");
  assert.deepEqual(errors, []);
  await context.close();
});
