// The player's loop, done once for every client: follow the player stream (WatchPlayer:
// server-streaming, so the same code runs over Connect, gRPC-Web and gRPC, in Node.js and in
// a browser), keep each seat's view and where its game is, resume every game exactly after
// the last sequence received when the stream or the server goes away (on any replica: the
// sequences are the game's), and send commands by SubmitCommand with a fresh command id,
// retried with the same id while the outcome is unknown (the referee applies an id once).
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import type { RefereeClient } from "./index.js";
import {
  GameResumeSchema,
  type Command,
  type Event,
  type PlayerMessage,
  type SubmitCommandResponse,
  type View,
} from "./gen/referee/v1/referee_pb.js";
import { backoff, refusalOf, resumable, type RefusalDetails } from "./errors.js";
import { newCommandId, submitCommand } from "./commands.js";

/** One legal command of a seat, with the words to offer it by. */
export interface Choice {
  command: Command;
  label: string;
}

/** One seat the player follows. */
export class Seat {
  /** The sequence of the last event received (0n: none yet): where the game resumes. */
  lastSequence = 0n;
  /** The seat's newest view (every view on the player stream is settled). */
  view?: View;
  /** The game is over for this seat (its final view came). */
  over = false;
  /** The view version the loop last decided on. */
  decided = -1n;
  /** Commands of this seat the referee accepted. */
  commands = 0;
  /** Commands decide() chose that the referee refused as illegal (INVALID_ARGUMENT). */
  illegal = 0;

  constructor(
    readonly gameId: string,
    readonly seat: number,
    /** The seat's token, for a seat followed by token (empty: a seat the player holds). */
    public token = "",
  ) {}

  get key(): string {
    return `${this.gameId}/${this.seat}`;
  }

  /** Whether the seat has a decision to make in its newest view. */
  get pending(): boolean {
    const view = this.view;
    return !!view && !view.gameOver && view.pendingSeats.includes(this.seat) && view.legalCommands.length > 0;
  }

  /** The seat's legal commands with their labels, in the server's order. */
  choices(): Choice[] {
    const view = this.view;
    if (!view) return [];
    return view.legalCommands.map((command, i) => ({ command, label: view.legalCommandLabels[i] ?? "" }));
  }
}

export interface PlayerOptions {
  client: RefereeClient;
  /** The player's credential (an API token or a platform token): every seat it holds. */
  credential?: string;
  /** Seats followed by their token (a creator's seats), on the same stream. */
  seats?: { gameId: string; seat: number; seatToken: string }[];
  /** The seat's command in its newest view (one of seat.choices()); undefined: none now. */
  decide?: (seat: Seat) => Command | undefined | Promise<Command | undefined>;
  /** Every message of the stream, as it comes (challenges, pairings, reservations, ...). */
  onMessage?: (message: PlayerMessage) => void;
  /** Each event of a seat's game, once, in order. */
  onEvent?: (seat: Seat, event: Event) => void;
  /** A seat's game ended (its view has game_over). */
  onGameOver?: (seat: Seat) => void;
  /** A command the referee refused for good (not a stale view: those wait for the next);
   * after an illegal one (INVALID_ARGUMENT) the seat plays its first legal command. */
  onRefusal?: (seat: Seat, refusal: RefusalDetails) => void;
  /** The stream broke and is reopened (after ``attempt`` failures in a row). */
  onReconnect?: (error: unknown, attempt: number) => void;
  /** Stop once this many games have ended for the player's seats (0: never). */
  games?: number;
  /** Reconnect backoff, doubling from the first to the most (jittered). */
  backoffMs?: { first: number; most: number };
  /** Give up after this many failures in a row. */
  maxAttempts?: number;
}

/** The player's loop: `await new PlayerLoop(options).run()`. */
export class PlayerLoop {
  readonly seats = new Map<string, Seat>();
  /** Games ended since the loop started. */
  ended = 0;
  private stopped = false;
  private current?: AbortController;

  constructor(private readonly options: PlayerOptions) {
    for (const { gameId, seat, seatToken } of options.seats ?? []) this.seat(gameId, seat, seatToken);
  }

  /** The seat's state (made when first seen). */
  seat(gameId: string, seat: number, token = ""): Seat {
    const key = `${gameId}/${seat}`;
    let found = this.seats.get(key);
    if (!found) {
      found = new Seat(gameId, seat, token);
      this.seats.set(key, found);
    } else if (token && !found.token) {
      found.token = token;
    }
    return found;
  }

  private get headers(): Record<string, string> {
    const credential = this.options.credential;
    return credential ? { authorization: `Bearer ${credential}` } : {};
  }

