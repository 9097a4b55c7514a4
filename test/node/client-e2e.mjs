// client-e2e.mjs drives a running Switchboard with the official MCP
// TypeScript SDK client over each transport and prints one line per check:
//
//   ok   http listTools: 3 tools (audit_query, repository_list, status)
//   FAIL sse connect: SSE error: Non-200 status code (404)
//
// It exits 1 when any check fails. test/e2e/node_test.go runs it against the
// real daemon; by hand:
//
//   SB_ENDPOINT=http://127.0.0.1:PORT/mcp SB_TOKEN=sbt_... SB_BIN=bin/switchboard \
//     node test/node/client-e2e.mjs
//
// Environment:
//   SB_ENDPOINT    the Streamable HTTP URL (…/mcp) of the running instance
//   SB_TOKEN       a client token
//   SB_BIN         the switchboard binary (stdio runs `SB_BIN mcp --stdio`)
//   SB_ENV_JSON    optional environment for the stdio bridge: a JSON object
//                  {"K":"V"} or array ["K=V"] (data/runtime dirs, HOME…);
//                  SWITCHBOARD_MCP_TOKEN is set to SB_TOKEN on top of it
//   SB_TRANSPORTS  comma-separated subset of http,sse,stdio (default: all)
//   SB_TIMEOUT_MS  per-request timeout (default 10000)

import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ALL = ['http', 'sse', 'stdio'];
const endpoint = process.env.SB_ENDPOINT ?? '';
const token = process.env.SB_TOKEN ?? '';
const bin = process.env.SB_BIN ?? '';
const timeout = Number(process.env.SB_TIMEOUT_MS || 10000);
const transports = (process.env.SB_TRANSPORTS || ALL.join(','))
  .split(',').map(s => s.trim()).filter(Boolean);

let failed = 0;
let passed = 0;
function ok(tr, step, detail = '') {
  passed++;
  console.log(`ok   ${tr} ${step}${detail ? ': ' + detail : ''}`);
}
function fail(tr, step, why) {
  failed++;
  console.log(`FAIL ${tr} ${step}: ${why}`);
}
function skip(tr, step, why) {
  console.log(`skip ${tr} ${step}: ${why}`);
}
function errText(e) {
  if (!(e instanceof Error)) return String(e);
  const code = e.code !== undefined ? ` (code ${e.code})` : '';
  return `${e.message}${code}`;
}

for (const [k, v] of [['SB_ENDPOINT', endpoint], ['SB_TOKEN', token]]) {
  if (!v) {
    console.log(`FAIL setup: ${k} is not set`);
    process.exit(2);
  }
}
const unknown = transports.filter(t => !ALL.includes(t));
if (unknown.length) {
  console.log(`FAIL setup: unknown transport(s) ${unknown.join(', ')} in SB_TRANSPORTS (want ${ALL.join(',')})`);
  process.exit(2);
}
if (transports.includes('stdio') && !bin) {
  console.log('FAIL setup: SB_BIN is not set (needed for stdio)');
  process.exit(2);
}

// A hung server must not hang the run.
const watchdog = setTimeout(() => {
  console.log(`FAIL watchdog: the run took longer than ${Math.round((timeout * 8) / 1000)} s`);
  process.exit(1);
}, timeout * 8);

const origin = new URL(endpoint).origin;
const auth = `Bearer ${token}`;

// recordingFetch wraps fetch so a failed response's status and body can be
// inspected after the SDK turned it into an exception.
// It also records the Authorization header the SDK sent: the bearer comes
// from requestInit.headers alone, which the SDK merges into the POSTs and,
// for SSE, into the EventSource GET (through eventSourceInit.fetch).
function recordingFetch(seen) {
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    seen.requests.push({ method: init.method ?? 'GET', url: String(url), auth: headers.get('authorization') });
    const res = await fetch(url, init);
    if (!res.ok) {
      seen.failures.push({ status: res.status, body: await res.clone().text().catch(() => '') });
    }
    return res;
  };
}

function newClient() {
  return new Client({ name: 'switchboard-e2e', version: '1.0.0' }, { capabilities: {} });
}

