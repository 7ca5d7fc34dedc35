import { ContentListQueryDto } from '../../posts/dto/content.dto';

/** `GET /organizers` parameters (contract §5, §5.2). */
export class ListOrganizersQueryDto extends ContentListQueryDto {}
