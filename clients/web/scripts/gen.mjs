// The web client's generated code is the TypeScript SDK's (clients/ts-sdk, `make sdk`
// generates it from protos/): src/gen/ gets one module per SDK module that re-exports it, so
// the page's own imports ("./gen/referee/v1/referee_pb") and the SDK's client share one copy
// of every message, enum and service.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, "..");
const sdkGen = resolve(web, "../ts-sdk/src/gen");
if (!existsSync(sdkGen)) {
  console.error(`no ${sdkGen}: run \`make web\` from the repository root (it builds the SDK)`);
  process.exit(1);
}
const out = join(web, "src/gen");
rmSync(out, { recursive: true, force: true });

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

for (const file of walk(sdkGen).filter((f) => f.endsWith("_pb.ts"))) {
  const module = relative(sdkGen, file).replace(/\.ts$/, "");
  const target = join(out, `${module}.ts`);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `export * from "@game-referee/sdk/gen/${module}";\n`);
}
