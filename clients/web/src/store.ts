// What this browser remembers: the signed-in player, and the seats it holds itself (never
// another seat's token: a friend's seat is claimed by the friend's browser with a claim code),
// in localStorage; each page's event log in sessionStorage (so a reload resumes from the last
// sequence received, with no gap and no duplicate).

export interface SavedGame {
  gameId: string;
  gameType: string;
  /** Tokens of the seats this browser holds (its own, and seats its tab-bots play), by seat. */
  tokens: Record<number, string>;
  /** The organiser token, when this browser created the game (abort, replay as a seat). */
  organiser?: string;
  /** Seats the page plays with its in-tab bot. */
  bots: number[];
  /** Seats the person plays in this browser. */
  mine: number[];
  /** The CreateGame request as JSON, when this browser created it: what a rematch sends. */
  request?: unknown;
  /** Seats the signed-in player holds by its account (no token: played with its credential). */
  account?: number[];
  /** The form's role of each seat (a rematch gives them again). */
  roles?: string[];
  /** Claim codes of the seats the creator invites someone to (what its join links carry). */
  invites?: Record<number, string>;
}

const GAME = "referee:game:";
const PLAYER = "referee:player";

export function saveGame(game: SavedGame): void {
  localStorage.setItem(GAME + game.gameId, JSON.stringify(game));
}

export function savedGame(gameId: string): SavedGame | null {
  const raw = localStorage.getItem(GAME + gameId);
  return raw ? (JSON.parse(raw) as SavedGame) : null;
}

/** Adds a seat this browser now holds (a claim, an accepted challenge, a pairing). */
export function holdSeat(gameId: string, gameType: string, seat: number, token: string): void {
  const game: SavedGame = savedGame(gameId) ?? { gameId, gameType, tokens: {}, bots: [], mine: [] };
  // A seat held by the account comes without a token (the player's stream): it is played
  // with the credential and the seat number.
  if (token) game.tokens[seat] = token;
  else game.account = [...new Set([...(game.account ?? []), seat])];
  if (!game.mine.includes(seat)) game.mine.push(seat);
  saveGame(game);
}

export function savedGames(): SavedGame[] {
  const games: SavedGame[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith(GAME)) games.push(JSON.parse(localStorage.getItem(key)!) as SavedGame);
  }
  return games;
}

/** The signed-in player: name and account token (sent as `authorization: Bearer`). */
export interface Player {
  name: string;
  token: string;
}

export function player(): Player | null {
  const raw = localStorage.getItem(PLAYER);
  return raw ? (JSON.parse(raw) as Player) : null;
}

export function setPlayer(p: Player | null): void {
  if (p) localStorage.setItem(PLAYER, JSON.stringify(p));
  else localStorage.removeItem(PLAYER);
}

/** One line of the game log: sequence number, the referee's description, and whether a log
 * may fold it (Event.bookkeeping). */
export type LogLine = [number, string, boolean?];

export class Log {
  readonly lines: LogLine[];
  constructor(private readonly key: string) {
    const raw = sessionStorage.getItem(key);
    this.lines = raw ? (JSON.parse(raw) as LogLine[]) : [];
  }
  get last(): number {
    return this.lines.length ? this.lines[this.lines.length - 1][0] : 0;
  }
  add(sequence: number, text: string, bookkeeping = false): void {
    this.lines.push([sequence, text, bookkeeping]);
    sessionStorage.setItem(this.key, JSON.stringify(this.lines));
  }
}
