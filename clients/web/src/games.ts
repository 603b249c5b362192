// How each game's view is drawn. Presentation only: no rule is decided here; every number
// and card comes from the view the referee sent, and every choice from its legal commands.
import { h, enumWords, type Child } from "./dom";
import type { View } from "./gen/referee/v1/referee_pb";
import {
  DraculaVsVanHelsing_Colour as DvColour,
  DraculaVsVanHelsing_Role as DvRole,
  DraculaVsVanHelsingView_Step as DvStep,
  type DraculaVsVanHelsing_Card as DvCard,
  type DraculaVsVanHelsingView,
} from "./gen/referee/v1/dracula_vs_van_helsing_pb";
import {
  MauMauVampires_CardKind as MmKind,
  MauMauVampires_Colour as MmColour,
  MauMauVampires_Ability as MmAbility,
  type MauMauVampires_Card as MmCard,
  type MauMauVampiresView,
} from "./gen/referee/v1/mau_mau_vampires_pb";
import {
  SleepingQueens_Card as SqCard,
  SleepingQueens_Queen as SqQueen,
  SleepingQueensView_Phase as SqPhase,
  type SleepingQueensView,
} from "./gen/referee/v1/sleeping_queens_pb";
import {
  VampireQueenView_PlayKind as VqPlay,
  type VampireQueenView,
} from "./gen/referee/v1/vampire_queen_pb";

/** What a game adds to the generic table. */
export interface Drawn {
  /** Facts above the table: round, trump, deck size... */
  facts: [string, Child][];
  /** One extra column per seat (name -> value by seat). */
  seatColumns: [string, (seat: number) => Child][];
  /** The middle of the table. */
  centre: Child[];
  /** The viewer's own cards (absent for a spectator). */
  hand: Child[] | null;
}

export const NAMES: Record<string, string> = {
  "vampire-queen": "Vampire Queen",
  "sleeping-queens": "Sleeping Queens",
  "dracula-vs-van-helsing": "Dracula vs Van Helsing",
  "mau-mau-vampires": "Mau Mau Vampires",
};

function chip(text: string, extra: Record<string, string> = {}): HTMLElement {
  return h("span", { class: "card", ...extra }, text);
}

// --- Vampire Queen ------------------------------------------------------------------------------

function vqCard(value: number): string {
  if (value === 14) return "Q";
  if (value === 15 || value === 20) return `H${value}`;
  return String(value);
}

function vampireQueen(view: View, game: VampireQueenView): Drawn {
  const trick = game.trick.map((play) => {
    const who = `seat ${play.seat}`;
    let what = "";
    if (play.kind === VqPlay.SET)
      what = `${play.count} × ${vqCard(play.value)}` + (play.queens ? ` (${play.queens} Q)` : "");
    else if (play.kind === VqPlay.PASS) what = "pass";
    else if (play.kind === VqPlay.HUNTER) what = `Hunter ${play.value}`;
    else if (play.kind === VqPlay.CARD) what = vqCard(play.value);
    else if (play.kind === VqPlay.SKIP) what = "skipped";
    return h("li", {}, `${who}: `, h("strong", {}, what));
  });
  return {
    facts: [
      ["Round", `${game.round} of ${game.rounds}`],
      ["Trick", game.trick.length ? `${game.leadCount} card(s) led` : "nothing led yet"],
      ["Hunters", `15 with seat ${game.hunter15Holder}, 20 with seat ${game.hunter20Holder}`],
    ],
    seatColumns: [
      ["Cards", (s) => game.handSizes[s] ?? 0],
      ["Penalty total", (s) => game.totals[s] ?? 0],
    ],
    centre: [h("h3", {}, "Current trick"), trick.length ? h("ol", { class: "trick" }, ...trick) : h("p", {}, "—")],
    hand: view.seat === undefined ? null : game.hand.map((v) => chip(vqCard(v))),
  };
}

