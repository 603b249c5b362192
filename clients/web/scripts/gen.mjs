// Generates the TypeScript messages and service of referee.v1 from protos/ into src/gen/
// (protoc-gen-es, driven by the protoc of the repository's Python venv: `make web` makes it).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, "..");
const repo = resolve(web, "../..");
const python = process.env.PYTHON ?? join(repo, ".venv/bin/python");
if (!existsSync(python)) {
  console.error(`no ${python}: run \`make web\` from the repository root (it creates the venv)`);
  process.exit(1);
}
const out = join(web, "src/gen");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const protos = join(repo, "protos");
// referee.v1, and the google protos vendored in protos/google/ (as buf reads them): error
// details (ErrorInfo: the rule id of a refused command), google.rpc.Code, field behaviour.
const files = ["referee/v1", "google/rpc", "google/api"].flatMap((folder) =>
  readdirSync(join(protos, folder))
    .filter((name) => name.endsWith(".proto"))
    .map((name) => join(protos, folder, name)));
execFileSync(
  python,
  [
    "-m", "grpc_tools.protoc",
    `-I${protos}`,
    `--plugin=protoc-gen-es=${join(web, "node_modules/.bin/protoc-gen-es")}`,
    `--es_out=${out}`,
    "--es_opt=target=ts",
    ...files,
  ],
  { stdio: "inherit" },
);
