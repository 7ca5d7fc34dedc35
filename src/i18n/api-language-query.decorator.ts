import { ApiQuery } from '@nestjs/swagger';
import { LANGUAGES } from './language';

/**
 * Documents the `language` query parameter every route accepts (docs/api.md §2)
 * on each operation of a controller. The parameter is resolved by
 * LanguageMiddleware and rejected when unsupported by the Ctx decorator, so
 * handlers need no parameter for it. Query DTOs that declare `language`
 * (LanguageQueryDto) document the same parameter; the two are merged.
 */
export const ApiLanguageQuery = () =>
  ApiQuery({
    name: 'language',
    required: false,
    enum: [...LANGUAGES],
    description: 'Language of texts and messages; else Accept-Language, else DEFAULT_LANGUAGE.',
  });
