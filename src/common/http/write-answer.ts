import { recordTag } from './record-tag';

/** A write's answer: the record, its ETag, and the bytes `res.json` would send for it. */
export interface WriteAnswer<R> {
  answer: R;
  etag: string;
  bytes: Buffer;
}

const JSON_LD_KEY = Buffer.from(',"json_ld":');
const CLOSING_BRACE = 0x7d;

/**
 * A write's answer and its ETag from the record a GET would show right after
 * it (read at the end of the write's transaction): the tag hashes that record,
 * the answer is the same record without its JSON-LD, which only a GET shows.
 *
 * Each part is serialized once: a record's JSON-LD is its last key, so the
 * GET's bytes are the answer's bytes with `,"json_ld":…` before the closing
 * brace. They are laid out in one buffer, hashed, and the answer is its
 * first part, closed again (before, the record was serialized for the tag
 * and the answer a second time by `res.json`: docs/performance.md, Writes).
 */
export function writeAnswer<R extends { json_ld?: unknown }>(record: R): WriteAnswer<R> {
  const { json_ld: jsonLd, ...rest } = record;
  const answer = rest as R;
  const answerText = JSON.stringify(answer);
  if (jsonLd === undefined || answerText === '{}' || Object.keys(record).at(-1) !== 'json_ld') {
    // No JSON-LD, nothing before it, or not last: the record serialized on its own for the tag.
    const bytes = Buffer.from(answerText, 'utf8');
    return { answer, etag: recordTag(jsonLd === undefined ? bytes : record), bytes };
  }
  // One buffer laid out as the GET's bytes: the answer without its `}`, the key, the value, `}`.
  const jsonLdText = JSON.stringify(jsonLd);
  const answerLength = Buffer.byteLength(answerText, 'utf8');
  const whole = Buffer.allocUnsafe(
    answerLength - 1 + JSON_LD_KEY.length + Buffer.byteLength(jsonLdText, 'utf8') + 1,
  );
  let at = whole.write(answerText, 0, 'utf8') - 1;
  at += JSON_LD_KEY.copy(whole, at);
  at += whole.write(jsonLdText, at, 'utf8');
  whole[at] = CLOSING_BRACE;
  const etag = recordTag(whole);
  // Hashed: the GET's comma before `"json_ld"` becomes the answer's closing brace again.
  whole[answerLength - 1] = CLOSING_BRACE;
  return { answer, etag, bytes: whole.subarray(0, answerLength) };
}
