// Players by name in the server's words: the referee writes "seat 2" in its labels, its event
// lines and its view lines (it describes a game, not who sits at it); the page knows who holds
// each seat (View.seat_holders) and says "bob" instead. A seat held anonymously stays "seat 2".
import type { View } from "./gen/referee/v1/referee_pb";

/** The name a seat goes by in text: its player's name, or "seat N". */
export function playerName(view: View, seat: number): string {
  return view.seatHolders.find((x) => x.seat === seat)?.player || `seat ${seat}`;
}

/** `text` with every "seat N" of a seat held by a named player replaced by the name. */
export function named(view: View | null, text: string): string {
  if (!view) return text;
  return text.replace(/\b([Ss])eat (\d+)\b/g, (words, s: string, n: string) => {
    const name = view.seatHolders.find((x) => x.seat === Number(n))?.player;
    if (!name) return words;
    return name;
  });
}

/** Who holds which seat, in one string: a page renames its lines again when it changes. */
export function holdersKey(view: View): string {
  return view.seatHolders.map((x) => `${x.seat}=${x.player}`).join(",");
}
