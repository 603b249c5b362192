// The table drawn as a table: the viewer's own hand at the bottom, the other seats around
// (their hands as face-down cards: a view never holds a card the viewer may not see), and the
// piles, the trick or the queens in the middle. One layout per game, from the game's own view.
//
// The last move: everything drawn carries a key and a signature (what it shows); what changed
// since the view this page drew before is marked `last-move` (the card just played, the queen
// just woken, the slot just filled). A page that has drawn nothing yet (a reload) marks what the
// view itself says came last: the top of the discard pile, the trick's latest play.
//
// What a player can act on carries what the view's command parts call it (act.ts plays on
// it): a card of the hand its index in the game view's hand (data-hand-index), a thing on the
// table its target key (data-target="kind:id": "position:7", "queen:5", "seat:2",
// "pile:discard", "slot:0:3", "district:4", "shared:0"). Nothing here knows which commands use
// what: the parts say so.
import {
  backSvg, colourDisc, dayNightSvg, districtSvg, dvFace, dvLabel, dvShort, faceSvg, hpSvg, mmColourName, mmFace, mmLabel,
  mmSymbolName, sqCardFace, sqCardLabel, sqQueenFace, sqQueenLabel, stackSvg, trackSvg, vqFace, vqLabel, VQ_QUEEN,
} from "./cards";
import { h, type Child } from "./dom";
import type { Drawn } from "./games";
import type { DraculaVsVanHelsingView } from "./gen/referee/v1/dracula_vs_van_helsing_pb";
import type { MauMauVampires_Card, MauMauVampiresView } from "./gen/referee/v1/mau_mau_vampires_pb";
import type { View } from "./gen/referee/v1/referee_pb";
import type { SleepingQueensView } from "./gen/referee/v1/sleeping_queens_pb";
import type { VampireQueenView } from "./gen/referee/v1/vampire_queen_pb";

/** The drawn table, and the viewer's hand in words (for the text chips beside it). */
export interface Felt {
  root: HTMLElement;
  hand: string[] | null;
}

type Name = (seat: number) => string;
/** A seat's clock in words, kept counting by the page (an element with data-clock-seat). */
type Clock = (seat: number) => string;

class Scene {
  readonly sigs = new Map<string, string>();
  readonly marked: [Element, string][] = [];
  readonly recent = new Set<string>();
  hand: string[] | null = null;
  /** Every target some legal command aims at ("kind:id"): a zone drawn only when used. */
  readonly aims: Set<string>;
  constructor(readonly view: View, readonly name: Name, readonly clock: Clock, readonly game: string) {
    this.aims = new Set(view.legalCommandParts.flatMap((p) => p.targets.map((t) => `${t.kind}:${t.id}`)));
  }

  /** Gives `el` a key and a signature (the last move is what changed), and what the command
   * parts call it: a target key, or the index of a card in the hand. */
  mark<T extends Element>(el: T, key: string, sig: string, options: { recent?: boolean; target?: string; hand?: number } = {}): T {
    el.setAttribute("data-key", key);
    this.sigs.set(key, sig);
    this.marked.push([el, key]);
    if (options.recent) this.recent.add(key);
    if (options.target !== undefined) el.setAttribute("data-target", options.target);
    if (options.hand !== undefined) el.setAttribute("data-hand-index", String(options.hand));
    return el;
  }

  asked(seat: number): boolean {
    return this.view.decisions.some((d) => d.seat === seat);
  }
}

/** Keys for a hand's cards: the label and which of the equal ones (two 8s: 8#0, 8#1), so a
 * new card is new and the cards left after a play keep their keys. */
function handKeys(labels: string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((label) => {
    const n = seen.get(label) ?? 0;
    seen.set(label, n + 1);
    return `hand:${label}#${n}`;
  });
}

function zone(title: string, cls: string, ...children: Child[]): HTMLElement {
  const classes = cls.split(" ").map((c) => `zone-${c}`).join(" ");
  return h("div", { class: `zone ${classes}` }, h("div", { class: "zone-title" }, title), h("div", { class: "zone-cards" }, ...children));
}

