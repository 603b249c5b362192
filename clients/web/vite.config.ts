import { defineConfig } from "vite";

// The TypeScript SDK from its sources (clients/ts-sdk/src), with this page's own copy of the
// libraries it uses (one @connectrpc/connect, one @bufbuild/protobuf in the bundle).
const sdk = decodeURIComponent(new URL("../ts-sdk/src/", import.meta.url).pathname);

// The built page is served by the referee's HTTP port at "/" (referee serve --http).
export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  resolve: {
    alias: [
      { find: /^@game-referee\/sdk$/, replacement: `${sdk}index.ts` },
      { find: /^@game-referee\/sdk\/gen\/(.*)$/, replacement: `${sdk}gen/$1.ts` },
    ],
    dedupe: ["@connectrpc/connect", "@bufbuild/protobuf"],
  },
  server: { fs: { allow: ["../.."] } },
});
