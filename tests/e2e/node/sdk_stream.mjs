// The official Codex TypeScript SDK's event stream for one turn (runStreamed), with the Codex
// config the caller gives. Usage: node sdk_stream.mjs '<json>' with {sdk, tether, baseUrl, config,
// cwd, prompt, threadOptions}; prints {ok: {events}} or {rejected}.

const params = JSON.parse(process.argv[2]);
const { Codex } = await import(params.sdk);
const codex = new Codex({
  codexPathOverride: params.tether,
  baseUrl: params.baseUrl,
  apiKey: "sk-node-sdk",
  config: params.config,
});

try {
  const thread = codex.startThread({ workingDirectory: params.cwd, ...(params.threadOptions ?? {}) });
  const { events } = await thread.runStreamed(params.prompt);
  const seen = [];
  for await (const event of events) seen.push(event);
  console.log(JSON.stringify({ ok: { events: seen } }));
} catch (error) {
  console.log(JSON.stringify({ rejected: { name: error?.name, message: String(error?.message ?? error) } }));
}
