import { IntersectionType } from '@nestjs/swagger';
import { LanguageQueryDto } from '../../common/dto/language-query.dto';
import { PageQueryDto } from '../../common/pagination/page-query.dto';

/** `page`, `per_page` and `language`: the webhooks list and a deliveries log. */
export class ListWebhooksQueryDto extends IntersectionType(PageQueryDto, LanguageQueryDto) {}
