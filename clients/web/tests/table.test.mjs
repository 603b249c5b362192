// The table drawn with cards (src/table.ts, src/cards.ts), for each of the four games, in a
// hot-seat game (this browser holds every seat, so nothing moves unless the test does):
// - the seat's hand as SVG cards whose aria-labels are the hand's text chips, and the same
//   cards the server's own words name ("your hand: ..." of View.view_lines);
// - the other seats' hands only as face-down cards, as many as the seat table says, and no
//   card of theirs (read from their own page) anywhere on this seat's page;
// - after a move, the last-move highlight on the card just played;
// - screenshots on a desktop and on a 390x844 phone, where the page does not overflow.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createFromHome, launch, playChoice, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

const DESKTOP = { width: 1100, height: 900 };
const PHONE = { width: 390, height: 844 };

/** The aria-labels of the seat's own cards on the drawn table, in order. */
async function handLabels(page) {
  return page.locator(".felt svg[data-hand-card]").evaluateAll((svgs) => svgs.map((s) => s.getAttribute("aria-label")));
}

/** The server's lines of the view, unwrapped (a wrapped line goes on indented by two). */
async function viewText(page) {
  const lines = await page.locator("[data-view-lines] li").allTextContents();
  return lines.map((line) => line.trim()).join(" ");
}

async function lastMoveLabels(page, within = ".felt") {
  return page.locator(`${within} .last-move[aria-label], ${within} .last-move [aria-label]`)
    .evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
}

async function goSeat(page, gameId, seat) {
  await page.evaluate((hash) => (location.hash = hash), `#/seat/${gameId}/${seat}`);
  await page.waitForFunction((s) => document.querySelector("h1")?.textContent?.includes(`seat ${s}`), seat);
  await ready(page);
  await page.locator(".felt").waitFor();
}

/** The seat whose decision the game waits for. */
async function asked(page) {
  return Number(await page.locator(".seats-table tr.asked").first().getAttribute("data-seat"));
}

/** The hand sizes column of the seat table, by seat. */
async function handSizes(page) {
  const headers = await page.locator(".seats-table thead th").allTextContents();
  const column = headers.indexOf("Hand sizes");
  assert.ok(column >= 0, headers.join("|"));
  return page.locator(".seats-table tbody tr").evaluateAll((rows, c) => rows.map((r) => Number(r.children[c].textContent)), column);
}

// Each game's cards in the server's words, from the aria-labels (labels.py of each game).
const SERVER_WORDS = {
  "vampire-queen": (labels) => "your hand: " + labels.map((l) => (l === "queen" ? "Q" : l.replace(/^(\d+) Hunter$/, "H$1"))).join(" "),
  "sleeping-queens": (labels) => "your hand: " + labels.join(" "),
  "mau-mau-vampires": (labels) => {
    // The server names a hand by colour, each colour once, then the special cards.
    const colours = new Map();
    const specials = new Map();
    for (const label of labels) {
      const [colour, ...symbol] = label.split(" ");
      if (symbol.length) colours.set(colour, [...(colours.get(colour) ?? []), symbol.join(" ")]);
      else specials.set(`a ${label}`, (specials.get(`a ${label}`) ?? 0) + 1);
    }
    const parts = [...colours].map(([colour, names]) => `${colour} ${names.join(" ")}`);
    const others = [...specials].map(([name, n]) => (n === 1 ? name : `${name} x${n}`));
    return "your hand: " + [...parts, ...(others.length ? [others.join(", ")] : [])].join("; ");
  },
  "dracula-vs-van-helsing": (labels) => labels.map((l, i) => `${i + 1}:${dvShort(l)}`).join(" "),
};

function dvShort(label) {
  const [colour, value] = label.split(" ");
  return `${{ yellow: "Y", blue: "B", red: "R", purple: "P" }[colour]}${value}`;
}

// Cards no two of which are alike: a label of another seat's hand may appear nowhere else.
function unique(gameType, label) {
  if (gameType === "dracula-vs-van-helsing") return true;
  if (gameType === "mau-mau-vampires") return label.includes(" ");
  return false;
}

/** The first of the page's choices whose label matches (the choices the page plays on its
 * table: window.__referee.choices), or undefined. */
async function choiceLabelled(page, pattern) {
  await page.waitForFunction(() => window.__referee.choices.length > 0);
  const choices = await page.evaluate(() => window.__referee.choices);
  return choices.find((c) => pattern.test(c.label));
}

/** Makes one move at the page's seat on the drawn table (its cards, then its target) and
 * returns the label of the card it puts on the table, and where that card must be
 * highlighted. */
const MOVES = {
  async "vampire-queen"(page) {
    const choice = await choiceLabelled(page, /play one (\d+|queen)$/);
    const value = choice.label.match(/play one (\d+|queen)$/)[1];
    await playChoice(page, choice);
    return { label: value, where: ".zone-trick" };
  },
  async "sleeping-queens"(page) {
    const pattern = /discard an? (\d+|King|Jester|Knight|Sleeping Potion|Wand|Dragon) and draw$/;
    const choice = await choiceLabelled(page, pattern);
    await playChoice(page, choice);
    return { label: choice.label.match(pattern)[1], where: ".zone-discard" };
  },
  async "mau-mau-vampires"(page) {
    const pattern = /play ((red|blue|green|purple) [a-z]+)$/;
    const play = await choiceLabelled(page, pattern);
    if (play) {
      await playChoice(page, play);
      return { label: play.label.match(pattern)[1], where: ".zone-discard" };
    }
    // Nothing to play: the card drawn is the last move, in the hand and beside the deck.
    await playChoice(page, await choiceLabelled(page, /^draw a card$/));
    const drawn = (await viewText(page)).match(/drawn: (a Clock|a Werewolf|[a-z]+ [a-z]+)/)[1].replace(/^a /, "");
    return { label: drawn, where: ".zone-drawn" };
  },
  async "dracula-vs-van-helsing"(page) {
    // Drawn by picking the deck on the table.
    await playChoice(page, await choiceLabelled(page, /^draw a card$/));
    const drawnLabel = await page.locator(".zone-drawn svg").getAttribute("aria-label");
    assert.deepEqual(await lastMoveLabels(page, ".zone-drawn"), [drawnLabel]);
    const discard = await choiceLabelled(page, /^discard the drawn card/);
    if (discard) {
      await playChoice(page, discard);
      return { label: drawnLabel, where: ".zone-discard" };
    }
    // DV-8: no 8 is thrown away before the pile holds 6 cards; it goes into district 1.
    await playChoice(page, await choiceLabelled(page, /^place the drawn card in district 1/));
    return { label: drawnLabel, where: ".dv-grid" };
  },
};

