// The web client: pages by location.hash.
//   #/                        game types with their rules, new game, join, games on the server
//   #/play/GAME/TOKEN         play a seat (the join link of that seat)
//   #/watch/GAME              spectate (public information only)
//   #/replay/GAME             a game step by step from its log
// Everything drawn comes from the referee's views, labels and event descriptions.
import { api, apiBase, backoff, gameTypes as knownGameTypes, problem, resumable, sleep, submit } from "./api";
import { startBots } from "./bots";
import { h, type Child } from "./dom";
import { draw, type GameInfo } from "./games";
import type { GameType, StreamGameResponse, View } from "./gen/referee/v1/referee_pb";
import { Log, savedGame, savedGames, saveGame } from "./store";
import "./style.css";

const app = document.getElementById("app")!;
/** What the browser tests read: sequences received this page load, duplicates dropped. */
const probe = { received: [] as number[], duplicates: 0, ready: false };
(window as unknown as { __referee: typeof probe }).__referee = probe;
let leave: AbortController | null = null;

function page(title: string, ...children: Child[]): void {
  document.title = `${title} · referee`;
  app.replaceChildren(
    h("header", {}, h("a", { href: "#/", class: "home" }, "♛ referee"), h("h1", {}, title)),
    h("main", {}, ...children),
  );
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

function newGameForm(type: GameType): HTMLElement {
  const seats = h("fieldset", { class: "seats" }, h("legend", {}, "Seats"));
  const players = h("input", {
    id: `players-${type.gameType}`, name: "players", type: "number",
    min: type.minPlayers, max: type.maxPlayers, value: Math.max(type.minPlayers, Math.min(3, type.maxPlayers)),
  }) as HTMLInputElement;
  const drawSeats = () => {
    const n = Math.max(type.minPlayers, Math.min(type.maxPlayers, Number(players.value) || 0));
    // Seats keep what was chosen for them when the number of players changes.
    const chosen = new Map([...seats.querySelectorAll("select")].map((s) => [s.name, (s as HTMLSelectElement).value]));
    seats.replaceChildren(h("legend", {}, "Who plays each seat"));
    for (let seat = 0; seat < n; seat++) {
      const role = chosen.get(`seat-${seat}`) ?? (seat === 0 ? "me" : "bot");
      const select = h("select", { name: `seat-${seat}`, id: `seat-${type.gameType}-${seat}` },
        h("option", { value: "me", selected: role === "me" }, "me (this browser)"),
        h("option", { value: "bot", selected: role === "bot" }, "a bot"),
        h("option", { value: "invite", selected: role === "invite" }, "someone I invite (a join link)"));
      seats.append(h("p", {}, h("label", { for: `seat-${type.gameType}-${seat}` }, `Seat ${seat}: `), select));
    }
  };
  players.addEventListener("change", drawSeats);
  players.addEventListener("input", drawSeats);
  drawSeats();
  const status = h("p", { role: "status" });
  const form = h("form", { class: "new-game", "data-game": type.gameType },
    h("p", {}, h("label", { for: players.id }, `Players (${type.minPlayers}-${type.maxPlayers}): `), players),
    ...type.options.map((o) => optionInput(type.gameType, o)),
    seats,
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
      try {
        const created = await api.createGame({ gameType: type.gameType, players: n, options });
        const tokens = [...created.seats].sort((a, b) => a.seat - b.seat).map((s) => s.token);
        saveGame({
          gameId: created.gameId, gameType: type.gameType, tokens, organiser: created.organiserToken,
          bots: roles.flatMap((r, s) => (r === "bot" ? [s] : [])),
          mine: roles.flatMap((r, s) => (r === "me" ? [s] : [])),
        });
        location.hash = `#/game/${created.gameId}`;
      } catch (error) {
        status.textContent = problem(error).message;
      }
    })();
  });
  return form;
}

async function home(): Promise<void> {
  page("Games");
  const { gameTypes } = await api.listGameTypes({});
  const types = gameTypes.map((type) => {
    const rules = h("details", { class: "rules-box" }, h("summary", {}, "Rules"));
    rules.addEventListener("toggle", () => {
      if (rules.childElementCount === 1) void rulesOf(type).then((r) => rules.append(r as Node));
    }, { once: true });
    return h("section", { class: "game-type", id: `type-${type.gameType}` },
      h("h2", {}, type.name),
      h("p", {}, type.summary, ` ${type.minPlayers}-${type.maxPlayers} players.`),
      rules,
      h("details", {}, h("summary", {}, "New game"), newGameForm(type)));
  });
  const join = h("input", { id: "join", placeholder: "a join link or #/play/… path", size: 40 }) as HTMLInputElement;
  const joinForm = h("form", { class: "join" }, h("label", { for: "join" }, "Join with a link: "), join,
    h("button", { type: "submit" }, "Join"));
  joinForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const at = join.value.indexOf("#/");
    if (at >= 0) location.hash = join.value.slice(at);
  });
  const names = new Map(gameTypes.map((type) => [type.gameType, type.name]));
  const { games } = await api.listGames({ pageSize: 20 });
  const list = h("ul", { class: "games" }, ...games.map((g) => h("li", {},
    `${names.get(g.gameType) ?? g.gameType} · ${g.gameId} · ${g.players} seats · ${g.gameOver ? "over" : "running"} `,
    h("a", { href: `#/watch/${g.gameId}` }, "watch"), " ",
    g.gameOver ? h("a", { href: `#/replay/${g.gameId}` }, "replay") : null)));
  app.querySelector("main")!.append(...types, h("section", {}, h("h2", {}, "Join a game"), joinForm),
    h("section", {}, h("h2", {}, "Games on this server"), games.length ? list : h("p", {}, "None yet.")));
  probe.ready = true;
}

