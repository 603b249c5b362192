// Ratings on the home page: a rated game one player never came to (its join deadline passed)
// is a loss to the absent one, and the page shows it: the signed-in player's own ratings, any
// player's by name, and the game's leaderboard, each with its games, left-early and absent
// counts, at 1280x800 and at 390x844 without sideways scrolling.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE, SHOTS, launch, ready } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

const GAME = "mau-mau-vampires";
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];

/** A Connect unary call in JSON, with an account's credential when given. */
async function call(method, body, token) {
  const response = await fetch(`${BASE}/referee.v1.RefereeService/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** A rated game that `present` took its seat of and `absent` never did: over at the deadline. */
async function rateAnAbsence(present, absent) {
  const seatRequests = [present.name, absent.name].map((player) => ({ mode: "SEAT_MODE_RESERVED", player }));
  const { gameId } = await call("CreateGame", { gameType: GAME, players: 2, rated: true, joinDeadlineMs: 500, seatRequests });
  await call("ClaimSeat", { gameId }, present.token);
  const deadline = Date.now() + 60000;
  while (!(await call("GetGame", { gameId })).game.gameOver) {
    assert.ok(Date.now() < deadline, "the join deadline did not end the game");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The counts of a ratings row: games, left early, absent. */
async function counts(row) {
  const cells = await row.locator("td").allInnerTexts();
  return cells.slice(-3).map(Number);
}

test("ratings with games, left early and absences, and each game's leaderboard, on the home page", async () => {
  const stamp = Date.now().toString(36);
  const register = async (name) => ({ name, token: (await call("Register", { name, kind: "PLAYER_KIND_PERSON" })).token });
  const present = await register(`here-${stamp}`);
  const absent = await register(`away-${stamp}`);
  await rateAnAbsence(present, absent);
  const { ratings: top } = await call("GetLeaderboard", { gameType: GAME, limit: 10 });
  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}x${viewport.height}`;
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${BASE}/#/`);
    await ready(page);
    await page.locator("#player-name").fill(present.name);
    await page.locator("#player-token").fill(present.token);
    await page.locator(".sign-in-form button[type=submit]").click();
    await page.locator(`.sign-in[data-player="${present.name}"]`).waitFor();
    const panel = page.locator("details.ratings");
    await panel.locator("summary").click();
    // The signed-in player's own: one rated game, which the other player never came to.
    const mine = panel.locator(`.my-ratings tr[data-game-type="${GAME}"]`);
    await mine.waitFor({ timeout: 30000 });
    assert.deepEqual(await counts(mine), [1, 0, 0], size);
    // Anyone's, by name: the absence shows.
    await panel.locator("#ratings-player").fill(absent.name);
    await panel.locator(".ratings-lookup button").click();
    const theirs = panel.locator(`.player-ratings tr[data-game-type="${GAME}"]`);
    await theirs.waitFor({ timeout: 30000 });
    assert.deepEqual(await counts(theirs), [1, 0, 1], size);
    // The game's leaderboard, best first, as the server ranks it, with the same counts.
    await panel.locator("#leaderboard-game").selectOption(GAME);
    const rows = panel.locator(".leaderboard tbody tr");
    await rows.first().waitFor({ timeout: 30000 });
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-player")));
    assert.deepEqual(shown, top.map((r) => r.player), size);
    for (const [i, r] of top.entries()) {
      assert.deepEqual(await counts(rows.nth(i)), [r.games ?? 0, r.leftEarly ?? 0, r.absences ?? 0], `${size} ${r.player}`);
    }
    await panel.locator(".leaderboard table").scrollIntoViewIfNeeded();
    const seen = await page.evaluate(() => {
      const box = document.querySelector("details.ratings").getBoundingClientRect();
      const cut = [...document.querySelectorAll("details.ratings .scroll")].filter((s) => s.scrollWidth > s.clientWidth + 1);
      return { scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth, right: box.right, cut: cut.length };
    });
    assert.equal(seen.cut, 0, `${size}: a ratings table is cut at the right`);
    assert.ok(seen.scrollWidth <= seen.width, `${size}: the page scrolls sideways (${seen.scrollWidth} > ${seen.width})`);
    assert.ok(seen.right <= seen.width, `${size}: the ratings panel is wider than the screen (${seen.right})`);
    await panel.screenshot({ path: `${SHOTS}/ratings-${size}.png` });
    assert.deepEqual(errors, []);
    await context.close();
  }
});
