// Ratings on the home page, folded: the signed-in player's own (GetRatings), any player's by
// name, and each game's leaderboard (GetLeaderboard). Beside each rating, how many rated
// games it counts and how many of them the player left early or never came to
// (Rating.left_early, Rating.absences): a rating earned by dodging shows it.
import { api, auth, problem } from "./api";
import { h } from "./dom";
import type { GameType, Rating } from "./gen/referee/v1/referee_pb";
import { player } from "./store";

/** Leaderboard rows shown per game. */
const LEADERBOARD_SIZE = 10;

/** "12 games · 1 left early · 2 absent": what a rating counts. */
export function ratingCounts(r: Rating): string {
  return `${r.games} game${r.games === 1 ? "" : "s"} · ${r.leftEarly} left early · ${r.absences} absent`;
}

/** A table of ratings: `first` is the column that tells them apart (the game, or the player). */
function ratingTable(ratings: Rating[], first: "game" | "player", names: Map<string, string>, ranked = false): HTMLElement {
  const head = first === "game" ? "Game" : "Player";
  return h("div", { class: "scroll" }, h("table", { class: "ratings-table" },
    h("thead", {}, h("tr", {}, ranked ? h("th", {}, "#") : null, h("th", {}, head), h("th", {}, "Rating"),
      h("th", {}, "Games"), h("th", {}, "Left early"), h("th", {}, "Absent"))),
    h("tbody", {}, ...ratings.map((r, i) => h("tr", { "data-player": r.player, "data-game-type": r.gameType },
      ranked ? h("td", { class: "num" }, String(i + 1)) : null,
      h("td", {}, first === "game" ? names.get(r.gameType) ?? r.gameType : r.player),
      h("td", { class: "num", title: `mu ${r.mu.toFixed(1)}, sigma ${r.sigma.toFixed(1)}` }, r.ordinal.toFixed(2)),
      h("td", { class: "num" }, String(r.games)), h("td", { class: "num", "data-left-early": "" }, String(r.leftEarly)),
      h("td", { class: "num", "data-absences": "" }, String(r.absences)))))));
}

/** A player's ratings, one row per game played rated (the caller's own when `name` is empty). */
async function playerRatings(name: string, names: Map<string, string>, into: HTMLElement): Promise<void> {
  into.replaceChildren(h("p", {}, "Loading…"));
  try {
    const { ratings } = await api.getRatings({ player: name }, name ? {} : auth());
    into.replaceChildren(ratings.length
      ? ratingTable(ratings, "game", names)
      : h("p", {}, `${name || "You"} ${name ? "has" : "have"} played no rated game yet.`));
  } catch (error) {
    into.replaceChildren(h("p", { class: "alert" }, `No ratings: ${problem(error).message}`));
  }
}

/** The best-rated players of one game type. */
async function leaderboard(gameType: string, names: Map<string, string>, into: HTMLElement): Promise<void> {
  into.replaceChildren(h("p", {}, "Loading…"));
  try {
    const { ratings } = await api.getLeaderboard({ gameType, limit: LEADERBOARD_SIZE });
    into.replaceChildren(ratings.length
      ? ratingTable(ratings, "player", names, true)
      : h("p", {}, `No rated ${names.get(gameType) ?? gameType} game has been played yet.`));
  } catch (error) {
    into.replaceChildren(h("p", { class: "alert" }, `No leaderboard: ${problem(error).message}`));
  }
}

/** The home page's ratings panel (folded; asked for when opened). */
export function ratingsPanel(gameTypes: GameType[]): HTMLElement {
  const names = new Map(gameTypes.map((t) => [t.gameType, t.name]));
  const me = player();
  const mine = h("div", { class: "my-ratings" });
  const someone = h("div", { class: "player-ratings", "aria-live": "polite" });
  const who = h("input", { id: "ratings-player", name: "player", placeholder: "a player's name", size: 16, required: true }) as HTMLInputElement;
  const lookUp = h("form", { class: "ratings-lookup" }, h("label", { for: "ratings-player" }, "A player's ratings: "), who, " ",
    h("button", { type: "submit", class: "always" }, "Show"));
  lookUp.addEventListener("submit", (e) => {
    e.preventDefault();
    if (who.value.trim()) void playerRatings(who.value.trim(), names, someone);
  });
  const board = h("div", { class: "leaderboard", "aria-live": "polite" });
  const game = h("select", { id: "leaderboard-game", name: "game" },
    ...gameTypes.map((t) => h("option", { value: t.gameType }, t.name))) as HTMLSelectElement;
  game.addEventListener("change", () => void leaderboard(game.value, names, board));
  const panel = h("details", { class: "ratings" }, h("summary", {}, h("h2", {}, "Ratings and leaderboards")),
    h("p", {}, "Rated games only. Rating: skill less three times its uncertainty; left early: resigned, ",
      "out of time or gone; absent: never took a reserved seat. Both count as losses."),
    me ? h("section", {}, h("h3", {}, `Your ratings (${me.name})`), mine) : null,
    h("section", {}, lookUp, someone),
    h("section", {}, h("h3", {}, h("label", { for: "leaderboard-game" }, "Leaderboard of "), game), board));
  panel.addEventListener("toggle", () => {
    if (!(panel as HTMLDetailsElement).open) return;
    if (me) void playerRatings("", names, mine);
    if (gameTypes.length) void leaderboard(game.value, names, board);
  });
  return panel;
}
