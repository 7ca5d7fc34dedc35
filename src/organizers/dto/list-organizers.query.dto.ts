import { ContentListQueryDto } from '../../posts/dto/content.dto';

/** `GET /organizers` parameters (docs/api.md §5, §5.2). */
export class ListOrganizersQueryDto extends ContentListQueryDto {}