function badge(text: string, cls = ""): HTMLElement {
  return h("span", { class: `badge ${cls}`.trim() }, text);
}

/** A seat: its player's name with the seat's clock beside it (and a mark while it decides),
 * then what the game shows of it. The box is the seat as a target (a gift, a swap). */
function seatBox(scene: Scene, seat: number, cls: string, ...children: Child[]): HTMLElement {
  const mine = seat === scene.view.seat;
  const asked = scene.asked(seat);
  const name = scene.name(seat) + (mine ? " (you)" : "");
  const clock = scene.view.clocks.length
    ? h("span", { class: `seat-clock${asked ? " running" : ""}`, "data-clock-seat": seat }, scene.clock(seat))
    : null;
  const box = h("section", { class: `seat-box ${cls}${asked ? " deciding" : ""}${mine ? " mine" : ""}`, "data-seat": seat, "aria-label": name },
    h("h3", { class: "seat-name" }, asked ? h("span", { class: "turn-mark", title: "to decide" }, "▶ ") : null,
      h("span", { class: "seat-player" }, name), clock), ...children);
  if (scene.aims.has(`seat:${seat}`)) box.setAttribute("data-target", `seat:${seat}`);
  return box;
}

/** The other seats, from the viewer's left around the table (all seats for a spectator). */
function others(view: View): number[] {
  const first = view.seat === undefined ? 0 : view.seat + 1;
  const count = view.seat === undefined ? view.players : view.players - 1;
  return Array.from({ length: count }, (_, i) => (first + i) % view.players);
}

function backs(scene: Scene, seat: number, count: number): SVGSVGElement {
  return scene.mark(stackSvg(scene.game, count, `${scene.name(seat)}: ${count} face-down card${count === 1 ? "" : "s"}`), `backs:${seat}`, String(count));
}

/** The viewer's hand, in the order of the game view's `hand` (card i is hand index i). */
function handFan(scene: Scene, cards: { svg: SVGSVGElement; label: string }[]): HTMLElement {
  scene.hand = cards.map((c) => c.label);
  if (!cards.length) return h("p", { class: "empty" }, "No cards in hand.");
  const keys = handKeys(scene.hand);
  // Overlapped like a hand held in a fan once there are many; side by side while they fit.
  return h("div", { class: `hand-fan${cards.length > 7 ? " crowded" : ""}${cards.length > 11 ? " packed" : ""}`, "data-felt-hand": "", "aria-label": "Your hand" },
    ...cards.map((c, i) => {
      c.svg.setAttribute("data-hand-card", "");
      return scene.mark(c.svg, keys[i], "1", { hand: i });
    }));
}

function layout(scene: Scene, around: HTMLElement[], centre: Child[], mine: HTMLElement | null): HTMLElement {
  return h("section", { class: "felt", "data-game": scene.game, "aria-label": "The table" },
    h("div", { class: "felt-others" }, ...around),
    h("div", { class: "felt-centre" }, ...centre),
    mine);
}

// --- Vampire Queen -------------------------------------------------------------------------------