  /** Follow the stream until stop() or the wanted games have ended; reconnects on its own,
   * resuming every game after its last sequence. Throws a refusal of the stream itself
   * (UNAUTHENTICATED, ...), or after maxAttempts failures in a row. */
  async run(): Promise<void> {
    const { first, most } = this.options.backoffMs ?? { first: 50, most: 2000 };
    const maxAttempts = this.options.maxAttempts ?? 30;
    let failures = 0;
    while (!this.stopped) {
      const controller = new AbortController();
      this.current = controller;
      try {
        const stream = this.options.client.watchPlayer(
          { resume: this.resumes() },
          { headers: this.headers, signal: controller.signal },
        );
        for await (const response of stream) {
          failures = 0;
          for (const message of response.messages) this.receive(message);
          if (this.stopped) break;
        }
        if (this.stopped) break;
        throw new ConnectError("the player stream ended", Code.Unavailable); // treat as a drop
      } catch (error) {
        if (this.stopped) break;
        const cut = controller.signal.aborted; // cut() on purpose: reconnect at once
        if (!cut && !resumable(error)) throw error;
        failures += 1;
        if (failures > maxAttempts) throw error;
        this.options.onReconnect?.(error, failures);
        if (!cut) await sleep(backoff(failures - 1, first, most));
      }
    }
  }

  /** Stop the loop (run() returns). */
  stop(): void {
    this.stopped = true;
    this.current?.abort();
  }

  /** Break the current stream as a network fault would (run() reconnects and resumes). */
  cut(): void {
    this.current?.abort();
  }

  /** Where every game not over resumes: after its last sequence, only what is new. */
  private resumes() {
    return [...this.seats.values()]
      .filter((seat) => !seat.over && (seat.token || seat.lastSequence > 0n))
      .map((seat) =>
        create(GameResumeSchema, {
          gameId: seat.gameId,
          seat: seat.seat,
          afterSequence: seat.lastSequence,
          seatToken: seat.token,
          onlyNew: seat.lastSequence > 0n && seat.view !== undefined,
        }),
      );
  }

  private receive(message: PlayerMessage): void {
    this.options.onMessage?.(message);
    const kind = message.kind;
    if (kind.case === "seat") {
      const granted = kind.value;
      this.seat(granted.gameId, granted.seat, granted.seatToken);
    } else if (kind.case === "update") {
      const update = kind.value;
      const seat = this.seat(update.gameId, update.seat);
      if (seat.over) return;
      for (const event of update.events) {
        if (event.sequence <= seat.lastSequence) continue; // had it (never expected)
        seat.lastSequence = event.sequence;
        this.options.onEvent?.(seat, event);
      }
      if (update.view) seat.view = update.view;
      this.settle(seat);
    }
  }

  private settle(seat: Seat): void {
    const view = seat.view;
    if (!view) return;
    if (view.gameOver) {
      seat.over = true;
      this.ended += 1;
      this.options.onGameOver?.(seat);
      const wanted = this.options.games ?? 0;
      if (wanted > 0 && this.ended >= wanted) this.stop();
      return;
    }
    if (!seat.pending || view.version <= seat.decided || !this.options.decide) return;
    seat.decided = view.version;
    void this.decideAndSubmit(seat, view);
  }

  private async decideAndSubmit(seat: Seat, view: View): Promise<void> {
    try {
      const command = await this.options.decide?.(seat);
      if (!command || this.stopped) return;
      let sent = await this.send(seat, command, view.version);
      if (sent.refusal?.codeName === "INVALID_ARGUMENT" && view.legalCommands.length > 0 && !this.stopped) {
        // The view stays as it was after a refusal, so nothing would ask decide() again: the
        // seat would wait for ever. It plays its first legal command instead (as referee_bot).
        seat.illegal += 1;
        sent = await this.send(seat, view.legalCommands[0], view.version);
      }
      if (sent.response) seat.commands += 1;
    } catch {
      seat.decided = -1n; // gave up on this one: decide again on the next view
    }
  }

  /** Send ``command`` for ``seat`` (decided on the view at ``expectedVersion``), retried
   * with the same command id while its outcome is unknown. Undefined when it was refused: a
   * stale view (someone moved first, or the game ended: the stream brings the newer view) or
   * for good (onRefusal says why). */
  async submit(seat: Seat, command: Command, expectedVersion?: bigint): Promise<SubmitCommandResponse | undefined> {
    return (await this.send(seat, command, expectedVersion)).response;
  }

  /** submit(), with the refusal when there was one. */
  private async send(
    seat: Seat,
    command: Command,
    expectedVersion?: bigint,
  ): Promise<{ response?: SubmitCommandResponse; refusal?: RefusalDetails }> {
    const request = {
      gameId: seat.gameId,
      seatToken: seat.token,
      seat: seat.token ? undefined : seat.seat,
      commandId: newCommandId(),
      expectedVersion,
      command,
    };
    const { first, most } = this.options.backoffMs ?? { first: 50, most: 2000 };
    try {
      const response = await submitCommand(
        this.options.client,
        request,
        { headers: this.headers, timeoutMs: 30_000 },
        { retries: this.options.maxAttempts ?? 30, first, most },
      );
      return { response };
    } catch (error) {
      const refusal = refusalOf(error);
      if (!refusal) throw error;
      if (STALE.has(refusal.reason)) return {};
      this.options.onRefusal?.(seat, refusal);
      return { refusal };
    }
  }
}

/** Refusals that only say the view was stale: the stream brings the newer one. */
const STALE = new Set(["VERSION_CONFLICT", "NOT_YOUR_TURN", "GAME_OVER", "BUSY"]);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
