// Records a hash of the client's sources beside the build, so that a test can tell when the
// shipped build is older than its sources. The Python test (tests/web/test_build.py) computes
// the same hash: sha256 over every source file, sorted by path, as path NUL content NUL.
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const ROOT_FILES = ["index.html", "operator.html", "package.json", "package-lock.json", "tsconfig.json", "vite.config.ts"];

function walk(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const files = [...ROOT_FILES.map((name) => join(root, name)), ...walk(join(root, "src"))]
  .map((path) => relative(root, path).split("\\").join("/"))
  .sort();
const hash = createHash("sha256");
for (const path of files) {
  hash.update(path + "\0");
  hash.update(readFileSync(join(root, path)));
  hash.update("\0");
}
const out = process.argv[2];
writeFileSync(out, JSON.stringify({ sources_sha256: hash.digest("hex"), files: files.length }, null, 2) + "\n");
console.log(`source hash written to ${out}`);
