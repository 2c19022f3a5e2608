import { defineConfig } from "vite";

// The build goes into the Python package, which `slotforge serve` serves; the dev server
// forwards the API to a `slotforge serve` on the default port. Two pages: the player's client
// (index.html) and the operator's back office (operator.html, served at /operator).
export default defineConfig({
  base: "/",
  // Copied as they are into the build (and so into the Python package): the art's attribution.
  publicDir: "src/public",
  build: {
    outDir: "../src/slotforge/web/dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    rollupOptions: {
      input: {
        main: "index.html", // paths from web/, where the build runs
        operator: "operator.html",
      },
    },
  },
  server: {
    proxy: { "/v1": "http://127.0.0.1:8000" },
  },
});
