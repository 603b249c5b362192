// The end of a game in words: the banner above the table and the standings in it. Written
// from the view alone, so a client needs no game's rules to tell it: View.end_reason (why it
// ended, from public information, e.g. "seat 2 woke 5 queens worth 40 points, reaching the
// target to win"), View.end_rule_id (the rule that ended it), the results, and what the score
// counts (GameType.score_meaning from ListGameTypes). Nothing here knows a game.
import { scoreMeaning } from "./api";
import { h } from "./dom";
import { SeatEnd, SeatState, type SeatResult, type View } from "./gen/referee/v1/referee_pb";

/** How a seat that left the game ended, in a word ("" for a seat that plays or finished). */
export function leftWord(end: SeatEnd): string {
  switch (end) {
    case SeatEnd.RESIGNED: return "resigned";
    case SeatEnd.FORFEITED: return "forfeited on time";
    case SeatEnd.ABANDONED: return "abandoned";
    case SeatEnd.ABSENT: return "absent";
    default: return "";
  }
}

/** How `seat` left the game, from the view's seats that left ("" while it plays). */
export function seatLeft(view: View, seat: number): string {
  const gone = view.seatsLeft.find((x) => x.seat === seat);
  return gone ? leftWord(gone.end) : "";
}

/** A seat by its player's name ("alice", "house-easy", "seat 2" when held anonymously),
 * and how it left the game if it did ("alice (resigned)"): every view shows it. */
export function seatName(view: View, seat: number): string {
  const holder = view.seatHolders.find((x) => x.seat === seat);
  const base = holder?.player || (holder?.state === SeatState.OPEN ? `seat ${seat} (open)` : `seat ${seat}`);
  const left = seatLeft(view, seat) || (holder?.resigned ? "resigned" : "");
  return base + (left ? ` (${left})` : "");
}

/** A seat's result in words: "won", "shares the win" or "lost", and for a seat that left
 * the game how and why (the referee's words: it ranks below every seat that finished). */
function resultWords(r: SeatResult, best: number, tied: boolean): string {
  const placed = r.rank === best ? (tied ? "shares the win" : "won") : "lost";
  const left = leftWord(r.end);
  return left ? `${placed} · ${left}` : placed;
}

export function you(view: View, seat: number): string {
  return seat === view.seat ? " (you)" : "";
}

export function ordinal(n: number): string {
  const suffix = n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th";
  return `${n}${suffix}`;
}

/** The server's reason with its seats named for this viewer: "seat 2" becomes the player's
 * name, or "you" for the viewer's own seat ("you win", not "you wins": the server's words
 * are singular for one seat). The words stay the server's; only the names change. */
export function reasonFor(view: View, reason: string): string {
  let text = reason.replace(/\b[Ss]eat (\d+)\b/g, (words, n: string) => {
    const seat = Number(n);
    if (seat === view.seat) return "you";
    return view.seatHolders.find((x) => x.seat === seat)?.player || words;
  });
  text = text.replace(/\byou wins\b/g, "you win");
  // The server's own first word is lower case ("seat 1 wins", "no queen is left asleep");
  // a player's name at the start is left as it is spelled.
  const startsWithName = /^[Ss]eat \d+\b/.test(reason) && !text.startsWith("you");
  return startsWithName ? text : text.charAt(0).toUpperCase() + text.slice(1);
}

function lowerFirst(text: string): string {
  return /^You\b/.test(text) ? `y${text.slice(1)}` : text;
}

/** How the viewer did, in a few words ("You won", "You came 2nd"); empty for a spectator. */
function outcome(view: View): string {
  const mine = view.results.find((r) => r.seat === view.seat);
  if (!mine || view.aborted) return "";
  const best = Math.min(...view.results.map((r) => r.rank));
  const tied = view.results.filter((r) => r.rank === best).length > 1;
  if (mine.rank === best) return tied ? "You tied for first" : "You won";
  return `You came ${ordinal(mine.rank)}`;
}

