import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/*
 * What the bench, the soak and the tests that start the service as a real
 * process share: a free port, the built entry point, a process's memory.
 */

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The TCP ports a process listens on, read from Linux's /proc: the inodes of
 * its sockets (/proc/<pid>/fd) among the LISTEN rows of its network
 * namespace's tcp and tcp6 tables. Lets a child bind PORT=0 and be found on
 * the port it got, where a port from freePort could be taken by another
 * process before the child binds it. Undefined without /proc (not Linux).
 */
export function listeningPorts(pid: number): number[] | undefined {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  const inodes = new Set<string>();
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // The descriptor was closed between the listing and the read.
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let rows: string[];
    try {
      rows = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1);
    } catch {
      continue; // No IPv6 in this kernel.
    }
    for (const row of rows) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = row.trim().split(/\s+/);
      const LISTEN = '0A';
      if (fields[3] === LISTEN && inodes.has(fields[9]))
        ports.add(parseInt(fields[1].split(':')[1], 16));
    }
  }
  return [...ports];
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * dist/main.js, built with `npm run build` first when it is missing (a clean
 * checkout) or older than anything in src/, so nothing measures stale code.
 * The build's output goes to stderr: stdout keeps the report.
 */
export function ensureBuilt(root: string, log: (line: string) => void): string {
  const entry = join(root, 'dist/main.js');
  const missing = !existsSync(entry);
  if (missing || newestMtime(join(root, 'src')) > statSync(entry).mtimeMs) {
    log(`dist/main.js is ${missing ? 'missing' : 'older than src/'}: running npm run build`);
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
    if (!existsSync(entry)) throw new Error('npm run build did not produce dist/main.js');
  }
  return entry;
}

/** VmRSS of a process in MB, or undefined once it is gone. */
export function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of a Node process so far in nanoseconds' precision: the sum of
 * its threads' on-CPU time (/proc/<pid>/task/<tid>/schedstat), where rounds of
 * a second or two would lose several per cent to cpuSeconds' 10 ms ticks.
 * Threads that ended are not counted (Node's live as long as the process):
 * not for processes that start and end threads, such as a database server.
 * Falls back to cpuSeconds where the kernel keeps no schedstat.
 */
export function threadCpuSeconds(pid: number): number | undefined {
  try {
    let nanoseconds = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        nanoseconds += Number(
          readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0],
        );
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    return nanoseconds > 0 ? nanoseconds / 1e9 : cpuSeconds(pid);
  } catch {
    return cpuSeconds(pid);
  }
}

/** User + system CPU seconds of a process so far (/proc/<pid>/stat, 100 ticks a second), or undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
