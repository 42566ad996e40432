// Build the chat page into ../harness_ui/static: app.js (esbuild bundle of src/main.jsx with
// the pinned ai and @ai-sdk/react), app.css, index.html, and BUILD_INPUTS.json recording the
// sha256 of the build inputs and of each output (tests/test_bundle.py checks them).
// Run: npm ci && node build.mjs   (or scripts/build-frontend.sh from plugins/harness-ui)
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "harness_ui", "static");

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

// The same digest as harness_ui's test: for each input, sorted by path, "path\0content\0".
export function inputsDigest() {
  const inputs = [...files(join(here, "src")), join(here, "package.json"), join(here, "package-lock.json"),
    join(here, "build.mjs")].map((file) => relative(here, file).split("\\").join("/")).sort();
  const hash = createHash("sha256");
  for (const path of inputs) {
    hash.update(path + "\0");
    hash.update(readFileSync(join(here, path)));
    hash.update("\0");
  }
  return { inputs, sha256: hash.digest("hex") };
}

const sha = (path) => createHash("sha256").update(readFileSync(path)).digest("hex");

mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, "src", "main.jsx")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  jsx: "automatic",
  legalComments: "eof",
  define: { "process.env.NODE_ENV": '"production"' },
  outfile: join(out, "app.js"),
  logLevel: "warning",
});
copyFileSync(join(here, "src", "app.css"), join(out, "app.css"));
copyFileSync(join(here, "src", "index.html"), join(out, "index.html"));
const digest = inputsDigest();
const lock = JSON.parse(readFileSync(join(here, "package-lock.json"), "utf8"));
const version = (name) => lock.packages[`node_modules/${name}`].version;
const record = {
  inputs: digest.inputs,
  inputs_sha256: digest.sha256,
  outputs: Object.fromEntries(["app.js", "app.css", "index.html"].map((name) => [name, sha(join(out, name))])),
  packages: Object.fromEntries(["ai", "@ai-sdk/react", "react", "react-dom", "esbuild"].map((n) => [n, version(n)])),
};
writeFileSync(join(out, "BUILD_INPUTS.json"), JSON.stringify(record, null, 2) + "\n");
console.log(`built ${relative(process.cwd(), out)} (inputs ${digest.sha256.slice(0, 12)})`);