function vampireQueen(scene: Scene, game: VampireQueenView): HTMLElement {
  const view = scene.view;
  const seatExtras = (seat: number): Child[] => [
    game.hunter15Holder === seat ? badge("holds the 15 Hunter", "hunter") : null,
    game.hunter20Holder === seat ? badge("holds the 20 Hunter", "hunter") : null,
    game.barredHunters[seat] ? badge(`may not lead the ${game.barredHunters[seat]} Hunter`) : null,
    game.totals.length ? badge(`penalty ${game.totals[seat] ?? 0}`, "score") : null,
  ];
  const around = others(view).map((seat) => seatBox(scene, seat, "", backs(scene, seat, game.handSizes[seat] ?? 0), h("div", { class: "badges" }, ...seatExtras(seat))));
  const plays = game.trick.map((play, i) => {
    let cards: Child[];
    if (play.kind === 2) cards = [badge("pass", "pass")];
    else if (play.kind === 5) cards = [badge("skipped", "pass")];
    else if (play.kind === 1) {
      const values = play.value === VQ_QUEEN
        ? Array<number>(play.count).fill(VQ_QUEEN)
        : [...Array<number>(play.count - play.queens).fill(play.value), ...Array<number>(play.queens).fill(VQ_QUEEN)];
      cards = values.map((v) => faceSvg(vqFace(v), "small"));
    } else cards = [faceSvg(vqFace(play.value), "small")];
    const best = game.bestSeat === play.seat && play.kind !== 2 && play.kind !== 5;
    return scene.mark(h("div", { class: `play${best ? " best" : ""}` }, h("div", { class: "play-who" }, scene.name(play.seat), best ? " ★" : ""),
      h("div", { class: "play-cards" }, ...cards)), `trick:${i}`, `${play.seat}:${play.kind}:${play.value}:${play.count}:${play.queens}`,
    { recent: i === game.trick.length - 1 });
  });
  const kind = game.trickKind === 2 ? "Hunter trick" : "Trick";
  const trick = zone(
    plays.length ? `${kind}${game.leadCount ? ` of ${game.leadCount}-card sets` : ""}${game.bestValue ? `, to beat: ${game.bestValue === VQ_QUEEN ? "queens" : game.bestValue}` : ""}` : `${scene.name(game.leader)} leads`,
    "trick", ...(plays.length ? plays : [h("p", { class: "empty" }, "Nothing led yet.")]));
  const centre = [h("div", { class: "centre-facts" }, badge(`round ${game.round} of ${game.rounds}`)), trick];
  const mine = view.seat === undefined ? null : seatBox(scene, view.seat, "", handFan(scene,
    game.hand.map((v) => ({ svg: faceSvg(vqFace(v)), label: vqLabel(v) }))),
  h("div", { class: "badges" }, ...seatExtras(view.seat)));
  return layout(scene, around, centre, mine);
}

// --- Sleeping Queens -----------------------------------------------------------------------------

function sleepingQueens(scene: Scene, game: SleepingQueensView): HTMLElement {
  const view = scene.view;
  const awakeOf = (seat: number) => game.awake.find((a) => a.seat === seat);
  const queenRow = (seat: number, small: boolean) => {
    const awake = awakeOf(seat);
    const queens = (awake?.queens ?? []).map((q) => {
      const targeted = game.targetQueen === q && game.attacker !== undefined;
      return scene.mark(faceSvg(sqQueenFace(q), `${small ? "small" : ""}${targeted ? " targeted" : ""}`), `awake:${seat}:${q}`, "1", { target: `queen:${q}` });
    });
    return h("div", { class: "queens-row" }, ...(queens.length ? queens : [h("span", { class: "empty" }, "no queen awake")]),
      awake?.points ? badge(`${awake.points} points`, "score") : null);
  };
  const around = others(view).map((seat) => seatBox(scene, seat, "", backs(scene, seat, game.handSizes[seat] ?? 0), queenRow(seat, true)));
  const positions = game.positions.map((p) => {
    let el: Element;
    if (p.asleep && p.queen) el = faceSvg({ ...sqQueenFace(p.queen), label: `${sqQueenLabel(p.queen)}, asleep at position ${p.position}` }, "asleep-known");
    else if (p.asleep) el = backSvg("queen", `position ${p.position}: a sleeping queen`);
    else el = h("div", { class: "pc slot-empty", role: "img", "aria-label": `position ${p.position}: empty` }, String(p.position));
    return scene.mark(h("div", { class: "position" }, el, p.asleep ? h("span", { class: "pos-no", "aria-hidden": "true" }, String(p.position)) : null),
      `pos:${p.position}`, `${p.asleep}:${p.queen}`, { target: `position:${p.position}` });
  });
  const top = game.discardPile[game.discardPile.length - 1];
  const piles = h("div", { class: "piles" },
    zone("Draw pile", "draw", scene.mark(stackSvg(scene.game, game.drawPileSize, `draw pile: ${game.drawPileSize} cards`), "draw", String(game.drawPileSize))),
    zone(`Discard pile (${game.discardPile.length})`, "discard", scene.mark(top
      ? faceSvg(sqCardFace(top))
      : h("div", { class: "pc slot-empty", role: "img", "aria-label": "the discard pile: empty" }, "empty"),
    "discard", `${game.discardPile.length}:${top ?? 0}`, { recent: Boolean(top), target: "pile:discard" })),
    game.jesterCard ? zone("Jester turned up", "jester", scene.mark(faceSvg(sqCardFace(game.jesterCard)), "jester", String(game.jesterCard))) : null);
  const goal = badge(`${game.queensToWin} queens or ${game.pointsToWin} points win`);
  const centre = [zone("Sleeping queens", "positions", h("div", { class: "position-grid" }, ...positions)), h("div", { class: "centre-side" }, piles, goal)];
  const mine = view.seat === undefined ? null : seatBox(scene, view.seat, "", queenRow(view.seat, false),
    handFan(scene, game.hand.map((c) => ({ svg: faceSvg(sqCardFace(c)), label: sqCardLabel(c) }))));
  return layout(scene, around, centre, mine);
}

