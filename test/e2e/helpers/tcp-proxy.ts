import { AddressInfo, createConnection, createServer, Server, Socket } from 'node:net';

interface Link {
  client: Socket;
  upstream?: Socket;
  frozen: boolean;
}

/**
 * A TCP proxy between the service and its database, for fault tests. Loopback only.
 * - `cut()`: every connection is reset and new ones are refused (the listener
 *   closes: ECONNREFUSED), like a crashed or restarting server;
 * - `freeze()`: connections stay open but nothing flows, and new connections
 *   are accepted but never answered, like a network partition (half-open
 *   sockets: only the client's own timeouts end the wait);
 * - `restore()`: forwards again, on the same port. Connections held during a
 *   freeze are reset, or with `{ keepFrozen: true }` stay open and silent for
 *   ever (a peer that vanished without a reset), so only new connections work.
 */
export class TcpProxy {
  private server?: Server;
  private readonly links = new Set<Link>();
  private replyLoss?: { statement: string; done: () => void };
  private state: 'open' | 'cut' | 'frozen' = 'open';
  /** Connections accepted since start. */
  accepted = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    public port = 0,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await proxy.listen();
    return proxy;
  }

  get mode(): 'open' | 'cut' | 'frozen' {
    return this.state;
  }

  /** The number of open client connections (frozen ones included). */
  get openConnections(): number {
    return this.links.size;
  }

  async cut(): Promise<void> {
    this.state = 'cut';
    for (const link of [...this.links]) this.drop(link);
    await this.stopListening();
  }

  /**
   * The next MySQL text statement exactly `statement` (e.g. `COMMIT`) that the
   * service sends reaches the database, but its reply never comes back: the
   * service's connection is reset as the statement is forwarded, while the
   * database side is closed gently a little later (so it still executes it).
   * Resolves when that happened.
   */
  loseReplyTo(statement: string): Promise<void> {
    return new Promise((resolve) => {
      this.replyLoss = { statement, done: resolve };
    });
  }

  freeze(): void {
    this.state = 'frozen';
    for (const link of this.links) this.freezeLink(link);
  }

  async restore(options: { keepFrozen?: boolean } = {}): Promise<void> {
    if (!options.keepFrozen) {
      for (const link of [...this.links]) if (link.frozen) this.drop(link);
    }
    this.state = 'open';
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    this.state = 'cut';
    for (const link of [...this.links]) this.drop(link);
    await this.stopListening();
  }

  private freezeLink(link: Link): void {
    link.frozen = true;
    link.client.pause();
    link.upstream?.pause();
  }

  private drop(link: Link): void {
    if (!this.links.delete(link)) return;
    // resetAndDestroy sends RST, as a crashed server's host would; destroy() alone sends FIN.
    link.client.resetAndDestroy();
    link.upstream?.destroy();
  }

  private accept(client: Socket): void {
    this.accepted++;
    const link: Link = { client, frozen: false };
    this.links.add(link);
    client.on('error', () => this.drop(link));
    client.on('close', () => this.drop(link));
    if (this.state !== 'open') {
      // Accepted during a freeze: never answered (a cut closes the listener instead).
      this.freezeLink(link);
      return;
    }
    const upstream = createConnection(this.target);
    link.upstream = upstream;
    upstream.on('error', () => this.drop(link));
    upstream.on('close', () => this.drop(link));
    // Forwarded by hand (not piped) so that a freeze also stops data already read.
    client.on('data', (chunk: Buffer) => {
      if (link.frozen) return;
      const loss = this.replyLoss;
      // A COM_QUERY packet: 3-byte length, sequence number, 0x03, the statement.
      if (
        loss &&
        chunk.length > 5 &&
        chunk[4] === 3 &&
        chunk.subarray(5).toString() === loss.statement
      ) {
        this.replyLoss = undefined;
        this.links.delete(link);
        link.frozen = true;
        upstream.write(chunk, () => setTimeout(() => upstream.end(), 200));
        client.resetAndDestroy();
        loss.done();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!link.frozen) client.write(chunk);
    });
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = createServer((socket) => this.accept(socket));
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        this.port = (server.address() as AddressInfo).port;
        this.server = server;
        resolve();
      });
    });
  }

  private stopListening(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
