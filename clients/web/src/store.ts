// What this browser remembers: games it created (tokens, which seats are bots) in
// localStorage, and each page's event log in sessionStorage (so a reload resumes from the
// last sequence received, with no gap and no duplicate).

export interface SavedGame {
  gameId: string;
  gameType: string;
  /** Every seat's token (the creator's copy), by seat. */
  tokens: string[];
  organiser: string;
  /** Seats the page plays with its bot. */
  bots: number[];
  /** Seats the creator plays in this browser. */
  mine: number[];
}

const GAME = "referee:game:";

export function saveGame(game: SavedGame): void {
  localStorage.setItem(GAME + game.gameId, JSON.stringify(game));
}

export function savedGame(gameId: string): SavedGame | null {
  const raw = localStorage.getItem(GAME + gameId);
  return raw ? (JSON.parse(raw) as SavedGame) : null;
}

export function savedGames(): SavedGame[] {
  const games: SavedGame[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith(GAME)) games.push(JSON.parse(localStorage.getItem(key)!) as SavedGame);
  }
  return games;
}

/** One line of the game log: sequence number and the referee's description. */
export type LogLine = [number, string];

export class Log {
  readonly lines: LogLine[];
  constructor(private readonly key: string) {
    const raw = sessionStorage.getItem(key);
    this.lines = raw ? (JSON.parse(raw) as LogLine[]) : [];
  }
  get last(): number {
    return this.lines.length ? this.lines[this.lines.length - 1][0] : 0;
  }
  add(sequence: number, text: string): void {
    this.lines.push([sequence, text]);
    sessionStorage.setItem(this.key, JSON.stringify(this.lines));
  }
}