// --- Mau Mau Vampires ----------------------------------------------------------------------------

const ABILITY_WORDS: Record<number, string> = {
  1: "(a) give 1 card left",
  2: "(b) call a colour",
  3: "(c) wish, play again",
  4: "(d) swap characters, play again",
  5: "(e) opponents draw 1",
  6: "(f) fewest cards draw 2",
  7: "(g) draw 2 and share",
  8: "(h) set aside into the pot",
};

function sameCard(a: MauMauVampires_Card | undefined, b: MauMauVampires_Card): boolean {
  return a !== undefined && a.kind === b.kind && a.colour === b.colour && a.symbol === b.symbol;
}

function mauMau(scene: Scene, game: MauMauVampiresView): HTMLElement {
  const view = scene.view;
  const symbols = game.symbols;
  // The card just drawn is in the hand too: drawn, it is that card of the hand.
  const inHand = (card: MauMauVampires_Card) => {
    const at = game.hand.findIndex((c) => sameCard(c, card));
    return at < 0 ? undefined : at;
  };
  const character = (seat: number) => {
    const c = game.characters.find((x) => x.seat === seat);
    if (!c) return null;
    const powers = game.night
      ? `night: ${mmSymbolName(c.vampireSymbol, symbols)} bites, ${mmColourName(c.vampireColour)} gives`
      : `day: ${c.daySymbols.map((s) => mmSymbolName(s, symbols)).join(" / ")} → ${ABILITY_WORDS[c.ability] ?? ""}`;
    return scene.mark(h("div", { class: `character${game.night ? " night" : ""}${c.werewolf ? " werewolf" : ""}` },
      h("strong", {}, c.name), c.werewolf ? badge("werewolf: no abilities", "wolf") : null, h("small", {}, powers)),
    `char:${seat}`, `${c.id}:${c.werewolf}:${game.night}`);
  };
  const playing = new Set(game.playing);
  const seatExtras = (seat: number): Child[] => [
    !playing.has(seat) ? badge("sits this hand out") : null,
    game.totals.length ? badge(`${game.totals[seat] ?? 0} points`, "score") : null,
    game.answering.includes(seat) ? badge(`to show a ${mmColourName(game.calledColour)} card`) : null,
  ];
  const around = others(view).map((seat) => seatBox(scene, seat, "", character(seat),
    backs(scene, seat, game.handSizes[seat] ?? 0), h("div", { class: "badges" }, ...seatExtras(seat))));
  const topLabel = game.top ? mmLabel(game.top, symbols) : "";
  // What this seat was dealt just now (drawn, to hand out, shown to it) beside the piles.
  const dealt: Child[] = [
    game.drawn.length ? zone("You drew", "drawn", ...game.drawn.map((c, i) => scene.mark(faceSvg(mmFace(c, symbols)), `drawn:${i}`, mmLabel(c, symbols), { hand: inHand(c) }))) : null,
    game.toShare.length ? zone("To hand out", "drawn", ...game.toShare.map((c, i) =>
      scene.mark(faceSvg(mmFace(c, symbols)), `share:${i}`, mmLabel(c, symbols), { target: `shared:${i}` }))) : null,
    game.shownToYou.length ? zone("Shown to you", "shown", ...game.shownToYou.map((s, i) =>
      scene.mark(h("div", { class: "play" }, h("div", { class: "play-who" }, scene.name(s.seat)), s.card ? faceSvg(mmFace(s.card, symbols), "small") : null),
        `shown:${i}`, `${s.seat}:${s.card ? mmLabel(s.card, symbols) : ""}`))) : null,
  ];
  const centre: Child[] = [
    h("div", { class: "piles" },
      zone("Deck", "draw", scene.mark(stackSvg(scene.game, game.deckSize, `deck: ${game.deckSize} cards`), "deck", String(game.deckSize), { target: "pile:draw" })),
      zone(`Discard pile (${game.pileSize})`, "discard", game.top && game.top.kind
        ? scene.mark(faceSvg(mmFace(game.top, symbols)), "top", `${topLabel}:${game.pileSize}`, { recent: true, target: "pile:discard" })
        : h("div", { class: "pc slot-empty" }, "empty")),
      game.wish ? zone("Wished colour", "wish", scene.mark(colourDisc(game.wish, `wished colour: ${mmColourName(game.wish)}`), "wish", String(game.wish)), badge(mmColourName(game.wish))) : null,
      game.calledColour ? zone("Called colour", "wish", colourDisc(game.calledColour, `called colour: ${mmColourName(game.calledColour)}`), badge(mmColourName(game.calledColour))) : null,
      zone(game.night ? "Night" : "Day", "daynight", scene.mark(dayNightSvg(game.night, game.clocks), "daynight", `${game.night}:${game.clocks}`)),
      game.potSize || scene.aims.has("pile:pot") ? zone(`Pot (${game.potSize})`, "pot", scene.mark(game.potSize
        ? stackSvg(scene.game, game.potSize, `pot: ${game.potSize} cards`)
        : h("div", { class: "pc slot-empty", role: "img", "aria-label": "the pot: empty" }, "pot"), "pot", String(game.potSize), { target: "pile:pot" }),
        ...game.potYours.map((c) => faceSvg(mmFace(c, symbols), "small"))) : null,
      ...dealt),
    h("div", { class: "centre-facts" }, badge(`hand ${game.handNumber} of ${game.hands}${game.tiebreak ? ` (tie-break ${game.tiebreak})` : ""}`),
      game.extraTurn ? badge("another turn") : null),
  ];
  const mine = view.seat === undefined ? null : seatBox(scene, view.seat, "", character(view.seat),
    handFan(scene, game.hand.map((c) => ({ svg: faceSvg(mmFace(c, symbols)), label: mmLabel(c, symbols) }))),
    h("div", { class: "badges" }, ...seatExtras(view.seat)));
  return layout(scene, around, centre, mine);
}

