// The signed-in player's side of the home page: sign in (or register, where the server
// allows it), the lobby's open tables (WatchLobby), challenges, pairing, and the player
// stream (WatchPlayer) that says when a challenge or a pairing has made a game for us.
// Every seat token this page learns is the caller's own: ClaimSeat, AnswerChallenge and
// SeatGranted return only the claimant's seat.
import { api, auth, backoff, checkReach, problem, reach, resumable, sleep, unreachable } from "./api";
import { h } from "./dom";
import { Code } from "@connectrpc/connect";
import { PlayerLoop } from "@game-referee/sdk";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  ChallengeState, PairingState, PlayerKind, type Challenge, type ClockSettingsSchema, type GameSummary,
  type GameType, type HouseBot, type LobbyTable, type PairingTicket,
} from "./gen/referee/v1/referee_pb";
import { holdSeat, player, savedGame, setPlayer } from "./store";

/** "alice, open seat, house-easy (reserved)": who is at a table, by name. */
export function holdersText(game: GameSummary): string {
  return Array.from({ length: game.players }, (_, seat) => {
    const holder = game.seatHolders.find((x) => x.seat === seat);
    if (!holder || holder.state === 1) return "open seat";
    if (holder.hidden) return "a player (named once the game starts)";
    if (holder.state === 2) return `${holder.player} (reserved)`;
    return (holder.player || "a guest") + (holder.online ? " (online)" : "");
  }).join(", ");
}

export function clockWords(game: GameSummary): string {
  const c = game.clock;
  if (!c?.decisionMs) return "no clock";
  return `${c.decisionMs / 1000} s a move + ${c.bankMs / 1000} s bank` +
    (c.forfeitAfterTimeouts ? `, forfeit after ${c.forfeitAfterTimeouts} timeouts` : "");
}

/** The clock's fields of a form (the new game, a challenge, a pairing request): seconds a
 * move, the bank, forfeit after N timeouts; `key` keeps their ids apart on one page. */
export function clockFields(key: string): HTMLElement {
  const num = (name: string, label: string, help: string) => h("span", { class: "clock-field" },
    h("label", { for: `${name}-${key}` }, label), " ",
    h("input", { id: `${name}-${key}`, name, type: "number", min: 0, value: 0, size: 6 }),
    h("small", {}, ` ${help}`));
  return h("fieldset", { class: "clock" }, h("legend", {}, "Clock (0: none)"),
    num("decision_s", "Seconds a move:", "each decision's own time"), " ",
    num("bank_s", "Bank (seconds):", "a seat's reserve once a move overruns"), " ",
    num("forfeit_after", "Forfeit after timeouts:", "0: never; then the referee plays for the seat"));
}

/** The clock a form's fields ask for; undefined (no clock) when seconds a move is 0. */
export function clockFrom(form: HTMLFormElement): MessageInitShape<typeof ClockSettingsSchema> | undefined {
  const data = new FormData(form);
  const decision = Number(data.get("decision_s") ?? 0);
  if (!(decision > 0)) return undefined;
  return {
    decisionMs: Math.round(decision * 1000), bankMs: Math.round(Number(data.get("bank_s") ?? 0) * 1000),
    forfeitAfterTimeouts: Number(data.get("forfeit_after") ?? 0),
  };
}

/** The server's bots by strength, weakest first: each level once, with its accounts. */
export function botLevels(bots: HouseBot[]): { level: string; description: string; players: string[]; pairAfterMs: number }[] {
  const levels = new Map<string, { level: string; description: string; players: string[]; pairAfterMs: number }>();
  for (const bot of bots) {
    const entry = levels.get(bot.level) ?? { level: bot.level, description: bot.description, players: [], pairAfterMs: bot.pairAfterMs };
    entry.players.push(bot.player);
    levels.set(bot.level, entry);
  }
  return [...levels.values()];
}

