import { defineConfig } from "vite";

// The built page is served by the referee's HTTP port at "/" (referee serve --http).
export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  server: { fs: { allow: ["../.."] } },
});
