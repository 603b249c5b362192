// A real referee for the SDK's tests: `referee serve` from the repository's venv (or
// $REFEREE), on fixed free ports and an SQLite store, so that it can be killed and started
// again where it was (its games recovered from the store).
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const REFEREE = process.env.REFEREE ?? resolve(here, "../../../.venv/bin/referee");

export async function freePort() {
  return await new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

export class Referee {
  /** ``store``: a --store URL (replicas share one PostgreSQL store); default a new SQLite. */
  constructor(args = [], store = undefined) {
    this.args = args;
    this.storeUrl = store ?? `sqlite:${join(mkdtempSync(join(tmpdir(), "referee-sdk-")), "referee.sqlite3")}`;
  }

  get grpcUrl() {
    return `http://127.0.0.1:${this.grpcPort}`;
  }

  get httpUrl() {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  async start() {
    this.grpcPort ??= await freePort();
    this.httpPort ??= await freePort();
    const child = spawn(
      REFEREE,
      [
        "serve",
        "--listen", `127.0.0.1:${this.grpcPort}`,
        "--http", `127.0.0.1:${this.httpPort}`,
        "--store", this.storeUrl,
        "--metrics", "",
        "--grace-seconds", "1",
        ...this.args,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    this.child = child;
    let log = "";
    child.stderr.on("data", (chunk) => (log = (log + chunk).slice(-4000)));
    await new Promise((done, fail) => {
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
        if (out.includes("referee listening on")) done();
      });
      child.once("exit", (code) => fail(new Error(`referee exited ${code}: ${log}`)));
    });
    return this;
  }

  /** Kill it as a crash would (SIGKILL): no graceful end of any stream. */
  async kill() {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return; // gone already
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGKILL");
    await exited;
  }

  async restart() {
    await this.kill();
    await this.start();
  }
}
