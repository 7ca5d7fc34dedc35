import { takeViolations } from '../helpers/openapi-responses';

/* Every e2e test fails when one of its responses is not as /doc declares it. */

function failOnViolations(when: string): void {
  const violations = takeViolations();
  if (violations.length === 0) return;
  const distinct = [...new Set(violations)];
  const shown = distinct.slice(0, 20);
  throw new Error(
    `${violations.length} response(s) ${when} differ from /doc:\n  ${shown.join('\n  ')}` +
      (distinct.length > shown.length ? `\n  … and ${distinct.length - shown.length} more` : ''),
  );
}

beforeEach(() => failOnViolations('before this test (in beforeAll or a previous hook)'));
afterEach(() => failOnViolations('of this test'));
afterAll(() => failOnViolations('after the last test (in afterAll)'));
