// A reload mid-game resumes from the last sequence the page had: no gap, no duplicate.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createFromHome, launch, logSequences, playChoice, playToEnd, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("reload mid-game resumes by sequence", async () => {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await createFromHome(page, "vampire-queen", { players: 3, options: { rounds: "1" } });
  // A few choices in, then reload.
  for (let i = 0; i < 3; i++) {
    await page.waitForFunction(() => window.__referee.choices.length > 0, null, { timeout: 60000 });
    await playChoice(page, (await page.evaluate(() => window.__referee.choices))[0]);
  }
  const before = await logSequences(page);
  assert.ok(before.length > 5);
  await page.reload();
  await ready(page);
  await page.waitForFunction((n) => document.querySelectorAll("ol.log li").length >= n, before.length);
  // One snapshot of the page (its log and what the stream sent since the reload): the bots
  // may have moved between reading `before` and the reload, so the page may have kept more.
  const { probe, shown } = await page.evaluate(() => ({
    probe: window.__referee,
    shown: [...document.querySelectorAll("ol.log li")].map((li) => Number(li.dataset.seq)),
  }));
  assert.equal(probe.duplicates, 0);
  const kept = shown.length - probe.received.length; // lines the page restored itself
  assert.ok(kept >= before.length, `kept ${kept} of ${before.length}`);
  assert.deepEqual(shown.slice(0, before.length), before);
  const stored = shown[kept - 1];
  // Whatever the stream sent after the reload starts right after what the page had kept.
  if (probe.received.length) assert.equal(probe.received[0], stored + 1);
  assert.ok(probe.received.every((seq) => seq > stored), `resent ${probe.received}`);
  await shot(page, "reload-after");
  await playToEnd(page);
  const sequences = await logSequences(page);
  assert.deepEqual(sequences, sequences.map((_, i) => i + 1));
  assert.equal((await page.evaluate(() => window.__referee)).duplicates, 0);
  await page.close();
});
