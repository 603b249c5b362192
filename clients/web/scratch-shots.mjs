import { launch, createFromHome, playOnTable, shot } from "./tests/browser.mjs";
const games = (process.env.GAMES ?? "vampire-queen,sleeping-queens,dracula-vs-van-helsing,mau-mau-vampires").split(",");
const sizes = (process.env.SIZES ?? "1280x800,390x844").split(",");
const setups = {
  "vampire-queen": { players: 3, options: { rounds: "1" } },
  "sleeping-queens": { players: 3 },
  "dracula-vs-van-helsing": { players: 2 },
  "mau-mau-vampires": { players: 3, options: { hands: "1" } },
};
const browser = await launch();
for (const game of games) for (const size of sizes) {
  const [width, height] = size.split("x").map(Number);
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const setup = setups[game];
  await createFromHome(page, game, { ...setup, options: { ...(setup.options ?? {}), decision_s: "60" } });
  const t0 = Date.now();
  let made = 0;
  try {
    made = await playOnTable(page, {
      limit: Number(process.env.LIMIT ?? 6),
      pick: (choices) => { const plays = choices.filter((c) => c.hand.length); const from = plays.length && Math.random() < 0.9 ? plays : choices; return from[Math.floor(Math.random() * from.length)]; },
      onDecision: async (p, n) => { if ([0, 3].includes(n)) await p.screenshot({ path: `/tmp/shots/${game}-${size}-${n}.png` }); },
    });
  } catch (e) { console.log(game, size, "ERR", e.message.slice(0, 600)); await shot(page, `${game}-${size}-err`); }
  console.log(game, size, "made", made, "ms", Date.now() - t0, errors);
  await page.close();
}
await browser.close();
