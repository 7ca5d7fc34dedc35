import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { POST_STATUSES } from '../../auth/policy';
import { LANGUAGES } from '../../i18n/language';
import { ImageDto } from '../../common/dto/image.dto';

/*
 * Property decorators for the record schemas of /doc, where the CLI plugin
 * cannot infer the type from TypeScript (unions with false, maps).
 */

export const ApiImageProperty = () =>
  ApiProperty({
    description: 'The featured image, or false when there is none.',
    oneOf: [{ $ref: getSchemaPath(ImageDto) }, { type: 'boolean', enum: [false] }],
  });

/** `external_id` (docs/api.md §17); its object schema is written in by finishOpenApi (fixSchemas). */
export const ApiExternalKeyProperty = (required = true) =>
  (required ? ApiProperty : ApiPropertyOptional)({
    type: 'object',
    nullable: true,
    additionalProperties: false,
  });

export const ApiStatusProperty = () => ApiProperty({ enum: POST_STATUSES });

export const ApiLanguageProperty = () =>
  ApiProperty({
    enum: LANGUAGES,
    description:
      'The language of the texts shown (the fallback when the requested one is missing).',
  });

export const ApiLanguagesProperty = () =>
  ApiProperty({
    enum: LANGUAGES,
    isArray: true,
    description: 'The languages the record has texts in.',
  });

export const ApiJsonLdProperty = () =>
  ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'schema.org JSON-LD; single reads only.',
  });

export const ApiTranslationsProperty = () =>
  ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
    description: 'context=edit by a caller who may edit the record: each language’s texts.',
  });
