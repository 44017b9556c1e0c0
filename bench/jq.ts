import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createEmbeddedRuntime } from "../src/host/create-runtime.ts";
import { registerNodeAssets } from "../src/host/node-assets.ts";
import { hasCommand, medianMs } from "./measure.ts";
import type { BenchRow } from "./types.ts";

/** A deterministic 5 MB JSON document: an array of orders with nested items. */
export function ordersJson(targetBytes = 5 * 1024 * 1024): string {
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const orders: unknown[] = [];
  let size = 2;
  for (let id = 0; size < targetBytes; id++) {
    const order = {
      id,
      customer: `customer-${Math.floor(random() * 5000)}`,
      status: ["open", "paid", "shipped", "cancelled"][Math.floor(random() * 4)],
      items: Array.from({ length: 1 + Math.floor(random() * 4) }, (_, i) => ({
        sku: `SKU-${Math.floor(random() * 100000)}`,
        quantity: 1 + Math.floor(random() * 5),
        price: Math.round(random() * 10000) / 100,
        line: i,
      })),
    };
    const text = JSON.stringify(order);
    size += text.length + 1;
    orders.push(order);
  }
  return JSON.stringify(orders);
}

const FILTER =
  '[.[] | select(.status == "paid") | {customer, total: ([.items[] | .price * .quantity] | add)}] | group_by(.customer) | map({customer: .[0].customer, total: (map(.total) | add)}) | sort_by(-.total) | .[:10]';

/** `jq` in the embedded shell (the real jq 1.7.1, WebAssembly) over a 5 MB file, against the machine's jq. */
export async function benchJq(): Promise<BenchRow[]> {
  registerNodeAssets();
  const json = ordersJson();
  const runtime = await createEmbeddedRuntime({ files: { "orders.json": json }, trackChanges: false });
  const command = `jq -c '${FILTER}' orders.json`;
  const run = async () => {
    const result = await runtime.sandbox.exec(command, { timeoutMs: 120_000 });
    if (result.exitCode !== 0) throw new Error(`jq failed: ${result.stderr}`);
    return result.stdout;
  };
  const ours = await run();
  const ms = await medianMs(run, 5, 1);
  let reference: BenchRow["reference"];
  let note: string | undefined;
  if (await hasCommand("jq")) {
    const folder = mkdtempSync(join(tmpdir(), "toolroom-jq-bench-"));
    writeFileSync(join(folder, "orders.json"), json);
    const native = () => spawnSync("jq", ["-c", FILTER, join(folder, "orders.json")], { encoding: "utf8" });
    const nativeMs = await medianMs(native, 5, 1);
    const version = spawnSync("jq", ["--version"], { encoding: "utf8" }).stdout.trim();
    reference = { name: `${version} (native)`, ms: nativeMs };
    note = native().stdout === ours ? "same output as native" : "OUTPUT DIFFERS from native";
  }
  await runtime.sandbox.dispose();
  return [
    {
      name: `jq: select, group_by, sort_by over ${(json.length / 1048576).toFixed(1)} MB of JSON`,
      ms,
      ...(reference ? { reference } : {}),
      ...(note ? { note } : {}),
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { printRows } = await import("./report.ts");
  printRows("jq", await benchJq());
  process.exit(0);
}
