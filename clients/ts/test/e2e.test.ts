// Drives a running server (SLUICE_TARGET; tests/clients/test_ts_client.py starts one):
// create a knowledge base, upload a file in several frames, watch it to the end, find it
// by search, and read a bad request's field violation.
import assert from "node:assert/strict";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { status } from "@grpc/grpc-js";
import { SluiceClient, SluiceError } from "../src";
import { ParseStatus } from "../src/gen/sluice/v1/common";
import { WatchEventType } from "../src/gen/sluice/v1/knowledge";

const target = process.env.SLUICE_TARGET;
assert.ok(target, "SLUICE_TARGET names the server to test");
const client = new SluiceClient(target);
after(() => client.close());

test("upload, watch to completion, search", async () => {
  const kb = await client.createKnowledgeBase({ name: "ts-client" });
  const path = join(mkdtempSync(join(tmpdir(), "sluice-ts-")), "pump.md");
  const line = "The Zephyr pump resets when its red button is held for five seconds.\n";
  writeFileSync(path, line.repeat(100));
  const knowledge = await client.uploadFile(kb.id, path, { frameBytes: 1024 });
  assert.equal(knowledge.fileName, "pump.md");

  let last;
  for await (const event of client.watch({ knowledgeId: knowledge.id })) last = event;
  assert.equal(last?.type, WatchEventType.WATCH_EVENT_TYPE_END);
  assert.equal(last?.parseStatus, ParseStatus.PARSE_STATUS_COMPLETED);

  const results = await client.search({ query: "Zephyr pump red button", knowledgeBaseIds: [kb.id] });
  assert.ok(results.some((hit) => hit.knowledgeId === knowledge.id && hit.content.includes("Zephyr")));

  // The same bytes again: ALREADY_EXISTS naming the knowledge that holds them.
  const duplicate = await client.uploadFile(kb.id, path).then(
    () => assert.fail("a duplicate upload was accepted"),
    (error: unknown) => error,
  );
  assert.ok(duplicate instanceof SluiceError);
  assert.equal(duplicate.code, status.ALREADY_EXISTS);
  assert.equal(duplicate.resources.length, 1);
  assert.equal(duplicate.existingKnowledge?.id, knowledge.id);
});

test("a bad request's field violation decodes", async () => {
  const refused = await client.createKnowledgeBase({ name: "" }).then(
    () => assert.fail("an empty name was accepted"),
    (error: unknown) => error,
  );
  assert.ok(refused instanceof SluiceError);
  assert.equal(refused.code, status.INVALID_ARGUMENT);
  assert.deepEqual(refused.fieldViolations.map((v) => v.field), ["name"]);
});
