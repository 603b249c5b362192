// Bad links get a clear page: an unknown game says there is no such game (watching it,
// replaying it, a join link to it); a join link whose code was made up, or was used already,
// says so before anything is pressed, with no button to take the seat. And the home page's
// first game: one click on "Play now" seats the player against one of the server's bots.
// A page left before the server answered (another link followed) does not draw over the next.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE, createFromHome, launch, listGameTypes, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("an unknown game's pages say there is no such game", async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  for (const path of ["#/watch/no-such-game", "#/replay/no-such-game", "#/join/no-such-game/1/claim-abc"]) {
    await page.goto(`${BASE}/${path}`);
    await ready(page);
    const alert = page.locator(".no-game");
    assert.match(await alert.innerText(), /^There is no game "no-such-game" on this server/);
    assert.equal(await page.locator("text=Loading").count(), 0);
    assert.equal(await page.locator("button.claim").count(), 0);
  }
  await shot(page, "link-unknown-game");
  await page.close();
});

test("a made-up or spent join link says so before it is pressed", async () => {
  const host = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const { gameId } = await createFromHome(host, "vampire-queen", { players: 3, roles: { 1: "invite", 2: "invite" } });
  const links = await host.locator("a.join-link").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  assert.equal(links.length, 2);
  const made = links[0].replace(/\/[^/]+$/, "/claim-made-up");
  const guest = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await guest.goto(made);
  await ready(guest);
  assert.equal(await guest.locator(".bad-link").getAttribute("data-reason"), "CLAIM_CODE_INVALID");
  assert.equal(await guest.locator("button.claim").count(), 0);
  // A good link: its button; pressed, the seat is the guest's; the same link again is spent.
  await guest.goto(links[0]);
  await ready(guest);
  await guest.locator("button.claim").click();
  await guest.waitForURL(new RegExp(`#/seat/${gameId}/`));
  const other = await (await browser.newContext()).newPage();
  await other.goto(links[0]);
  await ready(other);
  const spent = other.locator(".bad-link");
  assert.equal(await spent.getAttribute("data-reason"), "CLAIM_CODE_USED");
  assert.match(await spent.innerText(), /used already/);
  assert.equal(await other.locator("button.claim").count(), 0);
  await shot(other, "link-spent");
  await host.close();
});

test("the home page's first game is one click against a server bot", async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${BASE}/#/`);
  await ready(page);
  const { houseBots } = await listGameTypes();
  // Each level in the server's words, before any game.
  assert.equal(await page.locator(".play-now .level-words").innerText(), houseBots[0].description);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  await shot(page, "home-play-now-phone");
  await page.locator("button.quick-play[data-game='sleeping-queens']").click();
  await page.waitForURL(/#\/seat\//);
  await ready(page);
  const opponents = await page.locator(".felt .seat-box:not(.mine) .seat-player").allInnerTexts();
  assert.deepEqual(opponents, [houseBots[0].player]);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a page left before the server answered does not draw over the next one", async () => {
  const host = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const { gameId } = await createFromHome(host, "mau-mau-vampires", { players: 2 });
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // The answers the home page and a table wait for, slowed so that the page moves on first.
  const slow = async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await route.continue().catch(() => {}); // a request the page abandoned
  };
  await page.route((url) => url.pathname.endsWith("/referee.v1.RefereeService/ListGames"), slow);
  await page.route((url) => url.pathname.endsWith("/referee.v1.RefereeService/GetView"), slow);
  // The home page, left for the game's table while its list of games is on the way.
  await page.goto(`${BASE}/#/`);
  await page.evaluate((id) => (location.hash = `#/watch/${id}`), gameId);
  await ready(page);
  await page.waitForTimeout(2500);
  assert.match(await page.locator("h1").innerText(), /· watching/);
  assert.equal(await page.locator("text=Games on this server").count(), 0, "the home page drew over the table");
  // The table, left for the home page while its first view is on the way.
  await page.evaluate(() => (location.hash = "#/"));
  await ready(page);
  await page.evaluate((id) => (location.hash = `#/watch/${id}`), gameId);
  await page.waitForTimeout(300);
  await page.evaluate(() => (location.hash = "#/"));
  await page.waitForTimeout(2500);
  assert.equal(await page.locator("[role=alert]", { hasText: "aborted" }).count(), 0, "the table's abort was shown");
  assert.equal(await page.locator("h1").innerText(), "Games");
  assert.deepEqual(errors, []);
  await page.close();
  await host.close();
});
