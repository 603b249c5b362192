// The web client: pages by location.hash.
//   #/                        sign in, the lobby (open tables, challenges, pairing), game types
//                             with their rules and the new-game form, this browser's games
//   #/join/GAME/SEAT/CODE     a join link: claims the seat with its single-use claim code, so
//                             the seat's token is made for the friend's browser only
//   #/seat/GAME/SEAT          play a seat this browser holds (its token from localStorage)
//   #/play/GAME/TOKEN         play a seat by its token (hot-seat games, old links)
//   #/watch/GAME              spectate (public information only)
//   #/replay/GAME             a game step by step from its log
// Everything drawn comes from the referee's views, labels and event descriptions.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { api, apiBase, auth, backoff, checkReach, gameTypes as knownGameTypes, problem, serverInfo, reach, resumable, sleep, submit, unreachable } from "./api";
import { startBots } from "./bots";
import { h, type Child } from "./dom";
import { endBanner, resultsTable, seatName, you } from "./ending";
import { draw, type GameInfo } from "./games";
import { felt } from "./table";
import {
  SeatMode, SeatState, type CreateGameRequestSchema, type GameType, type HouseBot, type StreamGameResponse, type View,
} from "./gen/referee/v1/referee_pb";
import { botLevels, clockFields, clockFrom, clockWords, holdersText, lobby, signInBox } from "./lobby";
import { holdSeat, Log, player, savedGame, savedGames, saveGame, type SavedGame } from "./store";
import "./style.css";

const app = document.getElementById("app")!;
/** What the browser tests read: sequences received this page load, duplicates dropped. */
const probe = { received: [] as number[], duplicates: 0, ready: false };
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

/** Reserves an account of the chosen strength for each server-bot seat: a level is played by
 * several accounts (an account holds one seat of a game), taken in the order the server lists
 * them, past those a seat names itself. Throws, in words, when a level has too few. */
