// A finished game replayed step by step from its log, as a spectator and, with the
// organiser token the creator's browser keeps, as one seat.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE, createFromHome, launch, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("replay a finished game", async () => {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const { gameId } = await createFromHome(page, "sleeping-queens", {
    players: 2, roles: { 0: "bot", 1: "bot" },
  });
  await page.locator("table.results").waitFor({ timeout: 120000 });
  const total = await page.locator("ol.log li").count();
  await page.goto(`${BASE}/?botDelay=0#/replay/${gameId}`);
  await ready(page);
  const step = page.locator("p.step");
  assert.match(await step.innerText(), new RegExp(`^Event 1 of ${total}: `));
  await page.keyboard.press("End");
  assert.match(await step.innerText(), new RegExp(`^Event ${total} of ${total}: `));
  await page.locator("table.results").waitFor();
  await page.getByRole("button", { name: "previous" }).click();
  assert.match(await step.innerText(), new RegExp(`^Event ${total - 1} of ${total}: `));
  await page.keyboard.press("Home");
  await page.getByRole("button", { name: "next" }).click();
  assert.match(await step.innerText(), /^Event 2 of /);
  assert.equal(await page.locator("[data-hand]").count(), 0); // the spectator's replay
  await shot(page, "replay-spectator");
  // The organiser's replay of seat 1 shows that seat's hand.
  await page.locator("a", { hasText: "seat 1" }).click();
  await ready(page);
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowLeft");
  assert.equal(await page.locator("[data-hand]").count(), 1);
  await shot(page, "replay-seat-1");
  await page.close();
});
