/**
 * A stand-in for an object that is still loading, to expose over comlink at once: comlink reaches
 * a method by reading a path of properties from the exposed object, then calls it. Here every path
 * read gives another stand-in, and a call waits for the object and calls the method at that path
 * on it (with its owner as `this`). Messages are never lost while the real object loads. The API
 * must have no method named `apply` (comlink calls the stand-in's own). A method in `early` is also
 * told of its calls at once, to begin work that need not wait for the object.
 */
export function whenLoaded<T extends object>(
  loading: Promise<T>,
  path: readonly PropertyKey[] = [],
  early: Record<string, (...args: unknown[]) => void> = {},
): T {
  const stand = function standIn() {} as unknown as T;
  return new Proxy(stand, {
    get(target, key) {
      // Not a thenable (`await standIn` must not wait on it); symbols and comlink's own
      // `rawValue.apply(owner, args)` are the function's, the rest a path into the API.
      if (key === "then") return undefined;
      if (typeof key === "symbol" || key === "apply") return Reflect.get(target, key);
      return whenLoaded(loading, [...path, key], early);
    },
    async apply(_target, _self, args: unknown[]) {
      const name = String(path[0]);
      if (path.length === 1 && Object.hasOwn(early, name)) early[name]!(...args);
      let owner: unknown = await loading;
      for (const key of path.slice(0, -1)) owner = (owner as Record<PropertyKey, unknown>)[key];
      const method = (owner as Record<PropertyKey, unknown>)[path[path.length - 1]!];
      if (typeof method !== "function")
        throw new TypeError(`${path.map(String).join(".")} is not a function`);
      return method.apply(owner, args);
    },
  });
}
