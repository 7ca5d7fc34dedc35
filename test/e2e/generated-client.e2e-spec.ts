import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/*
 * A TypeScript client generated from the live {api}/doc by openapi-typescript,
 * used through openapi-fetch as an integrator would (test/client/tour.ts):
 * the tour must compile against the generated types and then run against the
 * service. The generated file goes to test/client/.generated/ (git-ignored).
 */

const ROOT = resolve(__dirname, '../..');
const CLIENT_DIR = join(ROOT, 'test/client');
const GENERATED = join(CLIENT_DIR, '.generated');

function generateTypes(doc: unknown): void {
  mkdirSync(GENERATED, { recursive: true });
  const input = join(GENERATED, 'openapi.json');
  writeFileSync(input, JSON.stringify(doc, null, 2));
  const run = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
      input,
      '--output',
      join(GENERATED, 'calendar-api.ts'),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`openapi-typescript failed:\n${run.stdout}${run.stderr}`);
}

/** Type errors of the tour against the generated types, one line each. */
function compileErrors(): string[] {
  const program = ts.createProgram([join(CLIENT_DIR, 'tour.ts')], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file
      ? `${d.file.fileName.slice(ROOT.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
      : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('a client generated from /doc', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}${API}`;
    generateTypes((await t.http().get(`${API}/doc`).expect(200)).body);
  }, 120000);
  afterAll(() => t?.close());

  it('compiles the tour with strict type checks', () => {
    expect(compileErrors()).toEqual([]);
  }, 120000);

  it('creates, reads, lists with filters and meets errors through the generated client', async () => {
    // Loaded here: the generated types exist only now (ts-jest compiles without them).
    const tourFile = join(CLIENT_DIR, 'tour');
    const { tour } = (await import(tourFile)) as {
      tour: (baseUrl: string, token: string) => Promise<Record<string, unknown>>;
    };
    const token = t.auth.editor.replace(/^Bearer /, '');
    const result = await tour(baseUrl, token);
    expect(result.event).toMatchObject({
      id: 1,
      title: 'Jazz in het park',
      start_date: '2030-06-01 20:00:00',
      end_date: '2030-06-01 23:00:00',
      image: { id: null, url: 'https://example.org/poster.jpg', extension: 'jpg' },
      organizer: [
        expect.objectContaining({ organizer: 'Stichting Jazz', email: 'info@jazz.example' }),
      ],
      categories: [expect.objectContaining({ name: 'Jazz' })],
    });
    expect(result.location).toBe(`${baseUrl}/events/1`);
    expect(result.read).toEqual({
      id: 1,
      title: 'Jazz in het park',
      venue: expect.objectContaining({
        id: 1,
        venue: 'Paradiso',
        city: 'Amsterdam',
        geo_lat: 52.36,
      }),
      cost: {
        currency_symbol: '€',
        currency_code: 'EUR',
        currency_position: 'prefix',
        values: [12.5],
      },
    });
    expect(result.bySlugId).toBe(1);
    expect(result.list).toEqual({ ids: [1], total: 1, xTotal: '1' });
    expect(result.errors).toEqual([
      { status: 404, code: 'rest-event-not-found', params: undefined },
      { status: 400, code: 'rest_invalid_param', params: { start_date: expect.any(String) } },
      { status: 401, code: 'rest_forbidden', params: undefined },
    ]);
    // The same error bodies as every other test asserts.
    expect((await t.http().get(`${API}/events/999`).expect(404)).body).toEqual(
      errorBody('rest-event-not-found', 404),
    );
  });
});
