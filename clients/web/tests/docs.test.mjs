// The minimal page of docs/clients.md ("From the browser") works as written.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { BASE, launch, shot } from "./browser.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("the minimal page of docs/clients.md plays", async () => {
  const doc = readFileSync(new URL("../../../docs/clients.md", import.meta.url), "utf8");
  const html = doc.split("### A minimal page")[1].match(/```html\n([\s\S]*?)```/)[1];
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // Served from the referee's own origin, as the section says.
  await page.route(`${BASE}/minimal.html`, (route) => route.fulfill({ contentType: "text/html", body: html }));
  await page.goto(`${BASE}/minimal.html`);
  await page.waitForFunction(() => document.querySelectorAll("#log li").length >= 5);
  assert.match(await page.locator("#log").innerText(), /seat 0 is dealt \d/);
  const choices = page.locator("#choices button");
  if (await choices.count()) {
    const before = await page.locator("#log li").count();
    assert.ok((await choices.first().innerText()).length > 0);
    await choices.first().click();
    await page.waitForFunction((n) => document.querySelectorAll("#log li").length > n, before);
  }
  await shot(page, "docs-minimal-page");
  assert.deepEqual(errors, []);
  await page.close();
});

test("every game's rules page renders on the home page", async () => {
  const page = await browser.newPage();
  await page.goto(`${BASE}/#/`);
  for (const [game, prefix] of [["vampire-queen", "VQ"], ["sleeping-queens", "SQ"],
    ["dracula-vs-van-helsing", "DV"], ["mau-mau-vampires", "MM"]]) {
    const section = page.locator(`#type-${game}`);
    await section.locator("summary", { hasText: "Rules" }).click();
    await section.locator(".rules").waitFor();
    assert.match(await section.locator(".rules").innerText(), new RegExp(`${prefix}-1\\b`));
  }
  await shot(page, "home-rules");
  await page.close();
});
