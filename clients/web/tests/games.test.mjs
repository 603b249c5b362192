// Each of the four games played to the end on the drawn table, at 1280x800 and at 390x844: the
// test picks cards in the hand and then the targets on the table (or, where the table draws
// no such thing, the button beside it), never the list of choices. At every decision the
// table, the deciding seat's clock and every enabled control are on screen (onScreen), and the
// page never scrolls sideways. The opponents are the server's house bots, so the log, the
// banner and the table name players, not seats.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OUTCOME, SHOTS, createFromHome, endBanner, launch, listGameTypes, logSequences, playOnTable, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

// The rule-id prefix of each game's rules page (docs/rules/): the rule that ended it is one.
const PREFIX = { "vampire-queen": "VQ", "sleeping-queens": "SQ", "dracula-vs-van-helsing": "DV", "mau-mau-vampires": "MM" };

const GAMES = [
  ["vampire-queen", { players: 3, options: { rounds: "1" } }],
  ["sleeping-queens", { players: 3 }],
  ["dracula-vs-van-helsing", { players: 2 }],
  ["mau-mau-vampires", { players: 3, options: { hands: "1" } }],
];
const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];

/** Mostly a choice that plays cards from the hand (a game ends sooner than at random). */
function preferPlays(choices) {
  const plays = choices.filter((c) => c.hand.length);
  const from = plays.length && Math.random() < 0.9 ? plays : choices;
  return from[Math.floor(Math.random() * from.length)];
}

for (const [gameType, setup] of GAMES) {
  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}x${viewport.height}`;
    test(`${gameType} at ${size}: a whole game played on the drawn table against house bots`, async () => {
      const page = await browser.newPage({ viewport });
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const roles = Object.fromEntries(Array.from({ length: setup.players - 1 }, (_, i) => [i + 1, "server-bot"]));
      await createFromHome(page, gameType, { ...setup, roles, options: { ...setup.options, decision_s: "120" } });
      const opponents = await page.locator(".felt .seat-box:not(.mine) .seat-player").allInnerTexts();
      assert.ok(opponents.every((name) => name.startsWith("house-")), opponents.join(", "));
      const made = await playOnTable(page, {
        pick: preferPlays,
        onDecision: async (p, n) => {
          if (n === 4) await p.screenshot({ path: `${SHOTS}/${gameType}-${size}-mid-play.png` });
        },
      });
      assert.ok(made > 0, "the person made no choice");
      await page.locator("table.results").waitFor();
      // The end in words (View.end_reason): how this seat did, why the game ended and by
      // which rule, each seat's result by name; the score column says what the score counts.
      const { banner, headline, rule, results, scoreHeading } = await endBanner(page);
      assert.match(headline, OUTCOME);
      assert.match(rule, new RegExp(`^${PREFIX[gameType]}-\\d+$`));
      assert.ok(headline.endsWith(`(${rule})`), headline);
      assert.equal(results.length, setup.players);
      assert.equal(results.filter((line) => line.includes("(you)")).length, 1, results.join(" | "));
      for (const name of opponents) assert.ok(results.some((line) => line.includes(name)), `${name}: ${results.join(" | ")}`);
      const meaning = (await listGameTypes()).gameTypes.find((t) => t.gameType === gameType).scoreMeaning;
      assert.equal(scoreHeading, `Score: ${meaning}`);
      await shot(page, `${gameType}-${size}-end`);
      await banner.screenshot({ path: `${SHOTS}/${gameType}-${size}-end-banner.png` });
      // The log: every event once, in order; the house bots by name, no "seat N" of theirs;
      // the bookkeeping folded until asked for.
      const sequences = await logSequences(page);
      assert.deepEqual(sequences, sequences.map((_, i) => i + 1));
      const seatsOf = await page.evaluate(() => [...document.querySelectorAll(".felt .seat-box")].map((b) => [Number(b.dataset.seat), b.querySelector(".seat-player").textContent]));
      const lines = await page.locator("ol.log li").allTextContents();
      for (const [seat, name] of seatsOf) {
        if (!name.startsWith("house-")) continue;
        assert.ok(lines.some((line) => line.includes(name)), `${name} is named in the log`);
        assert.ok(!lines.some((line) => new RegExp(`\\bseat ${seat}\\b`).test(line)), `seat ${seat} (${name}) by number in the log`);
      }
      await page.locator(".log-box summary").click();
      const folded = await page.locator("ol.log li[data-bookkeeping]").count();
      assert.ok(folded > 0, "some events are bookkeeping");
      assert.equal(await page.locator("ol.log li[data-bookkeeping]:visible").count(), 0);
      await page.locator(".log-box input.show-bookkeeping").check();
      assert.equal(await page.locator("ol.log li[data-bookkeeping]:visible").count(), folded);
      assert.deepEqual(errors, []);
      await page.close();
    });
  }
}
