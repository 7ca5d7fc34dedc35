import { IdempotencyStore } from '../../src/idempotency/idempotency.store';
import { TermsService } from '../../src/terms/terms.service';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/*
 * A create that outlives REQUEST_TIMEOUT_MS: the client gets 503, the write
 * still commits with its key, so a retry with the key gets 409 while it runs
 * and then the create's record as its answer, never a second create
 * (docs/api.md §13).
 */
describe('idempotent POST after a request time-out', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Also every statement's time limit (the harness's TRUNCATEs included): 300 ms failed
    // statements on a loaded MariaDB. The create outlives it because the test holds it.
    t = await createTestApp({ REQUEST_TIMEOUT_MS: '5000' });
  });
  afterAll(() => t?.close());

  const create = () =>
    t
      .http()
      .post(`${API}/categories`)
      .set('Host', 'api.test')
      .set('Authorization', t.auth.editor)
      .set('Idempotency-Key', 'slow-create')
      .send({ name: 'Traag' });

  it('answers 503, then 409 while the create runs, then replays its 201; one record', async () => {
    const terms = t.app.get(TermsService);
    const realCreate = terms.create.bind(terms);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Settles as the create does.
    let createdAs!: (create: Promise<unknown>) => void;
    const created = new Promise<unknown>((resolve) => (createdAs = resolve));
    jest.spyOn(terms, 'create').mockImplementationOnce(async (...args) => {
      // Runs past REQUEST_TIMEOUT_MS until the test lets it go on.
      await held;
      const create = realCreate(...args);
      createdAs(create);
      return create;
    });
    // The retry waits for the interceptor to be done with the key (its answer stored, or the
    // key's lease ended so the retry renders the committed record), not for a fixed time: a
    // commit on a loaded MariaDB can take longer than any such time.
    const store = t.app.get(IdempotencyStore);
    let doneAs!: (ending: Promise<void>) => void;
    const done = new Promise<void>((resolve) => (doneAs = resolve));
    const realStore = store.store.bind(store);
    jest.spyOn(store, 'store').mockImplementationOnce((...args) => {
      const ending = realStore(...args);
      doneAs(ending);
      return ending;
    });
    const realRelease = store.release.bind(store);
    jest.spyOn(store, 'release').mockImplementationOnce((...args) => {
      const ending = realRelease(...args);
      doneAs(ending);
      return ending;
    });
    const first = await create();
    expect(first.status).toBe(503);
    expect(first.body).toEqual(errorBody('rest_service_unavailable', 503));
    const during = await create().expect(409);
    expect(during.body).toEqual(errorBody('rest_idempotency_key_in_use', 409));
    release();
    await created;
    await done;
    const retry = await create().expect(201);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    expect(retry.body).toEqual(expect.objectContaining({ name: 'Traag' }));
    const list = await t.http().get(`${API}/categories?hide_empty=false`).expect(200);
    expect(list.headers['x-total']).toBe('1');
  });
});
