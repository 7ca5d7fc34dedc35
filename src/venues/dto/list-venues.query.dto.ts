import { ContentListQueryDto } from '../../posts/dto/content.dto';

/** `GET /venues` parameters (contract §5, §5.2). */
export class ListVenuesQueryDto extends ContentListQueryDto {}
