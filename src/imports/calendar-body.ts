import type { Readable } from 'node:stream';
import type { IcalImportParser } from './ical-import-parser';

/**
 * Streams an uploaded calendar into the parser chunk by chunk. Once the body
 * passes the parser's size limit the rest is read and dropped unparsed (so
 * the answer can still be sent on the connection): `too_large`. Rejects when
 * the client goes away before the end.
 */
export function streamInto(
  body: Readable,
  parser: IcalImportParser,
): Promise<'read' | 'too_large'> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (outcome: 'read' | 'too_large' | Error) => {
      if (done) return;
      done = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      if (outcome instanceof Error) return reject(outcome);
      if (outcome === 'too_large') {
        // Dropped as it arrives: a 50 MB body never sits in memory.
        body.on('error', () => undefined);
        body.resume();
      }
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      parser.push(chunk);
      if (parser.refusedForSize) finish('too_large');
    };
    const onEnd = () => finish('read');
    const onError = (error: Error) => finish(error);
    const onClose = () => finish(new Error('the client closed the connection mid-body'));
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
    body.once('close', onClose);
  });
}
