// Builds the CLI bundle bin/toolroom runs (dist-cli/): src/cli/main.ts and every worker it starts, as
// plain ES modules, so the CLI starts in ~0.2 s instead of compiling its TypeScript through tsx each time.
// Run by `npm install`/`npm ci` (prepare), by the tests and by the bench; `npm run build:cli` by hand.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { freshness, MANIFEST, OUT_DIR, sourceStamps, sourcesHash } from "../bin/cli-bundle.mjs";

const ROOT = join(import.meta.dirname, "..");
const ENTRY = "src/cli/main.ts";
// `new URL("./x", import.meta.url)`: how the sources name a worker's entry or a file beside them.
const FILE_URL = /new URL\(\s*(["'])(\.{1,2}\/[^"']+)\1\s*,\s*import\.meta\.url\s*\)/gu;

/**
 * Plain-JavaScript packages the first calls need, bundled in (with what they import): from
 * node_modules, Node resolves, opens and compiles each of their files at start-up (ajv's ~40 CommonJS
 * files alone took ~50 ms of the first answer). Packages that find files beside themselves (WebAssembly,
 * workers, CPython) and the large ones loaded on first use (TypeScript, isomorphic-git) stay outside.
 */
const INLINED = new Set(["ajv", "picomatch", "ignore", "diff", "fflate", "smol-toml", "@noble/hashes"]);

/** A source path as one flat output name: src/host/x-worker.ts → host-x-worker.mjs. */
function outputName(file) {
  const name = relative(join(ROOT, "src"), file).split(sep).join("-");
  return name.endsWith(".ts") ? `${name.slice(0, -3)}.mjs` : name;
}

/**
 * Rewrites each `new URL("./x", import.meta.url)` to the file's place in dist-cli: a .ts entry is
 * bundled as an entry of its own (a worker), any other file is copied. Reports what it found.
 */
function fileUrls(found) {
  return {
    name: "file-urls",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const source = readFileSync(args.path, "utf8");
        const contents = source.replace(FILE_URL, (_match, quote, path) => {
          const file = join(dirname(args.path), path);
          if (!existsSync(file))
            throw new Error(`${relative(ROOT, args.path)} names ${path}, which is not there`);
          found.add(file);
          return `new URL(${quote}./${outputName(file)}${quote}, import.meta.url)`;
        });
        return { contents, loader: "ts" };
      });
    },
  };
}

/**
 * Leaves packages to node_modules (their WebAssembly and data files stay beside them), naming each
 * as Node's ES module resolver finds it: a subpath of a package with no exports map must name the
 * file itself (`picomatch/posix` becomes `picomatch/posix.js`, as tsx and Vite resolve it).
 */
function packagesAsNodeFindsThem() {
  return {
    name: "packages-as-node-finds-them",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const parts = args.path.split("/");
        const name = parts.slice(0, args.path.startsWith("@") ? 2 : 1).join("/");
        const subpath = args.path.slice(name.length + 1);
        if (args.path.startsWith("node:")) return { path: args.path, external: true };
        if (INLINED.has(name) || args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
        if (!subpath) return { path: args.path, external: true };
        const require = createRequire(args.importer);
        const packageDir = require.resolve
          .paths(name)
          .map((folder) => join(folder, name))
          .find((folder) => existsSync(join(folder, "package.json")));
        if (!packageDir) return { errors: [{ text: `${name} is not installed (npm install)` }] };
        const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
        const named = join(packageDir, subpath);
        if (manifest.exports || (existsSync(named) && statSync(named).isFile()))
          return { path: args.path, external: true };
        const file = require.resolve(args.path);
        return {
          path: `${name}/${relative(realpathSync(packageDir), realpathSync(file)).split(sep).join("/")}`,
          external: true,
        };
      });
    },
  };
}

/**
 * Deletes chunks earlier builds left (their names carry a content hash), once a day old: a CLI
 * started on an older build may still import one lazily.
 */
