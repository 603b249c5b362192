// The web client: pages by location.hash.
//   #/                        sign in, the lobby (open tables, challenges, pairing), ratings and
//                             leaderboards, game types with their rules and the new-game form,
//                             this browser's games
//   #/join/GAME/SEAT/CODE     a join link: claims the seat with its single-use claim code, so
//                             the seat's token is made for the friend's browser only
//   #/seat/GAME/SEAT          play a seat this browser holds (its token from localStorage)
//   #/play/GAME/TOKEN         play a seat by its token (hot-seat games, old links)
//   #/watch/GAME              spectate (public information only)
//   #/replay/GAME             a game step by step from its log
// Everything drawn comes from the referee's views, labels and event descriptions.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { api, apiBase, auth, backoff, checkReach, gameTypes as knownGameTypes, problem, serverInfo, reach, resumable, sleep, submit, unreachable } from "./api";
import { startBots } from "./bots";
import { h, type Child } from "./dom";
import { endBanner, resultsTable, seatName, you } from "./ending";
import { draw, type GameInfo } from "./games";
import { felt } from "./table";
import { choicesOf, Picker, type Choice } from "./act";
import { GameLog } from "./gamelog";
import { named, playerName } from "./names";
import { pickBots, quickPlay, seatRequestsFor } from "./quickplay";
import { ratingsPanel } from "./ratings";
import {
  SeatState, type CreateGameRequestSchema, type GameType, type HouseBot, type StreamGameResponse, type View,
} from "./gen/referee/v1/referee_pb";
import { botLevels, clockFields, clockFrom, clockWords, holdersText, lobby, signInBox } from "./lobby";
import { holdSeat, Log, player, savedGame, savedGames, saveGame, type SavedGame } from "./store";
import "./style.css";

const app = document.getElementById("app")!;
/** What the browser tests read: sequences received this page load, duplicates dropped;
 * whether the page of `route` (the location's hash it was drawn for) is ready. */
const probe = { received: [] as number[], duplicates: 0, ready: false, route: "", choices: [] as Choice[], sent: 0 };
(window as unknown as { __referee: typeof probe }).__referee = probe;
let leave: AbortController | null = null;

/** Says so, and disables every button, while the server does not answer; a button a
 * redraw makes while it is away is disabled by applyReach() too. */
const offline = h("p", { class: "offline", role: "alert", hidden: true },
  "The server is unreachable: reconnecting… (buttons are off until it answers again)");

function applyReach(): void {
  offline.hidden = reach.ok;
  document.body.classList.toggle("is-offline", !reach.ok);
  for (const b of app.querySelectorAll<HTMLButtonElement>("main button:not(.always)")) {
    if (!reach.ok && !b.disabled) {
      b.disabled = true;
      b.dataset.offline = "";
    } else if (reach.ok && b.dataset.offline !== undefined) {
      b.disabled = false;
      delete b.dataset.offline;
    }
  }
}
reach.listeners.add(applyReach);

function page(title: string, ...children: Child[]): void {
  document.title = `${title} · referee`;
  const me = player();
  app.replaceChildren(
    h("header", {}, h("a", { href: "#/", class: "home" }, "♛ referee"), h("h1", {}, title),
      h("span", { class: "who" }, me ? `signed in as ${me.name}` : "")),
    offline,
    h("main", {}, ...children),
  );
  applyReach();
}

/** Where this browser plays a seat it holds. */
function seatPath(gameId: string, seat: number): string {
  return `#/seat/${gameId}/${seat}`;
}

function link(path: string): string {
  return `${location.origin}${location.pathname}${location.search}#${path}`;
}

// --- home ---------------------------------------------------------------------------------------

// The rules page each game type carries (GameType.rules_text: docs/rules/<game>.md of the
// server's repository), rendered when someone opens it; the Markdown renderer loads then too.
async function rulesOf(type: GameType): Promise<Child> {
  if (!type.rulesText) return h("p", {}, `The rules this server follows: ${type.rulesPath || type.rules}`);
  const { marked } = await import("marked");
  const body = h("div", { class: "rules" });
  body.innerHTML = await marked.parse(type.rulesText); // the server's own rules pages
  return body;
}

function optionInput(name: string, option: GameType["options"][number]): HTMLElement {
  const id = `opt-${name}-${option.name}`;
  const input = option.allowedValues.length
    ? h("select", { id, name: option.name }, ...option.allowedValues.map((v) =>
        h("option", { value: v, selected: v === option.defaultValue }, v)))
    : h("input", {
        id, name: option.name, type: "number", value: option.defaultValue,
        min: option.minimum, max: option.maximum,
      });
  return h("p", {}, h("label", { for: id }, `${option.name}: `), input, h("small", {}, ` ${option.description}`));
}

/** Seat roles of the new-game form, and what each asks the referee for. */
const ROLES: [string, string][] = [
  ["me", "me (this browser)"],
  ["server-bot", "a server bot (by strength)"],
  ["invite", "a friend (a join link with a claim code)"],
  ["player", "a named player (reserved)"],
  ["open", "anyone from the lobby"],
  ["bot", "a random bot in this tab (stops when the tab closes)"],
];

