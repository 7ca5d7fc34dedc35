import { createServer, Server } from 'node:net';
import { listeningPorts } from '../../scripts/shared/process-tools';

/** The ports a process listens on, as the process-based e2e suites find their child's. */
describe('listeningPorts', () => {
  const onLinux = process.platform === 'linux' ? it : it.skip;

  onLinux('finds a port this process bound with port 0, and drops it once closed', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    expect(listeningPorts(process.pid)).toContain(port);
    await new Promise((resolve) => server.close(resolve));
    expect(listeningPorts(process.pid)).not.toContain(port);
  });

  it('answers undefined for a process that is not there', () => {
    expect(listeningPorts(2 ** 30)).toBeUndefined();
  });
});
