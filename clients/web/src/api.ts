// The referee over HTTP: generated messages (protobuf-es) and a Connect client (connect-web).
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { gameInfo, type GameInfo } from "./games";
import {
  RefereeService,
  type ListGameTypesResponse,
  type SubmitCommandRequest,
  type SubmitCommandResponse,
} from "./gen/referee/v1/referee_pb";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SubmitCommandRequestSchema } from "./gen/referee/v1/referee_pb";
import { player } from "./store";

/** The server: this page's own origin, or ?api=http://host:port (with --http-cors-origin). */
export const apiBase = new URLSearchParams(location.search).get("api") ?? location.origin;

// JSON on the wire: readable in the browser's developer tools, and what the tests inspect.
export const api = createClient(
  RefereeService,
  createConnectTransport({ baseUrl: apiBase, useBinaryFormat: false }),
);

export interface Problem {
  code: string;
  message: string;
  ruleId?: string;
  /** ErrorInfo.reason: what was refused, as a word ("CLAIM_CODE_USED"). */
  reason?: string;
}

/** A failed call in words: the referee's message (it starts with the rule id of a refused
 * command, e.g. "VQ-6: ..."), its Connect code and the rule id from ErrorInfo. */
export function problem(error: unknown): Problem {
  const e = ConnectError.from(error);
  const info = e.findDetails(ErrorInfoSchema)[0];
  return {
    code: String(e.code),
    message: e.rawMessage,
    ruleId: info?.metadata["rule_id"],
    reason: info?.reason,
  };
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

/** Stream ends that are the server's answer to the request itself: resuming gets the same.
 * Any other end (a transport error, a server going away, a proxy's reset) is resumed from
 * the last sequence received, which is always safe. */
const STREAM_REFUSED = new Set([
  Code.InvalidArgument, Code.NotFound, Code.PermissionDenied, Code.Unauthenticated,
  Code.FailedPrecondition, Code.Unimplemented, Code.OutOfRange, Code.AlreadyExists,
]);

export function resumable(error: unknown): boolean {
  return !STREAM_REFUSED.has(ConnectError.from(error).code);
}

/** Command errors after which nobody knows whether the referee applied it (a transport
 * error, a timeout, a server going away): retried with the same command id, applied once. */
const OUTCOME_UNKNOWN = new Set([
  Code.Unavailable, Code.DeadlineExceeded, Code.Internal, Code.Unknown, Code.Canceled,
  Code.ResourceExhausted,
]);

/** Milliseconds before retry `attempt` (0, 1, ...): doubling from 100 ms to 5 s, jittered. */
export function backoff(attempt: number): number {
  const ceiling = Math.min(5000, 100 * 2 ** Math.min(attempt, 16));
  return ceiling * (0.5 + Math.random() / 2);
}

/** SubmitCommand, sent again with the same command id while its outcome is unknown. */
export async function submit(
  request: MessageInitShape<typeof SubmitCommandRequestSchema> & Pick<SubmitCommandRequest, "commandId">,
  retries = 12,
  options: { headers?: Record<string, string> } = {},
): Promise<SubmitCommandResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await api.submitCommand(request, options);
    } catch (error) {
      if (attempt >= retries || !OUTCOME_UNKNOWN.has(ConnectError.from(error).code)) throw error;
      await sleep(backoff(attempt));
    }
  }
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