// --- Dracula vs Van Helsing ----------------------------------------------------------------------

const ROLES: Record<number, string> = { 1: "Dracula", 2: "Van Helsing" };

function dracula(scene: Scene, game: DraculaVsVanHelsingView): HTMLElement {
  const view = scene.view;
  const mineRack = game.racks.find((r) => view.seat !== undefined && r.seat === view.seat);
  const top = mineRack ? game.racks.find((r) => r !== mineRack) : game.racks.find((r) => r.seat === 1);
  const bottom = mineRack ?? game.racks.find((r) => r.seat === 0);
  const rackRow = (rack: typeof game.racks[number] | undefined, own: boolean) => {
    if (!rack) return [];
    const cards = rack.slots.map((slot) => {
      const card = slot.card;
      const who = ROLES[rack.role] ?? scene.name(rack.seat);
      const svg = card?.value
        ? faceSvg(dvFace(card), slot.revealed ? "face-up" : "")
        : backSvg(scene.game, `${who}'s card in district ${slot.district}: face down`);
      if (own) svg.setAttribute("data-hand-card", "");
      const state = slot.revealed ? "face up" : card?.value ? (own ? "only you see it" : "known to you") : "face down";
      return scene.mark(h("div", { class: `slot${slot.revealed ? " revealed" : ""}` }, svg, h("span", { class: "slot-state" }, state)),
        `slot:${rack.seat}:${slot.district}`, `${dvShort(card)}:${slot.revealed}`, { target: `slot:${rack.seat}:${slot.district}` });
    });
    if (own && view.seat !== undefined && rack.seat === view.seat) scene.hand = rack.slots.map((s) => (s.card?.value ? dvLabel(s.card) : "a face-down card"));
    return cards;
  };
  const rackTitle = (rack: typeof game.racks[number] | undefined) => (rack ? seatBox(scene, rack.seat, "rack-title",
    h("div", { class: "badges" }, badge(ROLES[rack.role] ?? "", rack.role === 1 ? "dracula" : "helsing"))) : null);
  // Who took each district when the last round was resolved (DV-20, DV-21).
  const districts = game.districts.map((d) => {
    const won = game.lastResolution.find((r) => r.district === d.district)?.winner;
    return h("div", { class: "district-box" },
      scene.mark(districtSvg(d.district, d.humans, d.vampires), `district:${d.district}`, `${d.humans}:${d.vampires}`, { target: `district:${d.district}` }),
      won ? h("span", { class: "slot-state" }, `last: ${ROLES[won] ?? ""}`) : null);
  });
  const topCards = rackRow(top, false);
  const bottomCards = rackRow(bottom, Boolean(mineRack));
  const grid = h("div", { class: "dv-grid" },
    ...topCards.map((c) => h("div", { class: "dv-cell top" }, c)),
    ...districts.map((d) => h("div", { class: "dv-cell district-cell" }, d)),
    ...bottomCards.map((c) => h("div", { class: "dv-cell bottom" }, c)));
  const placing = game.step === 2;
  const drawn = placing
    ? zone(game.turn === view.seat ? "You drew" : `${scene.name(game.turn ?? 0)} drew`, "drawn", scene.mark(game.drawn?.value
      ? faceSvg(dvFace(game.drawn), game.drawnRevealed ? "face-up" : "")
      : backSvg(scene.game, "the drawn card: face down"), "drawn", dvShort(game.drawn)))
    : null;
  // The whole pile is where the drawn card is thrown (a target), its top card the last move.
  const discardZone = zone(`Discard pile (${game.discardPile.length})`, "discard dv-discard", ...(game.discardPile.length
    ? game.discardPile.map((c, i) => (i === game.discardPile.length - 1
      ? scene.mark(faceSvg(dvFace(c)), "discard", `${game.discardPile.length}:${dvShort(c)}`, { recent: true })
      : faceSvg(dvFace(c), "small under")))
    : [h("div", { class: "pc slot-empty" }, "empty")]));
  discardZone.setAttribute("data-target", "pile:discard");
  const header = h("div", { class: "dv-header" },
    zone("Colours (trump first)", "track", scene.mark(trackSvg(game.track), "track", game.track.join(","))),
    zone(`Dracula's HP: ${game.hp}`, "hp", scene.mark(hpSvg(game.hp), "hp", String(game.hp))),
    h("div", { class: "centre-facts" }, badge(`round ${game.round} of ${game.rounds}`),
      game.calledBy !== undefined ? badge(`${scene.name(game.calledBy)} called the end`) : null,
      game.turnKind === 2 ? badge("another turn (a 5)") : game.turnKind === 3 ? badge("last turn") : null));
  const piles = h("div", { class: "piles" },
    zone("Deck", "draw", scene.mark(stackSvg(scene.game, game.deckSize, `deck: ${game.deckSize} cards`), "deck", String(game.deckSize), { target: "pile:draw" }),
      game.deckTop?.value ? scene.mark(faceSvg(dvFace(game.deckTop), "face-up"), "decktop", dvShort(game.deckTop)) : null),
    drawn,
    discardZone);
  return h("section", { class: "felt", "data-game": scene.game, "aria-label": "The table" },
    header, rackTitle(top), grid, rackTitle(bottom), piles);
}

