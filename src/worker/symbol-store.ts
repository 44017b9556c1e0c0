import { type DBSchema, type IDBPDatabase, openDB } from "idb";
import type { SymbolDefinition, SymbolStore } from "../tools/project/symbols.ts";

interface SymbolsDb extends DBSchema {
  parses: { key: string; value: { key: string; symbols: SymbolDefinition[] } };
}

/** As many parses as symbols_index keeps in memory; past it the store starts over (parses are cheap to redo). */
const STORED_LIMIT = 50_000;

/**
 * symbols_index's parses kept across reloads, by content id ("ts:<sha1>"): a file parsed before
 * a reload is not parsed again. A database of its own, apart from the workspaces' (no upgrade of
 * theirs, and clearing it loses nothing but time). Every failure is a miss, never an error.
 */
export function indexedDbSymbolStore(name: string, limit = STORED_LIMIT): SymbolStore {
  let opening: Promise<IDBPDatabase<SymbolsDb> | null> | undefined;
  const open = () => {
    opening ??= openDB<SymbolsDb>(name, 1, {
      upgrade(database) {
        database.createObjectStore("parses", { keyPath: "key" });
      },
      // A newer version in another tab: step aside rather than block it.
      blocking() {
        void opening?.then((db) => db?.close());
        opening = undefined;
      },
    }).catch(() => null);
    return opening;
  };
  return {
    async get(keys) {
      const found = new Map<string, SymbolDefinition[]>();
      const db = await open();
      if (!db || keys.length === 0) return found;
      try {
        const tx = db.transaction("parses", "readonly");
        const rows = await Promise.all(keys.map((key) => tx.store.get(key)));
        for (const row of rows) if (row) found.set(row.key, row.symbols);
      } catch {
        // a miss
      }
      return found;
    },
    async put(entries) {
      const db = await open();
      if (!db || entries.size === 0) return;
      try {
        const tx = db.transaction("parses", "readwrite");
        if ((await tx.store.count()) + entries.size > limit) await tx.store.clear();
        for (const [key, symbols] of entries) void tx.store.put({ key, symbols });
        await tx.done;
      } catch {
        // not kept: parsed again after the next reload
      }
    },
  };
}