export function signInBox(onChange: () => void): HTMLElement {
  const me = player();
  const status = h("p", { role: "status", class: "sign-in-status" });
  if (me) {
    return h("section", { class: "sign-in", "data-player": me.name },
      h("p", {}, "Signed in as ", h("strong", {}, me.name), " ",
        h("button", { type: "button", class: "always", onclick: () => { setPlayer(null); onChange(); } }, "Sign out")),
      status);
  }
  const name = h("input", { id: "player-name", name: "name", required: true, placeholder: "your player name", autocomplete: "username" }) as HTMLInputElement;
  const token = h("input", { id: "player-token", name: "token", placeholder: "account token (acct-…)", type: "password", autocomplete: "current-password" }) as HTMLInputElement;
  const signIn = async () => {
    try {
      const who = await api.whoAmI({}, { headers: { authorization: `Bearer ${token.value.trim()}` } });
      setPlayer({ name: who.player?.name ?? name.value, token: token.value.trim() });
      onChange();
    } catch (error) {
      status.textContent = `Not signed in: ${problem(error).message}`;
    }
  };
  const register = async () => {
    try {
      const made = await api.register({ name: name.value.trim(), kind: PlayerKind.PERSON });
      setPlayer({ name: made.player?.name ?? name.value.trim(), token: made.token });
      onChange();
    } catch (error) {
      const p = problem(error);
      // Closed registration (PERMISSION_DENIED): the server's words say what to do.
      status.textContent = p.code === String(Code.PermissionDenied)
        ? `Registration is closed on this server: ${p.message.replace(/^this server does not let anyone register: /, "")}; then sign in with its token below.`
        : `Not registered: ${p.message}`;
    }
  };
  const form = h("form", { class: "sign-in-form" },
    h("p", {}, h("label", { for: "player-name" }, "Player name: "), name, " ",
      h("button", { type: "button", class: "register", onclick: () => void register() }, "Register this name")),
    h("p", {}, h("label", { for: "player-token" }, "or your account token: "), token, " ",
      h("button", { type: "submit" }, "Sign in")),
    status);
  form.addEventListener("submit", (e) => { e.preventDefault(); void signIn(); });
  return h("section", { class: "sign-in" }, h("h2", {}, "Sign in"),
    h("p", {}, "Play as a named player to use the lobby, challenges and pairing (guests can still join with a link)."),
    form);
}

function termsWords(types: Map<string, GameType>, terms: Challenge["terms"]): string {
  if (!terms) return "";
  const name = types.get(terms.gameType)?.name ?? terms.gameType;
  return `${name}, ${terms.players || "fewest"} seats` + (terms.clock?.decisionMs ? `, ${terms.clock.decisionMs / 1000} s a move` : "");
}

/** The lobby: open tables, challenges, pairing; kept live until `signal` aborts. `bots` are
 * the server's own bot players (ListGameTypesResponse.house_bots), which may be challenged
 * by name and join a pairing request that has waited. */