function makeTransport(kind, authValue, seen) {
  const f = recordingFetch(seen);
  switch (kind) {
    case 'http':
      return new StreamableHTTPClientTransport(new URL(endpoint), {
        requestInit: { headers: { Authorization: authValue } },
        fetch: f,
      });
    case 'sse':
      return new SSEClientTransport(new URL('/mcp/sse', origin), {
        requestInit: { headers: { Authorization: authValue } },
        // The EventSource GET goes through eventSourceInit.fetch, with the
        // SDK's merged headers; the POSTs go through fetch.
        eventSourceInit: { fetch: f },
        fetch: f,
      });
    case 'stdio': {
      const env = { ...parseEnv(process.env.SB_ENV_JSON), SWITCHBOARD_MCP_TOKEN: token };
      const t = new StdioClientTransport({ command: bin, args: ['mcp', '--stdio'], env, stderr: 'pipe' });
      seen.stderr = '';
      t.stderr?.on('data', b => { seen.stderr += b.toString(); });
      return t;
    }
  }
  throw new Error(`unknown transport ${kind}`);
}

function parseEnv(raw) {
  if (!raw) return {};
  const v = JSON.parse(raw);
  if (Array.isArray(v)) {
    const out = {};
    for (const kv of v) {
      const i = kv.indexOf('=');
      if (i > 0) out[kv.slice(0, i)] = kv.slice(i + 1);
    }
    return out;
  }
  return v;
}

// textCarries reports whether text holds, somewhere after a short line,
// a JSON value equal to want.
function textCarries(text, want) {
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) {
    try {
      if (isDeepStrictEqual(JSON.parse(text.slice(i)), want)) return true;
    } catch {
      // not JSON from here on
    }
  }
  return false;
}

function stderrTail(seen) {
  const lines = (seen.stderr ?? '').trim().split('\n').filter(Boolean);
  if (!lines.length) return '';
  const shown = lines.length > 6 ? [...lines.slice(0, 3), '…', ...lines.slice(-2)] : lines;
  return ` [stderr: ${shown.join(' | ')}]`;
}

