/**
 * Logs a person reads in a terminal are human-readable lines; piped into a file or a collector
 * they are JSON; the supervisor's choice reaches its services; a request is a line of its own
 * only at LOG_LEVEL=debug; secrets stay out of both formats.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import express from 'express';
import { requestLogging } from './http/requestLogging.ts';
import { createLogger } from './logger.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(tmpdir(), 'dt-logger-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// A service's first lines, written the way every process creates its logger.
const program = path.join(scratch, 'logs.ts');
writeFileSync(
  program,
  `import { createLogger } from ${JSON.stringify(path.join(import.meta.dirname, 'logger.ts'))};
const logger = createLogger('info', 'api');
logger.info({ port: 3000, password: 'hunter2' }, 'api listening');
logger.warn('setup is pending');
`,
);
const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'DT_LOG_FORMAT'));

test('in a terminal, each entry is one human-readable line: time, level, process, message, fields', async () => {
  // `script` gives the program a real pseudo-terminal as stdout.
  const { stdout } = await run('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(program)}`, '/dev/null'], { env: environment });
  const lines = stdout.replaceAll('\r', '').split('\n').filter(Boolean).map(withoutColours);
  assert.equal(lines.length, 2, stdout);
  assert.match(lines[0]!, /^\[\d\d:\d\d:\d\d\] INFO \(api\): api listening \{"port":3000,"password":"\[redacted\]"\}$/);
  assert.match(lines[1]!, /^\[\d\d:\d\d:\d\d\] WARN \(api\): setup is pending$/);
  assert.ok(!stdout.includes('hunter2'));
});

test('piped, each entry is one JSON object (for log collectors), with secrets redacted', async () => {
  const { stdout } = await run(process.execPath, [program], { env: environment });
  const entries = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(
    entries.map(({ level, name, msg, port, password }) => ({ level, name, msg, port, password })),
    [
      { level: 30, name: 'api', msg: 'api listening', port: 3000, password: '[redacted]' },
      { level: 40, name: 'api', msg: 'setup is pending', port: undefined, password: undefined },
    ],
  );
});

test('the supervisor\'s choice wins over the service\'s own stdout: DT_LOG_FORMAT=pretty through a pipe, json in a terminal', async () => {
  const piped = await run(process.execPath, [program], { env: { ...environment, DT_LOG_FORMAT: 'pretty' } });
  assert.match(withoutColours(piped.stdout.split('\n')[0]!), /^\[\d\d:\d\d:\d\d\] INFO \(api\): api listening/);
  const inTerminal = await run('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(program)}`, '/dev/null'], { env: { ...environment, DT_LOG_FORMAT: 'json' } });
  assert.equal((JSON.parse(inTerminal.stdout.replaceAll('\r', '').split('\n')[0]!) as { msg: string }).msg, 'api listening');
});

async function serveWithRequestLog(level: string): Promise<{ server: Server; baseUrl: string; entries: Record<string, unknown>[] }> {
  const entries: Record<string, unknown>[] = [];
  const logger = createLogger(level, 'api', { write: (line: string) => void entries.push(JSON.parse(line) as Record<string, unknown>) });
  const app = express();
  app.use(requestLogging(logger));
  app.get('/fine', (_req, res) => void res.json({ ok: true }));
  app.get('/missing', (_req, res) => void res.status(404).json({}));
  app.get('/broken', (_req, res) => void res.status(500).json({}));
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, entries };
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50)); // 'finish' fires after the client has the answer
}

test('a request is a line of its own only at LOG_LEVEL=debug; a failure shows at info too', async () => {
  const atInfo = await serveWithRequestLog('info');
  const atDebug = await serveWithRequestLog('debug');
  try {
    for (const { baseUrl } of [atInfo, atDebug]) for (const route of ['/fine', '/missing', '/broken']) await (await fetch(`${baseUrl}${route}?secret=1`)).arrayBuffer();
    await settle();
    assert.deepEqual(
      atInfo.entries.map(({ msg, path, status, level }) => ({ msg, path, status, level })),
      [{ msg: 'request', path: '/broken', status: 500, level: 50 }],
    );
    assert.deepEqual(
      atDebug.entries.map(({ msg, method, path, status, level }) => ({ msg, method, path, status, level })),
      [
        { msg: 'request', method: 'GET', path: '/fine', status: 200, level: 20 },
        { msg: 'request', method: 'GET', path: '/missing', status: 404, level: 20 },
        { msg: 'request', method: 'GET', path: '/broken', status: 500, level: 50 },
      ],
    );
    assert.ok(!JSON.stringify(atDebug.entries).includes('secret'), 'the query string (tokens, search words) is not logged');
  } finally {
    atInfo.server.close();
    atDebug.server.close();
  }
});

function withoutColours(line: string): string {
  return line.replace(/\x1b\[[0-9;]*m/g, '');
}
