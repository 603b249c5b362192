// A newcomer's first game, one click from the home page: a game of any type against the
// server's own bots (ListGameTypesResponse.house_bots), at a strength the page describes in the
// server's words (HouseBot.description). A server that runs none says so, and the game is
// played against bots in this tab instead. Also the seat requests both this and the new-game
// form send, and the choice of a bot account for each server-bot seat.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { problem } from "./api";
import { h } from "./dom";
import { SeatMode, type CreateGameRequestSchema, type GameType, type HouseBot, type SeatRequestSchema } from "./gen/referee/v1/referee_pb";
import { botLevels } from "./lobby";
import { player } from "./store";

export type CreateRequest = MessageInitShape<typeof CreateGameRequestSchema>;
type SeatRequest = MessageInitShape<typeof SeatRequestSchema>;

/** Reserves an account of the chosen strength for each server-bot seat: a level is played by
 * several accounts (an account holds one seat of a game), taken in the order the server lists
 * them, past those a seat names itself. Throws, in words, when a level has too few. */
export function pickBots(levels: (string | null)[], named: string[], bots: HouseBot[]): (string | null)[] {
  const used = new Set(named);
  return levels.map((level) => {
    if (level === null) return null;
    const free = bots.find((b) => b.level === level && !used.has(b.player));
    if (!free) {
      const count = bots.filter((b) => b.level === level).length;
      throw new Error(`This server runs ${count} ${level} bot${count === 1 ? "" : "s"}: choose another strength for the other seats.`);
    }
    used.add(free.player);
    return free.player;
  });
}

/** What each seat's role asks the referee for ("me", "bot": a seat whose token comes back to
 * this browser; "server-bot", "player": reserved for a name; else open). None at all when
 * every seat comes back to this browser (the creator then holds every token). */
export function seatRequestsFor(roles: string[], picked: (string | null)[], named: string[]): SeatRequest[] {
  if (roles.every((r) => r === "me" || r === "bot")) return [];
  const signedIn = player() !== null;
  return roles.map((r, s) => {
    if (r === "me") return { mode: signedIn ? SeatMode.CREATOR : SeatMode.UNSPECIFIED };
    if (r === "bot") return { mode: SeatMode.UNSPECIFIED };
    if (r === "server-bot") return { mode: SeatMode.RESERVED, player: picked[s] ?? "" };
    if (r === "player") return { mode: SeatMode.RESERVED, player: named[s] };
    return { mode: SeatMode.OPEN };
  });
}

/** The seats of a first game: the fewest the game allows, at least two. */
function seatsOf(type: GameType): number {
  return Math.min(type.maxPlayers, Math.max(2, type.minPlayers));
}

/** "Play now": a button per game type that creates a game against the server's bots (of the
 * strength chosen above the buttons) and goes to its table. */
export function quickPlay(
  types: GameType[], bots: HouseBot[], create: (request: CreateRequest, roles: string[]) => Promise<string>,
): HTMLElement {
  const levels = botLevels(bots);
  const status = h("p", { role: "status", class: "quick-status" });
  const level = h("select", { id: "quick-level", name: "level" },
    ...levels.map((l, i) => h("option", { value: l.level, selected: i === 0 }, l.level))) as HTMLSelectElement;
  const describe = h("p", { class: "level-words" });
  const words = () => (describe.textContent = levels.find((l) => l.level === level.value)?.description ?? "");
  level.addEventListener("change", words);
  words();
  const start = async (type: GameType, button: HTMLButtonElement) => {
    button.disabled = true;
    status.textContent = "";
    const n = seatsOf(type);
    const roles = Array.from({ length: n }, (_, s) => (s === 0 ? "me" : levels.length ? "server-bot" : "bot"));
    try {
      const picked = pickBots(roles.map((r) => (r === "server-bot" ? level.value : null)), [], bots);
      location.hash = await create({ gameType: type.gameType, players: n, seatRequests: seatRequestsFor(roles, picked, []) }, roles);
    } catch (error) {
      status.textContent = problem(error).message;
      button.disabled = false;
    }
  };
  const buttons = types.map((type) => {
    const others = seatsOf(type) - 1;
    const against = levels.length ? `${others === 1 ? "a bot" : `${others} bots`}` : `${others === 1 ? "a bot" : `${others} bots`} in this tab`;
    const button = h("button", { type: "button", class: "quick-play", "data-game": type.gameType }, `▶ ${type.name}`,
      h("small", {}, ` against ${against}`)) as HTMLButtonElement;
    button.addEventListener("click", () => void start(type, button));
    return button;
  });
  return h("section", { class: "play-now" },
    h("h2", {}, "Play now"),
    levels.length
      ? h("p", { class: "level-pick" }, h("label", { for: "quick-level" }, "Opponents, the server's bots: "), level)
      : h("p", { class: "no-house-bots" },
          "This server runs no bots of its own (started without --house-bots): these games are against bots in this tab."),
    levels.length ? describe : null,
    h("div", { class: "quick-buttons" }, ...buttons),
    status);
}
