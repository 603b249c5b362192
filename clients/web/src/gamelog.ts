// The game log: the server's line for every event, players by name, newest last. Events a log
// may fold (Event.bookkeeping: the referee's commitments and proofs, a turn starting, a
// shuffle) are hidden until the reader asks for them. The log itself is folded below the
// table; the newest line that tells something is repeated beside the player's controls.
import { h } from "./dom";
import type { View } from "./gen/referee/v1/referee_pb";
import { holdersKey, named } from "./names";
import type { Log } from "./store";

export class GameLog {
  readonly list: HTMLElement;
  readonly box: HTMLElement;
  /** The newest line that is not bookkeeping, for beside the controls. */
  readonly latest = h("p", { class: "latest-event", "aria-live": "polite" });
  private readonly count = h("span", { class: "bookkeeping-count" });
  private view: View | null = null;
  private holders = "";

  constructor(private readonly log: Log) {
    this.list = h("ol", { class: "log", "aria-label": "What happened" });
    const toggle = h("input", { type: "checkbox", class: "show-bookkeeping" }) as HTMLInputElement;
    toggle.addEventListener("change", () => this.list.classList.toggle("with-bookkeeping", toggle.checked));
    this.box = h("details", { class: "log-box" }, h("summary", {}, "Game log"),
      h("label", { class: "bookkeeping-toggle" }, toggle, " show bookkeeping ", this.count),
      this.list);
    this.box.addEventListener("toggle", () => {
      if ((this.box as HTMLDetailsElement).open) this.list.scrollTop = this.list.scrollHeight;
    });
    this.redraw();
  }

  /** The players' names from a view: the lines are written again when they change. */
  names(view: View): void {
    this.view = view;
    const key = holdersKey(view);
    if (key === this.holders) return;
    this.holders = key;
    this.redraw();
  }

  add(sequence: number, text: string, bookkeeping: boolean): void {
    this.log.add(sequence, text, bookkeeping);
    const atBottom = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 8;
    this.list.querySelector("li.newest")?.classList.remove("newest");
    this.list.append(this.line(sequence, text, bookkeeping, true));
    this.tally();
    if (atBottom) this.list.scrollTop = this.list.scrollHeight;
  }

  private line(sequence: number, text: string, bookkeeping: boolean, newest: boolean): HTMLElement {
    const li = h("li", { "data-seq": sequence, "data-bookkeeping": bookkeeping ? "" : undefined }, named(this.view, text));
    if (newest) li.classList.add("newest");
    if (!bookkeeping) this.latest.textContent = li.textContent;
    return li;
  }

  private redraw(): void {
    const lines = this.log.lines;
    this.list.replaceChildren(...lines.map(([seq, text, bookkeeping], i) => this.line(seq, text, Boolean(bookkeeping), i === lines.length - 1)));
    this.tally();
  }

  private tally(): void {
    const folded = this.log.lines.filter((l) => l[2]).length;
    this.count.textContent = `(${folded} of ${this.log.lines.length} lines)`;
  }
}
