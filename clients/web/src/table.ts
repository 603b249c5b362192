// The table drawn as a table: the viewer's own hand at the bottom, the other seats around
// (their hands as face-down cards: a view never holds a card the viewer may not see), and the
// piles, the trick or the queens in the middle. One layout per game, from the game's own view.
//
// The last move: everything drawn carries a key and a signature (what it shows); what changed
// since the view this page drew before is marked `last-move` (the card just played, the queen
// just woken, the slot just filled). A page that has drawn nothing yet (a reload) marks what the
// view itself says came last: the top of the discard pile, the trick's latest play.
//
// A card or a place that some legal command uses carries those commands' indexes: clicking it
// presses the command's button when exactly one matches, else points at the matching buttons.
// The buttons stay the way to choose (and the keyboard's: the cards are not focusable).
import {
  backSvg, colourDisc, dayNightSvg, districtSvg, dvFace, dvLabel, dvShort, faceSvg, hpSvg, mmColourName, mmFace, mmLabel,
  mmSymbolName, sqCardFace, sqCardLabel, sqQueenFace, sqQueenLabel, stackSvg, trackSvg, vqFace, vqLabel, VQ_QUEEN,
} from "./cards";
import { h, type Child } from "./dom";
import type { DraculaVsVanHelsingView } from "./gen/referee/v1/dracula_vs_van_helsing_pb";
import type { MauMauVampires_Card, MauMauVampiresView } from "./gen/referee/v1/mau_mau_vampires_pb";
import type { Command, View } from "./gen/referee/v1/referee_pb";
import type { SleepingQueensView } from "./gen/referee/v1/sleeping_queens_pb";
import type { VampireQueenView } from "./gen/referee/v1/vampire_queen_pb";

/** The drawn table, and the viewer's hand in words (for the text chips beside it). */
export interface Felt {
  root: HTMLElement;
  hand: string[] | null;
}

type Name = (seat: number) => string;

class Scene {
  readonly sigs = new Map<string, string>();
  readonly marked: [Element, string][] = [];
  readonly recent = new Set<string>();
  hand: string[] | null = null;
  constructor(readonly view: View, readonly name: Name, readonly game: string) {}

  /** Gives `el` a key and a signature (the last move is what changed), and the indexes of the
   * legal commands that use it. */
  mark<T extends Element>(el: T, key: string, sig: string, options: { recent?: boolean; choices?: number[] } = {}): T {
    el.setAttribute("data-key", key);
    this.sigs.set(key, sig);
    this.marked.push([el, key]);
    if (options.recent) this.recent.add(key);
    if (options.choices?.length) {
      el.setAttribute("data-choices", options.choices.join(" "));
      el.classList.add("playable");
    }
    return el;
  }

