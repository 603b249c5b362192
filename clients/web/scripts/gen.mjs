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
// google/rpc/error_details.proto (ErrorInfo: the rule id of a refused command): the copy
// vendored in protos/google/ (as buf reads it), so protoc finds one file of that name.
const files = readdirSync(join(protos, "referee/v1"))
  .filter((name) => name.endsWith(".proto"))
  .map((name) => join(protos, "referee/v1", name));
execFileSync(
  python,
  [
    "-m", "grpc_tools.protoc",
    `-I${protos}`,
    `--plugin=protoc-gen-es=${join(web, "node_modules/.bin/protoc-gen-es")}`,
    `--es_out=${out}`,
    "--es_opt=target=ts",
    ...files,
    join(protos, "google/rpc/error_details.proto"),
  ],
  { stdio: "inherit" },
);