// --- a created game: its seats and links --------------------------------------------------------

function seatLinks(gameId: string): HTMLElement | null {
  const game = savedGame(gameId);
  if (!game) return null;
  const rows = game.tokens.map((token, seat) => {
    const url = link(`/play/${gameId}/${token}`);
    const who = game.bots.includes(seat) ? "bot (this browser plays it)" : game.mine.includes(seat) ? "you" : "invited";
    const copy = h("button", { type: "button", onclick: () => void navigator.clipboard?.writeText(url) }, "copy");
    return h("li", { "data-seat": seat }, `Seat ${seat} (${who}): `, h("a", { href: url, class: "join-link" }, "join link"), " ", copy);
  });
  return h("details", { class: "links" }, h("summary", {}, "Seats and join links (give each link only to its player)"),
    h("ul", {}, ...rows),
    h("p", {}, "Anyone may ", h("a", { href: `#/watch/${gameId}` }, "watch"), " (public information only)."));
}

function created(gameId: string): void {
  const game = savedGame(gameId);
  startBots(gameId);
  if (game?.mine.length) {
    location.replace(`#/play/${gameId}/${game.tokens[game.mine[0]]}`);
    return;
  }
  location.replace(`#/watch/${gameId}`);
}

// --- the table ----------------------------------------------------------------------------------

function resultsTable(view: View): HTMLElement {
  const rows = [...view.results].sort((a, b) => a.rank - b.rank).map((r) =>
    h("tr", {}, h("td", {}, r.rank), h("td", {}, `seat ${r.seat}` + (r.seat === view.seat ? " (you)" : "")), h("td", {}, r.score)));
  return h("table", { class: "results" },
    h("caption", {}, view.aborted ? "The game was aborted." : "Final standings"),
    h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Seat"), h("th", {}, "Score"))),
    h("tbody", {}, ...rows));
}

function clockText(view: View, seat: number): string {
  const clock = view.clocks.find((c) => c.seat === seat);
  if (!clock) return "";
  const left = clock.pending && clock.deadlineUnixMs ? Math.max(0, Number(clock.deadlineUnixMs) - Date.now()) : Number(clock.remainingMs);
  return `${Math.ceil(left / 1000)} s (bank ${Math.ceil(Number(clock.bankMs) / 1000)} s)`;
}

function renderTable(view: View, info: GameInfo | undefined): HTMLElement {
  const drawn = draw(view, info);
  const me = view.seat;
  const asked = new Map(view.decisions.map((d) => [d.seat, d]));
  const seats = Array.from({ length: view.players }, (_, seat) => {
    const decision = asked.get(seat);
    return h("tr", { class: decision ? "asked" : "", "data-seat": seat },
      h("th", { scope: "row" }, `seat ${seat}`, seat === me ? " (you)" : ""),
      // The arrow and the words say whose decision it is; the highlight only repeats it.
      h("td", {}, decision ? `▶ to decide (${decision.kind}, ${decision.ruleId})` : ""),
      ...drawn.seatColumns.map(([, value]) => h("td", {}, value(seat))),
      view.clocks.length ? h("td", {}, clockText(view, seat)) : null);
  });
  const seatTable = h("table", { class: "seats-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "Seat"), h("th", {}, "Turn"), ...drawn.seatColumns.map(([name]) => h("th", {}, name)),
      view.clocks.length ? h("th", {}, "Clock") : null)),
    h("tbody", {}, ...seats));
  const facts = h("dl", { class: "facts" }, ...drawn.facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  // The game's own words for this view (the hand by card names), as the server wrote them.
  const lines = view.viewLines.length
    ? h("ul", { class: "view-lines", "data-view-lines": "" }, ...view.viewLines.map((line) => h("li", {}, line)))
    : null;
  return h("div", { class: "table", "data-version": String(view.version) },
    view.gameOver ? resultsTable(view) : null,
    lines,
    facts,
    h("div", { class: "scroll" }, seatTable),
    h("section", { class: "centre" }, ...drawn.centre),
    drawn.hand ? h("section", { class: "hand", "data-hand": "" }, h("h3", {}, "Your hand"), h("p", {}, ...drawn.hand)) : null);
}