function pruneChunks(current) {
  const folder = join(ROOT, OUT_DIR, "chunks");
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    const file = join(folder, name);
    if (!current.has(file) && statSync(file).mtimeMs < dayAgo) rmSync(file, { force: true });
  }
}

/** Each file whole (a CLI starting meanwhile never reads half a bundle). */
function put(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/** The bundle still matches the sources though some were touched: records their new stamps. */
function restamp() {
  const manifest = JSON.parse(readFileSync(join(ROOT, MANIFEST), "utf8"));
  const before = sourceStamps(ROOT, manifest.files);
  if (sourcesHash(ROOT, manifest.files) !== manifest.hash) return;
  const after = sourceStamps(ROOT, manifest.files);
  if (after.some((stamp, i) => stamp !== before[i])) return;
  put(join(ROOT, MANIFEST), `${JSON.stringify({ ...manifest, stamps: after }, null, 2)}\n`);
}

/** One esbuild run over the CLI and every worker it names; the outputs are not written yet. */
async function bundle() {
  const { build } = await import("esbuild");
  const found = new Set();
  const entries = new Set([join(ROOT, ENTRY)]);
  // Workers can start workers: build until no new entry turns up.
  for (;;) {
    const result = await build({
      entryPoints: [...entries].map((file) => ({ in: file, out: outputName(file).replace(/\.mjs$/u, "") })),
      absWorkingDir: ROOT,
      outdir: join(ROOT, OUT_DIR),
      outExtension: { ".js": ".mjs" },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      splitting: true,
      chunkNames: "chunks/[name]-[hash]",
      sourcemap: "linked",
      metafile: true,
      write: false,
      logLevel: "warning",
      plugins: [fileUrls(found), packagesAsNodeFindsThem()],
    });
    const more = [...found].filter((file) => file.endsWith(".ts") && !entries.has(file));
    if (more.length === 0) return { result, found };
    for (const file of more) entries.add(file);
  }
}

/** Builds dist-cli unless it is already built from the current sources; returns whether it built. */
export async function buildCli({ force = false } = {}) {
  if (!force) {
    const fresh = freshness(ROOT);
    if (fresh === "hash") restamp();
    if (fresh) return false;
  }
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    const { result, found } = await bundle();
    // Every file bundled in, the inlined packages' too (an npm update changes the bundle).
    const sources = new Set(
      Object.keys(result.metafile.inputs).map((input) =>
        relative(ROOT, join(ROOT, input)).split(sep).join("/"),
      ),
    );
    sources.add("scripts/build-cli.mjs");
    sources.add("bin/cli-bundle.mjs");
    const files = [...sources].sort();
    const stamps = sourceStamps(ROOT, files);
    // A source saved while esbuild read it: the stamps and hash taken now would not be of what was bundled.
    if (stamps.some((stamp) => Number(BigInt(stamp.split(":")[2]) / 1_000_000n) >= started)) {
      if (attempt < 3) continue;
      throw new Error("the sources kept changing during the build");
    }
    const hash = sourcesHash(ROOT, files);
    for (const output of result.outputFiles) put(output.path, output.contents);
    for (const file of found)
      if (!file.endsWith(".ts")) put(join(ROOT, OUT_DIR, outputName(file)), readFileSync(file));
    pruneChunks(new Set(result.outputFiles.map((output) => output.path)));
    // The manifest last: until it is there, bin/toolroom runs from source.
    put(join(ROOT, MANIFEST), `${JSON.stringify({ files, hash, stamps }, null, 2)}\n`);
    return true;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    const built = await buildCli({ force: process.argv.includes("--force") });
    console.error(
      built ? `toolroom: built the CLI bundle in ${OUT_DIR}/` : `toolroom: ${OUT_DIR}/ is up to date`,
    );
  } catch (error) {
    // At `npm install` (--if-possible) a source that does not build must not stop the install:
    // bin/toolroom runs from source until the next build.
    console.error(`toolroom: could not build the CLI bundle: ${error.message}`);
    if (process.argv.includes("--if-possible"))
      console.error("toolroom: bin/toolroom runs from source (tsx)");
    else process.exitCode = 1;
  }
}