/** The headline without the server's reason (an older server, or none given): from the
 * results alone. */
function fromResults(view: View): string {
  if (view.aborted) return "The game was aborted.";
  if (!view.results.length) return "The game is over.";
  const best = Math.min(...view.results.map((r) => r.rank));
  const winners = view.results.filter((r) => r.rank === best);
  const names = winners.map((r) => (r.seat === view.seat ? "you" : seatName(view, r.seat))).join(" and ");
  const score = winners[0].score;
  const mine = view.results.find((r) => r.seat === view.seat);
  if (mine && mine.rank === best) {
    return winners.length > 1 ? `You tied for first (${names}, score ${score}).` : `You won with a score of ${score}.`;
  }
  return `${names} ${winners.length > 1 ? "win" : "wins"} with a score of ${score}` +
    (mine ? `; you came ${ordinal(mine.rank)} (score ${mine.score}).` : ".");
}

/** The end banner: the outcome and the reason in words with the rule that ended the game
 * ("You won: you woke 5 queens … (SQ-15)"), then each seat's result. `lastWords` (the last
 * log line) stands in for the reason when the server gives none. */
export function endBanner(view: View, lastWords = ""): HTMLElement {
  const reason = view.endReason ? reasonFor(view, view.endReason) : "";
  const mine = outcome(view);
  const rule = view.endRuleId
    ? h("span", { class: "end-rule", "data-rule-id": view.endRuleId, title: "the rule that ended the game" }, ` (${view.endRuleId})`)
    : null;
  const headline = reason
    ? h("h2", {}, mine ? `${mine}: ${lowerFirst(reason)}` : reason, rule)
    : h("h2", {}, fromResults(view), rule);
  const meaning = scoreMeaning(view.gameType);
  const best = view.results.length ? Math.min(...view.results.map((r) => r.rank)) : 0;
  const tied = view.results.filter((r) => r.rank === best).length > 1;
  const standings = view.results.length
    ? h("ol", { class: "end-results", "aria-label": "Each seat's result" },
        ...[...view.results].sort((a, b) => a.rank - b.rank || a.seat - b.seat).map((r) =>
          h("li", { "data-seat": r.seat, "data-rank": r.rank, "data-end": leftWord(r.end) || "finished",
            title: r.endReason ? reasonFor(view, r.endReason) : "" },
            `${ordinal(r.rank)}: ${seatName(view, r.seat)}${you(view, r.seat)} · `,
            resultWords(r, best, tied),
            ` · score ${r.score}`)))
    : null;
  return h("section", { class: "end-banner", role: "status", "data-end": view.endRuleId },
    headline,
    standings,
    meaning && standings ? h("p", { class: "score-meaning" }, `Score: ${meaning}.`) : null,
    !reason && lastWords ? h("p", { class: "end-reason" }, lastWords) : null);
}

/** The final standings in the table; the score column says what the score counts. */
export function resultsTable(view: View): HTMLElement {
  const best = Math.min(...view.results.map((r) => r.rank));
  const tied = view.results.filter((r) => r.rank === best).length > 1;
  const rows = [...view.results].sort((a, b) => a.rank - b.rank).map((r) =>
    h("tr", { "data-seat": r.seat, "data-end": leftWord(r.end) || "finished" }, h("td", {}, r.rank),
      h("td", {}, seatName(view, r.seat) + you(view, r.seat)),
      h("td", { title: r.endReason ? reasonFor(view, r.endReason) : "" }, resultWords(r, best, tied)),
      h("td", {}, r.score)));
  const meaning = scoreMeaning(view.gameType);
  return h("table", { class: "results" },
    h("caption", {}, view.aborted ? "The game was aborted." : "Final standings (rank 1 is best)"),
    h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Player"), h("th", {}, "Result"),
      h("th", { class: "score-heading" }, meaning ? `Score: ${meaning}` : "Score (as the game counts it: see its rules)"))),
    h("tbody", {}, ...rows));
}