// --- the last move -------------------------------------------------------------------------------

interface Seen {
  version: bigint;
  sigs: Map<string, string>;
  lit: Set<string>;
}
/** What this page drew last, by game and viewer. */
const seen = new Map<string, Seen>();

function lastMove(scene: Scene): Set<string> {
  const id = `${scene.view.gameId}:${scene.view.seat ?? "watching"}`;
  const before = seen.get(id);
  // The same view drawn again (a redraw after a command) keeps its marks.
  if (before && before.version === scene.view.version) return before.lit;
  let lit: Set<string>;
  // Nothing drawn before, or a view older than the one drawn (a replay stepping back, a replay
  // after watching the game live): what the view itself says came last.
  if (!before || scene.view.version < before.version) lit = new Set(scene.recent);
  else {
    lit = new Set([...scene.sigs].filter(([key, sig]) => before.sigs.get(key) !== sig).map(([key]) => key));
    // A new deal changes the whole hand: marking every card would mark nothing in particular.
    const newCards = [...lit].filter((key) => key.startsWith("hand:"));
    if (newCards.length > 3) for (const key of newCards) lit.delete(key);
    if (!lit.size) lit = before.lit; // nothing drawn changed: the last move is still the last
  }
  seen.set(id, { version: scene.view.version, sigs: scene.sigs, lit });
  return lit;
}

