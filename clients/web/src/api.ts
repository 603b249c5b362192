// The referee over HTTP, on the TypeScript SDK (clients/ts-sdk): its typed client on a
// Connect transport (connect-web), its reading of refusals, retries and resumes.
import { Code, ConnectError } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import {
  backoff as sdkBackoff,
  createRefereeClient,
  refusalOf,
  resumable as sdkResumable,
  submitCommand,
  type ListGameTypesResponse,
  type SubmitCommandResponse,
  type SubmitRequest,
} from "@game-referee/sdk";
import { gameInfo, type GameInfo } from "./games";
import { player } from "./store";

/** The server: this page's own origin, or ?api=http://host:port (with --http-cors-origin). */
export const apiBase = new URLSearchParams(location.search).get("api") ?? location.origin;

// JSON on the wire: readable in the browser's developer tools, and what the tests inspect.
export const api = createRefereeClient(createConnectTransport({ baseUrl: apiBase, useBinaryFormat: false }));

export interface Problem {
  code: string;
  message: string;
  ruleId?: string;
  /** ErrorInfo.reason (NOT_YOUR_TURN, GAME_OVER, ...: docs/clients.md section 4). */
  reason?: string;
}

/** A failed call in words: the referee's message (it starts with the rule id of a refused
 * command, e.g. "VQ-6: ..."), its Connect code and the rule id and reason from ErrorInfo. */
export function problem(error: unknown): Problem {
  const refusal = refusalOf(ConnectError.from(error))!;
  return { code: String(refusal.code), message: refusal.message, ruleId: refusal.ruleId, reason: refusal.reason || undefined };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What this server runs (ListGameTypes): its game types and its house bots, asked once per
 * page load (again after a failure, or when the home page asks for a fresh answer). */
let listed: Promise<ListGameTypesResponse> | null = null;
let lastListed: ListGameTypesResponse | null = null;
export function serverInfo(fresh = false): Promise<ListGameTypesResponse> {
  if (fresh) listed = null;
  listed ??= api.listGameTypes({}).then(
    (response) => (lastListed = response),
    (error: unknown) => {
      listed = null; // ask again next time
      throw error;
    },
  );
  return listed;
}

/** The game types this server runs, by id. */
export function gameTypes(): Promise<Map<string, GameInfo>> {
  return serverInfo().then(({ gameTypes }) => new Map(gameTypes.map((t) => [t.gameType, gameInfo(t)])));
}

/** What a game's score counts (GameType.score_meaning), once ListGameTypes has answered;
 * empty before, or from a server that does not say. */
export function scoreMeaning(gameType: string): string {
  return lastListed?.gameTypes.find((t) => t.gameType === gameType)?.scoreMeaning ?? "";
}

/** Whether a stream that ended so is resumed from the last sequence received (always safe):
 * any end but the server's refusal of the request itself. */
export const resumable = sdkResumable;

/** Milliseconds before retry `attempt` (0, 1, ...): doubling from 100 ms to 5 s, jittered. */
export function backoff(attempt: number): number {
  return sdkBackoff(attempt, 100, 5000);
}

/** SubmitCommand, sent again with the same command id while its outcome is unknown. */
export async function submit(
  request: SubmitRequest,
  retries = 12,
  options: { headers?: Record<string, string> } = {},
): Promise<SubmitCommandResponse> {
  return submitCommand(api, request, options, { retries, first: 100, most: 5000 });
}

/** Call options carrying the signed-in player's credential (none when signed out). */
export function auth(signal?: AbortSignal): { headers?: Record<string, string>; signal?: AbortSignal } {
  const p = player();
  return { ...(p ? { headers: { authorization: `Bearer ${p.token}` } } : {}), signal };
}

/** Whether the server answered lately: the page disables its buttons while it does not. */
export const reach = {
  ok: true,
  listeners: new Set<(ok: boolean) => void>(),
  set(ok: boolean): void {
    if (ok === this.ok) return;
    this.ok = ok;
    for (const f of this.listeners) f(ok);
  },
};

/** A transport-level failure (the server or the network is away), not an answer. */
export function unreachable(error: unknown): boolean {
  const code = ConnectError.from(error).code;
  return code === Code.Unavailable || code === Code.Unknown || code === Code.DeadlineExceeded;
}

/** After a stream broke: is the server away, or only that stream (a proxy's reset)? A plain
 * call says; only when it fails too do the page's buttons go off. */
export function checkReach(): void {
  api.listGameTypes({}).then(() => reach.set(true), (error: unknown) => {
    if (unreachable(error)) reach.set(false);
  });
}
