// Each of the four games played to the end from the page: the test clicks (or presses the
// number key of) the person's choices at seat 0, bots play the other seats.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OUTCOME, SHOTS, createFromHome, endBanner, launch, listGameTypes, logSequences, playToEnd, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

// The rule-id prefix of each game's rules page (docs/rules/): the rule that ended it is one.
const PREFIX = { "vampire-queen": "VQ", "sleeping-queens": "SQ", "dracula-vs-van-helsing": "DV", "mau-mau-vampires": "MM" };

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
    // The end in words (View.end_reason): how this seat did, why the game ended and by
    // which rule, each seat's result; the score column says what the score counts.
    const { banner, headline, rule, results, scoreHeading } = await endBanner(page);
    assert.match(headline, OUTCOME);
    assert.match(rule, new RegExp(`^${PREFIX[gameType]}-\\d+$`));
    assert.ok(headline.endsWith(`(${rule})`), headline);
    assert.equal(results.length, setup.players);
    assert.equal(results.filter((line) => line.includes("(you)")).length, 1, results.join(" | "));
    const meaning = (await listGameTypes()).gameTypes.find((t) => t.gameType === gameType).scoreMeaning;
    assert.ok(meaning, "the server says what the score counts");
    assert.equal(scoreHeading, `Score: ${meaning}`);
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