/** Creates a game from a CreateGame request and the form's roles; returns where to go. */
async function createGame(
  request: MessageInitShape<typeof CreateGameRequestSchema>, roles: string[],
): Promise<string> {
  const created = await api.createGame(request, auth());
  // Only this browser's own seats (and its tab-bots') come back with a token: a friend's
  // seat is open, and claimed with its code by the friend's browser.
  const tokens: Record<number, string> = {};
  for (const s of created.seats) tokens[s.seat] = s.token;
  const invites: Record<number, string> = {};
  for (const i of created.invitations) invites[i.seat] = i.claimCode;
  const game: SavedGame = {
    gameId: created.gameId, gameType: request.gameType ?? "", tokens, organiser: created.organiserToken,
    bots: roles.flatMap((r, s) => (r === "bot" ? [s] : [])),
    mine: roles.flatMap((r, s) => (r === "me" ? [s] : [])),
    request, roles, invites,
  };
  saveGame(game);
  return `#/game/${created.gameId}`;
}

function newGameForm(type: GameType, bots: HouseBot[]): HTMLElement {
  const seats = h("fieldset", { class: "seats" }, h("legend", {}, "Seats"));
  const players = h("input", {
    id: `players-${type.gameType}`, name: "players", type: "number",
    min: type.minPlayers, max: type.maxPlayers, value: Math.max(type.minPlayers, Math.min(3, type.maxPlayers)),
  }) as HTMLInputElement;
  // The server's bots (ListGameTypesResponse.house_bots) by strength; a server without them
  // offers no server-bot seat and says so.
  const levels = botLevels(bots);
  const roles = levels.length ? ROLES : ROLES.filter(([value]) => value !== "server-bot");
  const botList = h("datalist", { id: `bots-${type.gameType}` }, ...bots.map((b) => h("option", { value: b.player }, `${b.level}: ${b.description}`)));
  const noBots = levels.length ? null : h("p", { class: "no-house-bots" },
    "This server runs no bots of its own (it was started without --house-bots): a seat can be a friend, anyone from the lobby, or a bot in this tab.");
  const drawSeats = () => {
    const n = Math.max(type.minPlayers, Math.min(type.maxPlayers, Number(players.value) || 0));
    // Seats keep what was chosen for them when the number of players changes.
    const chosen = new Map([...seats.querySelectorAll<HTMLSelectElement | HTMLInputElement>("select, input")].map((s) => [s.name, s.value]));
    seats.replaceChildren(h("legend", {}, "Who plays each seat"), botList, noBots ?? "");
    for (let seat = 0; seat < n; seat++) {
      // The other seats are the server's bots where it runs some, else bots in this tab.
      const role = chosen.get(`seat-${seat}`) ?? (seat === 0 ? "me" : levels.length ? "server-bot" : "bot");
      const id = `seat-${type.gameType}-${seat}`;
      const select = h("select", { name: `seat-${seat}`, id },
        ...roles.map(([value, text]) => h("option", { value, selected: role === value }, text))) as HTMLSelectElement;
      // A server bot by its strength; the account is picked when the game is created.
      const level = h("select", { name: `level-${seat}`, "aria-label": `Seat ${seat}: bot strength` },
        ...levels.map((l) => h("option", { value: l.level, selected: chosen.get(`level-${seat}`) === l.level },
          `${l.level}: ${l.description}`))) as HTMLSelectElement;
      // The player a reserved seat waits for: a person's name (or a bot account's).
      const name = h("input", {
        name: `name-${seat}`, "aria-label": `Seat ${seat}: player name`, list: botList.id, size: 14,
        placeholder: "player name", value: chosen.get(`name-${seat}`) ?? "",
      }) as HTMLInputElement;
      const showName = () => {
        name.hidden = select.value !== "player";
        level.hidden = select.value !== "server-bot";
      };
      select.addEventListener("change", showName);
      showName();
      seats.append(h("p", {}, h("label", { for: id }, `Seat ${seat}: `), select, " ", level, name));
    }
  };
  players.addEventListener("change", drawSeats);
  players.addEventListener("input", drawSeats);
  drawSeats();
  const clock = clockFields(type.gameType);
  const listed = h("p", {}, h("label", {}, h("input", { type: "checkbox", name: "listed", checked: true }),
    " list open seats in the lobby"));
  const status = h("p", { role: "status" });
  const form = h("form", { class: "new-game", "data-game": type.gameType },
    h("p", {}, h("label", { for: players.id }, `Players (${type.minPlayers}-${type.maxPlayers}): `), players),
    ...type.options.map((o) => optionInput(type.gameType, o)),
    seats, clock, listed,
    h("button", { type: "submit" }, `Create a ${type.name} game`),
    status,
  ) as HTMLFormElement;
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void (async () => {
      const data = new FormData(form);
      const n = Number(players.value);
      const options: Record<string, string> = {};
      for (const o of type.options) options[o.name] = String(data.get(o.name) ?? o.defaultValue);
      const roles = Array.from({ length: n }, (_, s) => String(data.get(`seat-${s}`)));
      const named = roles.map((r, s) => (r === "player" ? String(data.get(`name-${s}`) ?? "").trim() : ""));
      const clock = clockFrom(form);
      try {
        const picked = pickBots(roles.map((r, s) => (r === "server-bot" ? String(data.get(`level-${s}`) ?? "") : null)),
          named.filter(Boolean), bots);
        const seatRequests = seatRequestsFor(roles, picked, named);
        const request: MessageInitShape<typeof CreateGameRequestSchema> = {
          gameType: type.gameType, players: n, options, seatRequests,
          listed: data.get("listed") !== null && roles.some((r) => r === "open" || r === "invite"),
          ...(clock ? { clock } : {}),
        };
        location.hash = await createGame(request, roles);
      } catch (error) {
        status.textContent = problem(error).message; // a Connect error, or pickBots' words
      }
    })();
  });
  return form;
}

