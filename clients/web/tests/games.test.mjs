// Each of the four games played to the end from the page: the test clicks (or presses the
// number key of) the person's choices at seat 0, bots play the other seats.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SHOTS, createFromHome, launch, logSequences, playToEnd, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

const GAMES = [
  ["vampire-queen", { players: 3, options: { rounds: "1" } }, { width: 1000, height: 900 }],
  ["sleeping-queens", { players: 3 }, { width: 1000, height: 900 }],
  ["dracula-vs-van-helsing", { players: 2 }, { width: 1000, height: 900 }],
  // A phone-sized viewport for one game.
  ["mau-mau-vampires", { players: 3, options: { hands: "1" } }, { width: 390, height: 844 }],
];

for (const [gameType, setup, viewport] of GAMES) {
  test(`${gameType}: a person plays a whole game against bots from the page`, async () => {
    const page = await browser.newPage({ viewport });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await createFromHome(page, gameType, setup);
    await shot(page, `${gameType}-start`);
    // The game's lines of the view, above the facts: the seat's cards by their names.
    const lines = await page.locator("[data-view-lines] li").allTextContents();
    assert.ok(lines.some((line) => /^your hand: |\(seat 0\): /.test(line)), lines.join("\n"));
    const made = await playToEnd(page);
    assert.ok(made > 0, "the person made no choice");
    await page.locator("table.results").waitFor();
    // The end in words: who won, with what score, and the referee's words for the end.
    const banner = page.locator(".end-banner");
    assert.match(await banner.innerText(), /You won|You tied|wins|win with/);
    await shot(page, `${gameType}-end`);
    await banner.screenshot({ path: `${SHOTS}/${gameType}-end-banner.png` });
    // The log is every event once, in order (the stream never skips or repeats).
    await page.waitForFunction(() => document.querySelectorAll("ol.log li").length > 0);
    const sequences = await logSequences(page);
    assert.deepEqual(sequences, sequences.map((_, i) => i + 1));
    assert.deepEqual(errors, []);
    await page.close();
  });
}
