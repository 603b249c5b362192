// A click the referee refuses shows its message with the rule id. Two pages hold seat 0;
// the second never receives the stream (blocked), so its choices go stale after the first
// page plays on its table; the second's click in the list of choices (the folded fallback) is
// then refused by the rules (not that seat's turn any more).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createFromHome, launch, playChoice, ready, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("a refused click shows the rule id", async () => {
  const first = await browser.newPage();
  // Slow bots (3 s a move): once seat 0 has played, the others take seconds to come back to it.
  const { gameId } = await createFromHome(first, "vampire-queen", { players: 3, options: { rounds: "1" }, botDelay: 3000 });
  // The second browser plays the same seat by its token (#/play/GAME/TOKEN: a hot-seat link).
  const token = await first.evaluate((id) => JSON.parse(localStorage.getItem(`referee:game:${id}`)).tokens[0], gameId);
  await first.waitForFunction(() => window.__referee.choices.length > 0, null, { timeout: 60000 });
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const second = await context.newPage();
  await second.route("**/referee.v1.RefereeService/StreamGame", (route) => route.abort());
  await second.goto(first.url().replace(/#.*$/, `#/play/${gameId}/${token}`));
  await ready(second);
  await second.locator(".choice-list summary").click();
  await second.locator("button.choice:enabled").first().waitFor();
  await playChoice(first, (await first.evaluate(() => window.__referee.choices))[0]);
  await second.locator("button.choice:enabled").first().click();
  const alert = second.locator(".alert[data-rule-id]");
  await alert.waitFor();
  const rule = await alert.getAttribute("data-rule-id");
  assert.match(rule, /^VQ-\d+$/);
  assert.match(await alert.innerText(), new RegExp(`^Refused: ${rule}: `));
  await shot(second, "rejected-click");
  await context.close();
  await first.close();
});
