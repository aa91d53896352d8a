// One use of the official Codex TypeScript SDK (@openai/codex-sdk) against `tether exec`.
// Usage: node sdk_case.mjs '<json>' with {sdk, tether, baseUrl, case, ...}; prints one JSON result.
// `sdk` is the SDK's dist/index.js, `tether` the launcher given as codexPathOverride.

const params = JSON.parse(process.argv[2]);
const { Codex } = await import(params.sdk);

const codex = new Codex({
  codexPathOverride: params.tether,
  baseUrl: params.baseUrl,
  apiKey: "sk-node-sdk",
  config: {
    model: "gpt-test",
    allow_login_shell: false,
    model_providers: { openai: { request_max_retries: 0, stream_max_retries: 0 } },
  },
});

const threadOptions = {
  workingDirectory: params.cwd,
  skipGitRepoCheck: params.skipGitRepoCheck ?? false,
  ...(params.threadOptions ?? {}),
};

async function run() {
  switch (params.case) {
    case "run": {
      const thread = codex.startThread(threadOptions);
      const turn = await thread.run(params.prompt);
      return { threadId: thread.id, finalResponse: turn.finalResponse, items: turn.items, usage: turn.usage };
    }
    case "streamed": {
      const thread = codex.startThread(threadOptions);
      const { events } = await thread.runStreamed(params.prompt);
      const seen = [];
      for await (const event of events) seen.push(event);
      return { threadId: thread.id, events: seen };
    }
    case "schema": {
      const thread = codex.startThread(threadOptions);
      const turn = await thread.run(params.prompt, { outputSchema: params.schema });
      return { finalResponse: turn.finalResponse, parsed: JSON.parse(turn.finalResponse) };
    }
    case "resume": {
      const first = codex.startThread(threadOptions);
      const one = await first.run(params.prompt);
      const again = codex.resumeThread(first.id, threadOptions);
      const two = await again.run(params.second);
      return { firstId: first.id, resumedId: again.id, responses: [one.finalResponse, two.finalResponse] };
    }
    case "images": {
      const thread = codex.startThread(threadOptions);
      const input = [{ type: "text", text: params.prompt }, ...params.images.map((path) => ({ type: "local_image", path }))];
      const turn = await thread.run(input);
      return { finalResponse: turn.finalResponse };
    }
    case "abort": {
      const thread = codex.startThread(threadOptions);
      const controller = new AbortController();
      const { events } = await thread.runStreamed(params.prompt, { signal: controller.signal });
      const seen = [];
      try {
        for await (const event of events) {
          seen.push(event);
          // Abort once the turn is underway: the fake model holds its answer at a gate.
          if (event.type === "turn.started") controller.abort();
        }
      } catch (error) {
        return { seen, rejected: { name: error?.name, message: String(error?.message ?? error) } };
      }
      return { seen };
    }
    default:
      throw new Error(`unknown case ${params.case}`);
  }
}

try {
  console.log(JSON.stringify({ ok: await run() }));
} catch (error) {
  console.log(JSON.stringify({ rejected: { name: error?.name, message: String(error?.message ?? error) } }));
}