async function home(signal: AbortSignal): Promise<void> {
  page("Games");
  // Asked afresh on the home page: the server may have been restarted with other bots.
  const { gameTypes, houseBots } = await serverInfo(true);
  // The page left while the server answered (another route began) is not drawn over it.
  if (signal.aborted) return;
  const byId = new Map(gameTypes.map((t) => [t.gameType, t]));
  const types = gameTypes.map((type) => {
    const rules = h("details", { class: "rules-box" }, h("summary", {}, "Rules"));
    rules.addEventListener("toggle", () => {
      if (rules.childElementCount === 1) void rulesOf(type).then((r) => rules.append(r as Node));
    }, { once: true });
    return h("section", { class: "game-type", id: `type-${type.gameType}` },
      h("h2", {}, type.name),
      h("p", {}, type.summary, ` ${type.minPlayers}-${type.maxPlayers} players.`),
      rules,
      h("details", {}, h("summary", {}, "New game"), newGameForm(type, houseBots)));
  });
  const join = h("input", { id: "join", placeholder: "a join link or #/join/… path", size: 40 }) as HTMLInputElement;
  const joinForm = h("form", { class: "join" }, h("label", { for: "join" }, "Join with a link: "), join,
    h("button", { type: "submit" }, "Join"));
  joinForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const at = join.value.indexOf("#/");
    if (at >= 0) location.hash = join.value.slice(at);
  });
  const names = new Map(gameTypes.map((type) => [type.gameType, type.name]));
  const mine = savedGames().filter((g) => g.mine.length || g.organiser);
  const myList = h("ul", { class: "my-games" }, ...mine.map((g) => h("li", {},
    `${names.get(g.gameType) ?? g.gameType} · ${g.gameId} `,
    ...g.mine.map((seat) => h("a", { href: seatPath(g.gameId, seat) }, `play seat ${seat}`)),
    " ", h("a", { href: `#/watch/${g.gameId}` }, "watch"))));
  const { games } = await api.listGames({ pageSize: 20 }, { signal });
  if (signal.aborted) return;
  const list = h("ul", { class: "games" }, ...games.map((g) => h("li", {},
    `${names.get(g.gameType) ?? g.gameType} · ${g.gameId} · ${holdersText(g)} · ${g.gameOver ? "over" : g.started ? "running" : "waiting for players"} `,
    h("a", { href: `#/watch/${g.gameId}` }, "watch"), " ",
    g.gameOver ? h("a", { href: `#/replay/${g.gameId}` }, "replay") : null)));
  const goPlay = (gameId: string, seat: number) => (location.hash = seatPath(gameId, seat));
  app.querySelector("main")!.append(
    quickPlay(gameTypes, houseBots, createGame),
    signInBox(() => void route()),
    lobby(byId, houseBots, signal, goPlay),
    ratingsPanel(gameTypes),
    ...types, h("section", {}, h("h2", {}, "Join a game"), joinForm),
    mine.length ? h("section", {}, h("h2", {}, "Your games in this browser"), myList) : "",
    h("section", {}, h("h2", {}, "Games on this server"), games.length ? list : h("p", {}, "None yet.")));
  applyReach();
  probe.ready = true;
}

// --- join links ---------------------------------------------------------------------------------

/** A join link that no longer works, in words, by the refusal its claim would get. */
const LINK_WORDS: Record<string, string> = {
  CLAIM_CODE_USED: "This join link was used already: its seat is taken. Ask for a new link.",
  CLAIM_CODE_INVALID: "This join link is not one of this game's: check that it was copied whole.",
  GAME_STARTED: "This game has started: every seat is taken, so this join link no longer works.",
  GAME_OVER: "This game is over: its join links no longer work.",
  ALREADY_SEATED: "You hold a seat of this game already.",
};

/** A join link: the seat is claimed with its claim code, so its token is made for this
 * browser only; signed in, the seat takes the player's name. */
