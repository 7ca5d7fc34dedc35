import { ApiProperty } from '@nestjs/swagger';

/** What one operation answered, as it would have alone. */
export class BatchResultDto {
  /** Its HTTP status; 424 for an operation of an atomic batch that failed because another did. */
  @ApiProperty({ type: 'integer', example: 201 })
  status: number;

  /**
   * The headers a client needs of its answer, by lower-case name: `etag`,
   * `location`, `last-modified`, `content-location`, `retry-after`,
   * `www-authenticate`, `idempotency-replayed`.
   */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { location: 'https://example.org/calendar/events/v1/events/7', etag: '"q3Jq0n3H"' },
  })
  headers: Record<string, string>;

  /** Its JSON body (a record, a deletion's answer or an error body, ErrorBodyDto); null when it had none. */
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  body: Record<string, unknown> | null;
}

/** The answer of `POST {api}/batch` (docs/api.md §18). */
export class BatchAnswerDto {
  /** Whether the batch was atomic. */
  atomic: boolean;

  /**
   * Atomic batches: the index (from 0) of the operation whose failure rolled
   * the batch back, or null when every operation committed. Always null
   * otherwise (each result tells how its operation went).
   */
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, example: null })
  failed_operation: number | null;

  /** One per operation, in the order sent. */
  @ApiProperty({ type: [BatchResultDto] })
  results: BatchResultDto[];
}