  /** Indexes of the legal commands `test` accepts. */
  choices(test: (command: Command) => boolean): number[] {
    return this.view.legalCommands.flatMap((command, i) => (test(command) ? [i] : []));
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

function seatBox(scene: Scene, seat: number, cls: string, ...children: Child[]): HTMLElement {
  const mine = seat === scene.view.seat;
  const asked = scene.asked(seat);
  const name = scene.name(seat) + (mine ? " (you)" : "");
  return h("section", { class: `seat-box ${cls}${asked ? " deciding" : ""}${mine ? " mine" : ""}`, "data-seat": seat, "aria-label": name },
    h("h3", { class: "seat-name" }, asked ? h("span", { class: "turn-mark", title: "to decide" }, "▶ ") : null, name), ...children);
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

function handFan(scene: Scene, cards: { svg: SVGSVGElement; label: string; choices: number[] }[]): HTMLElement {
  scene.hand = cards.map((c) => c.label);
  if (!cards.length) return h("p", { class: "empty" }, "No cards in hand.");
  const keys = handKeys(scene.hand);
  // Overlapped like a hand held in a fan once there are many; side by side while they fit.
  return h("div", { class: `hand-fan${cards.length > 7 ? " crowded" : ""}`, "data-felt-hand": "", "aria-label": "Your hand" },
    ...cards.map((c, i) => {
      c.svg.setAttribute("data-hand-card", "");
      return scene.mark(c.svg, keys[i], "1", { choices: c.choices });
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
  const uses = (value: number) => scene.choices((c) => {
    if (c.game.case !== "vampireQueen") return false;
    const k = c.game.value.kind;
    if (k.case === "playSet") return k.value.value === value || (value === VQ_QUEEN && k.value.queens > 0);
    if (k.case === "playCard") return k.value.value === value;
    if (k.case === "leadHunter") return k.value.hunter === value;
    return false;
  });
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
    game.hand.map((v) => ({ svg: faceSvg(vqFace(v)), label: vqLabel(v), choices: uses(v) }))),
  h("div", { class: "badges" }, ...seatExtras(view.seat)));
  return layout(scene, around, centre, mine);
}

// --- Sleeping Queens -----------------------------------------------------------------------------

function sleepingQueens(scene: Scene, game: SleepingQueensView): HTMLElement {
  const view = scene.view;
  const sq = (c: Command) => (c.game.case === "sleepingQueens" ? c.game.value.kind : undefined);
  const awakeOf = (seat: number) => game.awake.find((a) => a.seat === seat);
  const queenRow = (seat: number, small: boolean) => {
    const awake = awakeOf(seat);
    const queens = (awake?.queens ?? []).map((q) => {
      const targeted = game.targetQueen === q && game.attacker !== undefined;
      const choices = seat === view.seat ? [] : scene.choices((c) => {
        const k = sq(c);
        return (k?.case === "playKnight" || k?.case === "playPotion") && k.value.queen === q;
      });
      return scene.mark(faceSvg(sqQueenFace(q), `${small ? "small" : ""}${targeted ? " targeted" : ""}`), `awake:${seat}:${q}`, "1", { choices });
    });
    return h("div", { class: "queens-row" }, ...(queens.length ? queens : [h("span", { class: "empty" }, "no queen awake")]),
      awake?.points ? badge(`${awake.points} points`, "score") : null);
  };
  const around = others(view).map((seat) => seatBox(scene, seat, "", backs(scene, seat, game.handSizes[seat] ?? 0), queenRow(seat, true)));
  const positions = game.positions.map((p) => {
    const choices = scene.choices((c) => {
      const k = sq(c);
      return (k?.case === "playKing" || k?.case === "wakeQueen" || k?.case === "placeQueen") && k.value.position === p.position;
    });
    let el: Element;
    if (p.asleep && p.queen) el = faceSvg({ ...sqQueenFace(p.queen), label: `${sqQueenLabel(p.queen)}, asleep at position ${p.position}` }, "asleep-known");
    else if (p.asleep) el = backSvg("queen", `position ${p.position}: a sleeping queen`);
    else el = h("div", { class: "pc slot-empty", role: "img", "aria-label": `position ${p.position}: empty` }, String(p.position));
    return scene.mark(h("div", { class: "position" }, el, p.asleep ? h("span", { class: "pos-no", "aria-hidden": "true" }, String(p.position)) : null),
      `pos:${p.position}`, `${p.asleep}:${p.queen}`, { choices });
  });
  const top = game.discardPile[game.discardPile.length - 1];
  const piles = h("div", { class: "piles" },
    zone("Draw pile", "draw", scene.mark(stackSvg(scene.game, game.drawPileSize, `draw pile: ${game.drawPileSize} cards`), "draw", String(game.drawPileSize))),
    zone(`Discard pile (${game.discardPile.length})`, "discard", top
      ? scene.mark(faceSvg(sqCardFace(top)), "discard", `${game.discardPile.length}:${top}`, { recent: true })
      : h("div", { class: "pc slot-empty" }, "empty")),
    game.jesterCard ? zone("Jester turned up", "jester", scene.mark(faceSvg(sqCardFace(game.jesterCard)), "jester", String(game.jesterCard))) : null);
  const goal = badge(`${game.queensToWin} queens or ${game.pointsToWin} points win`);
  const centre = [zone("Sleeping queens", "positions", h("div", { class: "position-grid" }, ...positions)), h("div", { class: "centre-side" }, piles, goal)];
  const uses = (card: number) => scene.choices((c) => {
    const k = sq(c);
    if (!k) return false;
    if (k.case === "discard") return k.value.cards.length === 1 && k.value.cards[0] === card;
    if (card === 11) return k.case === "playKing";
    if (card === 12) return k.case === "playJester";
    if (card === 13) return k.case === "playKnight";
    if (card === 14) return k.case === "playPotion";
    if (card === 15 || card === 16) return k.case === "block";
    return false;
  });
  const mine = view.seat === undefined ? null : seatBox(scene, view.seat, "", queenRow(view.seat, false),
    handFan(scene, game.hand.map((c) => ({ svg: faceSvg(sqCardFace(c)), label: sqCardLabel(c), choices: uses(c) }))));
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
  const uses = (card: MauMauVampires_Card) => scene.choices((c) => {
    if (c.game.case !== "mauMauVampires") return false;
    const k = c.game.value.kind;
    return (k.case === "playCard" || k.case === "giveCard" || k.case === "showCard" || k.case === "setAside") && sameCard(k.value.card, card);
  });
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
  const drawChoices = scene.choices((c) => c.game.case === "mauMauVampires" && c.game.value.kind.case === "drawCard");
  const centre: Child[] = [
    h("div", { class: "piles" },
      zone("Deck", "draw", scene.mark(stackSvg(scene.game, game.deckSize, `deck: ${game.deckSize} cards`), "deck", String(game.deckSize), { choices: drawChoices })),
      zone(`Discard pile (${game.pileSize})`, "discard", game.top && game.top.kind
        ? scene.mark(faceSvg(mmFace(game.top, symbols)), "top", `${topLabel}:${game.pileSize}`, { recent: true })
        : h("div", { class: "pc slot-empty" }, "empty")),
      game.wish ? zone("Wished colour", "wish", scene.mark(colourDisc(game.wish, `wished colour: ${mmColourName(game.wish)}`), "wish", String(game.wish)), badge(mmColourName(game.wish))) : null,
      game.calledColour ? zone("Called colour", "wish", colourDisc(game.calledColour, `called colour: ${mmColourName(game.calledColour)}`), badge(mmColourName(game.calledColour))) : null,
      zone(game.night ? "Night" : "Day", "daynight", scene.mark(dayNightSvg(game.night, game.clocks), "daynight", `${game.night}:${game.clocks}`)),
      game.potSize ? zone(`Pot (${game.potSize})`, "pot", scene.mark(stackSvg(scene.game, game.potSize, `pot: ${game.potSize} cards`), "pot", String(game.potSize)),
        ...game.potYours.map((c) => faceSvg(mmFace(c, symbols), "small"))) : null),
    h("div", { class: "centre-facts" }, badge(`hand ${game.handNumber} of ${game.hands}${game.tiebreak ? ` (tie-break ${game.tiebreak})` : ""}`),
      game.extraTurn ? badge("another turn") : null),
  ];
  if (game.drawn.length) {
    centre.push(zone("You drew", "drawn", ...game.drawn.map((c, i) => scene.mark(faceSvg(mmFace(c, symbols)), `drawn:${i}`, mmLabel(c, symbols), { choices: uses(c) }))));
  }
  if (game.toShare.length) centre.push(zone("To hand out", "drawn", ...game.toShare.map((c) => faceSvg(mmFace(c, symbols)))));
  if (game.shownToYou.length) {
    centre.push(zone("Shown to you", "shown", ...game.shownToYou.map((s, i) =>
      scene.mark(h("div", { class: "play" }, h("div", { class: "play-who" }, scene.name(s.seat)), s.card ? faceSvg(mmFace(s.card, symbols), "small") : null),
        `shown:${i}`, `${s.seat}:${s.card ? mmLabel(s.card, symbols) : ""}`))));
  }
  const mine = view.seat === undefined ? null : seatBox(scene, view.seat, "", character(view.seat),
    handFan(scene, game.hand.map((c) => ({ svg: faceSvg(mmFace(c, symbols)), label: mmLabel(c, symbols), choices: uses(c) }))),
    h("div", { class: "badges" }, ...seatExtras(view.seat)));
  return layout(scene, around, centre, mine);
}

// --- Dracula vs Van Helsing ----------------------------------------------------------------------

const ROLES: Record<number, string> = { 1: "Dracula", 2: "Van Helsing" };

function dracula(scene: Scene, game: DraculaVsVanHelsingView): HTMLElement {
  const view = scene.view;
  const dv = (c: Command) => (c.game.case === "draculaVsVanHelsing" ? c.game.value.kind : undefined);
  const mineRack = game.racks.find((r) => view.seat !== undefined && r.seat === view.seat);
  const top = mineRack ? game.racks.find((r) => r !== mineRack) : game.racks.find((r) => r.seat === 1);
  const bottom = mineRack ?? game.racks.find((r) => r.seat === 0);
  const rackRow = (rack: typeof game.racks[number] | undefined, own: boolean) => {
    if (!rack) return [];
    const cards = rack.slots.map((slot) => {
      const card = slot.card;
      const choices = scene.choices((c) => {
        const k = dv(c);
        if (!k) return false;
        if (own && (k.case === "placeDrawn" || k.case === "revealOwn")) return k.value.district === slot.district;
        if (!own && k.case === "revealOpponent") return k.value.district === slot.district;
        if (k.case === "exchangeDistrict") return k.value.district === slot.district;
        if (own && k.case === "swapSlots") return k.value.first === slot.district || k.value.second === slot.district;
        return false;
      });
      const who = ROLES[rack.role] ?? scene.name(rack.seat);
      const svg = card?.value
        ? faceSvg(dvFace(card), slot.revealed ? "face-up" : "")
        : backSvg(scene.game, `${who}'s card in district ${slot.district}: face down`);
      if (own) svg.setAttribute("data-hand-card", "");
      const state = slot.revealed ? "face up" : card?.value ? (own ? "only you see it" : "known to you") : "face down";
      return scene.mark(h("div", { class: `slot${slot.revealed ? " revealed" : ""}` }, svg, h("span", { class: "slot-state" }, state)),
        `slot:${rack.seat}:${slot.district}`, `${dvShort(card)}:${slot.revealed}`, { choices });
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
      scene.mark(districtSvg(d.district, d.humans, d.vampires), `district:${d.district}`, `${d.humans}:${d.vampires}`),
      won ? h("span", { class: "slot-state" }, `last: ${ROLES[won] ?? ""}`) : null);
  });
  const topCards = rackRow(top, false);
  const bottomCards = rackRow(bottom, Boolean(mineRack));
  const grid = h("div", { class: "dv-grid" },
    ...topCards.map((c) => h("div", { class: "dv-cell top" }, c)),
    ...districts.map((d) => h("div", { class: "dv-cell district-cell" }, d)),
    ...bottomCards.map((c) => h("div", { class: "dv-cell bottom" }, c)));
  const drawChoices = scene.choices((c) => dv(c)?.case === "draw");
  const discardChoices = scene.choices((c) => dv(c)?.case === "discardDrawn");
  const placing = game.step === 2;
  const drawn = placing
    ? zone(game.turn === view.seat ? "You drew" : `${scene.name(game.turn ?? 0)} drew`, "drawn", scene.mark(game.drawn?.value
      ? faceSvg(dvFace(game.drawn), game.drawnRevealed ? "face-up" : "")
      : backSvg(scene.game, "the drawn card: face down"), "drawn", dvShort(game.drawn), { choices: discardChoices }))
    : null;
  const header = h("div", { class: "dv-header" },
    zone("Colours (trump first)", "track", scene.mark(trackSvg(game.track), "track", game.track.join(","))),
    zone(`Dracula's HP: ${game.hp}`, "hp", scene.mark(hpSvg(game.hp), "hp", String(game.hp))),
    h("div", { class: "centre-facts" }, badge(`round ${game.round} of ${game.rounds}`),
      game.calledBy !== undefined ? badge(`${scene.name(game.calledBy)} called the end`) : null,
      game.turnKind === 2 ? badge("another turn (a 5)") : game.turnKind === 3 ? badge("last turn") : null));
  const piles = h("div", { class: "piles" },
    zone("Deck", "draw", scene.mark(stackSvg(scene.game, game.deckSize, `deck: ${game.deckSize} cards`), "deck", String(game.deckSize), { choices: drawChoices }),
      game.deckTop?.value ? scene.mark(faceSvg(dvFace(game.deckTop), "face-up"), "decktop", dvShort(game.deckTop)) : null),
    drawn,
    zone(`Discard pile (${game.discardPile.length})`, "discard dv-discard", ...(game.discardPile.length
      ? game.discardPile.map((c, i) => (i === game.discardPile.length - 1
        ? scene.mark(faceSvg(dvFace(c)), "discard", `${game.discardPile.length}:${dvShort(c)}`, { recent: true })
        : faceSvg(dvFace(c), "small under")))
      : [h("div", { class: "pc slot-empty" }, "empty")])));
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

function pointAt(event: Event): void {
  const target = (event.target as Element | null)?.closest("[data-choices]");
  if (!target) return;
  const indexes = (target.getAttribute("data-choices") ?? "").split(" ").filter(Boolean);
  const buttons = indexes.map((i) => document.querySelector<HTMLButtonElement>(`button.choice[data-index="${i}"]`))
    .filter((b): b is HTMLButtonElement => b !== null && !b.disabled);
  document.querySelectorAll("button.choice.suggested").forEach((b) => b.classList.remove("suggested"));
  if (buttons.length === 1 && indexes.length === 1) {
    buttons[0].click();
    return;
  }
  for (const b of buttons) b.classList.add("suggested");
  buttons[0]?.focus();
}

/** The table of a view drawn with cards, or null for a view of a game not drawn here. */
export function felt(view: View, name: Name): Felt | null {
  const game = view.game;
  let scene: Scene;
  let root: HTMLElement;
  if (game.case === "vampireQueen") root = vampireQueen((scene = new Scene(view, name, "vampire-queen")), game.value);
  else if (game.case === "sleepingQueens") root = sleepingQueens((scene = new Scene(view, name, "sleeping-queens")), game.value);
  else if (game.case === "mauMauVampires") root = mauMau((scene = new Scene(view, name, "mau-mau-vampires")), game.value);
  else if (game.case === "draculaVsVanHelsing") root = dracula((scene = new Scene(view, name, "dracula-vs-van-helsing")), game.value);
  else return null;
  const lit = lastMove(scene);
  for (const [el, key] of scene.marked) {
    if (lit.has(key)) {
      el.classList.add("last-move");
      el.setAttribute("data-last-move", "");
    }
  }
  root.addEventListener("click", pointAt);
  return { root, hand: scene.hand };
}