async function joinPage(gameId: string, seat: number, code: string, signal: AbortSignal): Promise<void> {
  const { game } = await api.getGame({ gameId }, { signal });
  const infos = await knownGameTypes().catch(() => new Map<string, GameInfo>());
  if (signal.aborted) return;
  const name = infos.get(game?.gameType ?? "")?.name ?? "a game";
  const held = savedGame(gameId)?.tokens[seat];
  if (held) {
    location.replace(seatPath(gameId, seat));
    return;
  }
  // Whether the link still works, before its button is pressed: the claim checked only.
  const refusal = await api.claimSeat({ gameId, seat, claimCode: code, checkOnly: true }, auth(signal))
    .then(() => null, (error: unknown) => problem(error));
  if (signal.aborted) return;
  if (refusal && refusal.code !== String(Code.Unauthenticated)) {
    page(`Join ${name}`, h("p", { role: "alert", class: "bad-link", "data-reason": refusal.reason ?? "" },
      LINK_WORDS[refusal.reason ?? ""] ?? `This join link does not work: ${refusal.message}.`),
    h("p", {}, h("a", { href: `#/watch/${gameId}` }, "Watch the game"), " · ", h("a", { href: "#/" }, "Play another game")));
    probe.ready = true;
    return;
  }
  const me = player();
  const status = h("p", { role: "status" });
  const take = h("button", { type: "button", class: "claim", onclick: async () => {
    try {
      const claimed = await api.claimSeat({ gameId, seat, claimCode: code }, auth());
      holdSeat(gameId, game?.gameType ?? "", claimed.seat, claimed.seatToken);
      location.hash = seatPath(gameId, claimed.seat);
    } catch (error) {
      status.textContent = `Could not take the seat: ${problem(error).message}`;
    }
  } }, me ? `Take seat ${seat} as ${me.name}` : `Take seat ${seat} as a guest`);
  page(`Join ${name}`,
    h("p", {}, `You are invited to seat ${seat} of ${name}: ${game ? holdersText(game) : ""}; ${game ? clockWords(game) : ""}.`),
    me ? null : signInBox(() => void route()),
    take, status);
  probe.ready = true;
}

// --- a created game: its seats and links --------------------------------------------------------

function seatLinks(gameId: string, view: View | null): HTMLElement | null {
  const game = savedGame(gameId);
  if (!game?.invites || !Object.keys(game.invites).length) return null;
  const rows = Object.entries(game.invites).map(([seatText, code]) => {
    const seat = Number(seatText);
    const url = link(`/join/${gameId}/${seat}/${code}`);
    const holder = view?.seatHolders.find((x) => x.seat === seat);
    const taken = holder && holder.state === SeatState.HELD ? ` (taken${holder.player ? ` by ${holder.player}` : ""})` : "";
    const copy = h("button", { type: "button", class: "always", onclick: () => void navigator.clipboard?.writeText(url) }, "copy");
    return h("li", { "data-seat": seat }, `Seat ${seat}${taken}: `, h("a", { href: url, class: "join-link" }, "join link"), " ", copy);
  });
  return h("details", { class: "links", open: true }, h("summary", {}, "Join links (give each to its player: it works once)"),
    h("ul", {}, ...rows),
    h("p", {}, "Anyone may ", h("a", { href: `#/watch/${gameId}` }, "watch"), " (public information only)."));
}

function created(gameId: string): void {
  const game = savedGame(gameId);
  startBots(gameId);
  if (game?.mine.length) {
    location.replace(seatPath(gameId, game.mine[0]));
    return;
  }
  location.replace(`#/watch/${gameId}`);
}

// --- the table ----------------------------------------------------------------------------------

function clockText(view: View, seat: number): string {
  const clock = view.clocks.find((c) => c.seat === seat);
  if (!clock) return "";
  const left = clock.pending && clock.deadlineUnixMs ? Math.max(0, Number(clock.deadlineUnixMs) - Date.now()) : Number(clock.remainingMs);
  const bank = clock.pending && clock.deadlineUnixMs
    ? Math.min(Number(clock.bankMs), left) : Number(clock.bankMs);
  // A bank of nothing is not shown: "bank 0 s" tells a player nothing.
  const banked = Math.ceil(bank / 1000);
  if (clock.pending) return `${Math.ceil(left / 1000)} s left` + (banked ? ` (bank ${banked} s)` : "");
  return Number(clock.bankMs) > 0 ? `bank ${Math.ceil(Number(clock.bankMs) / 1000)} s` : "";
}

/** The table drawn (table.ts), with the final standings above it once the game is over. */
function renderTable(view: View, info: GameInfo | undefined): { table: HTMLElement; felt: HTMLElement; hand: string[] | null } {
  const drawn = felt(view, (seat) => seatName(view, seat), (seat) => clockText(view, seat), draw(view, info));
  const table = h("div", { class: "table", "data-version": String(view.version) },
    view.gameOver ? resultsTable(view) : null,
    drawn.root);
  return { table, felt: drawn.root, hand: drawn.hand };
}

/** The same table in words, folded below it: the game's own lines, the viewer's hand by card
 * names (the words of the cards' aria-labels), the seat table and every fact of the view. */