// --- Sleeping Queens ----------------------------------------------------------------------------

const SQ_CARD: Record<number, string> = {
  [SqCard.CARD_KING]: "King", [SqCard.CARD_JESTER]: "Jester", [SqCard.CARD_KNIGHT]: "Knight",
  [SqCard.CARD_POTION]: "Sleeping Potion", [SqCard.CARD_WAND]: "Wand", [SqCard.CARD_DRAGON]: "Dragon",
};
function sqCard(card: number): string {
  return SQ_CARD[card] ?? String(card);
}
function sqQueen(queen: number): string {
  const name = enumWords(SqQueen, queen, "QUEEN_");
  return name.charAt(0).toUpperCase() + name.slice(1) + " Queen";
}

function sleepingQueens(view: View, game: SleepingQueensView): Drawn {
  const grid = game.positions.map((p) =>
    h(
      "li",
      { class: p.asleep ? "asleep" : "empty", "data-position": p.position },
      h("span", { class: "pos" }, `#${p.position}`),
      " ",
      p.asleep ? (p.queen ? `asleep: ${sqQueen(p.queen)}` : "asleep (face down)") : "empty",
    ),
  );
  const awake = new Map(game.awake.map((a) => [a.seat, a]));
  return {
    facts: [
      ["Phase", enumWords(SqPhase, game.phase, "PHASE_")],
      ["Draw pile", `${game.drawPileSize} cards`],
      ["Discard pile top", game.discardPile.length ? sqCard(game.discardPile[game.discardPile.length - 1]) : "—"],
      ["To win", `${game.queensToWin} queens or ${game.pointsToWin} points`],
      ...(game.targetQueen ? ([["Queen at stake", sqQueen(game.targetQueen)]] as [string, Child][]) : []),
    ],
    seatColumns: [
      ["Cards", (s) => game.handSizes[s] ?? 0],
      ["Awake queens", (s) => (awake.get(s)?.queens ?? []).map(sqQueen).join(", ") || "—"],
      ["Points", (s) => awake.get(s)?.points ?? 0],
    ],
    centre: [h("h3", {}, "Sleeping queens"), h("ol", { class: "grid" }, ...grid)],
    hand: view.seat === undefined ? null : game.hand.map((c) => chip(sqCard(c))),
  };
}

// --- Dracula vs Van Helsing ---------------------------------------------------------------------

const DV_LETTER: Record<number, string> = {
  [DvColour.YELLOW]: "Y", [DvColour.BLUE]: "B", [DvColour.RED]: "R", [DvColour.PURPLE]: "P",
};
function dvCard(card: DvCard | undefined): string {
  if (!card || !card.value) return "hidden";
  return `${DV_LETTER[card.colour] ?? "?"}${card.value} (${enumWords(DvColour, card.colour, "COLOUR_")})`;
}

function dracula(view: View, game: DraculaVsVanHelsingView): Drawn {
  const role = (r: number) => enumWords(DvRole, r, "ROLE_");
  const rows = game.districts.map((d) =>
    h(
      "tr",
      {},
      h("th", { scope: "row" }, `District ${d.district}`),
      h("td", {}, `${d.humans} humans, ${d.vampires} vampires`),
      ...game.racks.map((rack) => {
        const slot = rack.slots.find((s) => s.district === d.district);
        return h("td", { "data-slot": `${rack.seat}-${d.district}` }, slot ? dvCard(slot.card) + (slot.revealed ? " · face up" : "") : "");
      }),
    ),
  );
  const table = h(
    "table",
    { class: "districts" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "Tokens"), ...game.racks.map((r) => h("th", {}, `seat ${r.seat} (${role(r.role)})`)))),
    h("tbody", {}, ...rows),
  );
  const track = game.track.map((c) => enumWords(DvColour, c, "COLOUR_")).join(" > ");
  return {
    facts: [
      ["Round", `${game.round} of ${game.rounds}`],
      ["Dracula's HP", game.hp],
      ["Colours (trump first)", track],
      ["Deck", `${game.deckSize} cards` + (game.deckTop?.value ? `, top ${dvCard(game.deckTop)}` : "")],
      ["Step", enumWords(DvStep, game.step, "STEP_")],
      ...(game.drawn?.value ? ([["Drawn card", dvCard(game.drawn)]] as [string, Child][]) : []),
    ],
    seatColumns: [["Role", (s) => role(game.racks.find((r) => r.seat === s)?.role ?? 0)]],
    centre: [h("h3", {}, "Districts and racks"), table],
    hand: null, // the racks above show the viewer's own cards
  };
}

