// The referee's TypeScript SDK (referee.v1), for Node.js and the browser: every message and
// the service generated from protos/ (protobuf-es), the google.rpc error details, a typed
// client for every call, and the player's loop (player.ts). Transports come from
// @connectrpc/connect-web in a browser and from "@game-referee/sdk/node" in Node.js.
import { createClient, type Client, type Transport } from "@connectrpc/connect";
import { PlayerKind, RefereeService, type Player } from "./gen/referee/v1/referee_pb.js";

export * from "./gen/referee/v1/referee_pb.js";
export * from "./gen/referee/v1/vampire_queen_pb.js";
export * from "./gen/referee/v1/dracula_vs_van_helsing_pb.js";
export * from "./gen/referee/v1/sleeping_queens_pb.js";
export * from "./gen/referee/v1/mau_mau_vampires_pb.js";
export * from "./gen/google/rpc/error_details_pb.js";
export * from "./gen/google/rpc/status_pb.js";
export { Code as RpcCode, CodeSchema as RpcCodeSchema } from "./gen/google/rpc/code_pb.js";
export * from "./errors.js";
export * from "./commands.js";
export * from "./player.js";

/** A typed client of every call of referee.v1.RefereeService. */
export type RefereeClient = Client<typeof RefereeService>;

/** The client of ``transport`` (Connect, gRPC-Web or gRPC). */
export function createRefereeClient(transport: Transport): RefereeClient {
  return createClient(RefereeService, transport);
}

/** The call options that send a player's credential (an account's API token or a
 * platform's signed token). */
export function asPlayer(credential: string): { headers: Record<string, string> } {
  return { headers: credential ? { authorization: `Bearer ${credential}` } : {} };
}

/** A signed-in player: who the credential names, and the credential to send. */
export interface SignedIn {
  player: Player;
  credential: string;
}

/** Sign in with a credential (an account's API token or a platform's signed token): who it
 * names (WhoAmI). Throws UNAUTHENTICATED (CREDENTIAL_INVALID, TOKEN_EXPIRED, ...) if nobody. */
export async function signIn(client: RefereeClient, credential: string): Promise<SignedIn> {
  const { player } = await client.whoAmI({}, asPlayer(credential));
  return { player: player!, credential };
}

/** Create an account (on a server started with --open-registration) and sign in with its
 * token, which the server shows only now: keep it. */
export async function register(client: RefereeClient, name: string, kind = PlayerKind.BOT): Promise<SignedIn> {
  const { player, token } = await client.register({ name, kind });
  return { player: player!, credential: token };
}