function tableInWords(view: View, info: GameInfo | undefined, handWords: string[] | null): HTMLElement {
  const drawn = draw(view, info);
  const asked = new Map(view.decisions.map((d) => [d.seat, d]));
  const seats = Array.from({ length: view.players }, (_, seat) => {
    const decision = asked.get(seat);
    return h("tr", { class: decision ? "asked" : "", "data-seat": seat },
      h("th", { scope: "row" }, seatName(view, seat), you(view, seat)),
      // The arrow and the words say whose decision it is; the highlight only repeats it.
      h("td", {}, decision ? `▶ to decide (${decision.kind}, ${decision.ruleId})` : ""),
      ...drawn.seatColumns.map(([, value]) => h("td", {}, value(seat))),
      view.clocks.length ? h("td", { "data-clock-seat": seat }, clockText(view, seat)) : null);
  });
  const seatTable = h("table", { class: "seats-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", {}, "Turn"), ...drawn.seatColumns.map(([name]) => h("th", {}, name)),
      view.clocks.length ? h("th", {}, "Clock") : null)),
    h("tbody", {}, ...seats));
  const facts = h("dl", { class: "facts" }, ...drawn.facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  const lines = view.viewLines.length
    ? h("ul", { class: "view-lines", "data-view-lines": "" }, ...view.viewLines.map((line) => h("li", {}, named(view, line))))
    : null;
  const hand = handWords && view.seat !== undefined ? handWords.map((label) => h("span", { class: "card" }, label)) : drawn.hand;
  return h("section", { class: "in-words", "aria-label": "The table in words" },
    lines,
    hand ? h("section", { class: "hand", "data-hand": "" }, h("h3", {}, "Your hand"), h("p", {}, ...(hand.length ? hand : ["no cards"]))) : null,
    h("div", { class: "scroll" }, seatTable),
    drawn.centre.length ? h("section", { class: "centre" }, ...drawn.centre) : null,
    h("details", { class: "facts-box" }, h("summary", {}, "Every fact of the view"), facts));
}

/** Whose decision the table waits for, by name ("Waiting for bob…"). */
function waitingWords(view: View, who = ""): string {
  if (view.refereeToMove) return "The referee plays for a seat that left the game…";
  const empty = view.seatHolders.filter((x) => x.state === SeatState.OPEN || x.state === SeatState.RESERVED);
  if (empty.length) return `Waiting for ${empty.map((x) => x.player || `seat ${x.seat}`).join(", ")} to take a seat…`;
  const deciding = view.pendingSeats.map((seat) => playerName(view, seat));
  const waiting = deciding.length ? `Waiting for ${deciding.join(", ")}…` : "Waiting for the others…";
  return who === "watching" && deciding.length ? `${deciding.join(", ")} to decide` : waiting;
}

