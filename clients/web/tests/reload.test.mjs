// A reload mid-game resumes from the last sequence the page had: no gap, no duplicate.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createFromHome, launch, logSequences, playToEnd, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("reload mid-game resumes by sequence", async () => {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  await createFromHome(page, "vampire-queen", { players: 3, options: { rounds: "1" } });
  // A few choices in, then reload.
  for (let i = 0; i < 3; i++) {
    const choice = page.locator("button.choice:enabled").first();
    await choice.waitFor({ timeout: 60000 });
    const version = await page.locator(".table").getAttribute("data-version");
    await choice.click();
    await page.waitForFunction((v) => document.querySelector(".table")?.getAttribute("data-version") !== v, version);
  }
  const before = await logSequences(page);
  assert.ok(before.length > 5);
  await page.reload();
  await ready(page);
  await page.waitForFunction((n) => document.querySelectorAll("ol.log li").length >= n, before.length);
  const probe = await page.evaluate(() => window.__referee);
  assert.equal(probe.duplicates, 0);
  const stored = before[before.length - 1];
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
