// A seat that resigns is shown as left in every view, never asked again, and its result in
// the end banner says how it ended, as the referee's one result has it (View.seats_left,
// SeatResult.end and end_reason).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createFromHome, endBanner, launch, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("a resigned seat is shown as resigned, never asked, and its result says so", async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await createFromHome(page, "sleeping-queens", { players: 2, roles: { 1: "bot" } });
  const resign = page.locator("button.resign");
  await resign.click();
  await resign.click(); // "Really resign?": the second click resigns
  // From now on the seat is never offered a choice; the referee plays for it to the end.
  await page.locator("table.results").waitFor({ timeout: 120000 });
  const { results } = await endBanner(page);
  const mine = page.locator(".end-results li[data-end='resigned']");
  assert.equal(await mine.count(), 1, results.join(" | "));
  assert.match(await mine.innerText(), /\(you\).*resigned/);
  assert.match(await mine.getAttribute("title"), /^You resigned|resigned/);
  assert.equal(await page.locator("table.results tr[data-end='resigned']").count(), 1);
  assert.equal(await page.locator("button.resign").count(), 0);
  await shot(page, "resigned-end");
  assert.deepEqual(errors, []);
  await page.close();
});
