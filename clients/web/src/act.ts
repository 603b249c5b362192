// Playing on the drawn table: the player picks cards in the hand (one or several), then what
// the command aims at (a queen, a district, a pile, a player, a colour), with what can still
// be picked highlighted and the rest dimmed; a command is sent at the pick that completes it
// when nothing else could follow, else the complete ones are offered as buttons (a confirm).
//
// Built from the view alone: its legal commands, their labels and their parts
// (View.legal_command_parts: the indexes in the game view's `hand` of the cards each uses and
// the targets it aims at, as "kind:id"). The drawn table only marks what it draws: a hand
// card with data-hand-index, a thing on the table with data-target="kind:id". A target the
// table does not draw (a colour to wish, a game without a drawing of its own) becomes a
// button in the bar, with the server's words, so every command is reachable for any game.
import { toBinary } from "@bufbuild/protobuf";
import { isReflectList, isReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { h } from "./dom";
import { ViewSchema, type View } from "./gen/referee/v1/referee_pb";

/** One legal command as a player makes it on the table. */
export interface Choice {
  index: number;
  label: string;
  /** Indexes in the hand of the cards it uses. */
  hand: number[];
  /** What it aims at, "kind:id", in the order picked (any order when anyOrder). */
  targets: string[];
  anyOrder: boolean;
}

/** Words for a target by its key, from the parts (for a button where nothing is drawn). */
type TargetWords = Map<string, string>;

export function targetKey(kind: string, id: string): string {
  return `${kind}:${id}`;
}

/** The legal commands of a view as choices; a view without parts (an older server) makes
 * every command a button of its label. */
export function choicesOf(view: View, words: (text: string) => string): { choices: Choice[]; names: TargetWords } {
  const names: TargetWords = new Map();
  const withParts = view.legalCommandParts.length === view.legalCommands.length;
  const choices = view.legalCommands.map((_, index) => {
    const parts = withParts ? view.legalCommandParts[index] : undefined;
    const targets = (parts?.targets ?? []).map((t) => {
      const key = targetKey(t.kind, t.id);
      names.set(key, words(t.label || t.id));
      return key;
    });
    return {
      index, label: words(view.legalCommandLabels[index] ?? `choice ${index + 1}`),
      hand: [...(parts?.hand ?? [])], targets, anyOrder: parts?.anyOrder ?? false,
    };
  });
  return { choices, names };
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Each card of the viewer's hand (the game view's `hand` field) as a key: equal cards have
 * equal keys, so a player may pick any of them. */
export function handFaces(view: View): string[] {
  const oneof = ViewSchema.oneofs.find((o) => o.name === "game");
  const root = reflect(ViewSchema, view);
  const selected = oneof ? root.oneofCase(oneof) : undefined;
  if (!selected) return [];
  const game = root.get(selected);
  if (!isReflectMessage(game)) return [];
  const field = game.fields.find((f) => f.name === "hand");
  const list = field ? game.get(field) : undefined;
  if (!isReflectList(list)) return [];
  return [...list].map((item) => (isReflectMessage(item) ? hex(toBinary(item.desc, item.message)) : String(item)));
}

function counts(faces: string[], indexes: number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const i of indexes) out.set(faces[i] ?? `#${i}`, (out.get(faces[i] ?? `#${i}`) ?? 0) + 1);
  return out;
}

function within(part: Map<string, number>, whole: Map<string, number>): boolean {
  for (const [face, n] of part) if ((whole.get(face) ?? 0) < n) return false;
  return true;
}

function same(a: Map<string, number>, b: Map<string, number>): boolean {
  return a.size === b.size && within(a, b);
}

/** Whether the targets picked so far begin (or, in any order, are among) a choice's. */
function aimsFit(aimed: string[], choice: Choice): boolean {
  if (aimed.length > choice.targets.length) return false;
  if (!choice.anyOrder) return aimed.every((key, i) => choice.targets[i] === key);
  const left = [...choice.targets];
  return aimed.every((key) => {
    const at = left.indexOf(key);
    if (at < 0) return false;
    left.splice(at, 1);
    return true;
  });
}