function pickBots(levels: (string | null)[], named: string[], bots: HouseBot[]): (string | null)[] {
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
      const role = chosen.get(`seat-${seat}`) ?? (seat === 0 ? "me" : "bot");
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
      const signedIn = player() !== null;
      // Today's flow (every token to the creator) only when no seat waits for anyone else.
      const needsSeats = roles.some((r) => !["me", "bot"].includes(r));
      const named = roles.map((r, s) => (r === "player" ? String(data.get(`name-${s}`) ?? "").trim() : ""));
      const clock = clockFrom(form);
      try {
        const picked = pickBots(roles.map((r, s) => (r === "server-bot" ? String(data.get(`level-${s}`) ?? "") : null)),
          named.filter(Boolean), bots);
        const seatRequests = needsSeats ? roles.map((r, s) => {
          if (r === "me") return { mode: signedIn ? SeatMode.CREATOR : SeatMode.UNSPECIFIED };
          if (r === "bot") return { mode: SeatMode.UNSPECIFIED };
          if (r === "server-bot") return { mode: SeatMode.RESERVED, player: picked[s] ?? "" };
          if (r === "player") return { mode: SeatMode.RESERVED, player: named[s] };
          return { mode: SeatMode.OPEN };
        }) : [];
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
  const { games } = await api.listGames({ pageSize: 20 });
  const list = h("ul", { class: "games" }, ...games.map((g) => h("li", {},
    `${names.get(g.gameType) ?? g.gameType} · ${g.gameId} · ${holdersText(g)} · ${g.gameOver ? "over" : g.started ? "running" : "waiting for players"} `,
    h("a", { href: `#/watch/${g.gameId}` }, "watch"), " ",
    g.gameOver ? h("a", { href: `#/replay/${g.gameId}` }, "replay") : null)));
  const goPlay = (gameId: string, seat: number) => (location.hash = seatPath(gameId, seat));
  app.querySelector("main")!.append(
    signInBox(() => void route()),
    lobby(byId, houseBots, signal, goPlay),
    ...types, h("section", {}, h("h2", {}, "Join a game"), joinForm),
    mine.length ? h("section", {}, h("h2", {}, "Your games in this browser"), myList) : "",
    h("section", {}, h("h2", {}, "Games on this server"), games.length ? list : h("p", {}, "None yet.")));
  applyReach();
  probe.ready = true;
}

// --- join links ---------------------------------------------------------------------------------

/** A join link: the seat is claimed with its claim code, so its token is made for this
 * browser only; signed in, the seat takes the player's name. */
async function joinPage(gameId: string, seat: number, code: string): Promise<void> {
  const { game } = await api.getGame({ gameId });
  const infos = await knownGameTypes().catch(() => new Map<string, GameInfo>());
  const name = infos.get(game?.gameType ?? "")?.name ?? "a game";
  const held = savedGame(gameId)?.tokens[seat];
  if (held) {
    location.replace(seatPath(gameId, seat));
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
  return clock.pending ? `${Math.ceil(left / 1000)} s left (bank ${Math.ceil(bank / 1000)} s)` : `bank ${Math.ceil(Number(clock.bankMs) / 1000)} s`;
}

function renderTable(view: View, info: GameInfo | undefined): HTMLElement {
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
  // The game's own words for this view (the hand by card names), as the server wrote them.
  const lines = view.viewLines.length
    ? h("ul", { class: "view-lines", "data-view-lines": "" }, ...view.viewLines.map((line) => h("li", {}, line)))
    : null;
  // The table drawn with cards (table.ts), then the same table in words: the game's own lines,
  // the seats, and the viewer's hand by card names (the words of the cards' aria-labels).
  const drawnTable = felt(view, (seat) => seatName(view, seat));
  const hand = drawnTable?.hand && view.seat !== undefined
    ? drawnTable.hand.map((label) => h("span", { class: "card" }, label))
    : drawn.hand;
  return h("div", { class: "table", "data-version": String(view.version) },
    view.gameOver ? resultsTable(view) : null,
    drawnTable?.root ?? null,
    h("section", { class: "in-words", "aria-label": "The table in words" },
      lines,
      hand ? h("section", { class: "hand", "data-hand": "" }, h("h3", {}, "Your hand"), h("p", {}, ...(hand.length ? hand : ["no cards"]))) : null,
      h("div", { class: "scroll" }, seatTable),
      drawn.centre.length ? h("section", { class: "centre" }, ...drawn.centre) : null,
      h("details", { class: "facts-box" }, h("summary", {}, "Every fact of the view"), facts)));
}

function waitingWords(view: View): string {
  if (view.refereeToMove) return "The referee plays for a seat that left the game…";
  const empty = view.seatHolders.filter((x) => x.state === SeatState.OPEN || x.state === SeatState.RESERVED);
  if (empty.length) return `Waiting for ${empty.map((x) => x.player || `seat ${x.seat}`).join(", ")} to take a seat…`;
  return "Waiting for the others…";
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
  const actions = h("section", { class: "actions", "aria-label": "Your choices" });
  const banner = h("div", { class: "banner-box" });
  const alert = h("p", { class: "alert", role: "alert" });
  const status = h("p", { class: "connection", role: "status" });
  const lines = h("ol", { class: "log", "aria-label": "What happened", "aria-live": "polite" },
    ...log.lines.map(([seq, text], i) => h("li", { "data-seq": seq, class: i === log.lines.length - 1 ? "newest" : undefined }, text)));
  // Names (and option names) from ListGameTypes; without them the page still plays.
  const infos = await knownGameTypes().catch(() => new Map<string, GameInfo>());
  const bots = saved?.organiser ? await serverInfo().then((r) => r.houseBots, () => [] as HouseBot[]) : [];
  const title = infos.get(saved?.gameType ?? "")?.name ?? "Game";
  const rules = h("details", { class: "rules-box table-rules" }, h("summary", {}, "Rules of this game"));
  const linksBox = h("div", { class: "links-box" }, seatLinks(gameId, null));
  const manage = h("section", { class: "manage" });
  page(playing ? title : `${title} (watching)`, banner, tableBox, playing ? actions : null, alert, status,
    linksBox, manage, rules,
    h("section", {}, h("h2", {}, "Game log"), lines),
    h("p", {}, h("a", { href: `#/replay/${gameId}` }, "Replay"), " · ", h("a", { href: `#/watch/${gameId}` }, "Watch as a spectator")));
  lines.scrollTop = lines.scrollHeight;
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
    for (const cell of tableBox.querySelectorAll<HTMLElement>("[data-clock-seat]")) {
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
    tableBox.replaceChildren(renderTable(view, infos.get(view.gameType)));
    const name = infos.get(view.gameType)?.name ?? title;
    const heading = app.querySelector("h1")!;
    heading.textContent = `${name} · ${view.seat === undefined ? "watching" : seatName(view, view.seat)}` + (view.gameOver ? " · game over" : "");
    const yours = view.legalCommands.length > 0 && !view.gameOver;
    // A background tab shows whose turn it is in its title.
    document.title = `${yours ? "▶ Your turn · " : ""}${name}${view.gameOver ? " · game over" : ""} · referee`;
    banner.replaceChildren(view.gameOver ? endBanner(view, log.lines.length ? log.lines[log.lines.length - 1][1] : "") : "");
    linksBox.replaceChildren(seatLinks(gameId, view) ?? "");
    drawManage(view);
    if (playing) {
      actions.replaceChildren(
        h("h2", {}, view.gameOver ? "Game over" : yours ? "▶ Your turn: choose (or press 1-9)" : waitingWords(view)),
        h("div", { class: "choices" }, ...view.legalCommands.map((_, i) =>
          h("button", { type: "button", class: "choice", "data-index": i, disabled: busy, onclick: () => void choose(i) },
            i < 9 ? h("kbd", {}, String(i + 1)) : null, " ", view.legalCommandLabels[i] ?? `choice ${i + 1}`))));
    }
    applyReach();
  };

  const choose = async (index: number) => {
    const view = current;
    if (!view || busy || !playing || index >= view.legalCommands.length) return;
    busy = true;
    actions.querySelectorAll("button").forEach((b) => ((b as HTMLButtonElement).disabled = true));
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
    log.add(seq, event.description);
    // Follow the newest entry, unless the reader has scrolled up to read older ones.
    const atBottom = lines.scrollTop + lines.clientHeight >= lines.scrollHeight - 8;
    lines.querySelector("li.newest")?.classList.remove("newest");
    lines.append(h("li", { "data-seq": seq, class: "newest" }, event.description));
    if (atBottom) lines.scrollTop = lines.scrollHeight;
  };

  // The table first (so it is usable even while the stream connects), then the stream from
  // the last sequence this page has: a reload resumes with no gap and no duplicate.
  try {
    const first = await api.getView({ gameId, ...viewer }, options(signal));
    if (first.view) show(first.view);
  } catch (error) {
    alert.textContent = problem(error).message;
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
  const request = asSeat !== undefined && saved?.organiser
    ? { gameId, organiserToken: saved.organiser, asSeat }
    : { gameId, spectator: true };
  const steps: StreamGameResponse[] = [];
  const stream = api.streamGame({ ...request, afterSequence: 0n }, { signal });
  let total = -1n;
  for await (const message of stream) {
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
    counter.textContent = `Event ${step.event!.sequence} of ${steps.length}: ${step.event!.description}`;
    box.replaceChildren(step.view ? renderTable(step.view, infos.get(step.view.gameType)) : h("p", {}, ""));
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
  const seats = saved?.organiser
    ? h("p", {}, "Watch as: ", h("a", { href: `#/replay/${gameId}` }, "spectator"),
        ...Array.from({ length: steps[0]?.view?.players ?? 0 }, (_, s) => h("span", {}, " · ", h("a", { href: `#/replay/${gameId}?seat=${s}` }, `seat ${s}`))),
        " (the organiser's view, with this browser's organiser token)")
    : null;
  page(`Replay · ${asSeat !== undefined ? `seat ${asSeat}` : "spectator"}`,
    h("nav", { class: "controls", "aria-label": "Replay controls" },
      button("⏮", "first", () => 0), button("◀", "previous", () => at - 1),
      button("▶", "next", () => at + 1), button("⏭", "last", () => steps.length - 1), slider),
    counter, seats, box);
  go(0);
  probe.ready = true;
}

// --- router -------------------------------------------------------------------------------------

async function route(): Promise<void> {
  leave?.abort();
  leave = new AbortController();
  probe.ready = false;
  const [, where, gameId, token, code] = location.hash.split("?")[0].split("/");
  for (const game of savedGames()) startBots(game.gameId); // bots outlive a reload
  try {
    if (where === "game" && gameId) created(gameId);
    else if (where === "join" && gameId && token && code) await joinPage(gameId, Number(token), code);
    else if (where === "seat" && gameId && token) {
      const saved = savedGame(gameId);
      const seat = Number(token);
      const held = saved?.tokens[seat];
      if (held) await live(gameId, held, leave.signal);
      else if (saved?.account?.includes(seat) && player()) await live(gameId, undefined, leave.signal, seat);
      else page("Not your seat", h("p", { role: "alert" }, `This browser does not hold seat ${token} of this game. `,
        h("a", { href: `#/watch/${gameId}` }, "Watch it"), " instead."));
    } else if (where === "play" && gameId && token) await live(gameId, token, leave.signal);
    else if (where === "watch" && gameId) await live(gameId, undefined, leave.signal);
    else if (where === "replay" && gameId) await replay(gameId, leave.signal);
    else await home(leave.signal);
  } catch (error) {
    if (!leave.signal.aborted) page("Error", h("p", { role: "alert" }, problem(error).message, ` (server ${apiBase})`));
  }
}

window.addEventListener("hashchange", () => void route());
void route();
