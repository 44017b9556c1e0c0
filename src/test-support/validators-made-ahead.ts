import type Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";

/**
 * The text of a module of validators made ahead by Ajv's standalone code: `exportName` maps each id
 * (a schema Ajv holds under that id) to its validator. The runtime helpers Ajv's code `require`s
 * are imported instead (an ES module, for the browser and Node alike).
 */
export function validatorModule(ajv: Ajv, ids: string[], exportName: string, madeBy: string): string {
  const helpers = new Map<string, string>();
  const code = standaloneCode(ajv, Object.fromEntries(ids.map((id) => [id, id]))).replace(
    /require\("(ajv\/dist\/runtime\/[\w-]+)"\)\.default/gu,
    (_, path: string) => {
      const name = `helper${helpers.size}`;
      if (!helpers.has(path)) helpers.set(path, name);
      return `${helpers.get(path)}Of`;
    },
  );
  if (/\brequire\(/u.test(code)) throw new Error("Ajv's standalone code requires a module not handled here");
  const imports = [...helpers].map(
    ([path, name]) =>
      `import * as ${name} from "${path}.js";\n// Node gives a CommonJS module's exports as default, bundlers its exports.default.\nconst ${name}Of = ${name}.default?.default ?? ${name}.default;\n`,
  );
  return [
    `// @ts-nocheck\n// Made by ${madeBy}: do not edit (it is rewritten when the schemas change, and the test fails until then).\n`,
    ...imports,
    code.replace(/^"use strict";/u, ""),
    `\nexport const ${exportName} = { ${ids.map((id) => `${JSON.stringify(id)}: ${id}`).join(", ")} } as unknown as Record<string, import("ajv").ValidateFunction>;\n`,
  ].join("");
}