/** Words for what is picked next, by a target's kind ("a queen"); a game's own kind reads as
 * itself. */
const KIND_WORDS: Record<string, string> = {
  seat: "a player", position: "a position", queen: "a queen", district: "a district",
  slot: "a card on the table", colour: "a colour", shared: "a card to hand out",
};

/** The picks of one decision and what they leave possible. */
export class Picker {
  readonly bar = h("div", { class: "act-controls" });
  private picked: number[] = [];
  private aimed: string[] = [];
  private decision = "";
  private view: View | null = null;
  private root: HTMLElement | null = null;
  private choices: Choice[] = [];
  private names: TargetWords = new Map();
  private faces: string[] = [];
  private busy = false;

  constructor(
    private readonly send: (index: number) => void,
    private readonly words: (text: string) => string = (text) => text,
  ) {}

  /** The view just drawn, with its table (`root`, null when nothing is drawn); `busy` while
   * a command is on its way. Picks survive a redraw of the same decision. */
  show(view: View, root: HTMLElement | null, busy: boolean): void {
    const decision = `${view.gameId}:${view.version}:${view.legalCommands.length}`;
    if (decision !== this.decision) {
      this.picked = [];
      this.aimed = [];
      this.decision = decision;
    }
    this.view = view;
    this.busy = busy;
    ({ choices: this.choices, names: this.names } = choicesOf(view, this.words));
    this.faces = handFaces(view);
    if (root && root !== this.root) {
      root.addEventListener("click", (e) => this.clicked(e));
      root.addEventListener("keydown", (e) => {
        if ((e.key === "Enter" || e.key === " ") && (e.target as Element).matches(".pickable, .picked")) {
          e.preventDefault();
          this.clicked(e);
        }
      });
    }
    this.root = root;
    this.refresh();
  }

  /** Forgets the picks (after a command was sent, or on "clear"). */
  clear(): void {
    this.picked = [];
    this.aimed = [];
    this.refresh();
  }

  private candidates(): Choice[] {
    const mine = counts(this.faces, this.picked);
    return this.choices.filter((c) => {
      const theirs = counts(this.faces, c.hand);
      if (this.aimed.length) return same(mine, theirs) && aimsFit(this.aimed, c);
      return within(mine, theirs);
    });
  }

  private state() {
    const left = this.candidates();
    const mine = counts(this.faces, this.picked);
    const cardsDone = left.filter((c) => same(mine, counts(this.faces, c.hand)));
    const hand = new Set<number>();
    if (!this.aimed.length) {
      this.faces.forEach((_, i) => {
        if (this.picked.includes(i)) return;
        const more = counts(this.faces, [...this.picked, i]);
        if (left.some((c) => within(more, counts(this.faces, c.hand)))) hand.add(i);
      });
    }
    const targets = new Set<string>();
    for (const c of cardsDone) {
      for (const key of new Set(c.targets)) if (aimsFit([...this.aimed, key], c)) targets.add(key);
    }
    const complete = cardsDone.filter((c) => c.targets.length === this.aimed.length);
    return { left, hand, targets, complete };
  }

  private clicked(event: Event): void {
    if (this.busy || !this.root) return;
    // The nearest thing that can be picked; else the nearest picked one, to put it back (a
    // click on a card inside a seat that is a target goes to the seat).
    const marked: (HTMLElement | SVGElement)[] = [];
    for (let at = (event.target as Element | null)?.closest<HTMLElement | SVGElement>("[data-hand-index], [data-target]"); at && this.root.contains(at);
      at = at.parentElement?.closest<HTMLElement | SVGElement>("[data-hand-index], [data-target]")) marked.push(at);
    const el = marked.find((m) => m.classList.contains("pickable")) ?? marked.find((m) => m.classList.contains("picked"));
    if (!el) return;
    const { hand, targets } = this.state();
    const index = el.dataset.handIndex;
    const target = el.dataset.target;
    if (target !== undefined && targets.has(target)) this.aimed.push(target);
    else if (index !== undefined && hand.has(Number(index))) this.picked.push(Number(index));
    else if (target !== undefined && this.aimed.includes(target)) {
      // Picked again: put back, with what was picked after it.
      this.aimed = this.aimed.slice(0, this.aimed.indexOf(target));
    } else if (index !== undefined && this.picked.includes(Number(index))) {
      this.picked = this.picked.filter((p) => p !== Number(index));
      this.aimed = [];
    } else return;
    this.after();
  }

