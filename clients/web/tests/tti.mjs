// Time from opening a seat's join link to an interactive table (`make bench`, P9): a game is
// created over HTTP, then a fresh page opens the link; printed as one JSON line.
import { BASE, launch } from "./browser.mjs";

const created = await (await fetch(`${BASE}/referee.v1.RefereeService/CreateGame`, {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ gameType: "vampire-queen", players: 3 }),
})).json();
const token = created.seats.find((s) => (s.seat ?? 0) === 0).token;
const browser = await launch();
const samples = [];
for (let i = 0; i < 5; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const started = Date.now();
  await page.goto(`${BASE}/#/play/${created.gameId}/${token}`);
  await page.waitForFunction(() => window.__referee?.ready && document.querySelector(".table"));
  samples.push(Date.now() - started);
  await context.close();
}
await browser.close();
samples.sort((a, b) => a - b);
console.log(JSON.stringify({ tti_ms_median: samples[2], tti_ms_samples: samples }));
