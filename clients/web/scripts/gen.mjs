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
// google/rpc/error_details.proto (ErrorInfo: the rule id of a refused command): the copy in
// protos/ where the repository has one (protoc refuses the same file from two paths), else
// as the Python package googleapis-common-protos ships it.
const site = existsSync(join(protos, "google/rpc/error_details.proto")) ? protos : execFileSync(python, [
  "-c",
  "import google.rpc.error_details_pb2 as m, os; print(os.path.dirname(os.path.dirname(os.path.dirname(m.__file__))))",
]).toString().trim();
const protoFiles = (folder) => (existsSync(join(protos, folder)) ? readdirSync(join(protos, folder)) : [])
  .filter((name) => name.endsWith(".proto"))
  .map((name) => join(protos, folder, name));
// referee.v1 and the google.rpc protos it imports (protos/google/rpc: code, status, details).
const files = [...protoFiles("referee/v1"), ...protoFiles("google/rpc")];
execFileSync(
  python,
  [
    "-m", "grpc_tools.protoc",
    `-I${protos}`,
    ...(site === protos ? [] : [`-I${site}`]),
    `--plugin=protoc-gen-es=${join(web, "node_modules/.bin/protoc-gen-es")}`,
    `--es_out=${out}`,
    "--es_opt=target=ts",
    ...files,
    ...(site === protos ? [] : [join(site, "google/rpc/error_details.proto")]),
  ],
  { stdio: "inherit" },
);