  private aim(key: string): void {
    if (this.busy) return;
    this.aimed.push(key);
    this.after();
  }

  /** After a pick: the command it completes is sent when nothing else could follow. */
  private after(): void {
    const { left, complete } = this.state();
    if (left.length === 1 && complete.length === 1) {
      this.send(complete[0].index);
      return;
    }
    this.refresh();
  }

  private refresh(): void {
    const view = this.view;
    const yours = Boolean(view && view.legalCommands.length && !view.gameOver);
    const { hand, targets, complete } = yours ? this.state() : { hand: new Set<number>(), targets: new Set<string>(), complete: [] as Choice[] };
    const drawn = new Set<string>();
    for (const el of this.root?.querySelectorAll<HTMLElement | SVGElement>("[data-hand-index], [data-target]") ?? []) {
      const index = el.dataset.handIndex;
      const target = el.dataset.target;
      const picked = (index !== undefined && this.picked.includes(Number(index))) || (target !== undefined && this.aimed.includes(target));
      const pickable = !this.busy && ((index !== undefined && hand.has(Number(index))) || (target !== undefined && targets.has(target)));
      if (target !== undefined) drawn.add(target);
      el.classList.toggle("picked", picked);
      el.classList.toggle("pickable", pickable && !picked);
      el.classList.toggle("dim", yours && !pickable && !picked);
      if (pickable || picked) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("aria-pressed", String(picked));
      } else {
        el.removeAttribute("tabindex");
        el.removeAttribute("aria-pressed");
      }
    }
    this.root?.classList.toggle("picking", yours);
    if (!yours) {
      this.bar.replaceChildren();
      return;
    }
    const started = this.picked.length > 0 || this.aimed.length > 0;
    // What the table does not draw: a button each, with the server's words.
    const undrawn = [...targets].filter((key) => !drawn.has(key));
    const chips = undrawn.map((key) => {
      const [kind, id] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
      return h("button", {
        type: "button", class: `act-target${kind === "colour" ? " colour" : ""}`, "data-target": key,
        "data-colour": kind === "colour" ? id : undefined, disabled: this.busy, onclick: () => this.aim(key),
      }, this.names.get(key) ?? id);
    });
    const confirms = complete.map((c) => h("button", {
      type: "button", class: started ? "act-confirm" : "act-button", "data-index": c.index, disabled: this.busy,
      onclick: () => this.send(c.index),
    }, c.label));
    const clear = started
      ? h("button", { type: "button", class: "act-clear", disabled: this.busy, onclick: () => this.clear() }, "✕ Put back")
      : null;
    this.bar.replaceChildren(
      h("p", { class: "act-prompt" }, this.prompt(hand.size > 0, [...targets], complete.length > 0, started)),
      h("div", { class: "act-buttons" }, ...confirms, ...chips, clear),
    );
  }

  private prompt(cards: boolean, targets: string[], confirm: boolean, started: boolean): string {
    const parts: string[] = [];
    if (cards) parts.push(this.picked.length ? "another card" : "a card from your hand");
    const kinds = new Set<string>();
    for (const key of targets) {
      const kind = key.slice(0, key.indexOf(":"));
      kinds.add(kind === "pile" ? (this.names.get(key) ?? "a pile") : (KIND_WORDS[kind] ?? `a ${kind}`));
    }
    parts.push(...kinds);
    const pick = parts.length ? `Pick ${parts.slice(0, -1).join(", ")}${parts.length > 1 ? " or " : ""}${parts[parts.length - 1]}` : "";
    if (confirm && pick) return `${pick}, or choose below.`;
    if (confirm) return started ? "Choose how to play it:" : "Choose:";
    return pick ? `${pick}.` : "";
  }
}