/** The live table of a seat (token) or a spectator: view, actions, log, live updates. */
async function live(gameId: string, token: string | undefined, signal: AbortSignal): Promise<void> {
  const viewer = token ? { seatToken: token } : { spectator: true };
  const log = new Log(`referee:log:${gameId}:${token ?? "spectator"}`);
  const tableBox = h("div", { class: "table-box" }, h("p", {}, "Loading…"));
  const actions = h("section", { class: "actions", "aria-label": "Your choices" });
  const alert = h("p", { class: "alert", role: "alert" });
  const status = h("p", { class: "connection", role: "status" });
  const lines = h("ol", { class: "log", "aria-label": "What happened", "aria-live": "polite" },
    ...log.lines.map(([seq, text]) => h("li", { "data-seq": seq }, text)));
  // Names (and option names) from ListGameTypes; without them the page still plays.
  const infos = await knownGameTypes().catch(() => new Map<string, GameInfo>());
  const title = infos.get(savedGame(gameId)?.gameType ?? "")?.name ?? "Game";
  page(token ? title : `${title} (watching)`, tableBox, token ? actions : null, alert, status,
    seatLinks(gameId),
    h("section", {}, h("h2", {}, "Game log"), lines),
    h("p", {}, h("a", { href: `#/replay/${gameId}` }, "Replay"), " · ", h("a", { href: `#/watch/${gameId}` }, "Watch as a spectator")));
  let shown = -1n;
  let busy = false;
  let current: View | null = null;

  const show = (view: View) => {
    if (view.version < shown) return; // a catching-up stream's older views
    shown = view.version;
    current = view;
    tableBox.replaceChildren(renderTable(view, infos.get(view.gameType)));
    const heading = app.querySelector("h1")!;
    heading.textContent = `${infos.get(view.gameType)?.name ?? title} · ${view.seat === undefined ? "watching" : `seat ${view.seat}`}` + (view.gameOver ? " · game over" : "");
    if (!token) return;
    const yours = view.legalCommands.length > 0;
    actions.replaceChildren(
      h("h2", {}, view.gameOver ? "Game over" : yours ? "▶ Your turn: choose (or press 1-9)" : "Waiting for the others…"),
      h("div", { class: "choices" }, ...view.legalCommands.map((_, i) =>
        h("button", { type: "button", class: "choice", "data-index": i, disabled: busy, onclick: () => void choose(i) },
          i < 9 ? h("kbd", {}, String(i + 1)) : null, " ", view.legalCommandLabels[i] ?? `choice ${i + 1}`))));
  };

  const choose = async (index: number) => {
    const view = current;
    if (!view || busy || !token || index >= view.legalCommands.length) return;
    busy = true;
    actions.querySelectorAll("button").forEach((b) => ((b as HTMLButtonElement).disabled = true));
    alert.textContent = "";
    alert.removeAttribute("data-rule-id");
    try {
      // A fresh id per choice, the same one for every retry while the outcome is unknown.
      const response = await submit({
        gameId, seatToken: token, commandId: crypto.randomUUID(), command: view.legalCommands[index],
      });
      busy = false;
      if (response.view) show(response.view);
    } catch (error) {
      busy = false;
      const p = problem(error);
      alert.textContent = `Refused: ${p.message}`;
      if (p.ruleId) alert.setAttribute("data-rule-id", p.ruleId);
      // A refusal usually means this page's view is behind: fetch the current one.
      try {
        const fresh = await api.getView({ gameId, ...viewer });
        if (fresh.view) show(fresh.view);
      } catch {
        // the stream will bring it
      }
    }
    // The stream may have drawn a newer view while the command was on its way (with its
    // buttons disabled): draw the newest again, now usable.
    if (current) show(current);
  };
  if (token) {
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
    lines.append(h("li", { "data-seq": seq }, event.description));
  };

  // The table first (so it is usable even while the stream connects), then the stream from
  // the last sequence this page has: a reload resumes with no gap and no duplicate.
  try {
    const first = await api.getView({ gameId, ...viewer }, { signal });
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
      const stream = api.streamGame({ gameId, ...viewer, afterSequence: BigInt(log.last) }, { signal });
      status.textContent = "";
      for await (const message of stream) {
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
  const request = asSeat !== undefined && saved
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
  const seats = saved
    ? h("p", {}, "Watch as: ", h("a", { href: `#/replay/${gameId}` }, "spectator"),
        ...saved.tokens.map((_, s) => h("span", {}, " · ", h("a", { href: `#/replay/${gameId}?seat=${s}` }, `seat ${s}`))),
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
  const [, where, gameId, token] = location.hash.split("?")[0].split("/");
  for (const game of savedGames()) startBots(game.gameId); // bots outlive a reload
  try {
    if (where === "game" && gameId) created(gameId);
    else if (where === "play" && gameId && token) await live(gameId, token, leave.signal);
    else if (where === "watch" && gameId) await live(gameId, undefined, leave.signal);
    else if (where === "replay" && gameId) await replay(gameId, leave.signal);
    else await home();
  } catch (error) {
    if (!leave.signal.aborted) page("Error", h("p", { role: "alert" }, problem(error).message, ` (server ${apiBase})`));
  }
}

window.addEventListener("hashchange", () => void route());
void route();
