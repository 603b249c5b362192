// What a refusal says, read the same way from every wire: a ConnectError of a unary call or a
// stream (Connect, gRPC-Web and gRPC all carry google.rpc details), or a Refusal on the
// player stream. docs/clients.md section 4 lists every reason with its code and rule id.
import { Code, ConnectError } from "@connectrpc/connect";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  RetryInfoSchema,
} from "./gen/google/rpc/error_details_pb.js";
import { Code as RpcCode } from "./gen/google/rpc/code_pb.js";
import type { Refusal as RefusalMessage } from "./gen/referee/v1/referee_pb.js";

/** The referee's error domain (ErrorInfo.domain). */
export const DOMAIN = "referee.v1";

/** A refusal, whichever wire it came over. */
export interface RefusalDetails {
  /** The status code (Connect's enum; the same numbers as gRPC's). */
  code: Code;
  /** The code by name, as gRPC and grpcurl spell it: "FAILED_PRECONDITION". */
  codeName: string;
  message: string;
  /** ErrorInfo.reason: NOT_YOUR_TURN, GAME_OVER, RULE_VIOLATION, ... */
  reason: string;
  /** ErrorInfo.metadata (rule_id, seat, current_version, limit, ...). */
  metadata: Record<string, string>;
  /** The rule that refused it, when a rule did. */
  ruleId?: string;
  /** google.rpc.RetryInfo's delay, when the server said when to retry. */
  retryAfterMs?: number;
  /** google.rpc.BadRequest's field violations. */
  fieldViolations: { field: string; description: string }[];
  /** google.rpc.PreconditionFailure's violations (TURN, GAME_STATE, SEAT, ...). */
  preconditions: { type: string; subject: string; description: string }[];
}

/** "FAILED_PRECONDITION" for Code.FailedPrecondition (google.rpc.Code's names). */
export function codeName(code: Code): string {
  return RpcCode[code as number] ?? String(code);
}

/** The refusal an error carries; undefined for anything that is not a ConnectError. */
export function refusalOf(error: unknown): RefusalDetails | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  const info = error.findDetails(ErrorInfoSchema)[0];
  const retry = error.findDetails(RetryInfoSchema)[0];
  const metadata = { ...(info?.metadata ?? {}) };
  const delay = retry?.retryDelay;
  return {
    code: error.code,
    codeName: codeName(error.code),
    message: error.rawMessage,
    reason: info?.reason ?? "",
    metadata,
    ruleId: metadata["rule_id"],
    retryAfterMs: delay ? Number(delay.seconds) * 1000 + Math.round(delay.nanos / 1e6) : undefined,
    fieldViolations: error
      .findDetails(BadRequestSchema)
      .flatMap((bad) => bad.fieldViolations.map(({ field, description }) => ({ field, description }))),
    preconditions: error
      .findDetails(PreconditionFailureSchema)
      .flatMap((failure) => failure.violations.map(({ type, subject, description }) => ({ type, subject, description }))),
  };
}

/** A Refusal message of the player stream (PlayerSession's CommandOutcome), as RefusalDetails. */
export function refusalFromMessage(refusal: RefusalMessage): RefusalDetails {
  const metadata = { ...refusal.metadata };
  return {
    code: refusal.code as Code,
    codeName: codeName(refusal.code as Code),
    message: refusal.message,
    reason: refusal.reason,
    metadata,
    ruleId: metadata["rule_id"],
    fieldViolations: [],
    preconditions: [],
  };
}

/** Stream ends that are the server's answer to the request itself: resuming gets the same
 * answer. Any other end (a transport error, a server going away, a proxy's reset, a slow
 * reader cut off) is resumed after the last sequence received, which is always safe. */
export const STREAM_REFUSED: ReadonlySet<Code> = new Set([
  Code.InvalidArgument,
  Code.NotFound,
  Code.PermissionDenied,
  Code.Unauthenticated,
  Code.FailedPrecondition,
  Code.Unimplemented,
  Code.OutOfRange,
  Code.AlreadyExists,
]);

/** Whether a stream that ended with ``error`` is resumed. */
export function resumable(error: unknown): boolean {
  return !(error instanceof ConnectError && STREAM_REFUSED.has(error.code));
}

/** Command errors after which nobody knows whether the referee applied it (a transport error,
 * a timeout, a server going away; a limit, retried after its RetryInfo): the command is sent
 * again with the same command id, which the referee applies at most once. */
export const OUTCOME_UNKNOWN: ReadonlySet<Code> = new Set([
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.Internal,
  Code.Unknown,
  Code.Canceled,
  Code.ResourceExhausted,
]);

/** Whether a call that failed with ``error`` is retried as it was (a command: same id). An
 * error without the referee's ErrorInfo is the transport's (a reset connection): retried. */
export function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return true;
  if (error.findDetails(ErrorInfoSchema).length === 0) return true;
  return OUTCOME_UNKNOWN.has(error.code);
}

/** Milliseconds before retry ``attempt`` (0, 1, ...): doubling from ``first`` to ``most``,
 * jittered (half to all of it). */
export function backoff(attempt: number, first = 100, most = 5000): number {
  const ceiling = Math.min(most, first * 2 ** Math.min(attempt, 20));
  return ceiling * (0.5 + Math.random() / 2);
}