/** The live table of a seat (token) or a spectator: view, actions, log, live updates. */
async function live(gameId: string, token: string | undefined, signal: AbortSignal, accountSeat?: number): Promise<void> {
  // A seat is played by its token, or (a seat the signed-in player holds without one: an
  // accepted challenge, a pairing) by the player's credential and the seat number.
  const byAccount = !token && accountSeat !== undefined;
  const playing = Boolean(token) || byAccount;
  const viewer = token ? { seatToken: token } : byAccount ? { seat: accountSeat } : { spectator: true };
  const options = (abort?: AbortSignal) => (byAccount ? auth(abort) : { signal: abort });
  const log = new Log(`referee:log:${gameId}:${token ?? (byAccount ? `seat-${accountSeat}` : "spectator")}`);
  const saved = savedGame(gameId);
  const tableBox = h("div", { class: "table-box" }, h("p", {}, "Loading…"));
  // Beside the table: whose turn it is, the newest event and the controls of the table
  // (act.ts); below, folded, the same choices as a list (keys 1-9), the table in words, the log.
  const turn = h("h2", { class: "turn" });
  const gameLog = new GameLog(log);
  const picker = new Picker((index) => void choose(index), (text) => named(current, text));
  const choiceList = h("div", { class: "choices" });
  const listBox = h("details", { class: "choice-list" }, h("summary", {}, "All choices as a list (keys 1-9)"), choiceList);
  const alert = h("p", { class: "alert", role: "alert" });
  const status = h("p", { class: "connection", role: "status" });
  const manage = h("section", { class: "manage" });
  const actions = h("section", { class: "actions", "aria-label": "Your move" }, turn, gameLog.latest, picker.bar, alert, status,
    playing ? listBox : null, manage);
  const wordsBox = h("details", { class: "words-box" }, h("summary", {}, "The table in words"));
  const banner = h("div", { class: "banner-box" });
  // Names (and option names) from ListGameTypes; without them the page still plays.
  const infos = await knownGameTypes().catch(() => new Map<string, GameInfo>());
  const bots = saved?.organiser ? await serverInfo().then((r) => r.houseBots, () => [] as HouseBot[]) : [];
  const title = infos.get(saved?.gameType ?? "")?.name ?? "Game";
  const rules = h("details", { class: "rules-box table-rules" }, h("summary", {}, "Rules of this game"));
  const linksBox = h("div", { class: "links-box" }, seatLinks(gameId, null));
  page(playing ? title : `${title} (watching)`, banner, tableBox, actions,
    wordsBox, gameLog.box, linksBox, rules,
    h("p", {}, h("a", { href: `#/replay/${gameId}` }, "Replay"), " · ", h("a", { href: `#/watch/${gameId}` }, "Watch as a spectator")));
  app.querySelector("main")!.classList.add("game-page");
  let shown = -1n;
  let busy = false;
  let current: View | null = null;
  let rulesType = saved?.gameType ?? "";
  rules.addEventListener("toggle", () => {
    const type = infos.get(rulesType)?.type;
    if (rules.childElementCount === 1 && type) void rulesOf(type).then((r) => rules.append(r as Node));
  });

  // Running clocks: the pending seat's time left, counted down between views.
  const tick = setInterval(() => {
    if (!current?.clocks.length) return;
    for (const cell of app.querySelectorAll<HTMLElement>("[data-clock-seat]")) {
      cell.textContent = clockText(current, Number(cell.dataset.clockSeat));
    }
  }, 250);
  signal.addEventListener("abort", () => clearInterval(tick));

  // Resign (a seat this page plays) and abort (this browser organised the game).
  const drawManage = (view: View) => {
    const parts: (Node | string)[] = [];
    // A table still waiting for players that this browser organised: its empty seats can be
    // given to the server's bots (FillWithBots), when the server runs some.
    const waiting = view.seatHolders.some((x) => x.state === SeatState.OPEN || x.state === SeatState.RESERVED);
    if (!view.gameOver && saved?.organiser && waiting && bots.length) {
      const levels = botLevels(bots);
      const level = h("select", { class: "fill-level", "aria-label": "Strength of the bots" },
        h("option", { value: "" }, "any strength"),
        ...levels.map((l) => h("option", { value: l.level }, `${l.level}: ${l.description}`))) as HTMLSelectElement;
      parts.push(h("p", { class: "fill" }, h("button", { type: "button", class: "fill-bots", onclick: async (e: Event) => {
        const button = e.currentTarget as HTMLButtonElement;
        button.disabled = true;
        try {
          await api.fillWithBots({ gameId, organiserToken: saved.organiser, level: level.value });
          alert.textContent = "";
        } catch (error) {
          alert.textContent = `Not filled: ${problem(error).message}`;
          button.disabled = false;
        }
      } }, "Fill the empty seats with server bots"), " ", level));
    }
    if (!view.gameOver && playing && view.seat !== undefined && !view.seatsLeft.some((x) => x.seat === view.seat)
        && !view.seatHolders.find((x) => x.seat === view.seat)?.resigned) {
      parts.push(h("button", { type: "button", class: "resign", onclick: async (e: Event) => {
        const button = e.currentTarget as HTMLButtonElement;
        if (button.dataset.sure === undefined) {
          button.dataset.sure = "";
          button.textContent = `Really resign seat ${view.seat}? Click again`;
          return;
        }
        try {
          await api.resign(token ? { gameId, seatToken: token } : { gameId, seat: view.seat }, options());
        } catch (error) {
          alert.textContent = problem(error).message;
        }
      } }, `Resign seat ${view.seat}`));
    }
    if (!view.gameOver && saved?.organiser) {
      parts.push(" ", h("button", { type: "button", class: "abort", onclick: async () => {
        try {
          await api.abortGame({ gameId, organiserToken: saved.organiser, reason: "aborted by the organiser from the web page" });
        } catch (error) {
          alert.textContent = problem(error).message;
        }
      } }, "Abort the game (organiser)"));
    }
    if (view.gameOver && saved?.request) {
      parts.push(h("button", { type: "button", class: "rematch", onclick: async () => {
        try {
          location.hash = await createGame(saved.request as MessageInitShape<typeof CreateGameRequestSchema>, saved.roles ?? []);
        } catch (error) {
          alert.textContent = problem(error).message;
        }
      } }, "Rematch (same settings)"));
    }
    manage.replaceChildren(...parts);
  };

  const show = (view: View) => {
    if (view.version < shown) return; // a catching-up stream's older views
    shown = view.version;
    current = view;
    rulesType = view.gameType;
    const info = infos.get(view.gameType);
    const drawn = renderTable(view, info);
    tableBox.replaceChildren(drawn.table);
    wordsBox.replaceChildren(wordsBox.firstElementChild!, tableInWords(view, info, drawn.hand));
    gameLog.names(view);
    const name = infos.get(view.gameType)?.name ?? title;
    const heading = app.querySelector("h1")!;
    heading.textContent = `${name} · ${view.seat === undefined ? "watching" : seatName(view, view.seat)}` + (view.gameOver ? " · game over" : "");
    const yours = view.legalCommands.length > 0 && !view.gameOver;
    // A background tab shows whose turn it is in its title.
    document.title = `${yours ? "▶ Your turn · " : ""}${name}${view.gameOver ? " · game over" : ""} · referee`;
    banner.replaceChildren(view.gameOver ? endBanner(view, log.lines.length ? log.lines[log.lines.length - 1][1] : "") : "");
    linksBox.replaceChildren(seatLinks(gameId, view) ?? "");
    drawManage(view);
    turn.textContent = view.gameOver ? "Game over" : !playing ? waitingWords(view, "watching") : yours ? "▶ Your turn" : waitingWords(view);
    turn.classList.toggle("yours", yours);
    picker.show(view, playing ? drawn.felt : null, busy);
    probe.choices = playing && yours && !busy ? choicesOf(view, (text) => text).choices : [];
    listBox.hidden = !yours;
    if (playing) {
      choiceList.replaceChildren(...view.legalCommands.map((_, i) =>
        h("button", { type: "button", class: "choice", "data-index": i, disabled: busy, onclick: () => void choose(i) },
          i < 9 ? h("kbd", {}, String(i + 1)) : null, " ", named(view, view.legalCommandLabels[i] ?? `choice ${i + 1}`))));
    }
    applyReach();
  };

  const choose = async (index: number) => {
    const view = current;
    if (!view || busy || !playing || index >= view.legalCommands.length) return;
    busy = true;
    probe.sent++;
    choiceList.querySelectorAll("button").forEach((b) => ((b as HTMLButtonElement).disabled = true));
    picker.show(view, tableBox.querySelector<HTMLElement>(".felt"), true);
    alert.textContent = "";
    alert.removeAttribute("data-rule-id");
    try {
      // A fresh id per choice, the same one for every retry while the outcome is unknown.
      const response = await submit({
        gameId, ...viewer, commandId: crypto.randomUUID(), command: view.legalCommands[index],
      }, 12, options());
      busy = false;
      if (response.view) show(response.view);
    } catch (error) {
      busy = false;
      if (unreachable(error)) checkReach();
      const p = problem(error);
      alert.textContent = `Refused: ${p.message}`;
      if (p.ruleId) alert.setAttribute("data-rule-id", p.ruleId);
      // A refusal usually means this page's view is behind: fetch the current one.
      try {
        const fresh = await api.getView({ gameId, ...viewer }, options());
        if (fresh.view) show(fresh.view);
      } catch {
        // the stream will bring it
      }
    }
    // The stream may have drawn a newer view while the command was on its way (with its
    // buttons disabled): draw the newest again, now usable.
    if (current) show(current);
  };
  if (playing) {
    const keys = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
      if (/^[1-9]$/.test(e.key)) void choose(Number(e.key) - 1);
    };
    document.addEventListener("keydown", keys);
    signal.addEventListener("abort", () => document.removeEventListener("keydown", keys));
  }

  const add = (message: StreamGameResponse) => {
    const event = message.event;
    if (!event) return;
    const seq = Number(event.sequence);
    probe.received.push(seq);
    if (seq <= log.last) {
      probe.duplicates++;
      return;
    }
    gameLog.add(seq, event.description, event.bookkeeping);
  };

  // The table first (so it is usable even while the stream connects), then the stream from
  // the last sequence this page has: a reload resumes with no gap and no duplicate.
  try {
    const first = await api.getView({ gameId, ...viewer }, options(signal));
    if (first.view) show(first.view);
  } catch (error) {
    // A table left while its first view was on the way (another route began) shows nothing.
    if (!signal.aborted) trouble(error, gameId);
    return;
  }
  probe.ready = true;
  // Resuming from the last sequence is always safe: the stream is opened again after any end
  // before the game is over (a server restarting, a proxy's reset, a clean early end), except
  // the server's refusal of the request itself.
  for (let attempt = 0; !signal.aborted; attempt++) {
    let reason = "the stream ended early";
    let over = false;
    try {
      const stream = api.streamGame({ gameId, ...viewer, afterSequence: BigInt(log.last) }, options(signal));
      status.textContent = "";
      for await (const message of stream) {
        reach.set(true);
        add(message);
        attempt = 0; // progress: the next drop starts the backoff again
        const end = !message.event || message.event.sequence === message.event.batchEndSequence;
        if (message.view && end) show(message.view);
        over ||= Boolean(message.view?.gameOver);
      }
      if (over) return; // the game is over and its stream ended
    } catch (error) {
      if (signal.aborted) return;
      if (!resumable(error)) {
        alert.textContent = problem(error).message;
        return;
      }
      reason = problem(error).message;
      if (unreachable(error)) checkReach();
    }
    status.textContent = `Reconnecting… (${reason})`;
    await sleep(backoff(attempt));
  }
}

