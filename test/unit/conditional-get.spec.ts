import express from 'express';
import request from 'supertest';
import { conditionalGet } from '../../src/common/http/conditional-get';

/*
 * A JSON answer is encoded to UTF-8 once, hashed for its ETag and sent as
 * those bytes: `send` must get a Buffer, not the text it would encode again
 * (Express 5's res.json sets `application/json; charset=utf-8` itself, which
 * once made this path dead without any test noticing).
 */
describe('conditionalGet: JSON answers', () => {
  it('hashes and sends the bytes of res.json, with the headers Express would send', async () => {
    const sent: unknown[] = [];
    const app = express();
    app.use((_req, res, next) => {
      const send = res.send.bind(res);
      res.send = ((body?: unknown) => {
        sent.push(body);
        return send(body);
      }) as typeof res.send;
      next();
    });
    app.use(conditionalGet);
    const body = { title: 'Café — €12', list: [1, 2] };
    app.get('/json', (_req, res) => void res.json(body));

    const response = await request(app).get('/json').expect(200);
    const text = JSON.stringify(body);
    expect(response.text).toBe(text);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(text));
    // Worked out with `openssl dgst -sha256 -binary | basenc --base64url | cut -c1-27`.
    expect(response.headers.etag).toBe('"8ryfUxKkfybRzAxf-VzaONyeYZp"');
    // What reached Express's own send (wrapped by conditionalGet) was a Buffer.
    expect(sent.map((item) => (Buffer.isBuffer(item) ? 'bytes' : typeof item))).toEqual(['bytes']);
  });
});
