import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { expectCurrent } from "../test-support/generated-file.ts";
import { validatorModule } from "../test-support/validators-made-ahead.ts";
import { checkLesson, LESSON_SCHEMA } from "./lesson.ts";

const FILE = new URL("./lesson-validator.generated.ts", import.meta.url);

describe("the lesson file's validator made ahead", () => {
  it("is Ajv's standalone code for the lesson schema (the file is current)", () => {
    const ajv = new Ajv({ allErrors: true, strict: false, code: { source: true, esm: true } });
    ajv.addSchema(LESSON_SCHEMA, "lessonValidator");
    expectCurrent(
      FILE,
      validatorModule(ajv, ["lessonValidator"], "LESSON_VALIDATORS", "src/lessons/lesson-validator.test.ts"),
      "src/lessons/lesson-validator.test.ts",
    );
  });

  it("refuses a lesson file as before, naming every problem", () => {
    expect(() => checkLesson({ format: "toolroom-lesson", version: 1 })).toThrow(
      /This lesson file is invalid: .*must have required property 'id'/u,
    );
  });
});
