import type { Schema } from './headers';

/**
 * HEAD of every GET route: the GET's status, headers and parameters, no body
 * (RFC 9110 §9.3.2; Express answers HEAD with the GET handler).
 */
export function headOf(get: Schema): Schema {
  const responses: Schema = {};
  for (const [status, response] of Object.entries(get.responses as Schema)) {
    responses[status] = response.$ref
      ? headOfReference(response.$ref as string)
      : withoutBody(response as Schema);
  }
  return {
    ...get,
    operationId: `${get.operationId}_head`,
    summary: get.summary ? `${get.summary} (headers only)` : undefined,
    responses,
  };
}

/** The error responses are shared components; HEAD's point at their bodiless twins. */
function headOfReference(ref: string): Schema {
  return { $ref: `${ref}Head` };
}

function withoutBody(response: Schema): Schema {
  const { content: _content, ...rest } = response;
  return rest;
}

/** `ErrorNNNHead`: the error response of a HEAD, its headers without the body. */
export function headErrorResponses(responses: Record<string, Schema>): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(responses)
      .filter(([name]) => /^Error\d{3}$/.test(name))
      .map(([name, response]) => [`${name}Head`, withoutBody(response)]),
  );
}
