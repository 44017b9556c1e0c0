import { expose, type ProxyMarked, proxy, type Remote, wrap } from "comlink";
import { describe, expect, it } from "vitest";
import { whenLoaded } from "./when-loaded.ts";

interface Api {
  ping(): Promise<number>;
  call(tool: string): Promise<string>;
  settings: { get(): Promise<string>; twice(x: number): Promise<number> } & ProxyMarked;
}

function slowApi(): { api: Promise<Api>; load(): void; calls: string[] } {
  const calls: string[] = [];
  let load!: () => void;
  const api = new Promise<Api>((resolve) => {
    load = () =>
      resolve({
        async ping() {
          calls.push("ping");
          return 1;
        },
        async call(tool: string) {
          return `called ${tool}`;
        },
        settings: proxy({
          factor: 2,
          async get() {
            calls.push("get");
            return "embedded";
          },
          async twice(this: { factor: number }, x: number) {
            return x * this.factor;
          },
        }),
      });
  });
  return { api, load, calls };
}

describe("an API exposed over comlink while it still loads", () => {
  it("answers calls made before it loaded, in order, methods of namespaces with their owner as this", async () => {
    const { api, load, calls } = slowApi();
    const { port1, port2 } = new MessageChannel();
    expose(whenLoaded<Api>(api), port1);
    const remote = wrap<Api>(port2) as Remote<Api>;
    const answers = Promise.all([
      remote.ping(),
      remote.settings.get(),
      remote.settings.twice(21),
      remote.call("list_files"),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([]);
    load();
    expect(await answers).toEqual([1, "embedded", 42, "called list_files"]);
    expect(calls).toEqual(["ping", "get"]);
    port2.close();
  });

  it("tells an early method of its call at once, and still answers it from the loaded API", async () => {
    const { api, load } = slowApi();
    const told: unknown[][] = [];
    const { port1, port2 } = new MessageChannel();
    expose(whenLoaded<Api>(api, [], { call: (...args) => told.push(args) }), port1);
    const remote = wrap<Api>(port2) as Remote<Api>;
    const answer = remote.call("list_files");
    const other = remote.ping();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(told).toEqual([["list_files"]]);
    load();
    expect(await Promise.all([answer, other])).toEqual(["called list_files", 1]);
    expect(told).toEqual([["list_files"]]);
    port2.close();
  });

  it("is not mistaken for a promise, and says which path is not a method", async () => {
    const { api, load } = slowApi();
    const stand = whenLoaded<Api>(api);
    load();
    expect(await Promise.resolve(stand)).toBe(stand);
    await expect(
      (stand as unknown as { settings: { nothing(): Promise<void> } }).settings.nothing(),
    ).rejects.toThrow(/settings\.nothing is not a function/u);
  });
});