const GAMES = [
  ["vampire-queen", { players: 3, options: { rounds: "1" } }],
  ["sleeping-queens", { players: 3 }],
  ["dracula-vs-van-helsing", { players: 2 }],
  ["mau-mau-vampires", { players: 3, options: { hands: "1" } }],
];

for (const [gameType, setup] of GAMES) {
  test(`${gameType}: the table is drawn with cards, hides the others' hands and marks the last move`, async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const roles = Object.fromEntries(Array.from({ length: setup.players - 1 }, (_, i) => [i + 1, "me"]));
    const { gameId } = await createFromHome(page, gameType, { ...setup, roles });
    const seat = await asked(page);
    await goSeat(page, gameId, seat);

    // The hand: SVG cards, named as the text chips and as the server's own words name them.
    const labels = await handLabels(page);
    assert.ok(labels.length >= 5, `hand: ${labels}`);
    assert.deepEqual(labels, await page.locator("[data-hand] .card").allTextContents());
    assert.ok((await viewText(page)).includes(SERVER_WORDS[gameType](labels)), `${SERVER_WORDS[gameType](labels)}\n${await viewText(page)}`);
    for (const svg of await page.locator(".felt svg").all()) {
      assert.equal(await svg.getAttribute("role"), "img");
      assert.ok(await svg.getAttribute("aria-label"));
    }

    // The other seats: only backs, as many as their hands hold; none of their cards here.
    const sizes = gameType === "dracula-vs-van-helsing" ? [] : await handSizes(page);
    const others = Array.from({ length: setup.players }, (_, s) => s).filter((s) => s !== seat);
    const theirs = [];
    for (const other of others) {
      const box = page.locator(`.felt .seat-box[data-seat="${other}"]`).first();
      if (gameType === "dracula-vs-van-helsing") {
        // The opponent's rack: 5 cards face down (none revealed before the first move).
        assert.equal(await page.locator(".dv-grid .dv-cell.top svg.card-back").count(), 5);
        assert.equal(await page.locator(".dv-grid .dv-cell.top svg.card-face").count(), 0);
      } else {
        const stack = box.locator("svg.card-stack");
        assert.match(await stack.getAttribute("aria-label"), new RegExp(`: ${sizes[other]} face-down cards?$`));
        // Face cards among the other seats are only public ones: queens awake (SQ-1).
        const faces = await box.locator("svg.card-face").evaluateAll((s) => s.map((e) => e.getAttribute("aria-label")));
        assert.ok(faces.every((f) => gameType === "sleeping-queens" && / Queen$/.test(f)), `seat ${other}: ${faces}`);
      }
    }
    for (const other of others) {
      await goSeat(page, gameId, other);
      theirs.push(...(await handLabels(page)).filter((label) => unique(gameType, label)));
    }
    await goSeat(page, gameId, seat);
    if (gameType === "mau-mau-vampires" || gameType === "dracula-vs-van-helsing") assert.ok(theirs.length > 0);
    const named = await page.locator("[aria-label]").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
    const text = await page.locator("body").innerText();
    for (const label of theirs) {
      assert.ok(!named.includes(label), `${label} of another seat is drawn on seat ${seat}'s page`);
      assert.ok(!text.includes(label), `${label} of another seat is named on seat ${seat}'s page`);
      if (gameType === "dracula-vs-van-helsing") assert.ok(!new RegExp(`\\b${dvShort(label)}\\b`).test(text), dvShort(label));
    }

    // A move: the card played gets the highlight, and the newest log line is marked.
    const lit = await lastMoveLabels(page);
    const { label, where } = await MOVES[gameType](page);
    const now = await lastMoveLabels(page, where);
    assert.ok(now.includes(label), `${label} is not highlighted in ${where}: ${now} (before: ${lit})`);
    assert.ok(await page.locator(`${where} .last-move`).count() > 0);
    assert.equal(await page.locator("ol.log li.newest").count(), 1);
    assert.equal(await page.locator("ol.log li").last().getAttribute("class"), "newest");
    // The newest event that tells something is beside the controls too.
    const latest = await page.locator("ol.log li:not([data-bookkeeping])").last().textContent();
    assert.equal(await page.locator(".actions .latest-event").innerText(), latest);
    await shot(page, `table-${gameType}-desktop`);

    // A phone: the same table, nothing wider than the screen.
    await page.setViewportSize(PHONE);
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      `the page is wider than the phone: ${await page.evaluate(() => document.documentElement.scrollWidth)}`);
    const card = await page.locator(".felt svg[data-hand-card]").first().boundingBox();
    assert.ok(card.width >= 44, `hand cards ${card.width}px wide on a phone`);
    await shot(page, `table-${gameType}-phone`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
