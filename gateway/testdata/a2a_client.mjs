// Drives a swarmwage gateway with the real A2A client, @a2a-js/sdk (pinned
// in package-lock.json): card discovery, SendMessage, streaming, GetTask,
// CancelTask. gateway_js_test.go runs it and checks what it prints: one
// JSON object per step, on its own line.
//
//   node a2a_client.mjs BASE_URL TOKEN MEAN_CAP SLOW_CAP
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role, taskStateToJSON } from '@a2a-js/sdk';

const [base, token, meanCap, slowCap] = process.argv.slice(2);

// The bearer token goes on every call through the transport's fetch.
const fetchImpl = (url, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${token}`);
  return fetch(url, { ...init, headers });
};

const print = (step, value) => console.log(JSON.stringify({ step, ...value }));

const message = (capability, input, maxPrice) => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'data', value: { capability, input, max_price: maxPrice } }, filename: '', mediaType: 'application/json' }],
  extensions: [],
  referenceTaskIds: [],
});

const dataParts = (parts) => Object.fromEntries(
  (parts ?? []).filter((p) => p.content?.$case === 'data').map((p) => [p.metadata?.name ?? 'data', p.content.value]));

const stageOf = (status) => dataParts(status?.message?.parts).status?.stage;

const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl })],
}));

// Card discovery: the factory fetches /.well-known/agent-card.json.
const client = await factory.createFromUrl(base);
const card = await client.getAgentCard();
print('card', {
  name: card.name,
  interfaces: card.supportedInterfaces,
  streaming: card.capabilities?.streaming,
  skills: card.skills.map((s) => s.id),
  schemes: Object.keys(card.securitySchemes ?? {}),
  protocolVersion: client.protocolVersion,
});

// SendMessage, blocking: the task comes back done.
const task = await client.sendMessage({ message: message(meanCap, { data: [1, 2, 3, 4] }, '0.1') });
const art = task.artifacts?.[0];
print('send', {
  id: task.id,
  state: taskStateToJSON(task.status.state),
  artifact: art ? dataParts(art.parts) : null,
});

// GetTask.
const got = await client.getTask({ id: task.id });
print('get', { id: got.id, state: taskStateToJSON(got.status.state) });

// Streaming: every event as it comes.
const events = [];
for await (const ev of client.sendMessageStream({ message: message(meanCap, { data: [2, 4] }, '0.1') })) {
  const p = ev.payload;
  if (p.$case === 'task') events.push({ kind: 'task', state: taskStateToJSON(p.value.status.state) });
  if (p.$case === 'statusUpdate') events.push({ kind: 'status', state: taskStateToJSON(p.value.status.state), stage: stageOf(p.value.status) });
  if (p.$case === 'artifactUpdate') events.push({ kind: 'artifact', output: dataParts(p.value.artifact.parts).output });
}
print('stream', { events });

// CancelTask: a slow job, cancelled once its price is held.
let slowId = '';
let cancelled = null;
for await (const ev of client.sendMessageStream({ message: message(slowCap, { expression: 'pi', precision: 2 }, '0.1') })) {
  const p = ev.payload;
  if (p.$case === 'task') slowId = p.value.id;
  if (p.$case === 'statusUpdate' && stageOf(p.value.status) === 'lock') {
    cancelled = await client.cancelTask({ id: slowId });
    break;
  }
}
const after = await client.getTask({ id: slowId });
print('cancel', {
  id: slowId,
  cancelState: cancelled ? taskStateToJSON(cancelled.status.state) : null,
  state: taskStateToJSON(after.status.state),
});