// --- a game with no drawing of its own ----------------------------------------------------------

/** A game this page has no drawing for (a new game on the server): the seats with their
 * names and clocks and their columns of the generic table, its middle, and the hand as
 * cards in words, each marked with its hand index, so it is played on the table too. */
function anyGame(scene: Scene, drawn: Drawn): HTMLElement {
  const view = scene.view;
  const columns = (seat: number) => h("div", { class: "badges" }, ...drawn.seatColumns.map(([title, value]) => {
    const text = words(value(seat));
    return text ? badge(`${title}: ${text}`) : null;
  }));
  const around = others(view).map((seat) => seatBox(scene, seat, "", columns(seat)));
  const facts = h("div", { class: "centre-facts" }, ...drawn.facts.map(([title, value]) => badge(`${title}: ${words(value)}`)));
  const cards = (drawn.hand ?? []).map((chip) => h("span", { class: "word-card" }, chip));
  scene.hand = cards.map((c) => c.textContent ?? "");
  const keys = handKeys(scene.hand);
  const hand = h("div", { class: "hand-fan words", "data-felt-hand": "", "aria-label": "Your hand" },
    ...cards.map((card, i) => scene.mark(card, keys[i], "1", { hand: i })));
  const mine = view.seat === undefined ? null
    : seatBox(scene, view.seat, "", columns(view.seat), cards.length ? hand : h("p", { class: "empty" }, "No cards in hand."));
  return layout(scene, around, [facts, ...drawn.centre], mine);
}

/** What the generic table shows as a value, in plain words. */
function words(value: Child): string {
  if (value === null || value === undefined || value === false) return "";
  return typeof value === "object" ? value.textContent ?? "" : String(value);
}

/** The table of a view drawn with cards (a game drawn here) or from the generic reading of
 * its view (`drawn`, games.ts: any other game). */
export function felt(view: View, name: Name, clock: Clock, drawn: Drawn): Felt {
  const game = view.game;
  const scene = new Scene(view, name, clock, view.gameType);
  let root: HTMLElement;
  if (game.case === "vampireQueen") root = vampireQueen(scene, game.value);
  else if (game.case === "sleepingQueens") root = sleepingQueens(scene, game.value);
  else if (game.case === "mauMauVampires") root = mauMau(scene, game.value);
  else if (game.case === "draculaVsVanHelsing") root = dracula(scene, game.value);
  else root = anyGame(scene, drawn);
  const lit = lastMove(scene);
  for (const [el, key] of scene.marked) {
    if (lit.has(key)) {
      el.classList.add("last-move");
      el.setAttribute("data-last-move", "");
    }
  }
  return { root, hand: scene.hand };
}
