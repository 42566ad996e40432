// Protocol validity: read our UI message streams with the AI SDK's own reader.
//
// Usage: node test/protocol.mjs EXCHANGES.json
//   EXCHANGES.json = {"exchanges": [{"sse": "<response body>", "continues": true|false}, ...]}
// Each body is parsed with parseJsonEventStream + uiMessageChunkSchema (the schema useChat
// validates with) and fed to readUIMessageStream; a continuation starts from the previous
// exchange's final message, as useChat does. Prints {"messages", "rejected", "errors",
// "errorChunks"} as JSON; exits 1 when a chunk is rejected, the reader raises, or a body
// does not end with "data: [DONE]".
import { readFileSync } from "node:fs";
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from "ai";

const { exchanges } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const rejected = [];
const errors = [];
const errorChunks = [];
const messages = [];
let last;

function bytes(text) {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

for (const [index, exchange] of exchanges.entries()) {
  if (!exchange.sse.endsWith("data: [DONE]\n\n")) errors.push(`exchange ${index}: the body does not end with data: [DONE]`);
  const parsed = parseJsonEventStream({ stream: bytes(exchange.sse), schema: uiMessageChunkSchema });
  const chunks = [];
  for await (const result of parsed) {
    if (result.success) chunks.push(result.value);
    else rejected.push({ exchange: index, raw: result.rawValue, error: String(result.error) });
  }
  for (const chunk of chunks) if (chunk.type === "error") errorChunks.push(chunk.errorText);
  const expected = new Set(errorChunks);
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message;
  try {
    for await (const state of readUIMessageStream({
      message: exchange.continues ? structuredClone(last) : undefined,
      stream,
      terminateOnError: true,
      onError: (error) => {
        if (!expected.has(error.message)) errors.push(`exchange ${index}: ${error.name}: ${error.message}`);
      },
    })) {
      message = state;
    }
  } catch (error) {
    // terminateOnError: an "error" chunk ends the reading with that error; anything else fails.
    if (!expected.has(error.message)) errors.push(`exchange ${index}: ${error.name}: ${error.message}`);
  }
  last = message ?? last;
  messages.push(message ?? null);
}

process.stdout.write(JSON.stringify({ messages, rejected, errors, errorChunks }, null, 1));
process.exit(rejected.length || errors.length ? 1 : 0);