// --- Mau Mau Vampires ---------------------------------------------------------------------------

// Colour is never the only carrier: every card shows its colour word and symbol name, and a
// letter (R/B/G/P) beside the tint.
function mmCard(card: MmCard | undefined, symbols: string[]): HTMLElement {
  if (!card || card.kind === MmKind.UNSPECIFIED) return chip("hidden");
  if (card.kind === MmKind.CLOCK) return chip("Clock", { "data-kind": "clock" });
  if (card.kind === MmKind.WEREWOLF) return chip("Werewolf", { "data-kind": "werewolf" });
  const colour = enumWords(MmColour, card.colour, "COLOUR_");
  const symbol = symbols[card.symbol - 1] ?? `S${card.symbol}`;
  return chip(`${colour[0].toUpperCase()} · ${colour} ${symbol}`, { "data-colour": colour });
}

function mauMau(view: View, game: MauMauVampiresView): Drawn {
  const character = new Map(game.characters.map((c) => [c.seat, c]));
  return {
    facts: [
      ["Hand", `${game.handNumber} of ${game.hands}` + (game.tiebreak ? ` (tie-break ${game.tiebreak})` : "")],
      ["Time", game.night ? "night (characters are vampires)" : "day (characters are human)"],
      ["Clocks played", game.clocks],
      ["Wished colour", game.wish ? enumWords(MmColour, game.wish, "COLOUR_") : "none"],
      ["Deck / pile", `${game.deckSize} / ${game.pileSize}`],
      ...(game.potSize ? ([["Pot", `${game.potSize} cards`]] as [string, Child][]) : []),
    ],
    seatColumns: [
      ["Cards", (s) => game.handSizes[s] ?? 0],
      ["Character", (s) => {
        const c = character.get(s);
        if (!c) return "—";
        const wolf = game.werewolfSeat === s ? " · werewolf on it" : "";
        return `${c.name} (${enumWords(MmAbility, c.ability, "ABILITY_")})${wolf}`;
      }],
      ["Total", (s) => game.totals[s] ?? 0],
    ],
    centre: [
      h("h3", {}, "Discard pile"),
      h("p", {}, "Top card: ", mmCard(game.top, game.symbols)),
      ...(game.drawn.length ? [h("p", {}, "Just drawn: ", ...game.drawn.map((c) => mmCard(c, game.symbols)))] : []),
      ...(game.shownToYou.length
        ? [h("p", {}, "Shown to you: ", ...game.shownToYou.map((s) => h("span", {}, `seat ${s.seat} `, mmCard(s.card, game.symbols))))]
        : []),
    ],
    hand: view.seat === undefined ? null : game.hand.map((c) => mmCard(c, game.symbols)),
  };
}

export function draw(view: View): Drawn {
  switch (view.game.case) {
    case "vampireQueen":
      return vampireQueen(view, view.game.value);
    case "sleepingQueens":
      return sleepingQueens(view, view.game.value);
    case "draculaVsVanHelsing":
      return dracula(view, view.game.value);
    case "mauMauVampires":
      return mauMau(view, view.game.value);
    default:
      return { facts: [], seatColumns: [], centre: [h("p", {}, "This client does not know this game yet.")], hand: null };
  }
}
