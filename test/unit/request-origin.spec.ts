import express, { Request } from 'express';
import request from 'supertest';
import { requestOrigin, requestProtocol } from '../../src/common/http/request-origin';

/** An app with the service's `trust proxy` setting that answers both readings of the scheme. */
function app(trust: string | false) {
  const server = express();
  server.set('trust proxy', trust);
  server.get('/', (req: Request, res) =>
    res.json({ ours: requestProtocol(req), express: req.protocol, origin: requestOrigin(req) }),
  );
  return server;
}

describe('requestProtocol', () => {
  const trusted = 'loopback, linklocal, uniquelocal';

  it('answers the socket scheme when no X-Forwarded-Proto is sent, as req.protocol does', async () => {
    const { body } = await request(app(trusted)).get('/').set('Host', 'calendar.test').expect(200);
    expect(body).toEqual({ ours: 'http', express: 'http', origin: 'http://calendar.test' });
  });

  it('takes X-Forwarded-Proto from a trusted proxy (the test client is on loopback)', async () => {
    const { body } = await request(app(trusted))
      .get('/')
      .set('Host', 'calendar.test')
      .set('X-Forwarded-Proto', 'https, http')
      .expect(200);
    expect(body).toEqual({ ours: 'https', express: 'https', origin: 'https://calendar.test' });
  });

  it('ignores X-Forwarded-Proto from a peer it does not trust', async () => {
    const { body } = await request(app(false))
      .get('/')
      .set('X-Forwarded-Proto', 'https')
      .expect(200);
    expect(body.ours).toBe('http');
    expect(body.express).toBe('http');
  });
});