async function runTransport(kind) {
  const seen = { requests: [], failures: [] };
  const client = newClient();
  const steps = ['connect', 'instructions', 'listTools', 'callTool status', 'callTool token_create'];
  let transport;
  try {
    transport = makeTransport(kind, auth, seen);
    await client.connect(transport, { timeout });
    const v = client.getServerVersion();
    const proto = transport.protocolVersion ?? '';
    ok(kind, 'connect', `server ${v?.name} ${v?.version}${proto ? ', protocol ' + proto : ''}`);
  } catch (e) {
    const last = seen.failures.at(-1);
    fail(kind, 'connect', errText(e) + (last ? ` [HTTP ${last.status}: ${last.body.slice(0, 300)}]` : '') + stderrTail(seen));
    for (const s of steps.slice(1)) skip(kind, s, 'not connected');
    await client.close().catch(() => {});
    return;
  }
  try {
    const ins = client.getInstructions() ?? '';
    if (ins.trim()) ok(kind, 'instructions', `${ins.length} chars`);
    else fail(kind, 'instructions', 'initialize returned no instructions');

    try {
      const { tools } = await client.listTools(undefined, { timeout });
      const names = tools.map(t => t.name);
      const problems = [];
      if (!names.includes('status')) problems.push('no status tool');
      if (names.includes('token_create')) problems.push('token_create is listed (it is hidden)');
      const bad = names.filter(n => !/^[a-z][a-z0-9_]*$/.test(n) || n.length > 40);
      if (bad.length) problems.push(`names not matching ^[a-z][a-z0-9_]*$ (≤ 40): ${bad.join(', ')}`);
      if (problems.length) fail(kind, 'listTools', `${problems.join('; ')} (got ${names.join(', ')})`);
      else ok(kind, 'listTools', `${names.length} tools (${names.join(', ')})`);
    } catch (e) {
      fail(kind, 'listTools', errText(e) + stderrTail(seen));
    }

    try {
      const r = await client.callTool({ name: 'status', arguments: {} }, undefined, { timeout });
      const sc = r.structuredContent ?? {};
      const text = r.content?.[0]?.type === 'text' ? r.content[0].text : '';
      const problems = [];
      if (r.isError) problems.push('isError is true');
      if (sc.ok !== true) problems.push(`structuredContent.ok = ${JSON.stringify(sc.ok)}`);
      if (typeof sc.audit_id !== 'string' || !sc.audit_id.startsWith('aud_')) problems.push(`audit_id = ${JSON.stringify(sc.audit_id)}`);
      if (sc.result === undefined) problems.push('structuredContent has no result');
      else if (!textCarries(text, sc.result)) problems.push('content[0].text does not carry the result JSON');
      if (problems.length) fail(kind, 'callTool status', `${problems.join('; ')}: ${JSON.stringify(r).slice(0, 400)}`);
      else ok(kind, 'callTool status', `ok, ${sc.audit_id}`);
    } catch (e) {
      fail(kind, 'callTool status', errText(e) + stderrTail(seen));
    }

    try {
      const r = await client.callTool({ name: 'token_create', arguments: {} }, undefined, { timeout });
      const sc = r.structuredContent ?? {};
      const problems = [];
      if (r.isError !== true) problems.push(`isError = ${JSON.stringify(r.isError)}`);
      if (sc.error !== 'tool_hidden') problems.push(`structuredContent.error = ${JSON.stringify(sc.error)}`);
      if (typeof sc.audit_id !== 'string' || !sc.audit_id.startsWith('aud_')) problems.push(`audit_id = ${JSON.stringify(sc.audit_id)}`);
      if (problems.length) fail(kind, 'callTool token_create', `${problems.join('; ')}: ${JSON.stringify(r).slice(0, 400)}`);
      else ok(kind, 'callTool token_create', `tool_hidden, ${sc.audit_id}`);
    } catch (e) {
      fail(kind, 'callTool token_create', errText(e) + stderrTail(seen));
    }

    // Every request, the EventSource GET included, carried the bearer.
    const bare = seen.requests.filter(r => r.auth !== auth);
    if (kind !== 'stdio') {
      if (bare.length) fail(kind, 'bearer on every request', bare.map(r => `${r.method} ${r.url}`).join(', '));
      else ok(kind, 'bearer on every request', `${seen.requests.length} requests`);
    }
  } finally {
    await client.close().catch(() => {});
  }
}

// badToken connects with a well-formed token that does not exist (the real
// key id, another secret) and expects a 401 carrying the denial code.
async function badToken(kind) {
  const keyid = token.split('_')[1] ?? '0000000000000000';
  const wrong = `sbt_${keyid}_${'A'.repeat(43)}`;
  const seen = { requests: [], failures: [] };
  const client = newClient();
  try {
    await client.connect(makeTransport(kind, `Bearer ${wrong}`, seen), { timeout });
    fail(kind, 'bad token', 'connected with a token that does not exist');
    return;
  } catch (e) {
    const got = seen.failures.find(f => f.status === 401);
    if (!got) {
      fail(kind, 'bad token', `no 401 response (${errText(e)}; responses: ${seen.failures.map(f => f.status).join(', ') || 'none failed'})`);
      return;
    }
    let code;
    try {
      code = JSON.parse(got.body)?.error?.data?.code;
    } catch {
      // checked below
    }
    if (code === 'token_invalid' || code === 'token_malformed') ok(kind, 'bad token', `401 ${code}`);
    else fail(kind, 'bad token', `401 body has error.data.code ${JSON.stringify(code)}: ${got.body.slice(0, 300)}`);
  } finally {
    await client.close().catch(() => {});
  }
}

for (const kind of transports) {
  await runTransport(kind);
  if (kind === 'http' || kind === 'sse') await badToken(kind);
}
clearTimeout(watchdog);
console.log(`${passed + failed} checks, ${failed} failed (transports: ${transports.join(',')})`);
process.exit(failed ? 1 : 0);