// --- replay -------------------------------------------------------------------------------------

async function replay(gameId: string, signal: AbortSignal): Promise<void> {
  const saved = savedGame(gameId);
  const who = new URLSearchParams(location.hash.split("?")[1] ?? "").get("seat");
  const asSeat = who !== null && saved ? Number(who) : undefined;
  page("Replay", h("p", {}, "Loading the log…"));
  const infos = await knownGameTypes().catch(() => new Map<string, GameInfo>());
  if (signal.aborted) return;
  const request = asSeat !== undefined && saved?.organiser
    ? { gameId, organiserToken: saved.organiser, asSeat }
    : { gameId, spectator: true };
  const steps: StreamGameResponse[] = [];
  const stream = api.streamGame({ ...request, afterSequence: 0n }, { signal });
  let total = -1n;
  for await (const message of stream) {
    if (message.heartbeat) continue; // an idle stream's sign of life
    if (total < 0n) total = message.view?.version ?? 0n; // the first message: the view now
    else steps.push(message);
    if (total >= 0n && steps.length && steps[steps.length - 1].event!.sequence >= total) break;
  }
  if (!steps.length) {
    page("Replay", h("p", {}, "No events yet."));
    return;
  }
  let at = steps.length - 1;
  const box = h("div", { class: "replay-box" });
  const counter = h("p", { class: "step", role: "status" });
  const slider = h("input", { type: "range", min: 0, max: steps.length - 1, value: at, "aria-label": "Step" }) as HTMLInputElement;
  const go = (to: number) => {
    at = Math.max(0, Math.min(steps.length - 1, to));
    slider.value = String(at);
    const step = steps[at];
    counter.textContent = `Event ${step.event!.sequence} of ${steps.length}: ${named(step.view ?? null, step.event!.description)}`;
    if (!step.view) {
      box.replaceChildren();
      return;
    }
    const info = infos.get(step.view.gameType);
    const drawn = renderTable(step.view, info);
    box.replaceChildren(drawn.table, h("details", { class: "words-box" }, h("summary", {}, "The table in words"),
      tableInWords(step.view, info, drawn.hand)));
  };
  slider.addEventListener("input", () => go(Number(slider.value)));
  const button = (text: string, label: string, to: () => number) =>
    h("button", { type: "button", "aria-label": label, onclick: () => go(to()) }, text);
  const keys = (e: KeyboardEvent) => {
    if (e.key === "ArrowRight") go(at + 1);
    else if (e.key === "ArrowLeft") go(at - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(steps.length - 1);
  };
  document.addEventListener("keydown", keys);
  signal.addEventListener("abort", () => document.removeEventListener("keydown", keys));
  const last = steps[steps.length - 1];
  const seats = saved?.organiser
    ? h("p", {}, "Watch as: ", h("a", { href: `#/replay/${gameId}` }, "spectator"),
        ...Array.from({ length: steps[0]?.view?.players ?? 0 }, (_, s) => h("span", {}, " · ",
          h("a", { href: `#/replay/${gameId}?seat=${s}` }, `seat ${s}`, last?.view ? namedSeat(last.view, s) : ""))),
        " (the organiser's view, with this browser's organiser token)")
    : null;
  page(`Replay · ${asSeat !== undefined ? `seat ${asSeat}${last?.view ? namedSeat(last.view, asSeat) : ""}` : "spectator"}`,
    h("nav", { class: "controls", "aria-label": "Replay controls" },
      button("⏮", "first", () => 0), button("◀", "previous", () => at - 1),
      button("▶", "next", () => at + 1), button("⏭", "last", () => steps.length - 1), slider),
    counter, seats, box);
  go(0);
  probe.ready = true;
}

/** " (bob)" after "seat 1" where a named player holds the seat. */
function namedSeat(view: View, seat: number): string {
  const name = view.seatHolders.find((x) => x.seat === seat)?.player;
  return name ? ` (${name})` : "";
}

// --- router -------------------------------------------------------------------------------------

async function route(): Promise<void> {
  leave?.abort();
  // This route's own controller: a route left before it settled fails with its aborted signal
  // after the next route has begun, and that failure is not the next route's to show.
  const here = new AbortController();
  leave = here;
  probe.ready = false;
  probe.route = location.hash;
  const [, where, gameId, token, code] = location.hash.split("?")[0].split("/");
  for (const game of savedGames()) startBots(game.gameId); // bots outlive a reload
  try {
    if (where === "game" && gameId) created(gameId);
    else if (where === "join" && gameId && token && code) await joinPage(gameId, Number(token), code, here.signal);
    else if (where === "seat" && gameId && token) {
      const saved = savedGame(gameId);
      const seat = Number(token);
      const held = saved?.tokens[seat];
      if (held) await live(gameId, held, here.signal);
      else if (saved?.account?.includes(seat) && player()) await live(gameId, undefined, here.signal, seat);
      else page("Not your seat", h("p", { role: "alert" }, `This browser does not hold seat ${token} of this game. `,
        h("a", { href: `#/watch/${gameId}` }, "Watch it"), " instead."));
    } else if (where === "play" && gameId && token) await live(gameId, token, here.signal);
    else if (where === "watch" && gameId) await live(gameId, undefined, here.signal);
    else if (where === "replay" && gameId) await replay(gameId, here.signal);
    else await home(here.signal);
  } catch (error) {
    if (!here.signal.aborted) trouble(error, gameId);
  }
}

/** A page that failed: an unknown game says so plainly, anything else with the server's words. */
function trouble(error: unknown, gameId: string | undefined): void {
  const p = problem(error);
  if (p.code === String(Code.NotFound) && gameId) {
    page("No such game", h("p", { role: "alert", class: "no-game" }, `There is no game "${gameId}" on this server: the link may be mistyped, or the game was removed.`),
      h("p", {}, h("a", { href: "#/" }, "Play a game"), " or see the server's games on the home page."));
    probe.ready = true;
    return;
  }
  page("Error", h("p", { role: "alert" }, p.message, ` (server ${apiBase})`));
}

window.addEventListener("hashchange", () => void route());
void route();