export function lobby(
  types: Map<string, GameType>, bots: HouseBot[], signal: AbortSignal, play: (gameId: string, seat: number) => void,
): HTMLElement {
  const me = player();
  const tables = new Map<string, LobbyTable>();
  const tableList = h("ul", { class: "lobby-tables" });
  const status = h("p", { role: "status", class: "lobby-status" });
  const drawTables = () => {
    tableList.replaceChildren(...[...tables.values()].map((t) => {
      const g = t.game!;
      const take = h("button", {
        type: "button", class: "take-seat", disabled: !me,
        title: me ? "" : "sign in to take a seat from the lobby",
        onclick: async () => {
          try {
            const claimed = await api.claimSeat({ gameId: g.gameId }, auth());
            holdSeat(g.gameId, g.gameType, claimed.seat, claimed.seatToken);
            play(g.gameId, claimed.seat);
          } catch (error) {
            status.textContent = problem(error).message;
          }
        },
      }, "Take a seat");
      return h("li", { "data-game": g.gameId },
        `${types.get(g.gameType)?.name ?? g.gameType} · ${g.players} seats (${holdersText(g)}) · ${clockWords(g)}${g.rated ? " · rated" : ""} `, take);
    }));
    if (!tables.size) tableList.append(h("li", {}, "No open tables right now."));
  };
  drawTables();
  void (async () => {
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const stream = api.watchLobby({}, { signal });
        for await (const message of stream) {
          reach.set(true);
          attempt = 0;
          if (message.table?.game) tables.set(message.table.game.gameId, message.table);
          if (message.removedGameId) tables.delete(message.removedGameId);
          if (message.caughtUp || message.table || message.removedGameId) drawTables();
        }
      } catch (error) {
        if (signal.aborted) return;
        if (unreachable(error)) checkReach();
        if (!resumable(error)) return;
      }
      await sleep(backoff(attempt));
    }
  })();

  const section = h("section", { class: "lobby" }, h("h2", {}, "Lobby: open tables"), tableList, status);
  if (!me) return section;

  // Challenges and pairing (signed in only).
  const challenges = new Map<string, Challenge>();
  const challengeList = h("ul", { class: "challenges" });
  const drawChallenges = () => {
    const open = [...challenges.values()].filter((c) => c.state === ChallengeState.OPEN);
    challengeList.replaceChildren(...open.map((c) => {
      const mine = c.challenger === me.name;
      const answer = (accept: boolean) => async () => {
        try {
          const answered = await api.answerChallenge({ challengeId: c.challengeId, accept }, auth());
          challenges.set(c.challengeId, answered.challenge!);
          if (accept && answered.gameId) {
            holdSeat(answered.gameId, c.terms?.gameType ?? "", answered.seat, answered.seatToken);
            play(answered.gameId, answered.seat);
          }
          drawChallenges();
        } catch (error) {
          status.textContent = problem(error).message;
        }
      };
      const withdraw = async () => {
        try {
          challenges.set(c.challengeId, (await api.withdrawChallenge({ challengeId: c.challengeId }, auth())).challenge!);
          drawChallenges();
        } catch (error) {
          status.textContent = problem(error).message;
        }
      };
      return h("li", { "data-challenge": c.challengeId },
        mine ? `You challenge ${c.challenged || "anyone"}: ` : `${c.challenger} challenges ${c.challenged ? "you" : "anyone"}: `,
        termsWords(types, c.terms), " ",
        mine ? h("button", { type: "button", onclick: () => void withdraw() }, "Withdraw")
          : h("span", {}, h("button", { type: "button", class: "accept", onclick: () => void answer(true)() }, "Accept"), " ",
            h("button", { type: "button", onclick: () => void answer(false)() }, "Decline")));
    }));
    if (!open.length) challengeList.append(h("li", {}, "No open challenges."));
  };
  drawChallenges();
  void api.listChallenges({}, auth(signal)).then(({ challenges: list }) => {
    for (const c of list) challenges.set(c.challengeId, c);
    drawChallenges();
  }, () => {});

  const typeSelect = (id: string) => h("select", { id, name: "game_type" },
    ...[...types.values()].map((t) => h("option", { value: t.gameType }, t.name))) as HTMLSelectElement;
  const seatsInput = (id: string) => h("input", { id, name: "players", type: "number", min: 0, max: 12, value: 2, size: 3 }) as HTMLInputElement;

  // A house bot accepts a challenge addressed to it at once: its names are offered.
  const botNames = h("datalist", { id: "challenge-bots" }, ...bots.map((b) =>
    h("option", { value: b.player }, `${b.level}: ${b.description}`)));
  const whom = h("input", {
    id: "challenge-whom", name: "challenged", list: "challenge-bots",
    placeholder: bots.length ? "player name, or a server bot (empty: anyone)" : "player name (empty: anyone)",
  }) as HTMLInputElement;
  const cType = typeSelect("challenge-type");
  const cSeats = seatsInput("challenge-seats");
  const challengeForm = h("form", { class: "challenge-form" },
    h("p", {}, h("label", { for: "challenge-whom" }, "Challenge "), whom, botNames, " ", h("label", { for: "challenge-type" }, "to "), cType, " ",
      h("label", { for: "challenge-seats" }, "seats "), cSeats),
    clockFields("challenge"),
    h("button", { type: "submit" }, "Challenge")) as HTMLFormElement;
  challengeForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const clock = clockFrom(challengeForm);
    void api.createChallenge({
      challenged: whom.value.trim(),
      terms: { gameType: cType.value, players: Number(cSeats.value), ...(clock ? { clock } : {}) },
      expiresInMs: 10 * 60 * 1000,
    }, auth()).then(({ challenge }) => {
      challenges.set(challenge!.challengeId, challenge!);
      drawChallenges();
    }, (error: unknown) => (status.textContent = problem(error).message));
  });

  let ticket: PairingTicket | null = null;
  const pairingStatus = h("p", { class: "pairing-status", role: "status" });
  const pType = typeSelect("pairing-type");
  const pSeats = seatsInput("pairing-seats");
  const cancel = h("button", { type: "button", class: "cancel-pairing", disabled: true, onclick: () => {
    if (!ticket) return;
    void api.cancelPairing({ ticketId: ticket.ticketId }, auth()).then(({ ticket: t }) => showTicket(t ?? null),
      (error: unknown) => (status.textContent = problem(error).message));
  } }, "Cancel") as HTMLButtonElement;
  const showTicket = (t: PairingTicket | null) => {
    ticket = t;
    cancel.disabled = t?.state !== PairingState.WAITING;
    pairingStatus.textContent = !t ? "" : t.state === PairingState.WAITING
      ? `Waiting for opponents (${termsWords(types, t.terms)})…`
      : t.state === PairingState.PAIRED ? "Paired: your game is ready." : "Pairing cancelled.";
  };
  // Whether (and when) the server's bots join a request nobody else answers.
  const joining = bots.filter((b) => b.pairAfterMs > 0);
  const wait = joining.length ? Math.min(...joining.map((b) => b.pairAfterMs)) : 0;
  const pairingForm = h("form", { class: "pairing-form" },
    h("p", {}, h("label", { for: "pairing-type" }, "Pair me for "), pType, " ", h("label", { for: "pairing-seats" }, "seats "), pSeats),
    clockFields("pairing"),
    h("p", { class: "pairing-bots" }, joining.length
      ? `If no one comes within ${wait / 1000} s, the server's bots (${botLevels(joining).map((l) => l.level).join(", ")}) join the request.`
      : "This server runs no bots of its own: pairing waits for people."),
    h("button", { type: "submit" }, "Find opponents"), " ", cancel, pairingStatus) as HTMLFormElement;
  pairingForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const clock = clockFrom(pairingForm);
    void api.requestPairing({ terms: { gameType: pType.value, players: Number(pSeats.value), ...(clock ? { clock } : {}) } }, auth())
      .then(({ ticket: t }) => showTicket(t ?? null), (error: unknown) => (status.textContent = problem(error).message));
  });

  // The player stream: challenges to us as they come, and the seats a challenge or a pairing
  // gave us (SeatGranted: our own token only). Its game updates are for the table pages: the
  // SDK's loop keeps where each game is, so a reconnect sends none of them again.
  if (me) {
    const loop = new PlayerLoop({
      client: api,
      credential: me.token,
      backoffMs: { first: 100, most: 5000 },
      maxAttempts: Number.POSITIVE_INFINITY,
      onMessage: (message) => {
        reach.set(true);
        const kind = message.kind;
        if (kind.case === "challenge") {
          challenges.set(kind.value.challengeId, kind.value);
          drawChallenges();
        } else if (kind.case === "pairing") {
          showTicket(kind.value);
        } else if (kind.case === "seat") {
          const s = kind.value;
          // A seat new to this browser, in a game not over: a challenge of ours accepted, or
          // a pairing made; seats it knows already are where their pages are.
          const before = savedGame(s.gameId);
          const known = before?.mine.includes(s.seat) ?? false;
          holdSeat(s.gameId, s.game?.gameType ?? "", s.seat, s.seatToken);
          if (!known && !s.game?.gameOver) play(s.gameId, s.seat);
        }
      },
      onReconnect: (error) => {
        if (unreachable(error)) checkReach();
      },
    });
    signal.addEventListener("abort", () => loop.stop());
    void loop.run().catch(() => undefined); // a refusal of the stream itself: signed out
  }
  section.append(h("h2", {}, "Challenges"), challengeList, challengeForm, h("h2", {}, "Pairing"), pairingForm);
  return section;
}
